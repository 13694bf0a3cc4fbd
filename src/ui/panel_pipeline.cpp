// The formula across the top: softmax(Q·Kᵀ/√d_k)·V, each part a button that brings its matrix into view.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "app.h"
#include "config_json.h"
#include "export.h"
#include "formula.h"
#include "i18n.h"
#include "panels.h"
#include "presets.h"
#include "widgets.h"

namespace attnlab {

namespace {

void focus(App& app, View v) {
  app.ui.focus_view = v;
  app.ui.focus_until = ImGui::GetTime() + 1.2;
}

bool part(const char* label, const char* tip) {
  const bool clicked = ImGui::Button(label);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  ImGui::SameLine(0, 2.0f);
  return clicked;
}

void text_part(const char* t) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(t);
  ImGui::SameLine(0, 2.0f);
}

}  // namespace

void draw_pipeline_panel(App& app) {
  ImGui::Begin("pipeline", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  // Room: the buttons keep their size at the right; the title goes first when space runs short, then
  // the formula shrinks its text (never below 60%), so on a projector everything stays on screen.
  const ImGuiStyle& st = ImGui::GetStyle();
  const std::vector<FormulaPart> parts = formula_parts(app.engine.config());
  const auto button_w = [&](const char* t) { return ImGui::CalcTextSize(t, nullptr, true).x + 2.0f * st.FramePadding.x; };
  float buttons_w = 0.0f;
  const char* language_label = tr_id("bar.language", "language");
  for (const char* b : {tr("bar.presets"), tr("bar.export"), tr("bar.share"), tr("bar.tour"), tr("bar.help"), language_label})
    buttons_w += button_w(b) + st.ItemSpacing.x;
  // The formula's width in two parts: its text, which a smaller font scale shrinks, and the buttons'
  // padding and gaps, which it does not (so the shrunk formula is sure to leave the buttons room).
  float text_w = 0.0f, fixed_w = 0.0f;
  for (const FormulaPart& p : parts) {
    std::string label = p.text;
    label.erase(0, label.find_first_not_of(' '));
    text_w += ImGui::CalcTextSize(p.view == View::count ? p.text.c_str() : label.c_str()).x;
    fixed_w += (p.view == View::count ? 0.0f : 2.0f * st.FramePadding.x) + 2.0f;
  }
  const float formula_w = text_w + fixed_w;
  const float gap = 18.0f * app.style_scale;
  const float title_w = ImGui::CalcTextSize(tr("app.title")).x + gap;
  const float room = ImGui::GetContentRegionAvail().x - buttons_w - gap;
  const bool title = title_w + formula_w <= room;
  const float fit = (room - fixed_w) / std::max(text_w, 1.0f);
  const float shrink = std::clamp(fit, 0.6f, 1.0f);
  if (title) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "%s", tr("app.title"));
    ImGui::SameLine(0, gap);
  }
  // The formula for the current settings (formula.h): each symbol a button to its matrix. On a
  // phone-narrow screen, where even 60% text does not fit, the buttons keep the strip to themselves.
  const bool formula = title || fit >= 0.6f;
  ImGui::SetWindowFontScale(title ? 1.0f : shrink);
  for (const FormulaPart& p : parts) {
    if (!formula) break;
    std::string label = p.text;
    label.erase(0, label.find_first_not_of(' '));
    if (p.view == View::count) {
      text_part(p.text.c_str());
    } else if (part((label + "##" + p.text).c_str(), p.tip.c_str())) {
      focus(app, p.view);
    }
    remember_item(app, (std::string("formula:") + view_key(p.view)).c_str());
  }
  ImGui::SetWindowFontScale(1.0f);
  if (formula) ImGui::SameLine(std::max(ImGui::GetCursorPosX() + gap, ImGui::GetWindowContentRegionMax().x - buttons_w + st.ItemSpacing.x));
  // On a phone in a longer language the six buttons can be wider than the bar: they close up (half the
  // padding and the gaps) rather than make the bar scroll sideways.
  const bool tight = !formula && buttons_w > ImGui::GetContentRegionAvail().x + st.ItemSpacing.x;
  const ImVec2 padding(tight ? 0.5f * st.FramePadding.x : st.FramePadding.x, st.FramePadding.y);
  const float spacing = tight ? 0.5f * st.ItemSpacing.x : st.ItemSpacing.x;
  const auto button = [&](const char* label) {
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, padding);
    const bool pressed = ImGui::Button(label);
    ImGui::PopStyleVar();
    return pressed;
  };

  if (button(tr_id("bar.presets", "presets"))) ImGui::OpenPopup("presets");
  remember_item(app, "presets");
  if (ImGui::BeginPopup("presets")) {
    keep_popup_on_screen();
    for (const Preset& p : presets()) {
      if (ImGui::Selectable((std::string(preset_name(p)) + "###" + p.file).c_str())) {
        const std::string err = apply_preset(app, p);
        notify(app, err.empty() ? trf("notice.preset", {{"name", preset_name(p)}}) : err);
      }
      remember_item(app, ("preset:" + preset_key(p)).c_str());
      if (ImGui::IsItemHovered() && !p.description.empty()) ImGui::SetTooltip("%s", preset_description(p));
    }
    ImGui::EndPopup();
  }
  ImGui::SameLine(0, spacing);
  if (button(tr_id("bar.export", "export"))) ImGui::OpenPopup("export"), app.ui.export_section = 0;  // its sections open closed
  remember_item(app, "export");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("bar.export.tip"));
  if (ImGui::BeginPopup("export")) {
    keep_popup_on_screen();
    export_menu_items(app);
    ImGui::EndPopup();
  }
  ImGui::SameLine(0, spacing);
  if (button(tr_id("bar.share", "share")) && app.share) {
    app.share(attn::config_to_json(app.engine.config()));
    notify(app, tr("notice.link_copied"));
  }
  remember_item(app, "share");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("bar.share.tip"));
  ImGui::SameLine(0, spacing);
  const bool tour_clicked = button(tr_id("bar.tour", "tour"));
  remember_item(app, "tour");
  if (tour_clicked) tour_toggle(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("bar.tour.tip"));
  ImGui::SameLine(0, spacing);
  if (button(tr_id("bar.help", "help"))) app.ui.show_help = !app.ui.show_help;
  remember_item(app, "help");
  ImGui::SameLine(0, spacing);
  if (button(language_label)) ImGui::OpenPopup("language");
  remember_item(app, "language");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("bar.language.tip"));
  language_menu(app);
  ImGui::End();
}

}  // namespace attnlab
