// export.h — what leaves the lab as files: a matrix as CSV (with its token labels), the whole result
// as JSON (what attnlab-cli prints), and the names they get. PNGs are taken by the shell, which
// owns the pixels: the UI asks for one through App::save_png once the picture is wholly on screen.
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

// Asks for a PNG of the whole lab (View::count) or of one view's block. It is taken a frame or more
// later, once the menu that asked has closed and, for a view, once its block is wholly on screen:
// scrolled into view, or shown large (the Enlarge window) where it cannot be, then put back. Meanwhile
// the pointer is kept off the lab, so no hover card or tooltip lands in the picture. A view that cannot
// be shown is said on screen; nothing is saved.
void request_png(App& app, View v);
// Moves a pending request on; frame() calls it after the windows are drawn (the block rects are this
// frame's).
void step_png_request(App& app);
// Whether a PNG request waits: the pointer stays off the lab this frame (frame() before the panels).
bool png_request_pending(const App& app);

// Draws the Export menu's items (inside an open popup or menu).
void export_menu_items(App& app);

// Items for one view (the heatmap's right-click menu).
void export_view_items(App& app, View v);

}  // namespace attnlab
