// A session's commands and state as bytes (io/session_wire.h): every command round-trips; a copy of the
// state rebuilt from the messages equals the session's own after every kind of command, bit for bit;
// a damaged message is refused and leaves the copy as it was.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "learn_expect.h"
#include "session_wire.h"

namespace {

using namespace attn;
using namespace attn::learn;

TrainSetup small_setup(uint64_t seed = 3) {
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.train.steps = 6, s.train.eval_every = 2, s.train.eval_batch = 32, s.train.seed = seed;
  s.train.batch = 16, s.train.micro_batch = 4;
  s.train.adamw.lr = 0.0123f;  // a float that must survive the trip exactly
  return s;
}

using learn_expect::same_state;  // tests/engine/learn_expect.h: every field, in its groups

// A session on "the other side": every command goes through the bytes, every state back.
struct Link {
  Session session;
  SessionState mirror;
  StateCursor cursor;
  size_t bytes = 0, messages = 0;
  std::string send(const Command& c) {
    Command decoded;
    const std::vector<uint8_t> b = encode_command(c);
    EXPECT_EQ(decode_command(b, decoded), "");
    EXPECT_EQ(decoded.index(), c.index());
    const std::string e = session.apply(decoded);
    publish();
    return e;
  }
  void publish() {
    const std::vector<uint8_t> b = encode_state(session.state(), cursor);
    bytes += b.size(), ++messages;
    ASSERT_EQ(apply_state(b, mirror), "");
    same_state(session.state(), mirror);
  }
  void work_until_idle() {
    for (int i = 0; i < 10000 && session.busy(); ++i) session.work(0.0), publish();
  }
};

TEST(SessionWire, EveryCommandRoundTrips) {
  std::vector<Command> all = {
      cmd::Start{small_setup(), {"a run", 1, 0}, false}, cmd::Train{small_setup(7), {"b", -1, -1}}, cmd::Pause{},
      cmd::Step{small_setup(), {}}, cmd::Reset{small_setup(), {"r", 2, 1}}, cmd::Replay{3}, cmd::SetProbe{"a b -> c"},
      cmd::ProbeGradients{true}, cmd::OpenModel{small_setup(), {"opened", -1, -1}, {1.5f, -0.0f, 3e-38f}, 4, {}}};
  EvalPoint p;
  p.step = 2, p.loss = 1.25, p.pattern = {0.5, 0.25};
  std::get<cmd::OpenModel>(all.back()).history = {p};
  static_assert(std::variant_size_v<Command> == 9);
  for (const Command& c : all) {
    Command back;
    ASSERT_EQ(decode_command(encode_command(c), back), "") << c.index();
    ASSERT_EQ(back.index(), c.index());
  }
  Command back;
  ASSERT_EQ(decode_command(encode_command(all[0]), back), "");
  EXPECT_EQ(std::get<cmd::Start>(back).setup, small_setup());
  EXPECT_EQ(std::get<cmd::Start>(back).tag.label, "a run");
  EXPECT_FALSE(std::get<cmd::Start>(back).run);
  ASSERT_EQ(decode_command(encode_command(all[6]), back), "");
  EXPECT_EQ(std::get<cmd::SetProbe>(back).text, "a b -> c");
  ASSERT_EQ(decode_command(encode_command(all.back()), back), "");
  const auto& open = std::get<cmd::OpenModel>(back);
  EXPECT_EQ(open.params, (std::vector<float>{1.5f, -0.0f, 3e-38f}));
  EXPECT_EQ(open.step, 4);
  ASSERT_EQ(open.history.size(), 1u);
  EXPECT_EQ(open.history[0].pattern, (std::vector<double>{0.5, 0.25}));
}

TEST(SessionWire, TheCopyFollowsARunThroughEveryCommand) {
  Link link;
  link.publish();  // idle
  ASSERT_EQ(link.send(cmd::Start{small_setup(), {"first", -1, -1}, true}), "");
  link.work_until_idle();
  EXPECT_STREQ(link.mirror.phase(), "done");
  EXPECT_EQ(link.mirror.history.size(), 4u);
  ASSERT_EQ(link.send(cmd::ProbeGradients{true}), "");
  ASSERT_EQ(link.send(cmd::Replay{1}), "");
  EXPECT_EQ(link.mirror.replay_step(), 2);
  ASSERT_EQ(link.send(cmd::SetProbe{"a b c a b"}), "");
  EXPECT_TRUE(link.mirror.typed_probe);
  EXPECT_NE(link.send(cmd::SetProbe{"a zebra"}), "");
  EXPECT_NE(link.mirror.refused.find("probe"), std::string::npos);
  // A second run: the first becomes the comparison; step by step, then reset, then opened from weights.
  ASSERT_EQ(link.send(cmd::Step{small_setup(5), {"second", -1, -1}}), "");
  EXPECT_EQ(link.mirror.compare.label, "first");
  ASSERT_EQ(link.send(cmd::Train{small_setup(5), {"second", -1, -1}}), "");
  link.session.work(0.0), link.session.work(0.0);  // two slices in one message
  link.publish();
  ASSERT_EQ(link.send(cmd::Pause{}), "");
  ASSERT_EQ(link.send(cmd::Reset{small_setup(5), {}}), "");
  const std::vector<float> weights = link.session.trainer().snapshot();
  ASSERT_EQ(link.send(cmd::OpenModel{small_setup(), {"opened", -1, -1}, weights, 6, {}}), "");
  link.work_until_idle();
  EXPECT_EQ(link.mirror.opened_at, 6);
  // A recurrent model's probe carries its influence matrix instead of attention.
  TrainSetup rnn = small_setup();
  rnn.task = "delayed_copy", rnn.spec = default_setup(*find_task("delayed_copy")).spec;
  rnn.spec.model = Arch::rnn, rnn.spec.hidden = 8, rnn.spec.n_ctx = 8, rnn.spec.distance = 2;
  ASSERT_EQ(link.send(cmd::Start{rnn, {"rnn", -1, -1}, true}), "");
  link.work_until_idle();
  ASSERT_GT(link.mirror.probe.n, 0);  // the typed probe, in tokens this task has too
  EXPECT_EQ(link.mirror.probe.influence.size(), (size_t)link.mirror.probe.n * link.mirror.probe.n);
  // A message carries only what changed: a paused, idle session's message is small.
  const std::vector<uint8_t> quiet = encode_state(link.session.state(), link.cursor);
  EXPECT_LT(quiet.size(), 200u);
  ASSERT_EQ(apply_state(quiet, link.mirror), "");
  same_state(link.session.state(), link.mirror);
}

TEST(SessionWire, ADamagedMessageIsRefusedAndTheCopyKept) {
  Link link;
  ASSERT_EQ(link.send(cmd::Start{small_setup(), {"first", -1, -1}, true}), "");
  link.work_until_idle();
  const SessionState before = link.mirror;
  ASSERT_EQ(link.send(cmd::Start{small_setup(9), {"next", -1, -1}, true}), "");
  link.mirror = before;
  StateCursor fresh;
  const std::vector<uint8_t> whole = encode_state(link.session.state(), fresh);
  for (size_t cut : {(size_t)0, (size_t)3, (size_t)5, whole.size() / 2, whole.size() - 1}) {
    const std::vector<uint8_t> part(whole.begin(), whole.begin() + (ptrdiff_t)cut);
    EXPECT_NE(apply_state(part, link.mirror), "") << "cut at " << cut;
    same_state(before, link.mirror);
  }
  std::vector<uint8_t> longer = whole;
  longer.push_back(0);
  EXPECT_NE(apply_state(longer, link.mirror), "");
  std::vector<uint8_t> huge = whole;
  for (size_t i = 0; i < 8; ++i) huge[4 + 1 + 6 + i] = 0xFF;  // the message's first length: 2⁶⁴ − 1
  EXPECT_NE(apply_state(huge, link.mirror), "");
  same_state(before, link.mirror);
  Command c;
  EXPECT_NE(decode_command(std::vector<uint8_t>{1, 2, 3}, c), "");
  std::vector<uint8_t> bad = encode_command(cmd::Replay{1});
  bad[4] = 42;
  EXPECT_NE(decode_command(bad, c).find("unknown"), std::string::npos);
  // Whole again, the copy equals the session.
  ASSERT_EQ(apply_state(whole, link.mirror), "");
  same_state(link.session.state(), link.mirror);
}

}  // namespace

// [SECTION] the links: a session on the UI's thread and on a thread of its own give the same run.
#include "session_link.h"

namespace {

// Polls a link the way the UI does, once a "frame", until it has nothing left to do. (Unused in
// WebAssembly, which has no thread link to drive.)
[[maybe_unused]] void drive(attn::SessionLink& link) {
  for (int frame = 0; frame < 2000000 && link.busy(); ++frame) {
    link.update(0.0);
    if (link.threaded()) std::this_thread::yield();
  }
  link.update(0.0);
}

TEST(SessionLink, TheThreadGivesTheSameRunAsTheLocalSession) {
  std::unique_ptr<attn::SessionLink> local = attn::make_local_link(), thread = attn::make_thread_link();
#if defined(__EMSCRIPTEN__)
  ASSERT_EQ(thread, nullptr);  // no threads here: the page trains in slices of its frames
  GTEST_SKIP() << "no threads in this build";
#else
  ASSERT_NE(thread, nullptr);
  EXPECT_TRUE(thread->threaded());
  for (attn::SessionLink* link : {local.get(), thread.get()}) {
    ASSERT_EQ(link->send(cmd::Start{small_setup(), {"run", -1, -1}, true}), "");
    EXPECT_TRUE(link->busy()) << "sent, not yet in the state: still busy";
    drive(*link);
    EXPECT_STREQ(link->state().phase(), "done");
  }
  ASSERT_EQ(local->state().history.size(), 4u);
  ASSERT_EQ(thread->state().history.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(local->state().history[i].loss, thread->state().history[i].loss);  // bit for bit
  EXPECT_EQ(local->state().train_loss, thread->state().train_loss);
  EXPECT_EQ(local->state().probe.weights, thread->state().probe.weights);
  // A refusal comes back at once, from the copy; reading the weights waits for at most a slice.
  TrainSetup bad = small_setup();
  bad.train.adamw.lr = -1.0f;
  EXPECT_EQ(thread->send(cmd::Start{bad, {}, true}).rfind("train.lr", 0), 0u);
  std::vector<float> a, b;
  local->read([&](const Session& s) { a = s.trainer().snapshot(); });
  thread->read([&](const Session& s) { b = s.trainer().snapshot(); });
  EXPECT_EQ(a, b);
#endif
}

#if !defined(__EMSCRIPTEN__)
TEST(SessionLink, CommandsWhileTheThreadTrainsKeepItConsistentAndItJoinsOnExit) {
  auto link = attn::make_thread_link();
  TrainSetup long_run = small_setup();
  long_run.train.steps = 200000;  // never ends by itself: the link is destroyed while it trains
  ASSERT_EQ(link->send(cmd::Start{long_run, {"long", -1, -1}, true}), "");
  for (int i = 0; i < 50; ++i) {
    link->update(0.0);
    // Commands in every state of a step: pause, step, replay, resume, a new run, reset.
    const int k = i % 6;
    if (k == 0) {
      ASSERT_EQ(link->send(cmd::Pause{}), "");
    }
    if (k == 1) {
      ASSERT_EQ(link->send(cmd::Step{long_run, {"long", -1, -1}}), "");
    }
    if (k == 2) {
      ASSERT_EQ(link->send(cmd::Replay{0}), "");
    }
    if (k == 3) {
      ASSERT_EQ(link->send(cmd::Train{long_run, {"long", -1, -1}}), "");
    }
    if (k == 4 && i % 12 == 4) {
      ASSERT_EQ(link->send(cmd::Start{long_run, {"again", -1, -1}, true}), "");
    }
    if (k == 5 && i % 24 == 5) {
      ASSERT_EQ(link->send(cmd::Reset{long_run, {}}), "");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (int i = 0; i < 100000 && link->update(0.0) == false; ++i) std::this_thread::yield();
  const SessionState& s = link->state();
  ASSERT_TRUE(s.started);
  EXPECT_EQ(s.refused, "");
  // The copy is one consistent state: its curves belong to its run, in order.
  for (size_t i = 1; i < s.history.size(); ++i) EXPECT_LT(s.history[i - 1].step, s.history[i].step);
  if (!s.history.empty()) {
    EXPECT_LE(s.history.back().step, s.step);
  }
  EXPECT_LE(s.train_loss.size(), (size_t)s.step);
  ASSERT_EQ(link->send(cmd::Train{long_run, {"long", -1, -1}}), "");
  link.reset();  // while training: the thread stops after its slice and is joined (ASan: nothing leaks)
  SUCCEED();
}

// What a person (or the page API) sees right after a command, before the thread has applied it: the
// new run, not the old one's "done"; a pause that answers paused and holds through every older message.
TEST(SessionLink, TheThreadsCopyShowsACommandAtOnce) {
  auto link = attn::make_thread_link();
  ASSERT_EQ(link->send(cmd::Start{small_setup(), {"first", -1, -1}, true}), "");
  drive(*link);
  ASSERT_STREQ(link->state().phase(), "done");
  TrainSetup long_run = small_setup(7);
  long_run.train.steps = 200000;
  for (int round = 0; round < 20; ++round) {
    ASSERT_EQ(link->send(cmd::Start{long_run, {"long", -1, -1}, true}), "");
    EXPECT_STREQ(link->state().phase(), "running") << "round " << round;
    EXPECT_EQ(link->state().run_setup, long_run);
    EXPECT_EQ(link->state().tag.label, "long");
    EXPECT_EQ(link->state().step, 0);
    EXPECT_TRUE(link->state().history.empty());
    // Let it train a little (the round decides how long), then pause: paused at once, and in every
    // state the copy takes from then on.
    for (int i = 0; i < round * 3; ++i) {
      link->update(0.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(link->send(cmd::Pause{}), "");
    EXPECT_STREQ(link->state().phase(), "paused");
    while (link->busy()) {
      link->update(0.0);
      ASSERT_STREQ(link->state().phase(), "paused") << "round " << round;
      std::this_thread::yield();
    }
    const int held = link->state().step;
    for (int i = 0; i < 20; ++i) link->update(0.0), std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(link->state().step, held) << "a paused run took steps";
    // Finish a short run, so that the next round's Start meets a run that is done.
    ASSERT_EQ(link->send(cmd::Start{small_setup(), {"first", -1, -1}, true}), "");
    drive(*link);
    ASSERT_STREQ(link->state().phase(), "done");
  }
}
#endif

}  // namespace
