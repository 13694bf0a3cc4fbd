// Controls: every setting of the forward pass, each with a plain-words "(?)".
#include <algorithm>
#include <cmath>

#include "app.h"
#include "i18n.h"
#include "mask.h"
#include "positional.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

namespace {

using Kind = attn::MaskTerm::Kind;

attn::MaskTerm* find_term(attn::Config& c, Kind kind) {
  for (attn::MaskTerm& t : c.mask)
    if (t.kind == kind) return &t;
  return nullptr;
}

// A checkbox that adds or removes one mask term (label, help and new term from the registration in
// engine/mask.cpp); returns the term when present.
attn::MaskTerm* mask_toggle(App& app, Kind kind) {
  const attn::MaskKind& info = attn::mask_kind(kind);
  attn::MaskTerm* t = find_term(app.config, kind);
  bool on = t != nullptr;
  const bool clicked = checkbox(tr_id_entry("mask", info.name, info.label), &on, true);
  remember_item(app, (std::string("mask:") + info.name).c_str());
  if (clicked) {
    if (on) {
      const attn::Result& r = app.engine.result();
      app.config.mask.push_back(info.make(r.n, r.m));
    } else {
      std::erase_if(app.config.mask, [&](const attn::MaskTerm& x) { return x.kind == kind; });
    }
    t = find_term(app.config, kind);
  }
  help_marker(tr_entry("mask", info.name, "help", info.help));
  return t;
}

// [SECTION] masks: each kind's checkbox comes from the registration in engine/mask.cpp (label nullptr:
// not offered); what a ticked kind shows under its box is its entry here, one per kind.
void window_controls(App& app, attn::MaskTerm& w, const attn::Result& r) {
  ImGui::Indent();
  item_width_for(tr_id("controls.window.width", "width"), 0.5f);
  ImGui::SliderInt(tr_id("controls.window.width", "width"), &w.window, 1, std::max(2, r.m), "%d", ImGuiSliderFlags_AlwaysClamp);
  remember_item(app, "window_width");
  checkbox(tr_id("controls.window.back", "only look back"), &w.window_causal);
  remember_item(app, "window_causal");
  ImGui::Unindent();
}

void padding_controls(App& app, attn::MaskTerm& p, const attn::Result& r) {
  ImGui::Indent();
  ImGui::TextDisabled("%s", tr("controls.padding.click"));
  for (int j = 0; j < r.m && j < (int)app.source_labels.size(); ++j) {
    const bool hidden = std::find(p.keys.begin(), p.keys.end(), j) != p.keys.end();
    bool hovered = false;
    if (token_chip(app.source_labels[(size_t)j], 1000 + j, hidden, false, &hovered, hidden ? 0xFF3030A0u : 0)) {
      if (hidden) std::erase(p.keys, j);
      else p.keys.push_back(j);
    }
    remember_item(app, ("padding_key_" + std::to_string(j)).c_str());
    if (j + 1 < r.m && ImGui::GetItemRectMax().x + 60.0f * app.style_scale < ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::SameLine(0, 3.0f);
  }
  ImGui::Unindent();
}

void custom_controls(App& app, attn::MaskTerm& cm, const attn::Result&) {
  ImGui::SameLine();
  if (ImGui::SmallButton(tr_id("controls.custom.allow_all", "allow all"))) std::fill(cm.cells.begin(), cm.cells.end(), 1);
  remember_item(app, "allow_all");
}

struct MaskControls {
  Kind kind;
  void (*draw)(App& app, attn::MaskTerm& term, const attn::Result& r);  // nullptr: no parameters
};
constexpr MaskControls kMaskControls[] = {
    {Kind::none, nullptr},
    {Kind::causal, nullptr},
    {Kind::window, window_controls},
    {Kind::padding, padding_controls},
    {Kind::custom, custom_controls},
};
static_assert(in_enum_order(kMaskControls, &MaskControls::kind), "one entry per MaskTerm::Kind, in its order");

// A slider remembered as `name` (its ImGui ID too, whatever the label says in this language).
bool slider_int(App& app, const char* name, const char* label, int* v, int lo, int hi, const char* help) {
  item_width_for(label, 0.55f);
  ImGui::PushID(name);
  const bool changed = ImGui::SliderInt(label, v, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp);
  ImGui::PopID();
  remember_item(app, name);
  help_marker(help);
  return changed;
}

}  // namespace

void draw_controls_panel(App& app) {
  ImGui::Begin(pane_window(Pane::controls));
  attn::Config& c = app.config;
  const attn::Result& r = app.engine.result();

  if (ImGui::CollapsingHeader(tr_id("controls.sizes", "Sizes"), ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Sizes");
    static_assert(attn::Limits::max_heads >= 16);
    // The tie is the learner's choice, kept in UiState: ticked, d_k and d_v follow d_model / heads
    // (rounded down when heads do not divide d_model); unticked, they stay where the learner sets them.
    bool& tie = app.ui.tie_sizes;
    bool sizes_changed = slider_int(app, "d_model", "d_model", &c.d_model, 2, 512, tr("controls.d_model.help"));
    sizes_changed |= slider_int(app, "heads", tr("controls.heads"), &c.heads, 1, 16, tr("controls.heads.help"));
    const bool tie_clicked = checkbox(tr_id("controls.tie", "tie"), &tie, true);
    remember_item(app, "tie_sizes");
    if (tie && (tie_clicked || sizes_changed)) c.d_k = c.d_v = std::max(1, c.d_model / std::max(c.heads, 1));
    help_marker(tr("controls.tie.help"));
    ImGui::BeginDisabled(tie);
    slider_int(app, "d_k", "d_k", &c.d_k, 1, 128, tr("controls.d_k.help"));
    slider_int(app, "d_v", "d_v", &c.d_v, 1, 128, tr("controls.d_v.help"));
    ImGui::EndDisabled();
    // Say when the heads' outputs do not add up to d_model: the concat is narrower or wider, and W_O
    // maps it back. (Silent rounding once hid d_k 3 and a concat of 30 behind d_model 32 and 10 heads.)
    const int concat_w = c.heads * c.d_v;
    if (tie && c.d_model % c.heads != 0) {
      ImGui::BeginGroup();  // one item for remember_item, however many lines it wraps into
      text_wrapped_colored(ImVec4(1.0f, 0.75f, 0.35f, 1.0f),
                           trf("controls.not_divisible", {{"heads", c.heads}, {"d_model", c.d_model}, {"d_v", c.d_v}, {"concat", concat_w}}).c_str());
      ImGui::EndGroup();
      remember_item(app, "sizes_note");
    } else if (concat_w != c.d_model) {
      ImGui::BeginGroup();
      text_wrapped_disabled(trf("controls.concat", {{"heads", c.heads}, {"d_v", c.d_v}, {"concat", concat_w}, {"d_model", c.d_model}}).c_str());
      ImGui::EndGroup();
      remember_item(app, "sizes_note");
    }
  }

  if (ImGui::CollapsingHeader(tr_id("controls.attention", "Attention"), ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Attention");
    int mode = c.cross ? 1 : 0;
    ImGui::RadioButton(tr_id("controls.self", "self"), &mode, 0);
    remember_item(app, "attention:self");
    same_line_if_fits(tr_id("controls.cross", "cross"), true);
    ImGui::RadioButton(tr_id("controls.cross", "cross"), &mode, 1);
    remember_item(app, "attention:cross");
    help_marker(tr("controls.self_cross.help"));
    if ((mode == 1) != c.cross) {
      c.cross = mode == 1;
      if (c.cross && app.source.empty()) app.source = "le chat dort sur le tapis";
    }
    const auto pe = attn::positional_kinds();
    // A trained model's layer: say what the model used, whatever the lab adds on top (positions the
    // model learned are already inside its residual stream X; RoPE acts inside the layer).
    const ModelOrigin& o = app.ui.origin;
    if (o.active && o.positional != attn::Positional::rope) {
      const attn::PositionalKind& op = attn::positional_kind(o.positional);
      const Key says = o.positional == attn::Positional::none ? Key("controls.model_origin.no_positions") : Key("controls.model_origin");
      ImGui::BeginGroup();
      text_wrapped_colored(ImVec4(0.6f, 0.9f, 0.6f, 1.0f),
                           trf(says, {{"task", o.task}, {"layer", o.layer}, {"layers", o.layers}, {"step", o.step},
                                      {"positions", tr_entry("positional", op.name, "label", op.label)}}).c_str());
      ImGui::EndGroup();
      remember_item(app, "model_origin");
    }
    const std::string position_label = o.active && o.positional != attn::Positional::rope && c.positional == attn::Positional::none
                                           ? trf("controls.position.model", {{"positions", attn::to_string(o.positional)}})
                                           : std::string(tr_entry("positional", attn::to_string(c.positional), "label",
                                                                  attn::positional_kind(c.positional).label));
    std::vector<const char*> positions{position_label.c_str()};  // the combo as wide as its widest value, where the line has room
    for (const attn::PositionalKind& p : pe) positions.push_back(tr_id_entry("positional", p.name, p.label));
    if (ImGui::BeginCombo(combo_width_for(tr_id("controls.position", "position"), 0.55f, positions), position_label.c_str())) {
      for (const attn::PositionalKind& p : pe) {
        if (ImGui::Selectable(tr_id_entry("positional", p.name, p.label), p.kind == c.positional)) c.positional = p.kind;
        remember_item(app, (std::string("position:") + attn::to_string(p.kind)).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr_entry("positional", p.name, "help", p.help));
      }
      ImGui::EndCombo();
    }
    remember_item(app, "position");
    help_marker(tr("controls.position.help"));
    const char* emb[] = {tr("controls.embedding.hashed"), tr("controls.embedding.table")};
    int emb_i = (int)c.embedding;
    if (ImGui::Combo(combo_width_for(tr_id("controls.embedding", "embedding"), 0.55f, emb), &emb_i, emb, 2)) c.embedding = (attn::Embedding)emb_i;
    remember_item(app, "embedding");
    help_marker(tr("controls.embedding.help"));

    int sm = (int)c.scale_mode;
    ImGui::TextUnformatted(tr("controls.scale"));
    help_marker(tr("controls.scale.help"));
    ImGui::RadioButton("1/\xE2\x88\x9A" "d_k", &sm, 0);
    remember_item(app, "scale:inv_sqrt_dk");
    same_line_if_fits(tr_id("controls.scale.none", "none"));
    ImGui::RadioButton(tr_id("controls.scale.none", "none"), &sm, 1);
    remember_item(app, "scale:none");
    same_line_if_fits(tr_id("controls.scale.custom", "custom"));
    ImGui::RadioButton(tr_id("controls.scale.custom", "custom"), &sm, 2);
    remember_item(app, "scale:custom");
    c.scale_mode = (attn::ScaleMode)sm;
    if (c.scale_mode == attn::ScaleMode::custom) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
      ImGui::DragFloat("##scale", &c.scale_value, 0.01f, -100.0f, 100.0f, "%.3f", ImGuiSliderFlags_AlwaysClamp);
      remember_item(app, "scale_value");
    }
    item_width_for(tr_id("controls.temperature", "temperature"), 0.55f);
    ImGui::SliderFloat(tr_id("controls.temperature", "temperature"), &c.temperature, 0.05f, 20.0f, "%.3g", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    remember_item(app, "temperature");
    help_marker(tr("controls.temperature.help"));
  }

  if (ImGui::CollapsingHeader(tr_id("controls.masks", "Masks"), ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Masks");
    text_wrapped_disabled(tr("controls.masks.combine"));
    for (const attn::MaskKind& k : attn::mask_kinds()) {
      if (!k.label) continue;  // not offered in the lab
      attn::MaskTerm* t = mask_toggle(app, k.kind);
      if (const auto draw = kMaskControls[(int)k.kind].draw; t && draw) draw(app, *t, r);
    }
    if (!r.mask.fully_masked_rows.empty())
      ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "%s",
                         trn("controls.rows_see_no_key", (long long)r.mask.fully_masked_rows.size(),
                             {{"n", (int)r.mask.fully_masked_rows.size()}}).c_str());
  }

  if (ImGui::CollapsingHeader(tr_id("controls.weights_view", "Weights and view"), ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Weights and view");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.4f);
    int seed = (int)(c.seed & 0x7FFFFFFF);
    if (ImGui::InputInt(tr_id("controls.seed", "seed"), &seed)) c.seed = (uint64_t)std::max(seed, 0);
    remember_item(app, "seed");
    ImGui::SameLine();
    if (ImGui::Button(tr_id("controls.reroll", "re-roll"))) c.seed = (c.seed * 6364136223846793005ull + 1442695040888963407ull) >> 33;
    remember_item(app, "reroll");
    help_marker(tr("controls.seed.help"));
    checkbox(tr_id("controls.numbers", "numbers in cells"), &app.ui.show_numbers);
    remember_item(app, "numbers");
    same_line_if_fits(tr_id("controls.weight_matrices", "W matrices"));
    checkbox(tr_id("controls.weight_matrices", "W matrices"), &app.ui.show_weights);
    remember_item(app, "weight_matrices");
    item_width_for(tr_id("controls.ui_scale", "UI scale"), 0.5f);
    ImGui::SliderFloat(tr_id("controls.ui_scale", "UI scale"), &app.ui.ui_scale_edit, 0.75f, 3.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    remember_item(app, "ui_scale");
    if (ImGui::IsItemDeactivatedAfterEdit()) set_ui_scale(app, app.ui.ui_scale_edit);
    help_marker(tr("controls.ui_scale.help"));
    if (!c.overrides.empty()) {
      ImGui::TextUnformatted(trn("controls.edited", (long long)c.overrides.size(), {{"n", (int)c.overrides.size()}}).c_str());
      ImGui::SameLine();
      if (ImGui::SmallButton(tr_id("controls.reset_edits", "reset all edits"))) c.overrides.clear();
      remember_item(app, "reset_edits");
    }
  }
  ImGui::End();
}

}  // namespace attnlab
