// Help: keyboard shortcuts and how to read the lab.
#include "app.h"
#include "i18n.h"
#include "panels.h"

namespace attnlab {

void draw_help_window(App& app) {
  ImGui::SetNextWindowSize(ImVec2(520 * app.style_scale, 460 * app.style_scale), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y * 0.5f), ImGuiCond_FirstUseEver, ImVec2(0.5f, 0.5f));
  if (!ImGui::Begin(tr_id("window.help", "Help"), &app.ui.show_help)) {
    ImGui::End();
    return;
  }
  ImGui::TextUnformatted("Keyboard");
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const Shortcut& k : shortcuts()) {
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", k.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.what);
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  ImGui::TextWrapped(
      "Reading the lab. Each panel in the middle is one step of the formula, computed from the one above it. "
      "Blue is negative, red positive, white near zero; the weights use their own purple-to-yellow scale "
      "from 0 to 1. Grey cells are masked. Hover any cell to see the exact arithmetic that produced it; the "
      "Inspector keeps the last cell you clicked. Hovering a token lights up its row and column everywhere.");
  ImGui::Spacing();
  ImGui::TextWrapped(
      "Things to try: set scale to none instead of 1/\xE2\x88\x9A" "d_k and raise d_k to see rows collapse onto one key; set position to "
      "none and repeat a word to see identical rows; switch on the causal mask and watch the upper triangle "
      "of the weights go to zero while every row still sums to one.");
  ImGui::End();
}

}  // namespace attnlab
