// learn.cpp — Learn mode's state machine, time slicing, probe and page API (drawing: panel_learn.cpp).
#include "learn.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <nlohmann/json.hpp>

#include "app.h"
#include "model_json.h"
#include "presets.h"

namespace attnlab {

namespace lrn = attn::learn;
using ojson = nlohmann::ordered_json;

lrn::TrainSetup learn_defaults(const lrn::Task& task) {
  lrn::TrainSetup s = lrn::default_setup(task);
  // About 40 evaluations a run, so the curves have points to show (each costs ~8 steps' work).
  s.train.eval_every = std::max(10, s.train.steps / 40);
  // A class should not wait for steps that change nothing: stop once held-out accuracy stays at 99%
  // (a checkbox turns it off; experiments and links say for themselves).
  s.train.stop_accuracy = 0.99f;
  return s;
}

// [SECTION] experiments
// The table is assets/experiments.json, compiled in (cmake/ui.cmake); bench/learn_experiments.py trains
// the same configs and prints the figures its texts quote: rerun it when training's numbers change.
extern const char* const kExperimentsJson;

std::span<const Experiment> experiments() {
  static const std::vector<Experiment> table = [] {
    std::vector<Experiment> out;
    const nlohmann::json j = nlohmann::json::parse(kExperimentsJson);  // checked by the tests; a bad file fails at once
    for (const nlohmann::json& e : j.at("experiments")) {
      Experiment x;
      x.key = e.at("key"), x.name = e.at("question"), x.measured = e.at("measured");
      const nlohmann::json& p = e.at("predict");
      x.predict = p.at("ask"), x.answer = p.at("answer");
      for (const nlohmann::json& c : p.at("choices")) x.choices.push_back(c);
      for (int v = 0; v < 2; ++v) x.variants[v] = {e.at("variants").at(v).at("label"), e.at("variants").at(v).at("config").dump()};
      out.push_back(std::move(x));
    }
    return out;
  }();
  return table;
}

std::string learn_load_experiment(App& app, int index, int variant) {
  const auto all = experiments();
  if (index < 0 || index >= (int)all.size() || variant < 0 || variant > 1) return "experiment: no such experiment";
  LearnState& L = learn_state(app);
  lrn::TrainSetup setup;
  if (std::string e = attn::parse_train_config(all[(size_t)index].variants[variant].config, setup); !e.empty()) return e;
  L.setup = setup;
  L.experiment = index;
  L.variant = variant;
  L.variant_label = all[(size_t)index].variants[variant].label;
  L.predictions.resize(all.size(), -1), L.revealed.resize(all.size(), false);
  L.error.clear();
  return "";
}

LearnState& learn_state(App& app) {
  if (!app.learn) {
    app.learn = std::make_shared<LearnState>();
    app.learn->setup = learn_defaults(lrn::tasks().front());
  }
  return *app.learn;
}

bool learn_busy(const App& app) {
  return app.learn && app.learn->started && (app.learn->running || app.learn->trainer.evaluation_pending());
}

const char* learn_phase(const LearnState& L) {
  if (!L.started) return "idle";
  if (L.trainer.diverged()) return "diverged";
  if (L.trainer.done()) return "done";
  return L.running ? "running" : "paused";
}

namespace {

double seconds(const LearnState& L) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - L.clock0).count();
}

// The task's ideal attention on the probe example, per layer and relation: weight 1/|keys| on each key
// an ideal head would use (what the pattern score measures).
void build_ideal(LearnState& L) {
  const lrn::Task& task = L.trainer.task();
  const lrn::ModelSpec& s = L.run_setup.spec;
  const lrn::Example e = learn_probe_example(L);
  const int n = (int)e.tokens.size(), m = s.cross ? (int)e.source.size() : n;
  L.ideal.assign((size_t)s.layers * task.relations, std::vector<float>((size_t)n * m, 0.0f));
  std::vector<int> keys;
  for (int l = 0; l < s.layers; ++l)
    for (int r = 0; r < task.relations; ++r)
      for (int i = 0; i < n; ++i) {
        keys.clear();
        task.ideal_keys(e, s.layers, l, r, i, keys);
        for (int k : keys)
          if (k >= 0 && k < m) L.ideal[(size_t)l * task.relations + r][(size_t)i * m + k] += 1.0f / (float)keys.size();
      }
}

void refresh_probe(LearnState& L) {
  L.probe = L.trainer.probe(learn_probe_example(L), L.probe_view != 0);
  L.probe_step = L.trainer.step();
}

// A snapshot of the weights at every new evaluation; past kMaxSnapshots every other one is dropped (the
// first and the newest stay), so a long run keeps an even spread over its whole history.
void record_snapshots(LearnState& L) {
  const auto& h = L.trainer.history();
  if (h.empty() || (!L.snapshots.empty() && L.snapshots.back().step == h.back().step)) return;
  L.snapshots.push_back({h.back().step, L.trainer.snapshot()});
  if (L.snapshots.size() > LearnState::kMaxSnapshots) {
    std::vector<LearnState::Snapshot> kept;
    for (size_t i = 0; i < L.snapshots.size(); ++i)
      if (i % 2 == 0 || i + 1 == L.snapshots.size()) kept.push_back(std::move(L.snapshots[i]));
    L.snapshots = std::move(kept);
    if (L.replay >= 0) L.replay = std::min(L.replay / 2, (int)L.snapshots.size() - 1);
  }
}

}  // namespace

lrn::Example learn_probe_example(const LearnState& L) {
  return L.typed_probe ? L.typed : L.trainer.held_out_example(0);
}

namespace {
// The typed probe as an example of this setup's task: "" or why not.
std::string typed_example(const lrn::TrainSetup& setup, std::string_view text, lrn::Example& e) {
  const lrn::Task& task = *lrn::find_task(setup.task);
  e = {};
  std::string_view target = text;
  if (setup.spec.cross) {
    const size_t arrow = text.find("->");
    if (arrow == std::string_view::npos) return "probe: a cross-attention task takes \"source -> output\"";
    if (std::string err = lrn::ids_from_labels(task, setup.spec.vocab, text.substr(0, arrow), "probe source", e.source); !err.empty()) return err;
    target = text.substr(arrow + 2);
  }
  if (std::string err = lrn::ids_from_labels(task, setup.spec.vocab, target, "probe", e.tokens); !err.empty()) return err;
  e.targets.assign(e.tokens.size(), -1);  // typed: nothing to predict, so no loss
  if (std::string err = lrn::check_batch(setup.spec, lrn::batch_of(e)); !err.empty()) return "probe: " + err;
  return "";
}
}  // namespace

std::string learn_set_probe(App& app, std::string_view text) {
  LearnState& L = learn_state(app);
  const bool blank = text.find_first_not_of(" \t\n") == std::string_view::npos;
  lrn::Example e;
  if (!blank) {
    if (!L.started) return L.probe_error = "probe: nothing trained yet: press Train first";
    if (std::string err = typed_example(L.run_setup, text, e); !err.empty()) return L.probe_error = err;
  }
  L.typed_probe = !blank;
  L.typed = std::move(e);
  L.probe_text = blank ? std::string() : std::string(text);
  L.probe_error.clear();
  if (L.started) {
    build_ideal(L);
    refresh_probe(L);
    if (L.replay >= 0) learn_replay(app, L.replay);
  }
  return "";
}

float mean_saturation(const lrn::EvalPoint& p) {
  double sum = 0.0;
  for (double v : p.saturation) sum += v;
  return p.saturation.empty() ? 0.0f : (float)(sum / (double)p.saturation.size());
}

std::string learn_start(App& app, const lrn::TrainSetup& setup, bool run) {
  LearnState& L = learn_state(app);
  if (std::string e = lrn::validate(setup); !e.empty()) return L.error = e;
  // The run being replaced becomes the comparison, when it learned the same task in the same experiment
  // (or both with free settings): another experiment's run says nothing about this one's question.
  const int experiment = L.experiment, variant = L.experiment >= 0 ? L.variant : -1;
  const bool comparable = L.started && L.run_setup.task == setup.task && L.run_experiment == experiment;
  if (comparable && L.trainer.history().size() > 1) {
    L.compare = {L.run_label, L.run_experiment, L.run_variant, {}, {}, {}};
    for (const lrn::EvalPoint& p : L.trainer.history()) {
      L.compare.loss.emplace_back(p.step, (float)p.loss), L.compare.accuracy.emplace_back(p.step, (float)p.accuracy);
      L.compare.saturation.emplace_back(p.step, mean_saturation(p));
    }
  } else if (!comparable) {
    L.compare = {};
  }
  L.run_experiment = experiment, L.run_variant = variant;
  L.run_label = L.experiment >= 0 ? L.variant_label : setup.task;
  // Validated above, so start() cannot refuse it: the current run is replaced only now.
  L.trainer.start(setup);
  L.trainer.set_deferred_evaluation(true);  // learn_tick spreads evaluations over frames
  L.run_setup = setup;
  L.setup = setup;
  L.started = true;
  L.running = run;
  L.error.clear();
  L.settings_dirty = false;
  L.train_loss.clear();
  L.train_loss_from = 0;
  L.opened_at = -1;
  L.rate_marks.clear();
  L.steps_per_s = 0.0;
  if (L.typed_probe && !typed_example(setup, L.probe_text, L.typed).empty())  // another task: back to held-out
    L.typed_probe = false, L.probe_text.clear();
  L.trainer.begin_evaluation();  // step 0, the untrained model (as `attnlab-cli train` logs it)
  L.snapshots.clear();
  L.replay = -1;
  build_ideal(L);
  refresh_probe(L);
  return "";
}

std::string learn_train(App& app) {
  LearnState& L = learn_state(app);
  if (L.started && !L.trainer.done() && L.setup == L.run_setup) {
    L.running = true;
    L.error.clear();
    return "";
  }
  return learn_start(app, L.setup, true);
}

void learn_pause(App& app) {
  LearnState& L = learn_state(app);
  L.running = false;
  L.rate_marks.clear();
}

void learn_stop(App& app) { learn_pause(app); }

void learn_step(App& app) {
  LearnState& L = learn_state(app);
  if (!L.started || L.setup != L.run_setup || L.trainer.done())
    if (!learn_start(app, L.setup, false).empty()) return;
  L.running = false;
  if (L.trainer.evaluation_pending()) {  // finish the one under way first, and keep its snapshot
    L.trainer.continue_evaluation(L.trainer.evaluation_chunks());
    record_snapshots(L);
  }
  if (L.trainer.run(1) == 1) L.train_loss.push_back((float)L.trainer.last_train_loss());
  record_snapshots(L);
  refresh_probe(L);
}

void learn_replay(App& app, int index) {
  LearnState& L = learn_state(app);
  if (!L.started || index < 0 || index >= (int)L.snapshots.size()) {
    L.replay = -1;
    return;
  }
  L.replay = index;
  // The probe through the snapshot's weights, on the probe's own buffers: training is untouched.
  L.replay_probe = L.trainer.probe(learn_probe_example(L), L.probe_view != 0, &L.snapshots[(size_t)index].params);
}

void learn_reset(App& app) {
  LearnState& L = learn_state(app);
  learn_start(app, L.started ? L.run_setup : L.setup, false);
}

void learn_tick(App& app) {
  if (!app.learn) return;
  LearnState& L = *app.learn;
  L.steps_last_frame = 0;
  const float trained_ms = std::exchange(L.train_ms_last_frame, 0.0f);
  const bool evaluating = L.started && L.trainer.evaluation_pending();
  if (evaluating || (L.started && L.running)) {
    const auto t0 = std::chrono::steady_clock::now();
    // The last frame's work besides training (its total, as the shell measured it, minus training)
    if (app.stats.count > 0) {
      const float last = app.stats.ms[(app.stats.next + FrameStats::kWindow - 1) % FrameStats::kWindow];
      L.draw_ms = std::max(std::max(0.0f, last - trained_ms), L.draw_ms * 0.95f);
    }
    const double budget = std::min((double)L.budget_ms, std::max(1.0, (double)(L.frame_target_ms - L.draw_ms)));
    // Work in units of one part of a training step or one chunk of an evaluation (micro_batch
    // sequences either way), at least one a frame, then as many as fit in the budget: a unit never
    // starts when the slowest recent one would end past it.
    double unit_ms = 0.0;
    for (;;) {
      const auto s0 = std::chrono::steady_clock::now();
      if (L.trainer.evaluation_pending()) {
        if (L.trainer.continue_evaluation(1)) record_snapshots(L);
      } else if (L.running && !L.trainer.done()) {
        if (L.trainer.run_part()) {
          L.train_loss.push_back((float)L.trainer.last_train_loss());
          ++L.steps_last_frame;
        }
      } else {
        break;
      }
      const auto s1 = std::chrono::steady_clock::now();
      unit_ms = std::max(unit_ms * 0.5, std::chrono::duration<double, std::milli>(s1 - s0).count());
      if (std::chrono::duration<double, std::milli>(s1 - t0).count() + unit_ms > budget) break;
    }
    L.train_ms_last_frame = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (L.trainer.done()) L.running = false;
    const double now = seconds(L);
    L.rate_marks.emplace_back(now, L.trainer.step());
    std::erase_if(L.rate_marks, [&](const auto& m) { return m.first < now - 1.0; });
    if (L.rate_marks.size() >= 2 && now - L.rate_marks.front().first > 0.05)
      L.steps_per_s = (L.rate_marks.back().second - L.rate_marks.front().second) / (now - L.rate_marks.front().first);
    ++app.result_version;  // the Learn views changed: draw this frame's result
  }
  if (L.started && L.probe_step != L.trainer.step()) refresh_probe(L);
  // A run of an experiment has ended: its measured outcome is shown beside the prediction.
  if (L.started && L.trainer.done() && L.run_experiment >= 0 && L.run_experiment < (int)L.revealed.size())
    L.revealed[(size_t)L.run_experiment] = true;
}

// [SECTION] inspect in the lab
std::string learn_open_in_lab(App& app, int layer) {
  LearnState& L = learn_state(app);
  if (!L.started) return "nothing trained yet: press Train first";
  const lrn::ModelSpec& s = L.run_setup.spec;
  if (layer < 0 || layer >= s.layers) return "layer: must be between 0 and " + std::to_string(s.layers - 1);
  const lrn::Task& task = L.trainer.task();
  const lrn::Example e = learn_probe_example(L);
  const lrn::Batch b = lrn::batch_of(e);
  lrn::Model<float> model(s);
  const bool replaying = L.replay >= 0;
  model.params() = replaying ? L.snapshots[(size_t)L.replay].params : L.trainer.snapshot();
  model.forward(b);
  std::vector<std::string> names, source_names;
  for (int id : e.tokens) names.push_back(task.token_name(id));
  for (int id : e.source) source_names.push_back(task.token_name(id));
  if (std::string err = apply_config(app, attn::layer_config(model, names, source_names, layer)); !err.empty()) return err;
  app.ui.learn_mode = false;
  app.layout_dirty = true;
  const int step = replaying ? L.snapshots[(size_t)L.replay].step : L.trainer.step();
  app.ui.origin = {true, L.run_setup.task, layer, s.layers, step, s.positional};
  notify(app, "Layer " + std::to_string(layer) + " of the " + L.run_setup.task + " model at step " + std::to_string(step) +
                  ": X is its residual stream, the weights are the trained ones");
  return "";
}

// [SECTION] page API
std::string learn_train_json(App& app, std::string_view options) {
  LearnState& L = learn_state(app);
  lrn::TrainSetup setup;
  if (std::string e = attn::parse_train_config(options, setup); !e.empty()) return L.error = e;
  L.experiment = -1;  // a config of its own: no experiment's run
  if (std::string e = learn_start(app, setup, true); !e.empty()) return e;
  app.ui.learn_mode = true;
  return "";
}

std::string learn_status_json(App& app) {
  LearnState& L = learn_state(app);
  ojson j;
  j["state"] = learn_phase(L);
  const lrn::TrainSetup& s = L.started ? L.run_setup : L.setup;
  j["task"] = s.task;
  j["step"] = L.started ? L.trainer.step() : 0;
  j["steps"] = s.train.steps;
  j["steps_per_s"] = std::round(L.steps_per_s * 10.0) / 10.0;
  if (L.started && !L.train_loss.empty()) j["train_loss"] = L.train_loss.back();
  if (L.started && !L.trainer.history().empty()) {
    // The last evaluation on the held-out set, in the same form as `attnlab-cli train` logs it.
    const ojson last = ojson::parse(attn::eval_point_json(L.trainer.history().back(), L.trainer));
    j["evaluated_at"] = last["step"];
    for (const char* k : {"loss", "accuracy", "pattern_score", "task_pattern_score", "pattern_by_relation", "saturation"})
      if (last.contains(k)) j[k] = last[k];
  }
  j["message"] = L.started ? L.trainer.message() : std::string();
  j["converged"] = L.started && L.trainer.converged();  // stopped early: train.stop_accuracy was reached
  j["error"] = L.error;
  return j.dump();
}

std::string learn_model_json(App& app) {
  LearnState& L = learn_state(app);
  return L.started ? attn::model_to_json(L.trainer, 1) : std::string();
}

std::string learn_open_model(App& app, std::string_view text) {
  lrn::TrainSetup setup;
  std::vector<float> params;
  int step = 0;
  std::vector<lrn::EvalPoint> history;
  if (std::string e = attn::parse_model(text, setup, params, &step, &history); !e.empty()) return e;
  if (std::string e = lrn::validate(setup); !e.empty()) return e;
  LearnState& L = learn_state(app);
  learn_start(app, setup, false);  // validated: replaces the run
  L.trainer.adopt(params, step, history);  // the file's curves up to its step
  L.trainer.begin_evaluation();  // the file's weights on this run's held-out set
  L.train_loss.clear();
  L.train_loss_from = L.opened_at = L.trainer.step();
  L.snapshots.clear();
  L.replay = -1;
  refresh_probe(L);
  app.ui.learn_mode = true;
  app.layout_dirty = true;
  notify(app, "Opened a " + setup.task + " model trained for " + std::to_string(step) + " steps");
  return "";
}

std::string learn_run_json(App& app) {
  LearnState& L = learn_state(app);
  return attn::train_config_to_json(L.started ? L.run_setup : L.setup);
}

std::string open_file_text(App& app, const std::string& name, std::string_view text) {
  std::string err;
  if (attn::is_model_json(text)) {
    err = learn_open_model(app, text);
  } else {
    err = apply_setup(app, std::string(text));
    if (err.empty()) app.ui.learn_mode = false, notify(app, "Opened " + name);
  }
  if (!err.empty())
    report_problem(app, "A file could not be opened",
                   name + " was not opened: " + err + ". Nothing changed: the lab shows what it showed before.");
  return err;
}

std::string learn_history_json(App& app) {
  LearnState& L = learn_state(app);
  std::string out = "[";
  if (L.started)
    for (const lrn::EvalPoint& p : L.trainer.history()) out += (out.size() > 1 ? "," : "") + attn::eval_point_json(p, L.trainer);
  return out + "]";
}

}  // namespace attnlab
