// session.cpp — a training run's state machine, time slicing, snapshots, replay and probe (session.h).
#include "learn/session.h"

#include <algorithm>
#include <utility>

namespace attn::learn {

float mean_saturation(const EvalPoint& p) {
  double sum = 0.0;
  for (double v : p.saturation) sum += v;
  return p.saturation.empty() ? 0.0f : (float)(sum / (double)p.saturation.size());
}

const char* SessionState::phase() const {
  if (!started) return "idle";
  if (diverged) return "diverged";
  if (done) return "done";
  return running ? "running" : "paused";
}

namespace {

// A typed probe as an example of this setup's task: "" or why not.
std::string typed_example(const TrainSetup& setup, std::string_view text, Example& e) {
  const Task& task = *find_task(setup.task);
  e = {};
  std::string_view target = text;
  if (setup.spec.cross) {
    const size_t arrow = text.find("->");
    if (arrow == std::string_view::npos) return "probe: a cross-attention task takes \"source -> output\"";
    if (std::string err = ids_from_labels(task, setup.spec.vocab, text.substr(0, arrow), "probe source", e.source); !err.empty()) return err;
    target = text.substr(arrow + 2);
  }
  if (std::string err = ids_from_labels(task, setup.spec.vocab, target, "probe", e.tokens); !err.empty()) return err;
  e.targets.assign(e.tokens.size(), -1);  // typed: nothing to predict, so no loss
  if (std::string err = check_batch(setup.spec, batch_of(e)); !err.empty()) return "probe: " + err;
  return "";
}

bool blank(std::string_view text) { return text.find_first_not_of(" \t\n") == std::string_view::npos; }

// What starting a run does to the state alone, without the trainer: the run being replaced becomes
// the comparison (RunTag says when), the new run starts at step 0 with empty curves and no snapshots,
// and a typed probe not in the new task's tokens goes back to the held-out example. Session::start
// does it before starting its trainer; Session::foresee does it to a copy.
void begin_run(SessionState& s, const TrainSetup& setup, const RunTag& tag, bool run) {
  const bool comparable = s.started && s.run_setup.task == setup.task && s.tag.experiment == tag.experiment;
  if (comparable && s.history.size() > 1) {
    s.compare = {s.tag.label, s.tag.experiment, s.tag.variant, {}, {}, {}};
    for (const EvalPoint& p : s.history) {
      s.compare.loss.emplace_back(p.step, (float)p.loss), s.compare.accuracy.emplace_back(p.step, (float)p.accuracy);
      s.compare.saturation.emplace_back(p.step, mean_saturation(p));
    }
    ++s.versions.compare;
  } else if (!comparable) {
    if (!s.compare.loss.empty() || !s.compare.label.empty()) ++s.versions.compare;
    s.compare = {};
  }
  s.run_setup = setup;
  s.tag = tag;
  s.task = find_task(setup.task);
  s.started = true;
  s.running = run;
  s.evaluating = true;  // step 0, the untrained model, is evaluated first
  s.done = s.diverged = s.converged = false;
  s.message.clear();
  s.step = 0;
  s.history.clear();
  s.train_loss.clear();
  s.train_loss_from = 0;
  s.opened_at = -1;
  s.steps_per_s = 0.0;
  if (s.typed_probe && !typed_example(setup, s.probe_text, s.probe_example).empty())  // another task: back to held-out
    s.typed_probe = false, s.probe_text.clear();
  s.snapshot_steps.clear();
  s.replay = -1;
}

}  // namespace

// [SECTION] commands
std::string Session::check(const SessionState& s, const Command& c) {
  struct Visit {
    const SessionState& s;
    // A command that may start a run refuses a setup that cannot train (when it would resume instead,
    // its setup is the run's own, which trained).
    std::string operator()(const cmd::Start& c) const { return validate(c.setup); }
    std::string operator()(const cmd::Train& c) const { return validate(c.setup); }
    std::string operator()(const cmd::Step& c) const { return validate(c.setup); }
    std::string operator()(const cmd::Reset& c) const { return s.started ? "" : validate(c.setup); }
    std::string operator()(const cmd::Pause&) const { return ""; }
    std::string operator()(const cmd::Replay&) const { return ""; }
    std::string operator()(const cmd::ProbeGradients&) const { return ""; }
    std::string operator()(const cmd::SetProbe& c) const {
      if (blank(c.text)) return "";
      if (!s.started) return "probe: nothing trained yet: press Train first";
      Example e;
      return typed_example(s.run_setup, c.text, e);
    }
    std::string operator()(const cmd::OpenModel& c) const {
      if (std::string e = validate(c.setup); !e.empty()) return e;
      const std::vector<Tensor> layout = param_layout(c.setup.spec);
      const size_t size = layout.back().offset + layout.back().size();
      if (c.params.size() != size)
        return "params: the model has " + std::to_string(size) + " parameters, not " + std::to_string(c.params.size());
      return "";
    }
  };
  return std::visit(Visit{s}, c);
}

void Session::foresee(SessionState& s, const Command& c) {
  if (!check(s, c).empty()) return;  // refused: apply() changes nothing either
  struct Visit {
    SessionState& s;
    void operator()(const cmd::Start& c) { begin_run(s, c.setup, c.tag, c.run); }
    void operator()(const cmd::Train& c) {
      if (s.started && !s.done && c.setup == s.run_setup) s.running = true;
      else begin_run(s, c.setup, c.tag, true);
    }
    void operator()(const cmd::Pause&) { s.running = false; }
    void operator()(const cmd::Step& c) {
      if (!s.started || c.setup != s.run_setup || s.done) begin_run(s, c.setup, c.tag, false);
      s.running = false;
    }
    void operator()(const cmd::Reset& c) { begin_run(s, s.started ? s.run_setup : c.setup, c.tag, false); }
    void operator()(const cmd::Replay& c) {
      s.replay = s.started && c.index >= 0 && c.index < (int)s.snapshot_steps.size() ? c.index : -1;
    }
    void operator()(const cmd::SetProbe& c) {
      s.typed_probe = !blank(c.text);
      s.probe_text = s.typed_probe ? c.text : std::string();
    }
    void operator()(const cmd::ProbeGradients& c) { s.probe_gradients = c.on; }
    void operator()(const cmd::OpenModel& c) {
      begin_run(s, c.setup, c.tag, false);
      s.step = s.train_loss_from = s.opened_at = c.step;
      s.history = c.history;  // the file's curves up to its step
    }
  };
  std::visit(Visit{s}, c);
}

std::string Session::apply(const Command& c) {
  ++s_.commands;
  if (std::string e = check(s_, c); !e.empty()) return s_.refused = e;
  s_.refused.clear();
  struct Visit {
    Session& self;
    void operator()(const cmd::Start& c) { self.start(c.setup, c.tag, c.run); }
    void operator()(const cmd::Train& c) {
      SessionState& s = self.s_;
      if (s.started && !s.done && c.setup == s.run_setup) s.running = true;
      else self.start(c.setup, c.tag, true);
    }
    void operator()(const cmd::Pause&) {
      self.s_.running = false;
      self.was_running_ = false;  // the pause is no training time
    }
    void operator()(const cmd::Step& c) {
      SessionState& s = self.s_;
      if (!s.started || c.setup != s.run_setup || s.done) self.start(c.setup, c.tag, false);
      self.step_once();
    }
    void operator()(const cmd::Reset& c) { self.start(self.s_.started ? self.s_.run_setup : c.setup, c.tag, false); }
    void operator()(const cmd::Replay& c) { self.replay(c.index); }
    void operator()(const cmd::SetProbe& c) { self.set_probe(c.text); }
    void operator()(const cmd::ProbeGradients& c) {
      if (self.s_.probe_gradients == c.on) return;
      self.s_.probe_gradients = c.on;
      if (self.s_.started) {
        self.refresh_probe();
        if (self.s_.replay >= 0) self.replay(self.s_.replay);
      }
    }
    void operator()(const cmd::OpenModel& c) { self.open_model(c); }
  };
  std::visit(Visit{*this}, c);
  return "";
}

void Session::start(const TrainSetup& setup, const RunTag& tag, bool run) {
  SessionState& s = s_;
  begin_run(s, setup, tag, run);
  // Checked (apply), so the trainer cannot refuse it: the current run is replaced only now.
  trainer_.start(setup);
  trainer_.set_deferred_evaluation(true);  // work() spreads evaluations over its slices
  s.task = &trainer_.task();
  rate_marks_.clear(), running_s_ = 0.0, was_running_ = false;
  if (!s.typed_probe) s.probe_example = trainer_.held_out_example(0);
  trainer_.begin_evaluation();  // step 0, the untrained model (as `attnlab-cli train` logs it)
  snapshots_.clear();
  ++s.versions.run, ++s.versions.snapshots, ++s.versions.replay;
  sync();
  build_ideal();
  refresh_probe();
}

void Session::step_once() {
  s_.running = false;
  if (trainer_.evaluation_pending()) {  // finish the one under way first, and keep its snapshot
    trainer_.continue_evaluation(trainer_.evaluation_chunks());
    sync(), record_snapshot();
  }
  if (trainer_.run(1) == 1) s_.train_loss.push_back((float)trainer_.last_train_loss());
  sync(), record_snapshot();
  refresh_probe();
}

void Session::open_model(const cmd::OpenModel& m) {
  start(m.setup, m.tag, false);                    // validated: replaces the run
  trainer_.adopt(m.params, m.step, m.history);     // the file's curves up to its step
  trainer_.begin_evaluation();                     // the file's weights on this run's held-out set
  s_.history.clear();
  s_.train_loss.clear();
  s_.train_loss_from = s_.opened_at = trainer_.step();
  snapshots_.clear(), s_.snapshot_steps.clear();
  s_.replay = -1;
  ++s_.versions.run, ++s_.versions.snapshots, ++s_.versions.replay;
  sync();
  refresh_probe();
}

void Session::set_probe(const std::string& text) {
  SessionState& s = s_;
  Example e;
  if (!blank(text)) typed_example(s.run_setup, text, e);  // checked (apply)
  s.typed_probe = !blank(text);
  s.probe_text = s.typed_probe ? text : std::string();
  if (s.started) {
    s.probe_example = s.typed_probe ? std::move(e) : trainer_.held_out_example(0);
    build_ideal();
    refresh_probe();
    if (s.replay >= 0) replay(s.replay);
  }
  ++s.versions.probe;
}

void Session::replay(int index) {
  ++s_.versions.replay;
  if (!s_.started || index < 0 || index >= (int)snapshots_.size()) {
    s_.replay = -1;
    return;
  }
  s_.replay = index;
  // The probe through the snapshot's weights, on the probe's own buffers: training is untouched.
  s_.replay_probe = trainer_.probe(s_.probe_example, s_.probe_gradients, &snapshots_[(size_t)index]);
}

// [SECTION] work
bool Session::work(double budget_ms) {
  SessionState& s = s_;
  s.steps_last_work = 0;
  s.ms_last_work = 0.0f;
  if (!s.started) return false;
  bool changed = false;
  if (s.evaluating || s.running) {
    const auto t0 = std::chrono::steady_clock::now();
    // Units of one part of a training step or one chunk of an evaluation (micro_batch sequences
    // either way), at least one, then as many as fit: a unit never starts when the slowest recent one
    // would end past the budget.
    double unit_ms = 0.0;
    for (;;) {
      const auto u0 = std::chrono::steady_clock::now();
      if (trainer_.evaluation_pending()) {
        if (trainer_.continue_evaluation(1)) sync(), record_snapshot();
      } else if (s.running && !trainer_.done()) {
        if (trainer_.run_part()) {
          s.train_loss.push_back((float)trainer_.last_train_loss());
          ++s.steps_last_work;
        }
      } else {
        break;
      }
      const auto u1 = std::chrono::steady_clock::now();
      unit_ms = std::max(unit_ms * 0.5, std::chrono::duration<double, std::milli>(u1 - u0).count());
      if (std::chrono::duration<double, std::milli>(u1 - t0).count() + unit_ms > budget_ms) break;
    }
    sync();
    s.ms_last_work = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (s.done) s.running = false;
    // Steps per second over the last second of running: the clock counts only while the run trains
    // (a pause in between is not time it took), so a short run or one paused and resumed still has a
    // figure, and fewer than 50 ms make one only when the run ended that fast.
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock0_).count();
    if (was_running_) running_s_ += now - last_work_s_;
    last_work_s_ = now, was_running_ = s.running;
    rate_marks_.emplace_back(running_s_, s.step);
    std::erase_if(rate_marks_, [&](const auto& m) { return m.first < running_s_ - 1.0; });
    const double span = rate_marks_.size() >= 2 ? running_s_ - rate_marks_.front().first : 0.0;
    if (span > 0.05 || (span > 0.0 && s.done))
      s.steps_per_s = (rate_marks_.back().second - rate_marks_.front().second) / span;
    changed = true;
  }
  if (s.probe_step != s.step) refresh_probe(), changed = true;
  return changed;
}

// The trainer's progress into the state: phase and step, and every evaluation that joined the history
// since the last call.
void Session::sync() {
  SessionState& s = s_;
  s.step = trainer_.step();
  s.done = trainer_.done(), s.diverged = trainer_.diverged(), s.converged = trainer_.converged();
  s.evaluating = trainer_.evaluation_pending();
  s.message = trainer_.message();
  const auto& h = trainer_.history();
  if (h.size() < s.history.size()) s.history.clear();
  if (s.history.size() < h.size()) s.history.insert(s.history.end(), h.begin() + (ptrdiff_t)s.history.size(), h.end());
}

// A snapshot of the weights at a new evaluation; past kMaxSnapshots every other one is dropped (the
// first and the newest stay).
void Session::record_snapshot() {
  const auto& h = trainer_.history();
  if (h.empty() || (!s_.snapshot_steps.empty() && s_.snapshot_steps.back() == h.back().step)) return;
  snapshots_.push_back(trainer_.snapshot()), s_.snapshot_steps.push_back(h.back().step);
  if (snapshots_.size() > SessionState::kMaxSnapshots) {
    size_t kept = 0;
    for (size_t i = 0; i < snapshots_.size(); ++i)
      if (i % 2 == 0 || i + 1 == snapshots_.size()) {
        snapshots_[kept] = std::move(snapshots_[i]), s_.snapshot_steps[kept] = s_.snapshot_steps[i];
        ++kept;
      }
    snapshots_.resize(kept), s_.snapshot_steps.resize(kept);
    if (s_.replay >= 0) s_.replay = std::min(s_.replay / 2, (int)kept - 1), ++s_.versions.replay;
  }
  ++s_.versions.snapshots;
}

void Session::refresh_probe() {
  s_.probe = trainer_.probe(s_.probe_example, s_.probe_gradients);
  s_.probe_step = trainer_.step();
  ++s_.versions.probe;
}

// The task's ideal attention on the probe example, per layer and relation: weight 1/|keys| on each key
// an ideal head would use (what the pattern score measures).
void Session::build_ideal() {
  const Task& task = trainer_.task();
  const ModelSpec& spec = s_.run_setup.spec;
  const Example& e = s_.probe_example;
  const int n = (int)e.tokens.size(), m = spec.cross ? (int)e.source.size() : n;
  s_.ideal.assign((size_t)spec.layers * task.relations, std::vector<float>((size_t)n * m, 0.0f));
  std::vector<int> keys;
  for (int l = 0; l < spec.layers; ++l)
    for (int r = 0; r < task.relations; ++r)
      for (int i = 0; i < n; ++i) {
        keys.clear();
        task.ideal_keys(e, spec.layers, l, r, i, keys);
        for (int k : keys)
          if (k >= 0 && k < m) s_.ideal[(size_t)l * task.relations + r][(size_t)i * m + k] += 1.0f / (float)keys.size();
      }
  ++s_.versions.ideal;
}

// [SECTION] open in the lab
std::string Session::lab_layer(int layer, LabLayer& out) const {
  if (!s_.started) return "nothing trained yet: press Train first";
  const ModelSpec& spec = s_.run_setup.spec;
  if (spec.recurrent()) return "a recurrent model has no attention layers to open in the lab";
  if (layer < 0 || layer >= spec.layers) return "layer: must be between 0 and " + std::to_string(spec.layers - 1);
  out.model = Model<float>(spec);
  out.model.params() = s_.replay >= 0 ? snapshots_[(size_t)s_.replay] : trainer_.snapshot();
  out.example = s_.probe_example;
  out.model.forward(batch_of(out.example));
  out.step = s_.replay >= 0 ? s_.replay_step() : s_.step;
  return "";
}

}  // namespace attn::learn
