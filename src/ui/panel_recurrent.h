// panel_recurrent.h — Learn mode's lesson "why did attention replace RNNs?" (issue 19): the model's
// kind in the settings (attention, RNN, LSTM), the delayed copy's distance, and the views the probe
// window offers for a delayed copy: gradient against distance, accuracy against distance, the influence
// matrix beside an attention model's weights, and path length as an unrolled diagram.
#pragma once

#include "learn.h"

namespace attnlab {

struct App;

// The settings' model block: the kind (attention / RNN / LSTM), a recurrent model's hidden size, the
// delayed copy's distance, and the engine's refusal when the task needs what a recurrent model lacks.
void draw_model_kind(App& app, LearnState& L);
// An experiment on the delayed copy: one slider for the distance every one of its runs uses.
void draw_experiment_distance(App& app, LearnState& L);
// The distance that slider shows (its own once moved, else the settings'): what the line under the
// revealed outcome and the prediction's tick speak of.
int slider_distance(const LearnState& L);
// For a delayed_copy run: a row of views at the top of the probe window. Draws the chosen view and
// returns true, or returns false when the probe (heads or influence) is to be drawn as before.
bool draw_lesson_views(App& app, LearnState& L);

// Under a recurrent run's loss and accuracy curves: the one line saying why the attention plots (pattern
// score per head, saturated softmax rows) are not there, and where the lesson shows what replaces them.
void draw_recurrent_curves_note(App& app);

// Under an experiment's revealed outcome: for an experiment with a sweep, what was measured at the
// distance the slider sets (the sweep's accuracies there, and which models learn it).
void draw_measured_at_distance(App& app, LearnState& L);

// Gradient against distance of the current run, untrained and trained (Trainer::gradient_by_distance's
// measure over the first 64 held-out sequences), into L.grad_curves. "" or why not.
std::string learn_measure_gradient(App& app);

}  // namespace attnlab
