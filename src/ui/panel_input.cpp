// Input: the text box (retokenised on every keystroke), the tokens as chips, and in cross-attention
// mode a second box for the source sequence.
#include "app.h"
#include "i18n.h"
#include "imgui_stdlib.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

namespace {

// Chips for a token list; hovering lights the token up everywhere, clicking picks it as the query.
void chips(App& app, const std::vector<std::string>& tokens, bool queries) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (int i = 0; i < (int)tokens.size(); ++i) {
    bool hovered = false;
    const bool selected = queries && app.ui.query == i;
    if (token_chip(tokens[(size_t)i], i, selected, app.ui.hover_token == i, &hovered) && queries)
      app.ui.query = selected ? -1 : i;
    remember_item(app, ((queries ? "token_" : "source_token_") + std::to_string(i)).c_str());
    if (hovered) {
      app.ui.hover_token_next = i;
      ImGui::SetTooltip("token %d: \"%s\"%s", i, tokens[(size_t)i].c_str(), queries ? "\nclick: follow it as the query" : "");
    }
    const float next_w = i + 1 < (int)tokens.size() ? ImGui::CalcTextSize(tokens[(size_t)i + 1].c_str()).x + 16.0f * app.style_scale : 0;
    if (i + 1 < (int)tokens.size() && ImGui::GetItemRectMax().x + next_w < right) ImGui::SameLine(0, 3.0f * app.style_scale);
  }
}

bool text_box(App& app, const char* id, std::string& text, attn::SequenceInput& seq, float height) {
  // Dear ImGui reverts a text box to what it held before editing when Escape is pressed; here Escape
  // only leaves the box and keeps what was typed.
  const std::string typed = text;
  bool changed = ImGui::InputTextMultiline(id, &text, ImVec2(-1, height));
  if (ImGui::IsItemDeactivated() && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)) && text != typed) {
    text = typed;
    changed = false;
  }
  if (changed) text_edited(app, seq);
  return changed;
}

}  // namespace

void draw_text_line(App& app) {
  if (app.config.cross) return;  // two texts: the Input tab has both
  text_box(app, "##text", app.text, app.config.target, ImGui::GetTextLineHeightWithSpacing() * 2.2f);
  remember_item(app, "text");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("input.text.tip"));
  if (!app.error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.55f, 0.45f, 1.0f), "%s", app.error.c_str());
}

void draw_input_panel(App& app) {
  ImGui::Begin(pane_window(Pane::input));
  const attn::Result& r = app.engine.result();
  ImGui::TextUnformatted(app.config.cross ? tr("input.target") : tr("input.text"));
  help_marker(tr("input.text.help"));
  if (app.ui.focus_text && !app.external_text_boxes) {  // (the web page focuses its own <textarea>)
    ImGui::SetKeyboardFocusHere();
    app.ui.focus_text = false;
  }
  const float box_h = ImGui::GetTextLineHeightWithSpacing() * (app.config.cross ? 2.5f : 3.5f);
  text_box(app, "##text", app.text, app.config.target, box_h);
  remember_item(app, "text");
  if (!app.error.empty()) {
    text_wrapped_colored(ImVec4(1.0f, 0.55f, 0.45f, 1.0f), app.error.c_str());
    ImGui::TextDisabled("%s", tr("input.last_valid"));
  }
  ImGui::TextUnformatted(trn("status.tokens", r.n, {{"n", r.n}}).c_str());
  if (r.dropped_tokens > 0) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), "%s",
                       trf("input.dropped", {{"n", r.dropped_tokens}, {"limit", attn::Limits::max_tokens_ui}}).c_str());
  }
  chips(app, app.labels, true);
  if (app.config.cross) {
    ImGui::Separator();
    ImGui::TextUnformatted(tr("input.source"));
    help_marker(tr("input.source.help"));
    text_box(app, "##source", app.source, app.config.source, box_h);
    remember_item(app, "source");
    ImGui::TextUnformatted(trn("status.tokens", r.m, {{"n", r.m}}).c_str());
    chips(app, app.source_labels, false);
  }
  ImGui::End();
}

}  // namespace attnlab
