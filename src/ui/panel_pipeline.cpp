// The formula across the top: softmax(Q·Kᵀ/√d_k)·V, each part a button that brings its matrix into view.
#include <cstdio>

#include "app.h"
#include "config_json.h"
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
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "Attention Lab");
  ImGui::SameLine(0, 18.0f * app.style_scale);
  const bool scaled = app.config.scale_mode == attn::ScaleMode::inv_sqrt_dk;
  char scale_label[48];
  std::snprintf(scale_label, sizeof scale_label, "%s", scaled ? "/ \xE2\x88\x9A" "d\xE2\x82\x96" : "\xC2\xB7 scale");
  text_part("out =");
  if (part("concat", "Concatenate every head's output side by side")) focus(app, View::concat);
  text_part("(");
  if (part("softmax", "Turn each row of scores into weights that are positive and sum to 1")) focus(app, View::weights);
  text_part("(");
  if (part("mask", "Hidden keys get a score of minus infinity, so their weight is exactly 0")) focus(app, View::masked);
  text_part("(");
  if (part("Q", "Queries: X times W_Q, one row per token")) focus(app, View::q);
  if (part("K\xE1\xB5\x80", "Keys (transposed): X times W_K")) focus(app, View::k);
  if (part(scale_label, "Dot products grow with d_k; dividing by its square root keeps the softmax from saturating")) focus(app, View::scores);
  char tau[32];
  std::snprintf(tau, sizeof tau, "/ \xCF\x84=%.2g", app.config.temperature);
  if (part(tau, "Temperature: above 1 flattens the weights, below 1 sharpens them")) focus(app, View::scores);
  text_part(")))");
  if (part("\xC2\xB7 V", "Mix the value vectors with the weights")) focus(app, View::head_out);
  text_part(")");
  if (part("\xC2\xB7 W_O", "Project the concatenation back to d_model")) focus(app, View::output);
  ImGui::SameLine(0, 18.0f * app.style_scale);

  if (ImGui::Button("Presets")) ImGui::OpenPopup("presets");
  if (ImGui::BeginPopup("presets")) {
    for (const Preset& p : presets()) {
      if (ImGui::Selectable(p.name.c_str())) {
        attn::Config c;
        std::string err = attn::parse_config(p.json, c);
        if (err.empty()) err = apply_config(app, c);
        notify(app, err.empty() ? "Preset: " + p.name : "Preset " + p.file + " is broken: " + err);
      }
      if (ImGui::IsItemHovered() && !p.description.empty()) ImGui::SetTooltip("%s", p.description.c_str());
    }
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Share") && app.share) {
    app.share(attn::config_to_json(app.engine.config()));
    notify(app, "Link to this exact setup copied");
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy a link that reopens the lab with these settings, edits and masks");
  ImGui::SameLine();
  if (ImGui::Button("Tour")) app.ui.show_tour = !app.ui.show_tour;
  ImGui::SameLine();
  if (ImGui::Button("Help")) app.ui.show_help = !app.ui.show_help;
  ImGui::End();
}

}  // namespace attnlab
