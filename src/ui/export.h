// export.h — what leaves the lab as files: a matrix as CSV (with its token labels), the whole result
// as JSON (what attnlab-cli prints), and the names they get. PNGs are taken by the shell, which
// owns the pixels: the UI asks for one through App::save_png.
#pragma once
#include <string>

#include "ui_state.h"

namespace attnlab {

struct App;

// The matrix of view `v` (the selected head for per-head views) as CSV: a header row of column
// labels (key tokens, or indices), then one row per matrix row starting with its token. Numbers in
// the shortest form that reads back as the same float; masked cells of "masked" as -inf.
std::string view_csv(const App& app, View v);

// "attention-lab_weights_head0.csv", "attention-lab.png", ...
std::string export_file_name(const App& app, View v, const char* extension);

// Draws the Export menu's items (inside an open popup or menu).
void export_menu_items(App& app);

// Items for one view (the heatmap's right-click menu).
void export_view_items(App& app, View v);

}  // namespace attnlab
