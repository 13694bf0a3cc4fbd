// panel_learn.h — the parts of Learn mode's windows, one file each (panel_learn.cpp lays the windows
// out and calls them):
//   panel_learn_run.cpp       the run's buttons and status (Train, Step, Reset, files, link)
//   panel_learn_settings.cpp  the experiments, the task and the model's and training's settings
//   panel_learn_curves.cpp    the curves window (loss, held-out accuracy, pattern score, saturation)
//   panel_learn_probe.cpp     the attention on the probe: replay, typed input, thumbnails, gradients
#pragma once

#include "learn.h"

namespace attnlab {

struct App;

void draw_learn_run_controls(App& app, LearnState& L);
void draw_learn_settings(App& app, LearnState& L);
void draw_learn_curves(App& app, LearnState& L);
void draw_learn_probe(App& app, LearnState& L);

}  // namespace attnlab
