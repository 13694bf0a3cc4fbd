// learn_widgets.h — drawing pieces the Learn windows share (panel_learn.cpp defines them; the Inspect
// view, panel_inspect.cpp, draws its thumbnails and scales with the same ones).
#pragma once
#include <string>
#include <utility>

#include "imgui.h"
#include "mask.h"

namespace attnlab {

struct App;

// Remembers [a, b] under `name` (app.widget_rects: layout_json's widgets) for tests and tours.
void remember_rect(App& app, const std::string& name, ImVec2 a, ImVec2 b);
// One (n, m) matrix as cells, masked cells grey. Returns the hovered cell or (-1, -1).
// range > 0: signed data on the diverging map over [−range, range]; else weights on the sequential map.
std::pair<int, int> thumbnail(const float* w, int n, int m, const attn::MaskMatrix* mask, ImVec2 size, float range = 0.0f);
// The colour bar of the thumbnails beside it: [0, 1] weights, or [−range, range] with an optional note.
void colour_scale(float width, float range, const char* note = nullptr);

}  // namespace attnlab
