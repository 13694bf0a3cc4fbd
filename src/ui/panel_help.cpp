// Help: keyboard shortcuts and how to read the lab.
#include "app.h"
#include "i18n.h"
#include "widgets.h"
#include "panels.h"

namespace attnlab {

void draw_help_window(App& app) {
  ImGui::SetNextWindowSize(ImVec2(520 * app.style_scale, 460 * app.style_scale), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y * 0.5f), ImGuiCond_FirstUseEver, ImVec2(0.5f, 0.5f));
  if (!ImGui::Begin(tr_id("window.help", "Help"), &app.ui.show_help)) {
    ImGui::End();
    return;
  }
  ImGui::TextUnformatted(tr("help.keyboard"));
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    // The keys as wide as they are; what they do takes the rest of the window and wraps there.
    ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
    for (const Shortcut& k : shortcuts()) {
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", tr(k.keys));
      ImGui::TableNextColumn();
      text_wrapped_words("%s", tr(k.what));
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  text_wrapped_words("%s", tr("help.reading"));
  ImGui::Spacing();
  text_wrapped_words("%s", tr("help.try"));
  ImGui::End();
}

}  // namespace attnlab
