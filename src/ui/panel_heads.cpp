// All heads: every head's weights as a thumbnail; click one to make it the selected head.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app.h"
#include "i18n.h"
#include "handmade_heads.h"
#include "heatmap.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

namespace {

// The selected head's weights: random from the seed or given in the config (a trained model opened
// from Learn mode), or built by hand for one pattern.
void draw_handmade_control(App& app) {
  attn::Config& c = app.config;
  const int h = app.ui.head;
  auto it = std::find_if(c.handmade.begin(), c.handmade.end(), [&](const attn::HandmadeHead& x) { return x.head == h; });
  const bool given = !c.w_q.empty() || !c.w_k.empty() || !c.w_v.empty();
  const char* base = given ? tr("heads.given") : tr("heads.random");
  const attn::HandmadeKind* chosen_kind = it == c.handmade.end() ? nullptr : attn::find_handmade_kind(it->kind);
  const char* current = !chosen_kind ? base : tr_entry("handmade", chosen_kind->name, "label", chosen_kind->label);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(trf("heads.head_colon", {{"h", h}}).c_str());
  // The combo as wide as its widest value; on the next line when that does not fit beside "Head h:".
  std::vector<std::string> hand_built;
  for (const attn::HandmadeKind& k : attn::handmade_kinds())
    hand_built.push_back(trf("heads.hand_built", {{"pattern", tr_entry("handmade", k.name, "label", k.label)}}));
  std::vector<const char*> values{base, current};
  for (const std::string& v : hand_built) values.push_back(v.c_str());
  float widest = 0.0f;
  for (const char* v : values) widest = std::max(widest, ImGui::CalcTextSize(v, nullptr, true).x);
  const ImGuiStyle& st = ImGui::GetStyle();
  const float needed = widest + 2.0f * st.FramePadding.x + ImGui::GetFrameHeight() + ImGui::CalcTextSize("(?)").x + 12.0f;
  if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + needed <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
  (void)combo_width_for("##handmade", 1.0f, values);  // (no label to move)
  if (ImGui::BeginCombo("##handmade", current)) {
    if (ImGui::Selectable(base, it == c.handmade.end()) && it != c.handmade.end()) c.handmade.erase(it);
    remember_item(app, "handmade:none");
    for (const attn::HandmadeKind& k : attn::handmade_kinds()) {
      const bool chosen = it != c.handmade.end() && it->kind == k.name;
      const std::string label = trf("heads.hand_built", {{"pattern", tr_entry("handmade", k.name, "label", k.label)}}) + "###" + k.name;
      if (ImGui::Selectable(label.c_str(), chosen) && !chosen) {
        std::erase_if(c.handmade, [&](const attn::HandmadeHead& x) { return x.head == h; });
        c.handmade.push_back({h, k.name});
        const std::string changed = attn::meet_handmade_needs(c, k.name);
        if (!changed.empty()) notify(app, trf("heads.needs", {{"pattern", tr_entry("handmade", k.name, "label", k.label)}, {"changed", changed}}));
      }
      remember_item(app, (std::string("handmade:") + k.name).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr_entry("handmade", k.name, "help", k.help));
    }
    ImGui::EndCombo();
  }
  remember_item(app, "handmade");
  help_marker(tr("heads.handmade.help"));
}

}  // namespace

void draw_heads_panel(App& app) {
  ImGui::Begin(pane_window(Pane::heads));
  const attn::Result& r = app.engine.result();
  if (r.n == 0) {
    ImGui::End();
    return;
  }
  draw_handmade_control(app);
  const int cols = std::max(1, (int)std::ceil(std::sqrt((double)r.heads)));
  const float gap = 6.0f * app.style_scale;
  const int rows = (r.heads + cols - 1) / cols;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_h = ImGui::GetTextLineHeightWithSpacing();
  // As large as fits both ways, so every head is visible without scrolling.
  const float side = std::max(16.0f, std::min((avail.x - gap * (cols - 1)) / cols, (avail.y - rows * (label_h + gap)) / rows));
  for (int h = 0; h < r.heads; ++h) {
    if (h % cols) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushID(h);
    const attn::Config& c = app.engine.config();
    const attn::HandmadeHead* hand = nullptr;
    for (const attn::HandmadeHead& hh : c.handmade) if (hh.head == h) hand = &hh;
    const attn::HandmadeKind* hk = hand ? attn::find_handmade_kind(hand->kind) : nullptr;
    if (hk) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(h)), "%s",
                               trf("heads.head_pattern", {{"h", h}, {"pattern", tr_entry("handmade", hk->name, "label", hk->label)}}).c_str());
    else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(h)), "%s", trf("heads.head", {{"h", h}}).c_str());
    HeatmapSpec s;
    s.id = "thumb";
    s.m = r.weights_head(h);
    s.cmap = Colormap::sequential;
    s.mask = &r.mask;
    s.compact = true;
    s.scale = app.style_scale;
    const float aspect = (float)r.n / (float)std::max(r.m, 1);
    const ImVec2 size(side, side * std::min(aspect, 1.5f)), fb = ImGui::GetIO().DisplayFramebufferScale;
    s.texture = heatmap_colors(app.heatmaps, app.textures, ImGui::GetID("colors"), s.m, s.cmap, s.mask, 1.0f,
                               view_version(app.engine, View::weights, s.m, (int)s.cmap, true), true,
                               ImVec2(size.x * fb.x, size.y * fb.y)).texture;
    const HeatmapEvent ev = draw_heatmap(s, size);
    if (ev.hovered) app.ui.hover_next = {View::weights, h, ev.row, ev.col};
    if (ev.clicked) app.ui.head = h;
    if (ev.hovered) ImGui::SetTooltip("%s", trf("heads.thumb.tip", {{"h", h}}).c_str());
    if (h == app.ui.head)
      ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), head_color(h), 0, 0, 2.0f);
    ImGui::PopID();
    ImGui::EndGroup();
    remember_item(app, ("head_thumb_" + std::to_string(h)).c_str());
  }
  ImGui::End();
}

}  // namespace attnlab
