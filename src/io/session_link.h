// session_link.h — how the UI reaches its training session: in its own thread, a slice of work per
// frame (LocalLink, the page today and the fallback everywhere), or on a thread of its own that never
// makes the UI wait for training (ThreadLink, the desktop app). Either way the UI sends commands, calls
// update() once a frame and draws state(); the thread's state() is a copy rebuilt from
// io/session_wire.h messages, so it is what a Web Worker's copy will be.
//
// A command is checked against state() when sent (Session::check), so a refusal comes back at once;
// the thread's session checks it again when it arrives, and a refusal there shows in state().refused
// (the copy can be a frame behind: a probe typed in the same frame as a new run's Train).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "learn/session.h"

namespace attn {

class SessionLink {
 public:
  virtual ~SessionLink() = default;
  // "" or why the command is refused (then it is not sent).
  virtual std::string send(const learn::Command& c) = 0;
  // Once a frame. Local: works for up to budget_ms. Thread: takes the newest state, never waiting.
  // Returns true when state() changed.
  virtual bool update(double budget_ms) = 0;
  virtual const learn::SessionState& state() const = 0;
  // Work is under way or on its way (sent but not yet in state()): keep drawing frames.
  virtual bool busy() const = 0;
  // Commands sent that state() does not reflect yet (0 for a session in the UI's thread): trainStatus()'s
  // `in_flight`, so that a caller can wait until a pause has landed.
  virtual uint64_t in_flight() const { return 0; }
  // Reads what only the session has (its trainer: the weights, a model file, interventions). The
  // thread's session is paused for it: at most one slice of training (ThreadLink::kSliceMs) to wait.
  // A worker's session is a copy here made from the weights it sent last (when training paused or
  // ended, or on request): false when none have come yet (they are asked for; try again next frame).
  virtual bool read(const std::function<void(const learn::Session&)>& f) = 0;
  // The weights the views show: the replayed snapshot's while replaying, else the live ones. false when
  // they are not here yet (a worker's: asked for, try again next frame).
  virtual bool shown_weights(std::vector<float>& out) = 0;
  // Open in the lab's model: the weights shown (live, or the replayed snapshot) on the probe example.
  virtual std::string lab_layer(int layer, learn::Session::LabLayer& out) = 0;
  virtual bool threaded() const = 0;
  // Where the session trains: "frames" (slices of the UI's frames), "thread", "worker" (trainStatus()).
  virtual const char* runs_on() const { return threaded() ? "thread" : "frames"; }
};

// The UI's copy of a session that runs elsewhere (a std::thread, a Web Worker). exact() is the state its
// messages rebuild; shown() is what the UI draws: exact() with the commands sent but not yet applied
// there foreseen on top (Session::foresee). So, as with a session in the UI's thread, train() followed
// at once by trainStatus() shows the new run at step 0, not the old one's "done", and a pause answers
// "paused" at once and holds while older messages still say running.
class SessionCopy {
 public:
  // Checks `c` against shown(): "" when it is to be sent (then counted and foreseen), else why not.
  std::string send(const learn::Command& c);
  // A state message (io/session_wire.h): "" or why it was refused (then the copy is as it was).
  std::string take(std::span<const uint8_t> message);
  const learn::SessionState& exact() const { return exact_; }
  const learn::SessionState& shown() const { return pending_.empty() ? exact_ : shown_; }
  // Commands sent that the session has not applied yet.
  bool behind() const { return sent_ > exact_.commands; }
  uint64_t in_flight() const { return behind() ? sent_ - exact_.commands : 0; }

 private:
  static constexpr size_t kMaxPending = 256;  // a session that does not answer: the oldest are forgotten
  learn::SessionState exact_, shown_;
  std::deque<std::pair<uint64_t, learn::Command>> pending_;  // (number, command) sent, not yet applied
  uint64_t sent_ = 0;
};

// A session on the UI's thread.
std::unique_ptr<SessionLink> make_local_link();
// A session on a std::thread (joined when the link is destroyed); nullptr where there are no threads
// (the WebAssembly build).
std::unique_ptr<SessionLink> make_thread_link();

}  // namespace attn
