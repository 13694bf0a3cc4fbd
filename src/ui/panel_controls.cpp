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
  const bool clicked = ImGui::Checkbox(info.label, &on);
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
  help_marker(info.help);
  return t;
}

bool slider_int(App& app, const char* label, int* v, int lo, int hi, const char* help) {
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  const bool changed = ImGui::SliderInt(label, v, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp);
  remember_item(app, label);
  help_marker(help);
  return changed;
}

}  // namespace

void draw_controls_panel(App& app) {
  ImGui::Begin(tr_id("window.controls", "Controls"));
  attn::Config& c = app.config;
  const attn::Result& r = app.engine.result();

  if (ImGui::CollapsingHeader("Sizes", ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Sizes");
    static_assert(attn::Limits::max_heads >= 16);
    // The tie is the learner's choice, kept in UiState: ticked, d_k and d_v follow d_model / heads
    // (rounded down when heads do not divide d_model); unticked, they stay where the learner sets them.
    bool& tie = app.ui.tie_sizes;
    bool sizes_changed = slider_int(app, "d_model", &c.d_model, 2, 512, "Width of every token vector (embedding and output).");
    sizes_changed |= slider_int(app, "heads", &c.heads, 1, 16, "How many attention heads run side by side, each with its own W_Q, W_K, W_V.");
    const bool tie_clicked = ImGui::Checkbox("d_k = d_v = d_model / heads", &tie);
    remember_item(app, "tie_sizes");
    if (tie && (tie_clicked || sizes_changed)) c.d_k = c.d_v = std::max(1, c.d_model / std::max(c.heads, 1));
    help_marker("The usual choice keeps the total work constant as heads change (d_model / heads, rounded down when "
                "it does not divide). Untick to set d_k and d_v freely.");
    ImGui::BeginDisabled(tie);
    slider_int(app, "d_k", &c.d_k, 1, 128, "Length of each query and key vector: the dot products are sums of d_k terms.");
    slider_int(app, "d_v", &c.d_v, 1, 128, "Length of each value vector, and so of each head's output row.");
    ImGui::EndDisabled();
    // Say when the heads' outputs do not add up to d_model: the concat is narrower or wider, and W_O
    // maps it back. (Silent rounding once hid d_k 3 and a concat of 30 behind d_model 32 and 10 heads.)
    const int concat_w = c.heads * c.d_v;
    if (tie && c.d_model % c.heads != 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.35f, 1.0f));
      ImGui::TextWrapped("%d heads do not divide d_model %d: each head gets d_k = d_v = %d (%d / %d rounded down), so the "
                         "concat is %d \xC3\x97 %d = %d wide and W_O maps %d back to %d.",
                         c.heads, c.d_model, c.d_v, c.d_model, c.heads, c.heads, c.d_v, concat_w, concat_w, c.d_model);
      ImGui::PopStyleColor();
      remember_item(app, "sizes_note");
    } else if (concat_w != c.d_model) {
      ImGui::TextDisabled("concat: %d heads \xC3\x97 d_v %d = %d wide; W_O maps it to d_model %d", c.heads, c.d_v, concat_w, c.d_model);
      remember_item(app, "sizes_note");
    }
  }

  if (ImGui::CollapsingHeader("Attention", ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Attention");
    int mode = c.cross ? 1 : 0;
    ImGui::RadioButton("self", &mode, 0);
    remember_item(app, "attention:self");
    ImGui::SameLine();
    ImGui::RadioButton("cross", &mode, 1);
    remember_item(app, "attention:cross");
    help_marker("Self: a sequence attends to itself. Cross: queries from one text, keys and values from another.");
    if ((mode == 1) != c.cross) {
      c.cross = mode == 1;
      if (c.cross && app.source.empty()) app.source = "le chat dort sur le tapis";
    }
    const auto pe = attn::positional_kinds();
    // A trained model's layer: say what the model used, whatever the lab adds on top (positions the
    // model learned are already inside its residual stream X; RoPE acts inside the layer).
    const ModelOrigin& o = app.ui.origin;
    if (o.active && o.positional != attn::Positional::rope) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.6f, 0.9f, 0.6f, 1.0f));
      ImGui::TextWrapped("The %s model (layer %d of %d, step %d) was trained with %s positions: they are already in X, "
                         "its residual stream%s.", o.task.c_str(), o.layer, o.layers, o.step,
                         o.positional == attn::Positional::none ? "no" : attn::positional_kind(o.positional).label,
                         o.positional == attn::Positional::none ? " (none added here either)" : ", so the lab adds none");
      ImGui::PopStyleColor();
      remember_item(app, "model_origin");
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    const std::string position_label = o.active && o.positional != attn::Positional::rope && c.positional == attn::Positional::none
                                           ? std::string("none added (model's ") + attn::to_string(o.positional) + " in X)"
                                           : std::string(attn::positional_kind(c.positional).label);
    if (ImGui::BeginCombo("position", position_label.c_str())) {
      for (const attn::PositionalKind& p : pe) {
        if (ImGui::Selectable(p.label, p.kind == c.positional)) c.positional = p.kind;
        remember_item(app, (std::string("position:") + attn::to_string(p.kind)).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.help);
      }
      ImGui::EndCombo();
    }
    remember_item(app, "position");
    help_marker("Attention by itself ignores word order. Sinusoidal and learned encodings add a position vector "
                "to X; RoPE instead rotates pairs of Q and K coordinates by an angle that grows with position.");
    const char* emb[] = {"hashed (random per word)", "interpretable table"};
    int emb_i = (int)c.embedding;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    if (ImGui::Combo("embedding", &emb_i, emb, 2)) c.embedding = (attn::Embedding)emb_i;
    remember_item(app, "embedding");
    help_marker("Hashed: every word gets a fixed random vector. Interpretable: the first 8 dimensions mean "
                "animal, person, thing, place, action, function word, plural, feeling.");

    int sm = (int)c.scale_mode;
    ImGui::TextUnformatted("scale");
    help_marker("Scores are q\xC2\xB7k times this. 1/\xE2\x88\x9A" "d_k keeps their spread near 1 whatever d_k is; "
                "without it, large d_k makes softmax pick one key almost always.");
    ImGui::RadioButton("1/\xE2\x88\x9A" "d_k", &sm, 0);
    remember_item(app, "scale:inv_sqrt_dk");
    ImGui::SameLine();
    ImGui::RadioButton("none", &sm, 1);
    remember_item(app, "scale:none");
    ImGui::SameLine();
    ImGui::RadioButton("custom", &sm, 2);
    remember_item(app, "scale:custom");
    c.scale_mode = (attn::ScaleMode)sm;
    if (c.scale_mode == attn::ScaleMode::custom) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
      ImGui::DragFloat("##scale", &c.scale_value, 0.01f, -100.0f, 100.0f, "%.3f", ImGuiSliderFlags_AlwaysClamp);
      remember_item(app, "scale_value");
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    ImGui::SliderFloat("temperature", &c.temperature, 0.05f, 20.0f, "%.3g", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    remember_item(app, "temperature");
    help_marker("Scores are divided by \xCF\x84. Small \xCF\x84 sharpens the weights toward the best key; large \xCF\x84 "
                "spreads them toward uniform.");
  }

  if (ImGui::CollapsingHeader("Masks", ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Masks");
    ImGui::TextDisabled("Masks combine: a key must pass all of them.");
    mask_toggle(app, Kind::causal);
    if (attn::MaskTerm* w = mask_toggle(app, Kind::window)) {
      ImGui::Indent();
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
      ImGui::SliderInt("width", &w->window, 1, std::max(2, r.m), "%d", ImGuiSliderFlags_AlwaysClamp);
      remember_item(app, "window_width");
      ImGui::Checkbox("only look back", &w->window_causal);
      remember_item(app, "window_causal");
      ImGui::Unindent();
    }
    if (attn::MaskTerm* p = mask_toggle(app, Kind::padding)) {
      ImGui::Indent();
      ImGui::TextDisabled("click keys to hide them:");
      for (int j = 0; j < r.m && j < (int)app.source_labels.size(); ++j) {
        const bool hidden = std::find(p->keys.begin(), p->keys.end(), j) != p->keys.end();
        bool hovered = false;
        if (token_chip(app.source_labels[(size_t)j], 1000 + j, hidden, false, &hovered, hidden ? 0xFF3030A0u : 0)) {
          if (hidden) std::erase(p->keys, j);
          else p->keys.push_back(j);
        }
        remember_item(app, ("padding_key_" + std::to_string(j)).c_str());
        if (j + 1 < r.m && ImGui::GetItemRectMax().x + 60.0f * app.style_scale < ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
          ImGui::SameLine(0, 3.0f);
      }
      ImGui::Unindent();
    }
    if (attn::MaskTerm* cm = mask_toggle(app, Kind::custom)) {
      ImGui::SameLine();
      if (ImGui::SmallButton("allow all")) std::fill(cm->cells.begin(), cm->cells.end(), 1);
      remember_item(app, "allow_all");
    }
    if (!r.mask.fully_masked_rows.empty())
      ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f), "%d query row(s) see no key: their weights and output are 0",
                         (int)r.mask.fully_masked_rows.size());
  }

  if (ImGui::CollapsingHeader("Weights and view", ImGuiTreeNodeFlags_DefaultOpen)) {
    remember_item(app, "header:Weights and view");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.4f);
    int seed = (int)(c.seed & 0x7FFFFFFF);
    if (ImGui::InputInt("seed", &seed)) c.seed = (uint64_t)std::max(seed, 0);
    remember_item(app, "seed");
    ImGui::SameLine();
    if (ImGui::Button("re-roll")) c.seed = (c.seed * 6364136223846793005ull + 1442695040888963407ull) >> 33;
    remember_item(app, "reroll");
    help_marker("The seed chooses the random embeddings and weight matrices. Same seed, same numbers, on every machine.");
    ImGui::Checkbox("numbers in cells", &app.ui.show_numbers);
    remember_item(app, "numbers");
    ImGui::SameLine();
    ImGui::Checkbox("W matrices", &app.ui.show_weights);
    remember_item(app, "weight_matrices");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::SliderFloat("UI scale", &app.ui.ui_scale_edit, 0.75f, 3.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    remember_item(app, "ui_scale");
    if (ImGui::IsItemDeactivatedAfterEdit()) set_ui_scale(app, app.ui.ui_scale_edit);
    help_marker("Larger text and cells for a projector. Applies when you release the slider.");
    if (!c.overrides.empty()) {
      ImGui::Text("%d edited numbers", (int)c.overrides.size());
      ImGui::SameLine();
      if (ImGui::SmallButton("reset all edits")) c.overrides.clear();
      remember_item(app, "reset_edits");
    }
  }
  ImGui::End();
}

}  // namespace attnlab
