// session_link.cpp — a session in the UI's thread, or on its own std::thread (session_link.h).
#include "session_link.h"

#include "session_wire.h"

#if !defined(__EMSCRIPTEN__)
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attn {

namespace lrn = learn;

namespace {

bool shown(const lrn::Session& s, std::vector<float>& out) {
  const lrn::SessionState& st = s.state();
  if (!st.started) return false;
  out = st.replay >= 0 ? s.snapshot_weights(st.replay) : s.trainer().snapshot();
  return true;
}

class LocalLink final : public SessionLink {
 public:
  std::string send(const lrn::Command& c) override { return session_.apply(c); }
  bool update(double budget_ms) override { return session_.work(budget_ms); }
  const lrn::SessionState& state() const override { return session_.state(); }
  bool busy() const override { return session_.busy(); }
  bool read(const std::function<void(const lrn::Session&)>& f) override { return f(session_), true; }
  std::string lab_layer(int layer, lrn::Session::LabLayer& out) override { return session_.lab_layer(layer, out); }
  bool shown_weights(std::vector<float>& out) override { return shown(session_, out); }
  bool threaded() const override { return false; }

 private:
  lrn::Session session_;
};

#if !defined(__EMSCRIPTEN__)
// The thread owns the session. Two locks: `session_lock_` while it applies commands, works a slice or
// encodes the state (and while read() runs); `box_lock_` only to hand over bytes, so update() and send()
// never wait for training. At most one state message is waiting: while the UI has not taken it, the
// thread does not encode another, and the next one carries everything since.
class ThreadLink final : public SessionLink {
 public:
  static constexpr double kSliceMs = 15.0;

  ThreadLink() : thread_([this] { loop(); }) {}
  ~ThreadLink() override {
    {
      std::lock_guard<std::mutex> lock(box_lock_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  std::string send(const lrn::Command& c) override {
    if (std::string e = copy_.send(c); !e.empty()) return e;
    std::vector<uint8_t> bytes = encode_command(c);
    {
      std::lock_guard<std::mutex> lock(box_lock_);
      inbox_.push_back(std::move(bytes));
    }
    wake_.notify_one();
    return "";
  }

  bool update(double) override {
    std::vector<uint8_t> bytes;
    {
      std::lock_guard<std::mutex> lock(box_lock_);
      if (!has_out_) return false;
      bytes.swap(outbox_);
      has_out_ = false;
    }
    wake_.notify_one();  // the thread may encode the next one
    // The bytes come from encode_state in this process: a refusal would be a bug, and the copy is kept.
    return copy_.take(bytes).empty();
  }

  const lrn::SessionState& state() const override { return copy_.shown(); }
  uint64_t in_flight() const override { return copy_.in_flight(); }
  bool busy() const override {
    std::lock_guard<std::mutex> lock(box_lock_);
    const lrn::SessionState& s = copy_.exact();
    return has_out_ || copy_.behind() || (s.started && (s.running || s.evaluating));
  }
  bool read(const std::function<void(const lrn::Session&)>& f) override {
    std::lock_guard<std::mutex> lock(session_lock_);
    f(session_);
    return true;
  }
  std::string lab_layer(int layer, lrn::Session::LabLayer& out) override {
    std::lock_guard<std::mutex> lock(session_lock_);
    return session_.lab_layer(layer, out);
  }
  bool shown_weights(std::vector<float>& out) override {
    std::lock_guard<std::mutex> lock(session_lock_);
    return shown(session_, out);
  }
  bool threaded() const override { return true; }

 private:
  void loop() {
    StateCursor cursor;
    bool changed = true;  // the idle state, once
    for (;;) {
      std::vector<std::vector<uint8_t>> commands;
      bool out_free = false;
      {
        std::unique_lock<std::mutex> lock(box_lock_);
        // Sleep while there is nothing to do: no command, no training, and nothing new to hand over (or
        // the last message not yet taken). Training never waits for the UI to take a message.
        wake_.wait(lock, [&] { return stop_ || !inbox_.empty() || session_.busy() || (changed && !has_out_); });
        if (stop_) return;
        commands.swap(inbox_);
        out_free = !has_out_;
      }
      std::vector<uint8_t> message;
      {
        std::lock_guard<std::mutex> lock(session_lock_);
        for (const std::vector<uint8_t>& bytes : commands) {
          lrn::Command c;
          if (decode_command(bytes, c).empty()) session_.apply(c);
        }
        changed |= !commands.empty();
        if (session_.busy()) changed |= session_.work(kSliceMs);
        if (changed && out_free) message = encode_state(session_.state(), cursor), changed = false;
      }
      if (!message.empty()) {
        std::lock_guard<std::mutex> lock(box_lock_);
        outbox_ = std::move(message);
        has_out_ = true;
      }
    }
  }

  SessionCopy copy_;              // the UI's copy (the UI thread only)

  mutable std::mutex box_lock_;
  std::condition_variable wake_;
  std::vector<std::vector<uint8_t>> inbox_;
  std::vector<uint8_t> outbox_;
  bool has_out_ = false, stop_ = false;

  std::mutex session_lock_;
  lrn::Session session_;
  std::thread thread_;            // last: starts once everything above exists
};
#endif

}  // namespace

std::string SessionCopy::send(const lrn::Command& c) {
  if (std::string e = lrn::Session::check(shown(), c); !e.empty()) return e;
  if (pending_.empty()) shown_ = exact_;
  lrn::Session::foresee(shown_, c);
  pending_.emplace_back(++sent_, c);
  if (pending_.size() > kMaxPending) pending_.pop_front();
  return "";
}

std::string SessionCopy::take(std::span<const uint8_t> message) {
  if (std::string e = apply_state(message, exact_); !e.empty()) return e;
  while (!pending_.empty() && pending_.front().first <= exact_.commands) pending_.pop_front();
  if (!pending_.empty()) {  // what is still on its way, on top of the newer state
    shown_ = exact_;
    for (const auto& [n, c] : pending_) lrn::Session::foresee(shown_, c);
  }
  return "";
}

std::unique_ptr<SessionLink> make_local_link() { return std::make_unique<LocalLink>(); }

std::unique_ptr<SessionLink> make_thread_link() {
#if defined(__EMSCRIPTEN__)
  return nullptr;
#else
  return std::make_unique<ThreadLink>();
#endif
}

}  // namespace attn
