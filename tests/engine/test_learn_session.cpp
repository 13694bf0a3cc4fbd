// The training session (learn/session.h): its commands against a Trainer run straight through, commands
// that arrive while a step or an evaluation is under way, refusals that change nothing, replay and the
// probe. Work is given no time (budget 0: one micro-batch per work() call), so nothing here is timed.
#include <gtest/gtest.h>

#include <vector>

#include "learn/session.h"
#include "learn_expect.h"

namespace {

using namespace attn::learn;

TrainSetup small_setup(uint64_t seed = 3) {
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.train.steps = 6, s.train.eval_every = 2, s.train.eval_batch = 32, s.train.seed = seed;
  s.train.batch = 16, s.train.micro_batch = 4;  // four parts a step, eight chunks an evaluation
  return s;
}

// Work until the session has nothing left to do; returns the work() calls it took.
int finish(Session& s) {
  int calls = 0;
  while (s.busy() && calls < 100000) s.work(0.0), ++calls;
  return calls;
}

// The CLI's way: one Trainer, every evaluation whole.
std::vector<EvalPoint> straight_through(const TrainSetup& setup) {
  Trainer t;
  EXPECT_EQ(t.start(setup), "");
  t.evaluate();
  while (!t.done()) t.run(setup.train.eval_every);
  return t.history();
}

using learn_expect::same_evaluations;  // learn_expect.h: the state's fields in the groups a test promises

TEST(Session, ARunInSlicesEqualsTheTrainerRunStraightThrough) {
  Session s;
  EXPECT_STREQ(s.state().phase(), "idle");
  ASSERT_EQ(s.apply(cmd::Start{small_setup(), {"run", -1, -1}, true}), "");
  EXPECT_STREQ(s.state().phase(), "running");
  EXPECT_TRUE(s.state().evaluating);  // step 0, the untrained model, as the CLI logs it
  const int calls = finish(s);
  // 8 chunks for each of 4 evaluations, 4 parts for each of 6 steps: one unit per call (and a last
  // call that finds the run over).
  EXPECT_GE(calls, 4 * 8 + 6 * 4);
  EXPECT_STREQ(s.state().phase(), "done");
  EXPECT_EQ(s.state().step, 6);
  EXPECT_EQ(s.state().train_loss.size(), 6u);
  same_evaluations(s.state().history, straight_through(small_setup()));
  same_evaluations(s.state().history, s.trainer().history());
  // A snapshot at every evaluation, and the probe at the last step.
  EXPECT_EQ(s.state().snapshot_steps, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(s.state().probe_step, 6);
  EXPECT_FALSE(s.state().probe.weights.empty());
}

TEST(Session, CommandsWhileAStepIsUnderWayLeaveItConsistent) {
  Session s;
  ASSERT_EQ(s.apply(cmd::Start{small_setup(), {}, true}), "");
  while (s.state().evaluating) s.work(0.0);  // step 0's evaluation
  s.work(0.0), s.work(0.0);                  // two of step 1's four parts
  ASSERT_EQ(s.state().step, 0);
  // Replay and back: the probe reads a snapshot on its own buffers, the step under way is untouched.
  ASSERT_EQ(s.apply(cmd::Replay{0}), "");
  EXPECT_EQ(s.state().replay, 0);
  EXPECT_EQ(s.state().replay_step(), 0);
  ASSERT_EQ(s.apply(cmd::Replay{-1}), "");
  ASSERT_EQ(s.apply(cmd::Pause{}), "");
  EXPECT_STREQ(s.state().phase(), "paused");
  EXPECT_FALSE(s.work(0.0) && s.state().step != 0);  // paused: no training
  EXPECT_EQ(s.state().step, 0);
  // Step finishes the step under way (one step, not two), then pauses.
  ASSERT_EQ(s.apply(cmd::Step{small_setup(), {}}), "");
  EXPECT_EQ(s.state().step, 1);
  EXPECT_STREQ(s.state().phase(), "paused");
  // Train with the same setup resumes, and the whole run equals the straight one.
  ASSERT_EQ(s.apply(cmd::Train{small_setup(), {}}), "");
  EXPECT_EQ(s.state().step, 1) << "resumed, not restarted";
  EXPECT_EQ(s.state().snapshot_steps, std::vector<int>{0});
  finish(s);
  same_evaluations(s.state().history, straight_through(small_setup()));

  // Reset: step 0 again, paused; the finished run becomes the comparison (same task, no experiment).
  ASSERT_EQ(s.apply(cmd::Reset{small_setup(), {"first", -1, -1}}), "");
  EXPECT_STREQ(s.state().phase(), "paused");
  EXPECT_EQ(s.state().compare.loss.size(), 4u);
  // A new run (another seed) while the reset run's step-0 evaluation is under way replaces it; that run
  // has no curve yet, so the comparison stays the finished run's.
  ASSERT_EQ(s.apply(cmd::Train{small_setup(), {"first", -1, -1}}), "");
  s.work(0.0);
  ASSERT_TRUE(s.state().evaluating);
  ASSERT_EQ(s.apply(cmd::Start{small_setup(9), {"second", -1, -1}, true}), "");
  EXPECT_EQ(s.state().step, 0);
  EXPECT_TRUE(s.state().history.empty());
  EXPECT_TRUE(s.state().snapshot_steps.empty());
  EXPECT_EQ(s.state().compare.loss.size(), 4u);
  EXPECT_EQ(s.state().tag.label, "second");
  finish(s);
  same_evaluations(s.state().history, straight_through(small_setup(9)));
  // Another experiment's run is no comparison for this one.
  ASSERT_EQ(s.apply(cmd::Start{small_setup(), {"other", 0, 1}, false}), "");
  EXPECT_TRUE(s.state().compare.loss.empty());

  // Reset keeps the run's own setup (the one passed is for when there is no run).
  ASSERT_EQ(s.apply(cmd::Reset{small_setup(9), {}}), "");
  EXPECT_EQ(s.state().step, 0);
  EXPECT_EQ(s.state().run_setup, small_setup());
}

TEST(Session, OpeningAModelMidRunShowsItsWeightsAtItsStep) {
  Session trained;
  ASSERT_EQ(trained.apply(cmd::Start{small_setup(), {}, true}), "");
  finish(trained);
  const std::vector<float> weights = trained.trainer().snapshot();

  Session s;
  ASSERT_EQ(s.apply(cmd::Start{small_setup(5), {}, true}), "");
  s.work(0.0);  // an evaluation under way
  cmd::OpenModel open{small_setup(), {}, weights, 6, {trained.state().history.begin(), trained.state().history.end() - 1}};
  ASSERT_EQ(s.apply(open), "");
  EXPECT_STREQ(s.state().phase(), "paused");
  EXPECT_EQ(s.state().step, 6);
  EXPECT_EQ(s.state().opened_at, 6);
  EXPECT_EQ(s.trainer().snapshot(), weights);
  EXPECT_EQ(s.state().probe.predictions, trained.state().probe.predictions);
  finish(s);  // the file's weights evaluated on this run's held-out set: the same numbers
  ASSERT_EQ(s.state().history.size(), trained.state().history.size());
  EXPECT_EQ(s.state().history.back().loss, trained.state().history.back().loss);
  EXPECT_EQ(s.state().snapshot_steps, std::vector<int>{6});

  // Weights of another size are refused, and the opened model stays.
  open.params.pop_back();
  EXPECT_EQ(s.apply(open).rfind("params:", 0), 0u);
  EXPECT_EQ(s.trainer().snapshot(), weights);
}

TEST(Session, ARefusedCommandChangesNothing) {
  Session s;
  ASSERT_EQ(s.apply(cmd::Start{small_setup(), {}, true}), "");
  finish(s);
  const std::vector<float> weights = s.trainer().snapshot();
  const size_t points = s.state().history.size();
  TrainSetup bad = small_setup();
  bad.train.adamw.lr = 0.0f;
  EXPECT_EQ(s.apply(cmd::Start{bad, {}, true}).rfind("train.lr:", 0), 0u);
  EXPECT_EQ(s.apply(cmd::Train{bad, {}}).rfind("train.lr:", 0), 0u);
  EXPECT_EQ(s.apply(cmd::Step{bad, {}}).rfind("train.lr:", 0), 0u);
  EXPECT_STREQ(s.state().phase(), "done");
  EXPECT_EQ(s.state().history.size(), points);
  EXPECT_EQ(s.trainer().snapshot(), weights);
  // A probe in tokens the task lacks names the token; the probe stays the held-out example.
  const std::vector<int> held_out = s.state().probe_example.tokens;
  const std::string e = s.apply(cmd::SetProbe{"a b zebra"});
  EXPECT_NE(e.find("probe"), std::string::npos) << e;
  EXPECT_FALSE(s.state().typed_probe);
  EXPECT_EQ(s.state().probe_example.tokens, held_out);
  // A probe before any run, and a layer the model lacks.
  Session idle;
  EXPECT_NE(idle.apply(cmd::SetProbe{"a b"}), "");
  Session::LabLayer lab;
  EXPECT_NE(idle.lab_layer(0, lab), "");
  EXPECT_EQ(s.lab_layer(7, lab).rfind("layer:", 0), 0u);
}

TEST(Session, TheProbeFollowsTypedInputReplayAndGradients) {
  Session s;
  ASSERT_EQ(s.apply(cmd::Start{small_setup(), {}, true}), "");
  finish(s);
  ASSERT_EQ(s.apply(cmd::SetProbe{"a b c d e"}), "");
  EXPECT_TRUE(s.state().typed_probe);
  EXPECT_EQ(s.state().probe.n, 5);
  EXPECT_EQ(s.state().ideal.front().size(), 25u);
  EXPECT_TRUE(s.state().probe.weight_grads.empty());
  ASSERT_EQ(s.apply(cmd::ProbeGradients{true}), "");
  EXPECT_FALSE(s.state().probe.score_grads.empty());
  // Replaying step 0 shows the untrained weights on the same input; the live probe is unchanged.
  const std::vector<std::vector<float>> live = s.state().probe.weights;
  ASSERT_EQ(s.apply(cmd::Replay{0}), "");
  EXPECT_EQ(s.state().replay_probe.n, 5);
  EXPECT_NE(s.state().replay_probe.weights, live);
  EXPECT_EQ(s.state().probe.weights, live);
  // Open in the lab shows the replayed weights' layer on the typed input.
  Session::LabLayer lab;
  ASSERT_EQ(s.lab_layer(0, lab), "");
  EXPECT_EQ(lab.step, 0);
  EXPECT_EQ(lab.example.tokens.size(), 5u);
  EXPECT_EQ(lab.model.weights(0), s.state().replay_probe.weights[0]);
  // Blank: the held-out example again.
  ASSERT_EQ(s.apply(cmd::SetProbe{"  "}), "");
  EXPECT_FALSE(s.state().typed_probe);
  EXPECT_EQ(s.state().probe_example.tokens, s.trainer().held_out_example(0).tokens);
}

// A copy of the state on another thread shows what a command will do before the session has applied it
// (Session::foresee). Every command, in every state it meets here, against apply() on the real
// session: what foresee promises, it gets right.
TEST(Session, ForeseeingACommandAgreesWithApplyingIt) {
  Session s, trained;
  ASSERT_EQ(trained.apply(cmd::Start{small_setup(), {}, true}), "");
  finish(trained);
  TrainSetup other = small_setup(9);
  other.train.steps = 8;
  TrainSetup bad = small_setup();
  bad.train.adamw.lr = -1.0f;
  const cmd::OpenModel open{small_setup(), {"file", -1, -1}, trained.trainer().snapshot(), 6,
                            {trained.state().history.begin(), trained.state().history.end() - 1}};
  const std::vector<Command> commands = {
      cmd::Pause{}, cmd::Start{small_setup(), {"a", -1, -1}, true}, cmd::Pause{}, cmd::Train{small_setup(), {"a", -1, -1}},
      cmd::Step{small_setup(), {"a", -1, -1}}, cmd::Replay{0}, cmd::Replay{99}, cmd::SetProbe{"a b c"}, cmd::SetProbe{"zz"},
      cmd::ProbeGradients{true}, cmd::Train{other, {"b", -1, -1}}, cmd::Start{bad, {}, true}, cmd::Reset{other, {}},
      cmd::SetProbe{""}, cmd::Step{small_setup(), {"c", -1, -1}}, open, cmd::Train{small_setup(), {"d", 2, 0}},
      cmd::Start{small_setup(4), {"e", 2, 1}, false}, cmd::ProbeGradients{false}};
  for (size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    SessionState f = s.state();
    Session::foresee(f, c);
    const bool begins = f.history.size() != s.state().history.size() || f.step != s.state().step || f.run_setup != s.state().run_setup ||
                        f.tag.label != s.state().tag.label;
    s.apply(c);
    const SessionState& a = s.state();
    SCOPED_TRACE("command " + std::to_string(i));
    learn_expect::same_commanded(f, a);
    // A new run: where it starts, with its curves and snapshots from the start (a Step then also takes
    // its step, which only the trainer can do).
    if (begins && !std::holds_alternative<cmd::Step>(c)) learn_expect::same_run_so_far(f, a);
    if (i % 3 == 2) finish(s);  // and some commands meet a run that is over
    else s.work(0.0);           // others one under way
  }
}

}  // namespace
