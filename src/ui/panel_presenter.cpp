// Presenter: the lab as a teacher shows it on a projector. One full-screen view: the preset's name,
// the formula with this setup's numbers, and the scores S and the weights A as big heatmaps with
// token labels and numbers; arrow keys or a presenter clicker (PageUp/PageDown) step through the
// presets, C switches high contrast, S swaps the single matrix when only one fits, P or Esc leaves;
// buttons do the same for a finger or a mouse (a phone, a tablet, a touch board has no keys).
//
// Readability rule (tested at 1280×720): every number and label in the matrices is drawn in the big
// font, ≥ 24 CSS pixels, and a matrix is shown only where its cells hold those numbers; when S and A
// do not both fit side by side at that size, one is shown (A unless S was chosen).
#include <algorithm>
#include <cstdio>

#include "app.h"
#include "i18n.h"
#include "config_json.h"
#include "heatmap.h"
#include "imgui_internal.h"
#include "panels.h"
#include "learn_widgets.h"  // same_line_if_room
#include "presets.h"
#include "widgets.h"

namespace attnlab {

namespace {

void open_preset(App& app, int k) {
  const auto all = presets();
  if (all.empty()) return;
  k = ((k % (int)all.size()) + (int)all.size()) % (int)all.size();
  attn::Config c;
  std::string err = attn::parse_config(all[(size_t)k].json, c);
  if (err.empty()) err = apply_config(app, c);
  if (!err.empty()) notify(app, trf("notice.preset_broken", {{"file", all[(size_t)k].file}, {"reason", err}}));
  app.ui.presenter_preset = k;
}

void presenter_keys(App& app) {
  // The frame whose key (P) opened presenter mode has that key still in its input: it is not also
  // presenter mode's own P, which leaves.
  if (ImGui::GetIO().WantTextInput || app.ui.presenter_since == ImGui::GetFrameCount()) return;
  const auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  const int at = app.ui.presenter_preset;
  if (pressed(ImGuiKey_RightArrow) || pressed(ImGuiKey_PageDown) || pressed(ImGuiKey_DownArrow) || pressed(ImGuiKey_Space))
    open_preset(app, at + 1);
  if (pressed(ImGuiKey_LeftArrow) || pressed(ImGuiKey_PageUp) || pressed(ImGuiKey_UpArrow) || pressed(ImGuiKey_Backspace))
    open_preset(app, at < 0 ? -1 : at - 1);
  if (pressed(ImGuiKey_Escape)) app.ui.presenter = false;
  for (ImWchar c : ImGui::GetIO().InputQueueCharacters) {
    if (c == 'p' || c == 'P') app.ui.presenter = false;
    if (c == 'c' || c == 'C') app.ui.high_contrast = !app.ui.high_contrast, app.fonts_dirty = true;
    if (c == 's' || c == 'S') app.ui.presenter_scores = !app.ui.presenter_scores;
    if (c == 'f' || c == 'F') app.ui.fullscreen_request = 1;
  }
}

// A matrix in the big font: the same heatmap the Matrices panel draws, with room to breathe.
void big_matrix(App& app, View view, const char* title, ImVec2 size) {
  const attn::Result& r = app.engine.result();
  const int head = std::clamp(app.ui.head, 0, r.heads - 1);
  ImGui::PushID((int)view);  // each matrix its own colours (S and A once shared one texture: S came out in A's colours)
  HeatmapSpec s;
  s.id = view_name(view);
  s.m = view_matrix(r, view, head);
  s.cmap = view_info(view).cmap;
  s.row_labels = &app.labels;
  s.col_labels = &app.source_labels;
  s.label_widths = &app.label_widths;
  s.mask = view_info(view).mask != ViewMask::none ? &r.mask : nullptr;
  s.masked_as_neg_inf = view_info(view).mask == ViewMask::minus_infinity;
  s.cell = {view, head, -1, -1};
  s.max_cell = 400.0f;
  s.max_gutter = 180.0f;  // whole words in the big type ("because", not "becau.")
  s.scale = app.style_scale;
  s.high_contrast = app.ui.high_contrast;
  s.show_numbers = true;  // a presenter always shows the numbers
  s.highlight_row = app.ui.hover_token >= 0 ? app.ui.hover_token : app.ui.query;
  s.highlight_col = r.cross ? -1 : s.highlight_row;
  // Colours as in the Matrices panel: the same fixed or fitted range, so both read alike.
  const float fixed = app.ui.fixed_range[(int)view];
  const HeatmapColors colors = heatmap_colors(app.heatmaps, app.textures, ImGui::GetID("colors"), s.m, s.cmap, s.mask, fixed,
                                              view_version(app.engine, view, s.m, (int)s.cmap, s.mask != nullptr));
  s.range = fixed > 0.0f ? fixed : colors.fit_range;
  s.range_fixed = fixed > 0.0f;
  s.texture = colors.texture;
  s.downsample = colors.downsample;
  // In the middle of its slot: cells are at most twice as wide as tall, so a matrix sized by the height
  // leaves room either side (once it all sat at the left of the screen).
  const ImVec2 area(size.x, size.y - ImGui::GetTextLineHeightWithSpacing());
  const HeatmapGeometry g = heatmap_geometry(s, area.x, area.y);
  const float used = g.gutter + g.cell_w * (float)s.m.cols + g.bar_w + g.notes_w;
  if (used + 2.0f < area.x) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 0.5f * (area.x - used));
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  const HeatmapEvent ev = draw_heatmap(s, ImVec2(std::min(area.x, used + 2.0f), area.y));
  app.view_rects[(int)view] = {ev.cells_min.x, ev.cells_min.y, ev.cell_w, ev.cell_h, s.m.rows, s.m.cols, head, true};
  if (ev.hovered) app.ui.hover_next = {view, head, ev.row, ev.col};
  // Hovering shows the card; clicks do nothing here (a presenter should not mask by accident).
  ImGui::EndGroup();
  ImGui::PopID();
}

// The side a cell gets when `cols` × `rows` cells share a w × h area with labels and a colour bar.
float cell_side(const App& app, int rows, int cols, float w, float h) {
  float gutter = ImGui::CalcTextSize("000").x;
  for (const std::string& t : app.labels) gutter = std::max(gutter, ImGui::CalcTextSize(t.c_str()).x);
  gutter = std::min(gutter + 6.0f, 180.0f * app.style_scale);
  const float bar = 34.0f * app.style_scale;
  const float header = ImGui::GetTextLineHeightWithSpacing() + ImGui::GetTextLineHeight() + 8.0f;
  return std::min((w - gutter - bar) / (float)std::max(cols, 1), (h - header) / (float)std::max(rows, 1));
}

// What a finger or a mouse does where a keyboard is not at hand (a phone, a tablet, a touch board): the
// presets back and forth, contrast and leave, as the keys do.
void presenter_buttons(App& app) {
  const int at = app.ui.presenter_preset;
  if (ImGui::Button(tr_id("presenter.prev", "presenter_prev"))) open_preset(app, at < 0 ? -1 : at - 1);
  remember_item(app, "presenter_prev");
  const auto next = [](const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x; };
  same_line_if_room(next(tr_id("presenter.next", "presenter_next")));
  if (ImGui::Button(tr_id("presenter.next", "presenter_next"))) open_preset(app, at + 1);
  remember_item(app, "presenter_next");
  same_line_if_room(next(tr_id("presenter.contrast", "presenter_contrast")));
  if (ImGui::Button(tr_id("presenter.contrast", "presenter_contrast"))) app.ui.high_contrast = !app.ui.high_contrast, app.fonts_dirty = true;
  remember_item(app, "presenter_contrast");
  same_line_if_room(next(tr_id("presenter.leave", "presenter_leave")));
  if (ImGui::Button(tr_id("presenter.leave", "presenter_leave"))) app.ui.presenter = false;
  remember_item(app, "presenter_leave");
}

}  // namespace

void draw_presenter(App& app) {
  presenter_keys(app);
  if (!app.ui.presenter) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(io.DisplaySize, ImGuiCond_Always);
  ImGui::Begin(tr_id("window.presenter", "Presenter"), nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                          ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse);
  const attn::Result& r = app.engine.result();
  if (app.big_font) ImGui::PushFont(app.big_font);
  const auto all = presets();
  const int k = app.ui.presenter_preset;
  const bool is_preset = k >= 0 && k < (int)all.size();
  // [1] what this is: the preset's name and its place in the list
  // (wrapped between words on a phone, where the big type holds 20 characters to a line)
  ImGui::BeginGroup();
  text_wrapped_colored(app.ui.high_contrast ? ImVec4(1, 1, 0.3f, 1) : ImVec4(0.55f, 0.80f, 1.0f, 1.0f),
                       is_preset ? preset_name(all[(size_t)k]) : tr("app.title"));
  ImGui::EndGroup();
  if (is_preset) {
    char place[24];
    std::snprintf(place, sizeof place, "%d/%d", k + 1, (int)all.size());
    same_line_if_room(ImGui::CalcTextSize(place).x);
    ImGui::TextDisabled("%s", place);
  }
  // [2] the formula with this setup's numbers
  // (the formula, then its numbers beside it or, on a narrow screen, under it)
  char formula[96], numbers[128];
  const char* scale = app.config.scale_mode == attn::ScaleMode::inv_sqrt_dk ? " / \xE2\x88\x9A" "d\xE2\x82\x96" : "";
  const std::string head_of = trf("presenter.head_of", {{"h", std::clamp(app.ui.head, 0, r.heads - 1)}, {"n", r.heads}});
  std::snprintf(formula, sizeof formula, "A = softmax(mask(Q\xC2\xB7K\xE1\xB5\x80%s / \xCF\x84))", scale);
  std::snprintf(numbers, sizeof numbers, "d\xE2\x82\x96 = %d,  \xCF\x84 = %.2g,  %s", r.d_k, app.config.temperature, head_of.c_str());
  const bool formula_fits = ImGui::CalcTextSize(formula).x <= ImGui::GetContentRegionAvail().x;
  if (app.big_font && !formula_fits) ImGui::PopFont();  // (a phone: the UI's type, where it fits)
  ImGui::TextUnformatted(formula);
  same_line_if_room(ImGui::CalcTextSize(numbers).x, 3.0f * ImGui::CalcTextSize(" ").x);
  ImGui::TextUnformatted(numbers);
  if (app.big_font && formula_fits) ImGui::PopFont();
  // The buttons, then the keys, wrapped to the screen's width, in type smaller than the matrices' (at UI
  // scale 2 the UI's own type is larger than presenter mode's big type).
  presenter_buttons(app);
  const float hint_scale = app.big_font ? std::min(1.0f, 0.7f * app.big_font->FontSize / ImGui::GetFontSize()) : 1.0f;
  ImGui::SetWindowFontScale(hint_scale);
  ImGui::BeginGroup();
  text_wrapped_disabled(tr("presenter.keys"));
  ImGui::EndGroup();
  remember_item(app, "presenter_keys");
  ImGui::SetWindowFontScale(1.0f);

  // [3] S and A side by side when both hold their numbers in the big font, else the chosen one
  if (r.n > 0) {
    if (app.big_font) ImGui::PushFont(app.big_font);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float need = ImGui::CalcTextSize("-0.00").x + 4.0f;
    const float gap = ImGui::GetStyle().ItemSpacing.x * 3.0f;
    const bool masked = std::find(r.mask.allowed.begin(), r.mask.allowed.end(), 0) != r.mask.allowed.end();
    const View s_view = masked ? View::masked : View::scores;
    const char* s_title = s_view == View::masked ? tr("presenter.s_masked") : "S = Q\xC2\xB7K\xE1\xB5\x80\xC2\xB7scale/\xCF\x84";
    const bool both = cell_side(app, r.n, r.m, (avail.x - gap) * 0.5f, avail.y) >= need;
    if (both) {
      const ImVec2 half((avail.x - gap) * 0.5f, avail.y);
      const float x0 = ImGui::GetCursorPosX();
      big_matrix(app, s_view, s_title, half);
      ImGui::SameLine(x0 + half.x + gap);
      big_matrix(app, View::weights, "A = softmax(S)", half);
    } else {
      // One fits: say which, and how to see the other (the button, or S on the keyboard or clicker).
      if (app.big_font) ImGui::PopFont();
      const bool scores = app.ui.presenter_scores;
      if (ImGui::Button(tr_id(scores ? Key("presenter.show_a") : Key("presenter.show_s"), "presenter_switch"))) app.ui.presenter_scores = !scores;
      remember_item(app, "presenter_swap");
      ImGui::SameLine();
      ImGui::AlignTextToFramePadding();
      ImGui::BeginGroup();
      text_wrapped_disabled(scores ? tr("presenter.only_s") : tr("presenter.only_a"));
      ImGui::EndGroup();
      if (app.big_font) ImGui::PushFont(app.big_font);
      const ImVec2 rest = ImGui::GetContentRegionAvail();
      if (scores) big_matrix(app, s_view, s_title, rest);
      else big_matrix(app, View::weights, "A = softmax(S)", rest);
    }
    app.presenter_both = both;
    if (app.big_font) ImGui::PopFont();
  }
  ImGui::End();
}

}  // namespace attnlab
