// panels.h — one function per panel, each in its own panel_*.cpp. The side panels (Input, Controls,
// Matrices, Inspector, All heads, Lines) are declared with their table in panes.h; these are the rest.
#pragma once

#include <vector>

#include "panes.h"

namespace attnlab {

struct App;

void draw_pipeline_panel(App& app);    // the formula strip across the top
void draw_text_line(App& app);         // the text box alone, two lines high (the Matrices tab leads with it on phones)
void draw_status_bar(App& app);        // sizes, backend, timings, notices
void draw_help_window(App& app);       // keyboard shortcuts and how to read the lab
void draw_tour_window(App& app);       // the guided walkthrough
void tour_open_step(App& app, int step);  // sets the lab up for a tour step and frames its matrix
// Opens the tour where the learner left it (in Learn mode at its Learn chapter, not back in the lab),
// keeping the lab's setup; closing it before its last step puts that setup back (and says so).
void tour_toggle(App& app);
void tour_close(App& app);
int tour_step_count();
const char* tour_step_title(int step);  // "" out of range
bool tour_step_done(const App& app);    // the open step's "Try" is done (it shows a tick)
void draw_hover_card(App& app);        // tooltip with the exact computation of the hovered cell
void draw_nav_bar(App& app);           // tabs between panels on small screens, side panels, Present
// How many lines the nav bar's buttons wrap into across a bar W wide in `mode` (panel_nav.cpp: the same
// list and flow draw_nav_bar uses), so that the layout sizes the bar for this frame, not the last.
int nav_bar_lines(const App& app, LayoutMode mode, float W);
void draw_presenter(App& app);         // full-screen teaching view: formula, S and A big, presets
void draw_notice(App& app);            // the notice (notify, report_problem) over every mode
// The Lines panel's keys for one query's row of weights (panel_lines.cpp): those of weight ≥ 0.02, or
// only the `count` strongest, strongest first (equal weights: the earlier key).
void strongest_keys(const float* row, int m, int count, std::vector<int>& keys);

}  // namespace attnlab
