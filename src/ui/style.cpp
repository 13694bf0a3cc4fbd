// style.cpp — fonts and style: the atlas for a UI scale and pixel ratio (setup_style), the glyph
// ranges it bakes (scripts/ui_font_subset.py reads them from this file), and the high-contrast colours.
#include <algorithm>
#include <cmath>

#include "app.h"
#include "imgui.h"

namespace attnlab {

void set_ui_scale(App& app, float scale) {
  if (!std::isfinite(scale)) return;
  app.ui.ui_scale = app.ui.ui_scale_edit = std::clamp(scale, 0.75f, 3.0f);
  app.fonts_dirty = true;  // the shell rebuilds the fonts before the next frame
}

void setup_style(App& app, const void* ttf, int ttf_size, float ui_scale) {
  app.ui.ui_scale = app.ui.ui_scale_edit = std::clamp(ui_scale, 0.6f, 3.0f);  // (the desktop's --scale may say 0.6)
  app.style_scale = app.ui.ui_scale * app.dpi_scale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // kUiGlyphRanges: what the atlas bakes, and what scripts/ui_font_subset.py keeps of DejaVu Sans at
  // build time (it reads these lines): a character added here is added to the font too.
  static const ImWchar ranges[] = {
      0x0020, 0x024F,  // Latin, Latin-1, Latin Extended-A/B
      0x0370, 0x03FF,  // Greek (τ, Σ)
      0x0400, 0x04FF,  // Cyrillic
      0x1D40, 0x1D40,  // ᵀ
      0x2010, 0x205E,  // punctuation (·, …, —)
      0x2070, 0x209F,  // super- and subscripts
      0x2190, 0x21FF,  // arrows
      0x2200, 0x22FF,  // mathematical operators (−, ∞, √, ∑)
      0x25A0, 0x25FF,  // geometric shapes
      0x2713, 0x2717,  // check marks and crosses (the tour's ✓)
      0xFFFD, 0xFFFD,  // replacement character
      0,
  };
  if (ttf && ttf_size > 0) {
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;
    cfg.OversampleH = 2;
    io.Fonts->AddFontFromMemoryTTF(const_cast<void*>(ttf), ttf_size, std::round(16.0f * app.style_scale), &cfg, ranges);
    merge_cjk_font(app, std::round(16.0f * app.style_scale));
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * app.style_scale);
    io.Fonts->AddFontDefault(&cfg);
  }
  // Presenter mode's type: 26 CSS px (× the pixel ratio) whatever the UI scale, so numbers in cells
  // stay legible from the back of a room and the big matrices still fit a 1280×720 projector. Baked
  // only while presenter mode is on (end_frame asks for it): it is more than half the atlas, and the
  // first frame of every page load would wait for it.
  app.big_font = nullptr;
  if (app.ui.presenter && ttf && ttf_size > 0) {
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;
    app.big_font = io.Fonts->AddFontFromMemoryTTF(const_cast<void*>(ttf), ttf_size, std::round(26.0f * app.dpi_scale), &cfg, ranges);
    merge_cjk_font(app, std::round(26.0f * app.dpi_scale));
  } else if (app.ui.presenter) {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(26.0f * app.dpi_scale);
    app.big_font = io.Fonts->AddFontDefault(&cfg);
  }
  io.Fonts->Build();
  app.labels_version = ~0ull;  // what the new atlas can draw changes the token labels
  // Keyboard: arrows move between controls, Space/Enter press them, Tab cycles the fields (ImGui 1.86
  // navigation). Windows move only by their title bars, so a finger dragging a panel scrolls it.
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.ConfigWindowsMoveFromTitleBarOnly = true;
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowPadding = ImVec2(8, 8);
  style.ItemSpacing = ImVec2(7, 5);
  style.ScrollbarSize = 12.0f;
  style.Colors[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.11f, 0.13f, 1.0f);
  style.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
  style.Colors[ImGuiCol_PopupBg].w = 1.0f;  // menus, tooltips and hover cards opaque: what lies under them does not show through
  if (app.ui.high_contrast) {  // white on black, bright frames and borders (presenter's C key)
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_PopupBg] = ImVec4(0.05f, 0.05f, 0.05f, 1);
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.8f);
    c[ImGuiCol_FrameBg] = ImVec4(0.12f, 0.12f, 0.12f, 1);
    c[ImGuiCol_Button] = ImVec4(0.0f, 0.25f, 0.6f, 1);
    c[ImGuiCol_TitleBgActive] = c[ImGuiCol_TitleBg] = ImVec4(0.0f, 0.25f, 0.6f, 1);
    c[ImGuiCol_NavHighlight] = ImVec4(1, 1, 0, 1);
    style.WindowBorderSize = style.FrameBorderSize = 1.0f;
  }
  style.ScaleAllSizes(app.style_scale);
  ImGui::GetStyle() = style;
  app.fonts_dirty = false;
  app.layout_dirty = true;
}

}  // namespace attnlab
