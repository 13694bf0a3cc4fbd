// learn.cpp — Learn mode's state machine, time slicing, probe and page API (drawing: panel_learn.cpp).
#include "learn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <nlohmann/json.hpp>

#include "app.h"
#include "i18n.h"
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
      if (p.contains("learners"))
        for (const nlohmann::json& c : p.at("learners")) x.choice_learners.push_back(c.get<std::vector<std::string>>());
      for (const nlohmann::json& v : e.at("variants")) x.variants.push_back({v.at("label"), v.at("config").dump()});
      if (e.contains("inspect")) x.inspect = e.at("inspect").dump();
      if (e.contains("sweep")) {
        const nlohmann::json& w = e.at("sweep");
        x.sweep_budget = w.at("budget");
        for (const nlohmann::json& r : w.at("rows")) {
          Experiment::SweepRow row{r.at("model"), r.at("params"), {}};
          for (const nlohmann::json& a : r.at("accuracy")) row.accuracy.emplace_back(a.at(0), a.at(1));
          x.sweep.push_back(std::move(row));
        }
      }
      out.push_back(std::move(x));
    }
    return out;
  }();
  return table;
}

int experiment_answer(const Experiment& e, int distance) {
  if (e.sweep.empty() || e.choice_learners.empty()) return e.answer;
  std::vector<std::string> learned;
  for (const Experiment::SweepRow& r : e.sweep) {
    const auto it = std::find_if(r.accuracy.begin(), r.accuracy.end(), [&](const auto& q) { return q.first == distance; });
    if (it == r.accuracy.end()) return -1;  // not measured there: nothing to judge by
    if (it->second >= kLearnedAccuracy) learned.push_back(r.model);
  }
  std::sort(learned.begin(), learned.end());
  for (size_t c = 0; c < e.choice_learners.size(); ++c) {
    std::vector<std::string> named = e.choice_learners[c];
    std::sort(named.begin(), named.end());
    if (named == learned) return (int)c;
  }
  return -1;
}

const char* experiment_text(const Experiment& e, std::string_view field) {
  const auto indexed = [&](std::string_view prefix) -> int {  // "choice.2" -> 2; -1 when the field is another
    if (field.substr(0, prefix.size()) != prefix) return -1;
    int i = 0;
    for (char c : field.substr(prefix.size())) {
      if (c < '0' || c > '9') return -1;
      i = i * 10 + (c - '0');
    }
    return field.size() > prefix.size() ? i : -1;
  };
  const std::string* english = nullptr;
  if (field == "question") english = &e.name;
  else if (field == "ask") english = &e.predict;
  else if (field == "measured") english = &e.measured;
  else if (field == "budget") english = &e.sweep_budget;
  else if (const int c = indexed("choice."); c >= 0 && c < (int)e.choices.size()) english = &e.choices[(size_t)c];
  else if (const int v = indexed("variant."); v >= 0 && v < (int)e.variants.size()) english = &e.variants[(size_t)v].label;
  if (!english) return "";
  return tr_dynamic("experiment." + e.key + "." + std::string(field), english->c_str());
}

const char* task_label(const char* name) { return tr_dynamic(std::string("task.") + name + ".label", name); }

const char* relation_label(const char* name) {
  std::string key = std::string("learn.relation.") + name;  // "next smallest" -> learn.relation.next_smallest
  std::replace(key.begin(), key.end(), ' ', '_');
  return tr_dynamic(key, name);
}

std::string learn_load_experiment(App& app, int index, int variant) {
  const auto all = experiments();
  if (index < 0 || index >= (int)all.size() || variant < 0 || variant >= (int)all[(size_t)index].variants.size())
    return "experiment: no such experiment";
  LearnState& L = learn_state(app);
  lrn::TrainSetup setup;
  if (std::string e = attn::parse_train_config(all[(size_t)index].variants[(size_t)variant].config, setup); !e.empty()) return e;
  if (L.experiment != index) L.experiment_distance = 0;  // another experiment: its own distance again
  if (setup.task == "delayed_copy" && L.experiment_distance > 0)
    setup.spec.distance = std::clamp(L.experiment_distance, 1, setup.spec.n_ctx - 1);
  L.setup = setup;
  L.experiment = index;
  L.variant = variant;
  L.variant_label = all[(size_t)index].variants[(size_t)variant].label;
  if (!all[(size_t)index].inspect.empty()) L.probe_panel = 1;  // its question is answered in Inspect heads
  L.predictions.resize(all.size(), -1), L.revealed.resize(all.size(), false), L.variants_run.resize(all.size(), 0u);
  L.error.clear();
  return "";
}

std::vector<int> experiment_runs_left(const LearnState& L, int e) {
  std::vector<int> left;
  const auto all = experiments();
  if (e < 0 || e >= (int)all.size()) return left;
  const unsigned ran = e < (int)L.variants_run.size() ? L.variants_run[(size_t)e] : 0u;
  for (int v = 0; v < (int)all[(size_t)e].variants.size(); ++v)
    if (!(ran & (1u << v))) left.push_back(v);
  return left;
}

LearnState& learn_state(App& app) {
  if (!app.learn) {
    app.learn = std::make_shared<LearnState>();
    app.learn->setup = learn_defaults(lrn::tasks().front());
    if (app.session_link) app.learn->link = app.session_link();
    if (!app.learn->link) app.learn->link = attn::make_local_link();  // no threads here: slices of each frame
  }
  return *app.learn;
}

bool learn_busy(const App& app) { return app.learn && app.learn->link->busy(); }

double learn_frame_due_in(const App& app, double seconds_since_last_frame) {
  if (!learn_busy(app)) return std::numeric_limits<double>::infinity();
  if (!app.learn->link->threaded()) return 0.0;
  return std::max(0.0, 1.0 / kLearnFramesPerS - seconds_since_last_frame);
}

bool learn_wants_frame(const App& app, double seconds_since_last_frame) {
  return learn_frame_due_in(app, seconds_since_last_frame) <= 0.0;
}

namespace {

// The tag of a run started now: the experiment variant loaded last, or the task for free settings.
lrn::RunTag run_tag(const LearnState& L, const lrn::TrainSetup& setup) {
  if (L.experiment < 0) return {setup.task, -1, -1};
  return {L.variant_label, L.experiment, L.variant};
}

// A command for the session; a refusal is kept in `error` (a probe's in probe_error, by its caller).
std::string send(LearnState& L, const lrn::Command& c) {
  std::string e = L.link->send(c);
  if (!std::holds_alternative<lrn::cmd::SetProbe>(c)) L.error = e;
  // The command's own setup (a session on another thread shows it in run() a frame or two later).
  if (e.empty() && std::holds_alternative<lrn::cmd::Start>(c)) L.setup = std::get<lrn::cmd::Start>(c).setup, L.settings_dirty = false;
  return e;
}

}  // namespace

std::string learn_set_probe(App& app, std::string_view text) {
  LearnState& L = learn_state(app);
  L.probe_error = L.link->send(lrn::cmd::SetProbe{std::string(text)});
  return L.probe_error;
}

// Sent only when it changes something: views ask for gradients every frame while they wait for them.
void learn_probe_gradients(App& app, bool on) {
  LearnState& L = learn_state(app);
  if (L.run().probe_gradients != on) L.link->send(lrn::cmd::ProbeGradients{on});
}

std::string learn_start(App& app, const lrn::TrainSetup& setup, bool run) {
  LearnState& L = learn_state(app);
  return send(L, lrn::cmd::Start{setup, run_tag(L, setup), run});
}

std::string learn_train(App& app) {
  LearnState& L = learn_state(app);
  const bool starts = !(L.run().started && !L.run().done && L.setup == L.run().run_setup);
  const std::string e = send(L, lrn::cmd::Train{L.setup, run_tag(L, L.setup)});
  if (e.empty() && starts) L.settings_dirty = false;
  return e;
}

void learn_pause(App& app) { learn_state(app).link->send(lrn::cmd::Pause{}); }

void learn_stop(App& app) { learn_pause(app); }

void learn_step(App& app) {
  LearnState& L = learn_state(app);
  const bool starts = !L.run().started || L.setup != L.run().run_setup || L.run().done;
  if (send(L, lrn::cmd::Step{L.setup, run_tag(L, L.setup)}).empty() && starts) L.settings_dirty = false;
}

void learn_replay(App& app, int index) { learn_state(app).link->send(lrn::cmd::Replay{index}); }

void learn_reset(App& app) {
  LearnState& L = learn_state(app);
  const lrn::TrainSetup setup = L.run().started ? L.run().run_setup : L.setup;
  if (send(L, lrn::cmd::Reset{setup, run_tag(L, setup)}).empty()) L.setup = setup, L.settings_dirty = false;
}

void learn_tick(App& app) {
  if (!app.learn) return;
  LearnState& L = *app.learn;
  const lrn::SessionState& s = L.run();
  if (!L.link->threaded() && s.started && (s.running || s.evaluating)) {
    // The last frame's work besides training: its total, as the shell measured it, minus training.
    if (app.stats.count > 0) {
      const float last = app.stats.ms[(app.stats.next + FrameStats::kWindow - 1) % FrameStats::kWindow];
      L.draw_ms = std::max(std::max(0.0f, last - s.ms_last_work), L.draw_ms * 0.95f);
    }
  }
  const double budget = std::min((double)L.budget_ms, std::max(1.0, (double)(L.frame_target_ms - L.draw_ms)));
  if (L.link->update(budget)) ++app.result_version;  // the Learn views changed: draw this frame's result
  // A run of an experiment has ended. Its measured outcome, which quotes every variant, is shown beside
  // the prediction once the learner has made one and has run each variant: never before they have
  // committed to a guess, nor with the figures of a run they have not yet watched.
  if (const int e = s.tag.experiment; s.started && s.done && e >= 0 && e < (int)L.revealed.size() && s.tag.variant >= 0) {
    L.variants_run[(size_t)e] |= 1u << s.tag.variant;
    L.revealed[(size_t)e] = L.revealed[(size_t)e] || (L.predictions[(size_t)e] >= 0 && experiment_runs_left(L, e).empty());
  }
}

// [SECTION] inspect in the lab
std::string learn_open_in_lab(App& app, int layer) {
  LearnState& L = learn_state(app);
  lrn::Session::LabLayer lab;
  if (std::string refused = L.link->lab_layer(layer, lab); !refused.empty()) return refused;
  const lrn::Task& task = *L.run().task;
  std::vector<std::string> names, source_names;
  for (int id : lab.example.tokens) names.push_back(task.token_name(id));
  for (int id : lab.example.source) source_names.push_back(task.token_name(id));
  if (std::string err = apply_config(app, attn::layer_config(lab.model, names, source_names, layer)); !err.empty()) return err;
  app.ui.learn_mode = false;
  app.layout_dirty = true;
  const lrn::ModelSpec& s = L.run().run_setup.spec;
  app.ui.origin = {true, L.run().run_setup.task, layer, s.layers, lab.step, s.positional};
  notify(app, trf("notice.opened_layer", {{"layer", layer}, {"task", L.run().run_setup.task}, {"step", lab.step}}));
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
  const lrn::SessionState& r = L.run();
  ojson j;
  j["state"] = r.phase();
  const lrn::TrainSetup& s = r.started ? r.run_setup : L.setup;
  j["task"] = s.task;
  j["step"] = r.started ? r.step : 0;
  j["steps"] = s.train.steps;
  j["steps_per_s"] = std::round(r.steps_per_s * 10.0) / 10.0;
  if (r.started && !r.train_loss.empty()) j["train_loss"] = r.train_loss.back();
  if (r.started && !r.history.empty()) {
    // The last evaluation on the held-out set, in the same form as `attnlab-cli train` logs it.
    const ojson last = ojson::parse(attn::eval_point_json(r.history.back(), r.run_setup));
    j["evaluated_at"] = last["step"];
    for (const char* k : {"loss", "accuracy", "pattern_score", "task_pattern_score", "pattern_by_relation", "saturation", "ms"})
      if (last.contains(k)) j[k] = last[k];
  }
  j["message"] = r.started ? r.message : std::string();
  j["converged"] = r.started && r.converged;  // stopped early: train.stop_accuracy was reached
  j["trains_on"] = L.link->runs_on();
  j["in_flight"] = L.link->in_flight();  // commands the worker or thread has not applied yet
  j["error"] = L.error;
  return j.dump();
}

std::string learn_model_json(App& app) {
  LearnState& L = learn_state(app);
  std::string out;
  if (L.run().started) L.link->read([&](const lrn::Session& s) { out = attn::model_to_json(s.trainer(), 1); });
  return out;
}

std::string learn_open_model(App& app, std::string_view text) {
  lrn::cmd::OpenModel open;
  if (std::string e = attn::parse_model(text, open.setup, open.params, &open.step, &open.history); !e.empty()) return e;
  LearnState& L = learn_state(app);
  open.tag = run_tag(L, open.setup);
  if (std::string e = L.link->send(open); !e.empty()) return e;  // refused: the run is kept
  L.setup = open.setup, L.settings_dirty = false, L.error.clear();
  app.ui.learn_mode = true;
  app.layout_dirty = true;
  notify(app, trf("notice.opened_model", {{"task", open.setup.task}, {"step", open.step}}));
  return "";
}

std::string learn_run_json(App& app) {
  LearnState& L = learn_state(app);
  return attn::train_config_to_json(L.run().started ? L.run().run_setup : L.setup);
}

std::string open_file_text(App& app, const std::string& name, std::string_view text) {
  std::string err;
  if (attn::is_model_json(text)) {
    err = learn_open_model(app, text);
  } else {
    err = apply_setup(app, std::string(text));
    if (err.empty()) app.ui.learn_mode = false, notify(app, trf("notice.opened", {{"name", name}}));
  }
  if (!err.empty())
    report_problem(app, tr("problem.file.title"), trf("problem.file.detail_lab", {{"name", name}, {"reason", err}}));
  return err;
}

std::string learn_history_json(App& app) {
  LearnState& L = learn_state(app);
  std::string out = "[";
  for (const lrn::EvalPoint& p : L.run().history) out += (out.size() > 1 ? "," : "") + attn::eval_point_json(p, L.run().run_setup);
  return out + "]";
}

}  // namespace attnlab
