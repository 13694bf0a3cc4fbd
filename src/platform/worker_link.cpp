// worker_link.cpp — Learn mode's session in a Web Worker (worker_link.h). The page's side of
// web/worker.js: app.js owns the Worker and queues what it sends; these functions take from the queue.
#include "worker_link.h"

#include <emscripten.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "session_wire.h"

namespace attnlab {

namespace lrn = attn::learn;

namespace {

// 3 not started, 0 starting, 1 ready, 2 failed (then js_worker_failure says why), -1 no worker.
EM_JS(int, js_worker_status, (), { return window.attnlabWorker ? window.attnlabWorker.status() : -1; });
EM_JS(void, js_worker_start, (), { window.attnlabWorker.start(); });
EM_JS(const char*, js_worker_failure, (), {
  const t = (window.attnlabWorker && window.attnlabWorker.failure) || "";
  const n = lengthBytesUTF8(t) + 1, p = _malloc(n);
  stringToUTF8(t, p, n);
  return p;
});
EM_JS(void, js_worker_post, (const uint8_t* bytes, int size), { window.attnlabWorker.post(HEAPU8.slice(bytes, bytes + size)); });
// The next state message: its size and, in *out, bytes that the caller frees; -1 when there is none.
EM_JS(int, js_worker_next_state, (uint8_t** out), {
  const b = window.attnlabWorker.nextState();
  if (!b) return -1;
  const p = _malloc(Math.max(1, b.length));
  HEAPU8.set(b, p);
  HEAPU32[out >> 2] = p;
  return b.length;
});
EM_JS(void, js_worker_taken, (), { window.attnlabWorker.taken(); });
EM_JS(void, js_worker_want_weights, (), { window.attnlabWorker.wantWeights(); });
// The newest weights the worker sent (replayed 0: live, 1: a replayed snapshot), if they are newer
// than `version`: their count, step, run number and version, the floats in *out (freed by the
// caller); else -1.
EM_JS(int, js_worker_weights, (int replayed, int version, float** out, int* step, int* run, int* newer), {
  const w = window.attnlabWorker.weights[replayed];
  if (!w || w.version <= version) return -1;
  const p = _malloc(Math.max(4, w.data.length * 4));
  HEAPF32.set(w.data, p >> 2);
  HEAPU32[out >> 2] = p;
  HEAP32[step >> 2] = w.step;
  HEAP32[run >> 2] = w.run;
  HEAP32[newer >> 2] = w.version;
  return w.data.length;
});

class WorkerLink final : public attn::SessionLink {
 public:
  explicit WorkerLink(std::function<void(const std::string&)> report) : report_(std::move(report)) {}

  std::string send(const lrn::Command& c) override {
    if (local_) return local_->send(c);
    const uint64_t run_before = copy_.shown().versions.run;
    if (std::string e = copy_.send(c); !e.empty()) return e;
    // A model file opened is the run's model at once, before the worker has it: its weights are here.
    // Any command that begins another run forgets it.
    if (const auto* open = std::get_if<lrn::cmd::OpenModel>(&c)) {
      opened_ = std::make_unique<lrn::cmd::OpenModel>(*open);
      opened_number_ = copy_.exact().commands + copy_.in_flight();  // the worker has it once it counts this many
      replica_stale_ = true;
    } else if (copy_.shown().versions.run != run_before) {
      opened_.reset();
    }
    // The run's commands, to replay should the worker stop: from the last one that starts a run afresh.
    if (std::holds_alternative<lrn::cmd::Start>(c) || std::holds_alternative<lrn::cmd::OpenModel>(c)) log_.clear();
    if (log_.size() < kMaxLog) log_.push_back(c);
    const std::vector<uint8_t> bytes = attn::encode_command(c);
    js_worker_post(bytes.data(), (int)bytes.size());
    return "";
  }

  bool update(double budget_ms) override {
    if (!local_ && js_worker_status() == 2) fall_back();
    if (local_) return local_->update(budget_ms);
    bool changed = false;
    for (;;) {
      uint8_t* bytes = nullptr;
      const int size = js_worker_next_state(&bytes);
      if (size < 0) break;
      changed |= copy_.take({bytes, (size_t)size}).empty();
      std::free(bytes);
      js_worker_taken();
    }
    for (int r = 0; r < 2; ++r) {
      float* data = nullptr;
      int step = 0, run = 0, version = 0;
      const int count = js_worker_weights(r, weights_[r].version, &data, &step, &run, &version);
      if (count < 0) continue;
      weights_[r] = {std::vector<float>(data, data + count), step, run, version};
      std::free(data);
      replica_stale_ = true;
    }
    return changed;
  }

  const lrn::SessionState& state() const override { return local_ ? local_->state() : copy_.shown(); }
  uint64_t in_flight() const override { return local_ ? local_->in_flight() : copy_.in_flight(); }
  bool busy() const override {
    if (local_) return local_->busy();
    const lrn::SessionState& s = copy_.exact();
    return copy_.behind() || js_worker_status() == 0 || (s.started && (s.running || s.evaluating));
  }

  bool read(const std::function<void(const lrn::Session&)>& f) override {
    if (local_) return local_->read(f);
    const lrn::Session* s = replica(0);
    if (!s) return false;
    f(*s);
    return true;
  }
  std::string lab_layer(int layer, lrn::Session::LabLayer& out) override {
    if (local_) return local_->lab_layer(layer, out);
    if (!copy_.shown().started) return "nothing trained yet: press Train first";
    const lrn::Session* s = replica(copy_.exact().replay >= 0 ? 1 : 0);
    if (!s) return "the trained weights are on their way from the training worker: try again in a moment";
    return s->lab_layer(layer, out);
  }
  bool shown_weights(std::vector<float>& out) override {
    if (local_) return local_->shown_weights(out);
    const lrn::Session* s = replica(copy_.exact().replay >= 0 ? 1 : 0);  // asks for newer weights when these are behind
    if (!s) return false;
    out = replica_of_ == kOpened ? opened_->params : weights_[replica_of_].data;
    return true;
  }
  bool threaded() const override { return !local_; }
  const char* runs_on() const override { return local_ ? "frames" : "worker"; }

 private:
  static constexpr size_t kMaxLog = 4096;  // commands kept to replay (a run rarely has a hundred)

  // A session here holding the weights the worker sent for its current run (live or replayed), on the
  // mirror's probe: what read() and lab_layer() see. Asks for newer weights when the mirror's step has
  // moved on. A model file just opened stands in until the worker's weights of that run arrive.
  const lrn::Session* replica(int r) {
    const lrn::SessionState& exact = copy_.exact();  // the weights are of the state the worker sent
    const Weights& w = weights_[r];
    const bool ours = w.version != 0 && exact.started && (uint64_t)w.run == (exact.versions.run & 0x7fffffff) &&
                      !(opened_ && exact.commands < opened_number_);  // not the run the opened model replaces
    const int want = r ? exact.replay_step() : exact.step;
    if (!ours || w.step != want) js_worker_want_weights();
    const int from = ours ? r : opened_ && r == 0 ? kOpened : -1;
    if (from < 0) return nullptr;
    if (replica_stale_ || replica_of_ != from || (from != kOpened && replica_version_ != w.version)) {
      replica_ = std::make_unique<lrn::Session>();
      std::string refused;
      if (from == kOpened) {
        refused = replica_->apply(*opened_);
      } else {
        std::vector<lrn::EvalPoint> before;
        for (const lrn::EvalPoint& p : exact.history)
          if (p.step < w.step) before.push_back(p);
        refused = replica_->apply(lrn::cmd::OpenModel{exact.run_setup, exact.tag, w.data, w.step, std::move(before)});
      }
      if (!refused.empty()) {
        replica_.reset();
        replica_of_ = -1;
        return nullptr;
      }
      replica_of_ = from, replica_version_ = w.version, replica_stale_ = false;
    }
    // The probe the worker's session has now (typed, or the held-out example again); for an opened
    // model the worker may not have yet, the probe as the page foresees it.
    const lrn::SessionState& p = from == kOpened ? copy_.shown() : exact;
    if (replica_->state().probe_text != p.probe_text || replica_->state().typed_probe != p.typed_probe)
      replica_->apply(lrn::cmd::SetProbe{p.typed_probe ? p.probe_text : std::string()});
    return replica_.get();
  }

  // The worker stopped: the same run, here, from its commands.
  void fall_back() {
    const char* why = js_worker_failure();
    const std::string reason = why ? why : "";
    std::free(const_cast<char*>(why));
    local_ = attn::make_local_link();
    for (const lrn::Command& c : log_) local_->send(c);
    log_.clear();
    if (report_)
      report_("Training moved to the page's own thread: the training worker stopped (" + (reason.empty() ? std::string("no reason given") : reason) +
              "). The run goes on from its start with the same settings and seed, so its numbers are the same; the page may draw more slowly while it trains.");
  }

  std::function<void(const std::string&)> report_;
  attn::SessionCopy copy_;
  std::vector<lrn::Command> log_;
  struct Weights {
    std::vector<float> data;
    int step = 0, run = 0, version = 0;  // run: the worker's SessionState::versions.run when sent
  } weights_[2];
  static constexpr int kOpened = 2;  // replica_of_: the replica holds opened_
  std::unique_ptr<lrn::cmd::OpenModel> opened_;  // the model file opened last, while it is the run
  uint64_t opened_number_ = 0;                   // its command's number (SessionState::commands)
  std::unique_ptr<lrn::Session> replica_;
  int replica_of_ = -1, replica_version_ = 0;
  bool replica_stale_ = true;
  std::unique_ptr<attn::SessionLink> local_;  // after the worker stopped
};

}  // namespace

std::unique_ptr<attn::SessionLink> make_worker_link(std::function<void(const std::string&)> report) {
  if (js_worker_status() == 3) js_worker_start();  // Learn mode's first use: the worker's module loads now
  const int status = js_worker_status();
  if (status < 0) return nullptr;  // none here (or ?worker=0): slices of the frames
  // One that could not start falls back at its first update(), saying so on screen.
  return std::make_unique<WorkerLink>(std::move(report));
}

}  // namespace attnlab
