// Keyboard access to matrix cells (ImGui 1.86 navigation reaches a heatmap as one item): while a
// heatmap has the keyboard focus, the arrow keys move a cell cursor inside it instead of leaving it
// (at an edge they leave as usual), Enter or Space does what a click does, and the cursor's cell is
// reported as hovered (the caller makes it the hovered cell), so the inspector, the hover card and
// the screen-reader text follow it.
#include <algorithm>

#include "heatmap.h"
#include "imgui_internal.h"

namespace attnlab {

bool heatmap_keyboard(const HeatmapSpec& s, ImVec2 origin, float cw, float ch, HeatmapEvent& ev) {
  const int rows = s.m.rows, cols = s.m.cols;
  const CellRef& matrix = s.cell;
  if (!s.key_cell || !ImGui::IsItemFocused() || rows <= 0 || cols <= 0) return false;
  ImGuiContext& g = *ImGui::GetCurrentContext();
  CellRef& k = *s.key_cell;
  if (k.view != matrix.view || k.head != matrix.head || !k.valid()) k = {matrix.view, matrix.head, 0, 0};
  if (ImGui::IsItemClicked()) {  // a click puts the cursor on the clicked cell
    const ImVec2 p = ImGui::GetIO().MousePos;
    k.row = (int)((p.y - origin.y) / ch), k.col = (int)((p.x - origin.x) / cw);
  }
  k.row = std::clamp(k.row, 0, rows - 1);
  k.col = std::clamp(k.col, 0, cols - 1);
  // A move request this frame: take it while it stays inside the matrix.
  if (g.NavMoveSubmitted && g.NavId == ImGui::GetItemID()) {
    int r = k.row, c = k.col;
    switch (g.NavMoveDir) {
      case ImGuiDir_Left: --c; break;
      case ImGuiDir_Right: ++c; break;
      case ImGuiDir_Up: --r; break;
      case ImGuiDir_Down: ++r; break;
      default: break;
    }
    if (g.NavMoveDir != ImGuiDir_None && r >= 0 && r < rows && c >= 0 && c < cols) {
      k.row = r, k.col = c;
      ImGui::NavMoveRequestCancel();
      g.NavDisableHighlight = false;  // as a navigation move would: the keyboard is in charge
      g.NavDisableMouseHover = true;
    }
  }
  if (g.NavDisableHighlight) return false;  // the mouse is in charge: no cursor drawn
  ev.row = k.row, ev.col = k.col, ev.hovered = true;
  ev.clicked = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space));
  const ImVec2 a(origin.x + cw * (float)k.col, origin.y + ch * (float)k.row);
  ImGui::GetWindowDrawList()->AddRect(a, ImVec2(a.x + cw, a.y + ch), 0xFF00FFFFu, 0, 0, 3.0f * s.scale);
  return true;
}

}  // namespace attnlab
