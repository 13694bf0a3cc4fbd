// learn_expect.h — what the learning engine's tests hold against each other, field by field: two runs'
// evaluations, two probes, and one learn::SessionState against another in the groups that a test can
// promise. The wire's copy of the state against the session's own promises every group
// (tests/io/test_session_wire.cpp); a command foreseen against the same command applied promises what
// the command sets and, when it begins a run, where that run begins (tests/engine/test_learn_session.cpp).
// A field added to SessionState goes into one group here, and every test that compares states checks it.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "learn/session.h"

namespace learn_expect {

using attn::learn::EvalPoint;
using attn::learn::Probe;
using attn::learn::SessionState;

// Evaluations: what each measured (the same run measures it bit for bit); `wall_time` adds when each was
// taken, which only a copy of the same run shares.
inline void same_evaluations(const std::vector<EvalPoint>& a, const std::vector<EvalPoint>& b, bool wall_time = false) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const EvalPoint &p = a[i], &q = b[i];
    EXPECT_EQ(p.step, q.step) << "evaluation " << i;
    EXPECT_EQ(p.loss, q.loss) << "bit for bit, at evaluation " << i;
    EXPECT_EQ(p.accuracy, q.accuracy) << "evaluation " << i;
    EXPECT_EQ(p.train_loss, q.train_loss) << "evaluation " << i;
    EXPECT_EQ(p.grad_norm, q.grad_norm) << "evaluation " << i;
    EXPECT_EQ(p.pattern_score, q.pattern_score) << "evaluation " << i;
    EXPECT_EQ(p.pattern, q.pattern) << "evaluation " << i;
    EXPECT_EQ(p.saturation, q.saturation) << "evaluation " << i;
    if (wall_time) {
      EXPECT_EQ(p.ms, q.ms) << "evaluation " << i;
    }
  }
}

inline void same_probe(const Probe& a, const Probe& b, const char* what) {
  EXPECT_EQ(a.example.tokens, b.example.tokens) << what;
  EXPECT_EQ(a.example.targets, b.example.targets) << what;
  EXPECT_EQ(a.example.source, b.example.source) << what;
  EXPECT_EQ(a.n, b.n) << what;
  EXPECT_EQ(a.m, b.m) << what;
  EXPECT_EQ(a.layers, b.layers) << what;
  EXPECT_EQ(a.heads, b.heads) << what;
  EXPECT_EQ(a.loss, b.loss) << what;
  EXPECT_EQ(a.weights, b.weights) << what;
  EXPECT_EQ(a.weight_grads, b.weight_grads) << what;
  EXPECT_EQ(a.score_grads, b.score_grads) << what;
  EXPECT_EQ(a.param_grads, b.param_grads) << what;
  EXPECT_EQ(a.predictions, b.predictions) << what;
  EXPECT_EQ(a.influence, b.influence) << what;
}

// What a command sets by itself, without the trainer: whether a run exists and trains, which run and
// under what name, the run it is compared with, the replayed snapshot and the probe's input.
inline void same_commanded(const SessionState& a, const SessionState& b) {
  EXPECT_STREQ(a.phase(), b.phase());
  EXPECT_EQ(a.started, b.started);
  EXPECT_EQ(a.running, b.running);
  if (a.started) {
    EXPECT_EQ(a.run_setup, b.run_setup);
    EXPECT_EQ(a.task, b.task);
  }
  EXPECT_EQ(a.tag.label, b.tag.label);
  EXPECT_EQ(a.tag.experiment, b.tag.experiment);
  EXPECT_EQ(a.tag.variant, b.tag.variant);
  EXPECT_EQ(a.compare.label, b.compare.label);
  EXPECT_EQ(a.compare.experiment, b.compare.experiment);
  EXPECT_EQ(a.compare.variant, b.compare.variant);
  EXPECT_EQ(a.compare.loss, b.compare.loss);
  EXPECT_EQ(a.compare.accuracy, b.compare.accuracy);
  EXPECT_EQ(a.compare.saturation, b.compare.saturation);
  EXPECT_EQ(a.replay, b.replay);
  EXPECT_EQ(a.typed_probe, b.typed_probe);
  EXPECT_EQ(a.probe_text, b.probe_text);
  EXPECT_EQ(a.probe_gradients, b.probe_gradients);
}

// Where a run stands: its step, its curves and snapshots, whether an evaluation is under way (a new run
// begins with its step-0 evaluation).
inline void same_run_so_far(const SessionState& a, const SessionState& b, bool wall_time = false) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.evaluating, b.evaluating);
  EXPECT_EQ(a.opened_at, b.opened_at);
  EXPECT_EQ(a.train_loss_from, b.train_loss_from);
  EXPECT_EQ(a.train_loss, b.train_loss);
  EXPECT_EQ(a.snapshot_steps, b.snapshot_steps);
  same_evaluations(a.history, b.history, wall_time);
}

// Everything: the groups above, how the run ended, the probe's numbers and the task's ideal pattern,
// the speed, and what a copy needs to follow (versions, commands applied, the last refusal).
inline void same_state(const SessionState& a, const SessionState& b) {
  same_commanded(a, b);
  same_run_so_far(a, b, true);
  EXPECT_EQ(a.done, b.done);
  EXPECT_EQ(a.diverged, b.diverged);
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.refused, b.refused);
  EXPECT_EQ(a.probe_example.tokens, b.probe_example.tokens);
  same_probe(a.probe, b.probe, "probe");
  if (a.replay >= 0) same_probe(a.replay_probe, b.replay_probe, "replay probe");
  EXPECT_EQ(a.probe_step, b.probe_step);
  EXPECT_EQ(a.ideal, b.ideal);
  EXPECT_EQ(a.steps_per_s, b.steps_per_s);
  EXPECT_EQ(a.steps_last_work, b.steps_last_work);
  EXPECT_EQ(a.ms_last_work, b.ms_last_work);
  EXPECT_TRUE(a.versions == b.versions);
  EXPECT_EQ(a.commands, b.commands);
}

}  // namespace learn_expect
