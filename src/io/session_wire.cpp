// session_wire.cpp — commands and state deltas as bytes (session_wire.h). Little-endian, fixed-width
// fields; a training setup travels as its training config (model_json.h), which round-trips exactly.
#include "session_wire.h"

#include <cstring>
#include <type_traits>

#include "model_json.h"

namespace attn {

namespace lrn = learn;

namespace {

constexpr uint32_t kCommandMagic = 0x31434C41;  // "ALC1"
constexpr uint32_t kStateMagic = 0x31534C41;    // "ALS1"
constexpr size_t kMaxLength = size_t(1) << 28;  // no vector or string in a message is longer (256 M)

// [SECTION] bytes
struct Out {
  std::vector<uint8_t> b;
  template <class T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
  }
  void flag(bool v) { put<uint8_t>(v ? 1 : 0); }
  void str(const std::string& s) {
    put<uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    put<uint64_t>(v.size());
    for (const T& x : v) put(x);
  }
};

struct In {
  std::span<const uint8_t> b;
  size_t at = 0;
  std::string error;
  bool ok() const { return error.empty(); }
  bool fail(const std::string& what) {
    if (error.empty()) error = what + " (at byte " + std::to_string(at) + ")";
    return false;
  }
  template <class T>
  T get() {
    T v{};
    if (!ok()) return v;
    if (b.size() - at < sizeof(T)) return fail("the message ends early"), v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  bool flag() { return get<uint8_t>() != 0; }
  size_t length(size_t item) {
    const uint64_t n = get<uint64_t>();
    if (!ok()) return 0;
    if (n > kMaxLength || n * item > b.size() - at) return fail("a length runs past the message"), 0;
    return (size_t)n;
  }
  std::string str() {
    const size_t n = length(1);
    std::string s(reinterpret_cast<const char*>(b.data() + at), n);
    at += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const size_t n = length(sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), b.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return v;
  }
};

// [SECTION] parts
void put_setup(Out& o, const lrn::TrainSetup& s) { o.str(train_config_to_json(s)); }
lrn::TrainSetup get_setup(In& in) {
  lrn::TrainSetup s;
  const std::string json = in.str();
  if (!in.ok()) return s;
  if (std::string e = parse_train_config(json, s); !e.empty()) in.fail("setup: " + e);
  return s;
}

void put_tag(Out& o, const lrn::RunTag& t) {
  o.str(t.label);
  o.put<int32_t>(t.experiment), o.put<int32_t>(t.variant);
}
lrn::RunTag get_tag(In& in) {
  lrn::RunTag t;
  t.label = in.str();
  t.experiment = in.get<int32_t>(), t.variant = in.get<int32_t>();
  return t;
}

void put_point(Out& o, const lrn::EvalPoint& p) {
  o.put<int32_t>(p.step);
  for (double v : {p.loss, p.accuracy, p.train_loss, p.grad_norm, p.pattern_score, p.ms}) o.put(v);
  o.vec(p.pattern), o.vec(p.saturation);
}
lrn::EvalPoint get_point(In& in) {
  lrn::EvalPoint p;
  p.step = in.get<int32_t>();
  for (double* v : {&p.loss, &p.accuracy, &p.train_loss, &p.grad_norm, &p.pattern_score, &p.ms}) *v = in.get<double>();
  p.pattern = in.vec<double>(), p.saturation = in.vec<double>();
  return p;
}
void put_points(Out& o, const std::vector<lrn::EvalPoint>& v, size_t from) {
  o.put<uint64_t>(v.size() - from);
  for (size_t i = from; i < v.size(); ++i) put_point(o, v[i]);
}
std::vector<lrn::EvalPoint> get_points(In& in) {
  const size_t n = in.length(8);
  std::vector<lrn::EvalPoint> v;
  for (size_t i = 0; i < n && in.ok(); ++i) v.push_back(get_point(in));
  return v;
}

void put_example(Out& o, const lrn::Example& e) { o.vec(e.tokens), o.vec(e.targets), o.vec(e.source); }
lrn::Example get_example(In& in) {
  lrn::Example e;
  e.tokens = in.vec<int>(), e.targets = in.vec<int>(), e.source = in.vec<int>();
  return e;
}

void put_tables(Out& o, const std::vector<std::vector<float>>& v) {
  o.put<uint64_t>(v.size());
  for (const auto& x : v) o.vec(x);
}
std::vector<std::vector<float>> get_tables(In& in) {
  const size_t n = in.length(8);
  std::vector<std::vector<float>> v;
  for (size_t i = 0; i < n && in.ok(); ++i) v.push_back(in.vec<float>());
  return v;
}

void put_probe(Out& o, const lrn::Probe& p) {
  put_example(o, p.example);
  for (int v : {p.n, p.m, p.layers, p.heads}) o.put<int32_t>(v);
  o.put(p.loss);
  put_tables(o, p.weights), put_tables(o, p.weight_grads), put_tables(o, p.score_grads);
  o.vec(p.param_grads), o.vec(p.predictions), o.vec(p.influence);
}
lrn::Probe get_probe(In& in) {
  lrn::Probe p;
  p.example = get_example(in);
  for (int* v : {&p.n, &p.m, &p.layers, &p.heads}) *v = in.get<int32_t>();
  p.loss = in.get<double>();
  p.weights = get_tables(in), p.weight_grads = get_tables(in), p.score_grads = get_tables(in);
  p.param_grads = in.vec<float>(), p.predictions = in.vec<int>(), p.influence = in.vec<float>();
  return p;
}

void put_curve(Out& o, const std::vector<std::pair<int, float>>& v) {
  o.put<uint64_t>(v.size());
  for (const auto& [step, value] : v) o.put<int32_t>(step), o.put(value);
}
std::vector<std::pair<int, float>> get_curve(In& in) {
  const size_t n = in.length(8);
  std::vector<std::pair<int, float>> v(n);
  for (auto& [step, value] : v) step = in.get<int32_t>(), value = in.get<float>();
  return v;
}

// The state's parts, in message order (encode and apply read the same list).
enum Part : uint8_t { kRun = 1, kCompare = 2, kSnapshots = 4, kReplay = 8, kProbe = 16, kIdeal = 32 };

}  // namespace

// [SECTION] commands
std::vector<uint8_t> encode_command(const lrn::Command& c) {
  Out o;
  o.put(kCommandMagic);
  o.put<uint8_t>((uint8_t)c.index());
  struct Visit {
    Out& o;
    void operator()(const lrn::cmd::Start& c) { put_setup(o, c.setup), put_tag(o, c.tag), o.flag(c.run); }
    void operator()(const lrn::cmd::Train& c) { put_setup(o, c.setup), put_tag(o, c.tag); }
    void operator()(const lrn::cmd::Pause&) {}
    void operator()(const lrn::cmd::Step& c) { put_setup(o, c.setup), put_tag(o, c.tag); }
    void operator()(const lrn::cmd::Reset& c) { put_setup(o, c.setup), put_tag(o, c.tag); }
    void operator()(const lrn::cmd::Replay& c) { o.put<int32_t>(c.index); }
    void operator()(const lrn::cmd::SetProbe& c) { o.str(c.text); }
    void operator()(const lrn::cmd::ProbeGradients& c) { o.flag(c.on); }
    void operator()(const lrn::cmd::OpenModel& c) {
      put_setup(o, c.setup), put_tag(o, c.tag);
      o.vec(c.params);
      o.put<int32_t>(c.step);
      put_points(o, c.history, 0);
    }
  };
  std::visit(Visit{o}, c);
  return std::move(o.b);
}

std::string decode_command(std::span<const uint8_t> bytes, lrn::Command& out) {
  In in{bytes};
  if (in.get<uint32_t>() != kCommandMagic) return "not a session command";
  const uint8_t kind = in.get<uint8_t>();
  switch (kind) {
    case 0: {
      lrn::cmd::Start c{get_setup(in), get_tag(in)};
      c.run = in.flag();
      out = std::move(c);
      break;
    }
    case 1: out = lrn::cmd::Train{get_setup(in), get_tag(in)}; break;
    case 2: out = lrn::cmd::Pause{}; break;
    case 3: out = lrn::cmd::Step{get_setup(in), get_tag(in)}; break;
    case 4: out = lrn::cmd::Reset{get_setup(in), get_tag(in)}; break;
    case 5: out = lrn::cmd::Replay{in.get<int32_t>()}; break;
    case 6: out = lrn::cmd::SetProbe{in.str()}; break;
    case 7: out = lrn::cmd::ProbeGradients{in.flag()}; break;
    case 8: {
      lrn::cmd::OpenModel c;
      c.setup = get_setup(in), c.tag = get_tag(in);
      c.params = in.vec<float>();
      c.step = in.get<int32_t>();
      c.history = get_points(in);
      out = std::move(c);
      break;
    }
    default: return "unknown session command " + std::to_string(kind);
  }
  static_assert(std::variant_size_v<lrn::Command> == 9, "a new command needs its case here and in encode_command");
  if (!in.ok()) return in.error;
  if (in.at != bytes.size()) return "bytes after the command";
  return "";
}

// [SECTION] state
std::vector<uint8_t> encode_state(const lrn::SessionState& s, StateCursor& sent) {
  const lrn::SessionState::Versions& v = s.versions;
  const bool all = !sent.any;
  uint8_t parts = 0;
  if (all || v.run != sent.versions.run) parts |= kRun;
  if (all || v.compare != sent.versions.compare) parts |= kCompare;
  if (all || v.snapshots != sent.versions.snapshots) parts |= kSnapshots;
  if (all || v.replay != sent.versions.replay) parts |= kReplay;
  if (all || v.probe != sent.versions.probe) parts |= kProbe;
  if (all || v.ideal != sent.versions.ideal) parts |= kIdeal;
  if (parts & kRun) sent.history = sent.train_loss = 0;  // a new run: its curves from the start
  Out o;
  o.put(kStateMagic);
  o.put(parts);
  for (bool f : {s.started, s.running, s.evaluating, s.done, s.diverged, s.converged}) o.flag(f);
  o.str(s.message), o.str(s.refused);
  for (int x : {s.step, s.train_loss_from, s.opened_at, s.steps_last_work}) o.put<int32_t>(x);
  o.put(s.steps_per_s), o.put(s.ms_last_work);
  o.put(v);
  o.put<uint64_t>(s.commands);
  if (parts & kRun) put_setup(o, s.run_setup), put_tag(o, s.tag);
  put_points(o, s.history, sent.history);
  o.put<uint64_t>(s.train_loss.size() - sent.train_loss);
  for (size_t i = sent.train_loss; i < s.train_loss.size(); ++i) o.put(s.train_loss[i]);
  if (parts & kCompare) {
    o.str(s.compare.label);
    o.put<int32_t>(s.compare.experiment), o.put<int32_t>(s.compare.variant);
    put_curve(o, s.compare.loss), put_curve(o, s.compare.accuracy), put_curve(o, s.compare.saturation);
  }
  if (parts & kSnapshots) o.vec(s.snapshot_steps);
  if (parts & kReplay) o.put<int32_t>(s.replay), put_probe(o, s.replay_probe);
  if (parts & kProbe) {
    o.flag(s.typed_probe), o.str(s.probe_text), put_example(o, s.probe_example), o.flag(s.probe_gradients);
    put_probe(o, s.probe);
    o.put<int32_t>(s.probe_step);
  }
  if (parts & kIdeal) put_tables(o, s.ideal);
  sent.any = true;
  sent.versions = v;
  sent.history = s.history.size(), sent.train_loss = s.train_loss.size();
  return std::move(o.b);
}

std::string apply_state(std::span<const uint8_t> bytes, lrn::SessionState& m) {
  // Everything is read into `d` first, so a bad message leaves the copy as it was.
  In in{bytes};
  if (in.get<uint32_t>() != kStateMagic) return "not a session state";
  lrn::SessionState d;
  const uint8_t parts = in.get<uint8_t>();
  for (bool* f : {&d.started, &d.running, &d.evaluating, &d.done, &d.diverged, &d.converged}) *f = in.flag();
  d.message = in.str(), d.refused = in.str();
  for (int* x : {&d.step, &d.train_loss_from, &d.opened_at, &d.steps_last_work}) *x = in.get<int32_t>();
  d.steps_per_s = in.get<double>(), d.ms_last_work = in.get<float>();
  d.versions = in.get<lrn::SessionState::Versions>();
  d.commands = in.get<uint64_t>();
  if (parts & kRun) {
    d.run_setup = get_setup(in), d.tag = get_tag(in);
    if (in.ok() && d.started && !(d.task = lrn::find_task(d.run_setup.task))) in.fail("unknown task " + d.run_setup.task);
  }
  std::vector<lrn::EvalPoint> points = get_points(in);
  std::vector<float> losses = in.vec<float>();
  if (parts & kCompare) {
    d.compare.label = in.str();
    d.compare.experiment = in.get<int32_t>(), d.compare.variant = in.get<int32_t>();
    d.compare.loss = get_curve(in), d.compare.accuracy = get_curve(in), d.compare.saturation = get_curve(in);
  }
  if (parts & kSnapshots) d.snapshot_steps = in.vec<int>();
  if (parts & kReplay) d.replay = in.get<int32_t>(), d.replay_probe = get_probe(in);
  if (parts & kProbe) {
    d.typed_probe = in.flag(), d.probe_text = in.str(), d.probe_example = get_example(in), d.probe_gradients = in.flag();
    d.probe = get_probe(in);
    d.probe_step = in.get<int32_t>();
  }
  if (parts & kIdeal) d.ideal = get_tables(in);
  if (!in.ok()) return in.error;
  if (in.at != bytes.size()) return "bytes after the state";
  if (!(parts & kSnapshots) && d.replay >= (int)m.snapshot_steps.size()) return "replay: no such snapshot";

  // Commit.
  for (auto [to, from] : {std::pair{&m.started, d.started}, {&m.running, d.running}, {&m.evaluating, d.evaluating},
                          {&m.done, d.done}, {&m.diverged, d.diverged}, {&m.converged, d.converged}})
    *to = from;
  m.message = std::move(d.message), m.refused = std::move(d.refused);
  m.step = d.step, m.train_loss_from = d.train_loss_from, m.opened_at = d.opened_at, m.steps_last_work = d.steps_last_work;
  m.steps_per_s = d.steps_per_s, m.ms_last_work = d.ms_last_work;
  m.versions = d.versions;
  m.commands = d.commands;
  if (parts & kRun) {
    m.run_setup = std::move(d.run_setup), m.tag = std::move(d.tag), m.task = d.task;
    m.history.clear(), m.train_loss.clear();
  }
  m.history.insert(m.history.end(), std::make_move_iterator(points.begin()), std::make_move_iterator(points.end()));
  m.train_loss.insert(m.train_loss.end(), losses.begin(), losses.end());
  if (parts & kCompare) m.compare = std::move(d.compare);
  if (parts & kSnapshots) m.snapshot_steps = std::move(d.snapshot_steps);
  if (parts & kReplay) m.replay = d.replay, m.replay_probe = std::move(d.replay_probe);
  if (parts & kProbe) {
    m.typed_probe = d.typed_probe, m.probe_text = std::move(d.probe_text), m.probe_example = std::move(d.probe_example);
    m.probe_gradients = d.probe_gradients, m.probe = std::move(d.probe), m.probe_step = d.probe_step;
  }
  if (parts & kIdeal) m.ideal = std::move(d.ideal);
  return "";
}

}  // namespace attn
