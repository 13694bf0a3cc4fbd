// The training worker: Learn mode's session in a Web Worker, an engine-only WebAssembly module
// (attnlab-worker.js/.wasm) that web/worker.js loads. The page's UI module sends it commands and takes
// back state messages (io/session_wire.h) and, when they change, the weights (to write a model file,
// open a layer in the lab or run an intervention on its own thread). The worker never waits for the UI:
// it trains in slices and hands over a message whenever the page has taken the last one.
#include <emscripten.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "learn/session.h"
#include "learn/tasks.h"
#include "session_wire.h"

namespace {

attn::learn::Session g_session;
attn::StateCursor g_cursor;
std::vector<uint8_t> g_message;
std::vector<float> g_weights;
std::unique_ptr<attn::learn::Session> g_warm;  // worker_warm's throwaway session, while it warms
double g_warm_ms = 0.0;                        // the training it has done so far

}  // namespace

extern "C" {

// One encoded command (the page's bytes, copied into this module's memory). 0: carried out, 1: the
// bytes were not a command, 2: the session refused it (the state's `refused` says why).
EMSCRIPTEN_KEEPALIVE int worker_command(const uint8_t* bytes, int size) {
  attn::learn::Command c;
  if (!attn::decode_command({bytes, (size_t)size}, c).empty()) return 1;
  return g_session.apply(c).empty() ? 0 : 2;
}

// Warms the module up before a learner's first run: the browser compiles each function the first time
// it is called, and optimises it only after it has run a while, so a first run would start at a
// fraction of its speed. A throwaway session trains the induction task's defaults, evaluating every
// 10 steps so that the evaluation's code warms as well; its numbers are discarded and the learner's
// session is not touched. web/worker.js calls this between messages, a slice of `slice_ms` at a time,
// once the worker has said it is ready, until it returns 0 (about `total_ms` of training in all) or
// the page sends its first command (then worker_warm_end drops the throwaway session at once, so a
// learner who presses Train early never waits for the warm-up).
EMSCRIPTEN_KEEPALIVE int worker_warm(double slice_ms, double total_ms) {
  if (!g_warm) {
    const attn::learn::Task* task = attn::learn::find_task("induction");
    if (!task) return 0;
    attn::learn::TrainSetup setup = attn::learn::default_setup(*task);
    setup.train.eval_every = 10;
    g_warm = std::make_unique<attn::learn::Session>();
    g_warm_ms = 0.0;
    if (!g_warm->apply(attn::learn::cmd::Start{.setup = setup}).empty()) {
      g_warm.reset();
      return 0;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  g_warm->work(slice_ms);
  g_warm_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (g_warm_ms < total_ms && g_warm->busy()) return 1;
  g_warm.reset();
  return 0;
}
EMSCRIPTEN_KEEPALIVE void worker_warm_end() { g_warm.reset(); }

// A slice of training (budget in ms): 1 when the state changed.
EMSCRIPTEN_KEEPALIVE int worker_work(double budget_ms) { return g_session.work(budget_ms) ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE int worker_busy() { return g_session.busy() ? 1 : 0; }

// The state message since the last one (its bytes stay valid until the next call).
EMSCRIPTEN_KEEPALIVE const uint8_t* worker_state(int* size) {
  g_message = attn::encode_state(g_session.state(), g_cursor);
  *size = (int)g_message.size();
  return g_message.data();
}

// The weights the views show: the replayed snapshot's while replaying (`replayed` = 1), else the live
// ones, with the step they belong to and the run's number (SessionState::versions.run, low 31 bits), so
// the page never takes a run's weights for the next one's. Valid until the next call.
EMSCRIPTEN_KEEPALIVE const float* worker_weights(int replayed, int* count, int* step, int* run) {
  const attn::learn::SessionState& s = g_session.state();
  *run = (int)(s.versions.run & 0x7fffffff);
  if (!s.started) {
    *count = 0, *step = 0;
    return nullptr;
  }
  const bool replay = replayed && s.replay >= 0;
  g_weights = replay ? g_session.snapshot_weights(s.replay) : g_session.trainer().snapshot();
  *count = (int)g_weights.size();
  *step = replay ? s.replay_step() : s.step;
  return g_weights.data();
}

}  // extern "C"

int main() { return 0; }
