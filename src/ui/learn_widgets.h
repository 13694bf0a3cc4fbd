// learn_widgets.h — drawing pieces the Learn windows share (learn_widgets.cpp; the Inspect view,
// panel_inspect.cpp, and the recurrence lesson, panel_recurrent.cpp, draw with the same ones).
#pragma once
#include <span>
#include <string>

#include "imgui.h"
#include "mask.h"

namespace attnlab {

struct App;

// Remembers [a, b] under `name` (app.widget_rects: layout_json's widgets) for tests and tours.
void remember_rect(App& app, const std::string& name, ImVec2 a, ImVec2 b);
// One (n, m) row-major matrix as cells filling `size`, masked cells grey: the lab's heatmap, compact.
// range > 0: signed data on the diverging map over [−range, range]; else weights on the sequential map.
struct Thumbnail {
  int row = -1, col = -1;  // the hovered cell, or -1
  ImVec2 min, max;         // where the cells were drawn (screen pixels)
};
// Its colours are one texture where the shell has a GPU (refilled when the numbers change), kept under
// the caller's ID scope: one thumbnail to a scope (PushID per head).
Thumbnail thumbnail(App& app, const float* w, int n, int m, const attn::MaskMatrix* mask, ImVec2 size, float range = 0.0f);
// The colour bar of the thumbnails beside it: [0, 1] weights, or [−range, range] with an optional note
// (wrapped at the window's edge). Its pieces go on the next line where the window has no room for them.
void colour_scale(float width, float range, const char* note = nullptr);
// SameLine() (with `spacing`, or the style's) when an item `width` wide still fits after the last one,
// before the window's edge (or the text wrap position, where one is pushed); else the next item starts
// the next line (a phone, a longer language).
void same_line_if_room(float width, float spacing = -1.0f);
// A row of small buttons, one per view (or layer, or head), the current one lit; a click makes its button
// current. The row goes on to the next line where the next button would pass the window's edge (a phone,
// a longer language). Each button is remembered under its widget name. Returns true on a click.
struct ViewButton {
  std::string label;   // as drawn ("###id" keeps the id while the words change)
  std::string widget;  // remember_item's name, which tests and tours find it by
};
bool view_buttons(App& app, std::span<const ViewButton> buttons, int& current);

}  // namespace attnlab
