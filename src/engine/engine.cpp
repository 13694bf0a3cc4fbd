#include "engine.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <cmath>
#include <numbers>

#include "embedding.h"
#include "handmade_heads.h"
#include "positional.h"
#include "stages.h"
#include "tokenizer.h"

namespace attn {

// [SECTION] stage graph
namespace {

constexpr uint32_t bit(Stage s) { return 1u << (int)s; }

// What must rerun when a stage reruns.
constexpr uint32_t downstream(Stage s) {
  switch (s) {
    case Stage::embed: return bit(Stage::position) | bit(Stage::mask);
    case Stage::position: return bit(Stage::project);
    case Stage::w_matrices: return bit(Stage::project) | bit(Stage::output);
    case Stage::project: return bit(Stage::score) | bit(Stage::mix);
    case Stage::mask: return bit(Stage::softmax);
    case Stage::score: return bit(Stage::softmax);
    case Stage::softmax: return bit(Stage::mix);
    case Stage::mix: return bit(Stage::output);
    default: return 0;
  }
}

std::vector<Override> overrides_of(const std::vector<Override>& all, std::initializer_list<Target> targets) {
  std::vector<Override> out;
  for (const Override& o : all)
    for (Target t : targets)
      if (o.target == t) out.push_back(o);
  return out;
}

// What each stage reads from the config, beside the stage: a stage reruns when this differs between
// the old and the new config, and every stage downstream of it reruns too. The test
// EveryFieldChangedAloneMatchesAFreshRun changes each Config field alone and compares with a fresh run.
bool stage_inputs_differ(Stage s, const Config& a, const Config& b) {
  const auto edits = [](const Config& c, std::initializer_list<Target> t) { return overrides_of(c.overrides, t); };
  switch (s) {
    case Stage::embed:  // tokens and their embeddings (or the explicit rows)
      return std::tie(a.target, a.source, a.cross, a.embedding, a.seed, a.d_model, a.max_tokens, a.truncate) !=
             std::tie(b.target, b.source, b.cross, b.embedding, b.seed, b.d_model, b.max_tokens, b.truncate);
    case Stage::position:  // + P, then the x edits
      return a.positional != b.positional || edits(a, {Target::x}) != edits(b, {Target::x});
    case Stage::w_matrices:
      return std::tie(a.seed, a.d_model, a.heads, a.d_k, a.d_v, a.w_q, a.w_k, a.w_v, a.w_o, a.handmade) !=
                 std::tie(b.seed, b.d_model, b.heads, b.d_k, b.d_v, b.w_q, b.w_k, b.w_v, b.w_o, b.handmade) ||
             edits(a, {Target::w_q, Target::w_k, Target::w_v, Target::w_o}) !=
                 edits(b, {Target::w_q, Target::w_k, Target::w_v, Target::w_o});
    case Stage::project:  // RoPE acts here, then the q/k/v edits
      return a.positional != b.positional || edits(a, {Target::q, Target::k, Target::v}) != edits(b, {Target::q, Target::k, Target::v});
    case Stage::mask: return a.mask != b.mask;
    case Stage::score:
      return std::tie(a.scale_mode, a.scale_value, a.temperature, a.d_k) !=
             std::tie(b.scale_mode, b.scale_value, b.temperature, b.d_k);
    default: return false;  // softmax, mix, output read only earlier stages
  }
}

// Tokens (or row labels) of one sequence; error names the field.
std::string resolve_tokens(const SequenceInput& s, const Config& c, const char* field, std::vector<std::string>& tokens,
                           int& dropped, int& invalid) {
  tokens.clear();
  if (s.use_tokens) {
    tokens = s.tokens;
    for (size_t i = 0; i < tokens.size(); ++i)
      if (!is_valid_utf8(tokens[i])) return std::string(field) + "[" + std::to_string(i) + "]: not valid UTF-8";
  } else if (!s.text.empty() || s.x.empty()) {
    Tokenized t = tokenize(s.text, c.truncate ? c.max_tokens : Limits::max_tokens + 1);
    tokens = std::move(t.tokens);
    dropped += t.dropped_tokens;
    invalid += t.invalid_bytes;
  }
  if (!s.x.empty()) {
    if (tokens.empty())
      for (int i = 0; i < s.x_rows; ++i) tokens.push_back("t" + std::to_string(i));
    if ((int)tokens.size() != s.x_rows)
      return std::string(field) + ": " + std::to_string(tokens.size()) + " tokens but x has " + std::to_string(s.x_rows) +
             " rows";
  }
  if (tokens.empty()) return std::string(field) + ": no tokens (the text is empty or only spaces)";
  if ((int)tokens.size() > c.max_tokens) {
    if (!c.truncate)
      return std::string(field) + ": " + std::to_string(tokens.size()) + (tokens.size() > (size_t)Limits::max_tokens ? "+" : "") +
             " tokens, at most " + std::to_string(c.max_tokens) + " allowed";
    dropped += (int)tokens.size() - c.max_tokens;
    tokens.resize((size_t)c.max_tokens);
  }
  return "";
}

// entropy[h, i] = −Σ_j A_h[i, j]·log₂ A_h[i, j] (bits; 0 for a fully masked row, whose weights are
// all 0)   max_weight[h, i] = max_j A_h[i, j]
//
// With the scores kept, the sum needs one log a row, not one a weight. A row's weights are
// a_j = exp(s_j − s*)/Z over its allowed cells, s* its largest allowed score, whose weight a* is 1/Z. So
// log₂ a_j = (s_j − s*)/ln 2 + log₂ a*, and
//   H = −log₂ a* − Σ_j a_j·(s_j − s*)/ln 2     (the sums over cells with a_j > 0; Σ_j a_j = 1).
// Without the scores (lean), or where that is not finite, each weight's own log (the definition).
namespace {
double entropy_by_definition(const float* a, Range range) {
  double h = 0.0;
  for (int j = range.lo; j < range.hi; ++j)
    if (a[j] > 0.0f) h -= a[j] * std::log2((double)a[j]);
  return h;
}
double entropy_from_scores(const float* a, const float* s, Range range, int top) {
  double centred = 0.0;  // Σ_j a_j·(s_j − s*)
  for (int j = range.lo; j < range.hi; ++j)
    if (a[j] > 0.0f) centred += a[j] * ((double)s[j] - s[top]);
  return -std::log2((double)a[top]) - centred / std::numbers::ln2;
}
}  // namespace

void compute_row_stats(Result& r) {
  for (int h = 0; h < r.heads; ++h) {
    for (int i = 0; i < r.n; ++i) {
      const size_t row = ((size_t)h * r.n + i) * r.m;
      const float* a = r.weights.data() + row;
      const Range range = r.mask.ranges[(size_t)i];
      int top = -1;  // the row's largest weight (its largest allowed score)
      float mx = 0.0f;
      for (int j = range.lo; j < range.hi; ++j)
        if (a[j] > mx) mx = a[top = j];
      double entropy = 0.0;
      if (top >= 0 && !r.scores.empty()) entropy = entropy_from_scores(a, r.scores.data() + row, range, top);
      if (top >= 0 && (r.scores.empty() || !std::isfinite(entropy))) entropy = entropy_by_definition(a, range);
      r.entropy[(size_t)h * r.n + i] = (float)std::max(entropy, 0.0);
      r.max_weight[(size_t)h * r.n + i] = mx;
    }
  }
}

}  // namespace

const char* to_string(Stage s) {
  static const char* const names[] = {"embed", "position", "w_matrices", "project", "mask",
                                       "score", "softmax",  "mix",        "output"};
  return (int)s >= 0 && s < Stage::count ? names[(int)s] : "?";
}

// [SECTION] configuration
std::string Engine::set_config(const Config& c) {
  if (std::string e = validate(c); !e.empty()) return e;
  std::vector<std::string> tokens, source_tokens;
  int dropped = 0, invalid = 0;
  if (std::string e = resolve_tokens(c.target, c, "text", tokens, dropped, invalid); !e.empty()) return e;
  if (c.cross) {
    if (std::string e = resolve_tokens(c.source, c, "source", source_tokens, dropped, invalid); !e.empty()) return e;
  } else {
    source_tokens = tokens;
  }
  const int n = (int)tokens.size(), m = (int)source_tokens.size();
  if ((int64_t)c.heads * n * m > Limits::max_attention_cells)
    return "heads: heads x n x m = " + std::to_string((int64_t)c.heads * n * m) + " attention cells, at most " +
           std::to_string(Limits::max_attention_cells);
  if (std::string e = check_mask(c.mask, n, m); !e.empty()) return e;
  if (std::string e = check_memory(c, n, m, options_.keep_scores); !e.empty()) return e;
  for (size_t i = 0; i < c.overrides.size(); ++i) {
    const Override& o = c.overrides[i];
    const auto [rows, cols] = target_shape(c, o.target, n, m);
    if (o.row >= rows || o.col >= cols)
      return "edits[" + std::to_string(i) + "]: " + to_string(o.target) + "[" + std::to_string(o.row) + "][" +
             std::to_string(o.col) + "] is outside its " + std::to_string(rows) + "x" + std::to_string(cols) + " shape";
  }

  // Which stages does the change touch? Those whose inputs differ (and, in compute(), all after them).
  uint32_t d = 0;
  for (int s = 0; s < (int)Stage::count; ++s)
    if (!has_config_ || stage_inputs_differ((Stage)s, config_, c)) d |= 1u << s;
  dirty_ |= d;
  config_ = c;
  has_config_ = true;
  pending_tokens_ = std::move(tokens);
  pending_source_tokens_ = std::move(source_tokens);
  pending_dropped_ = dropped;
  pending_invalid_ = invalid;
  return "";
}

// [SECTION] compute
void Engine::compute() {
  if (!has_config_) set_config(Config{});
  const auto t0 = std::chrono::steady_clock::now();
  last_stages_ = 0;
  uint32_t dirty = dirty_;
  for (int s = 0; s < (int)Stage::count; ++s) {
    if (!(dirty & (1u << s))) continue;
    switch ((Stage)s) {
      case Stage::embed: run_embed(); break;
      case Stage::position: run_position(); break;
      case Stage::w_matrices: run_w_matrices(); break;
      case Stage::project: run_project(); break;
      case Stage::mask: run_mask(); break;
      case Stage::score: run_score(); break;
      case Stage::softmax: run_softmax(); break;
      case Stage::mix: run_mix(); break;
      case Stage::output: run_output(); break;
      default: break;
    }
    dirty |= downstream((Stage)s);
    last_stages_ |= 1u << s;
    ++stage_runs_[s];
  }
  dirty_ = 0;
  last_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Overrides of one target, applied to a buffer in the engine's layout. per_head_columns: the target is
// stored with all heads side by side (head h's column c lives at column h·head_cols + c).
void Engine::apply_overrides(Target t, std::vector<float>& data, int /*rows*/, int cols, bool per_head_columns,
                             int head_cols) {
  for (const Override& o : config_.overrides) {
    if (o.target != t) continue;
    const int col = per_head_columns ? o.head * head_cols + o.col : o.col;
    data[(size_t)o.row * cols + col] = o.value;
  }
}

// X_raw[i] = embedding of token i (or the explicit rows)      X_raw:(n, d_model)
void Engine::run_embed() {
  Result& r = result_;
  const Config& c = config_;
  r.tokens = pending_tokens_;
  r.source_tokens = pending_source_tokens_;
  r.dropped_tokens = pending_dropped_;
  r.invalid_bytes = pending_invalid_;
  r.cross = c.cross;
  r.n = (int)r.tokens.size();
  r.m = (int)r.source_tokens.size();
  r.d_model = c.d_model;
  const auto embed_all = [&](const SequenceInput& s, const std::vector<std::string>& toks, std::vector<float>& out) {
    if (!s.x.empty()) return void(out = s.x);
    out.assign(toks.size() * (size_t)c.d_model, 0.0f);
    for (size_t i = 0; i < toks.size(); ++i)
      embed_token(toks[i], c.embedding, c.seed, std::span<float>(out).subspan(i * (size_t)c.d_model, (size_t)c.d_model));
  };
  embed_all(c.target, r.tokens, x_embed_);
  if (c.cross) embed_all(c.source, r.source_tokens, x_source_embed_);
}

// X = X_raw + P  (P from the positional scheme; RoPE adds nothing here, it rotates Q and K later)
void Engine::run_position() {
  Result& r = result_;
  const Config& c = config_;
  r.x = x_embed_;
  if (c.cross) r.x_source = x_source_embed_;
  // P on its own (what the lab shows beside X), then X = E + P for the queries' sequence and, in
  // cross-attention, the source's (its keys are at positions 0..m−1 of their own sequence).
  const auto add = positional_kind(c.positional).add;
  r.positions.assign(r.x.size(), 0.0f);
  if (add) add(r.positions, r.n, c.d_model, c.seed);
  for (size_t i = 0; i < r.x.size(); ++i) r.x[i] += r.positions[i];
  if (c.cross && add) add(r.x_source, (int)(r.x_source.size() / (size_t)c.d_model), c.d_model, c.seed);
  apply_overrides(Target::x, r.x, r.n, c.d_model, false, 0);
  if (!c.cross) r.x_source = r.x;
}

// W_Q, W_K:(d_model, H·d_k)  W_V:(d_model, H·d_v)  W_O:(H·d_v, d_model), seeded Glorot unless given.
void Engine::run_w_matrices() {
  Result& r = result_;
  const Config& c = config_;
  r.heads = c.heads, r.d_k = c.d_k, r.d_v = c.d_v, r.d_model = c.d_model;
  const int H = c.heads, D = c.d_model;
  const auto build = [&](std::vector<float>& w, const std::vector<float>& given, int dh, uint32_t tag) {
    w.assign((size_t)D * H * dh, 0.0f);
    std::vector<float> head((size_t)D * dh);
    for (int h = 0; h < H; ++h) {
      if (given.empty()) glorot_matrix(c.seed, tag, h, D, dh, head);
      const float* src = given.empty() ? head.data() : given.data() + (size_t)h * D * dh;  // given: [h][D][dh]
      for (int row = 0; row < D; ++row)
        for (int col = 0; col < dh; ++col) w[(size_t)row * H * dh + h * dh + col] = src[(size_t)row * dh + col];
    }
  };
  build(r.w_q, c.w_q, c.d_k, 'Q');
  build(r.w_k, c.w_k, c.d_k, 'K');
  build(r.w_v, c.w_v, c.d_v, 'V');
  // Hand-built heads replace their columns (handmade_heads.h); the last entry for a head wins.
  for (const HandmadeHead& hh : c.handmade) {
    HandmadeWeights hw;
    if (!build_handmade_head(c, hh.kind, hw).empty()) continue;  // validate() refused unknown kinds
    for (int row = 0; row < D; ++row) {
      for (int col = 0; col < c.d_k; ++col) {
        r.w_q[(size_t)row * H * c.d_k + hh.head * c.d_k + col] = hw.w_q[(size_t)row * c.d_k + col];
        r.w_k[(size_t)row * H * c.d_k + hh.head * c.d_k + col] = hw.w_k[(size_t)row * c.d_k + col];
      }
      for (int col = 0; col < c.d_v; ++col) r.w_v[(size_t)row * H * c.d_v + hh.head * c.d_v + col] = hw.w_v[(size_t)row * c.d_v + col];
    }
  }
  if (c.w_o.empty()) {
    r.w_o.resize((size_t)H * c.d_v * D);
    glorot_matrix(c.seed, 'O', 0, H * c.d_v, D, r.w_o);
  } else {
    r.w_o = c.w_o;
  }
  apply_overrides(Target::w_q, r.w_q, D, H * c.d_k, true, c.d_k);
  apply_overrides(Target::w_k, r.w_k, D, H * c.d_k, true, c.d_k);
  apply_overrides(Target::w_v, r.w_v, D, H * c.d_v, true, c.d_v);
  apply_overrides(Target::w_o, r.w_o, H * c.d_v, D, false, 0);
}

// Q = X·W_Q  K = Xs·W_K  V = Xs·W_V   (all heads in one product each), then RoPE on Q and K, then edits.
void Engine::run_project() {
  Result& r = result_;
  const KernelSet& K = kernel_set();
  const int D = r.d_model, HK = r.heads * r.d_k, HV = r.heads * r.d_v;
  r.q.resize((size_t)r.n * HK);
  r.k.resize((size_t)r.m * HK);
  r.v.resize((size_t)r.m * HV);
  project_forward(K, r.x.data(), r.n, D, r.w_q.data(), HK, r.q.data());
  project_forward(K, r.x_source.data(), r.m, D, r.w_k.data(), HK, r.k.data());
  project_forward(K, r.x_source.data(), r.m, D, r.w_v.data(), HV, r.v.data());
  if (positional_kind(config_.positional).rotates_qk) {
    for (int h = 0; h < r.heads; ++h) {
      apply_rope(r.q.data() + h * r.d_k, r.n, r.d_k, HK);
      apply_rope(r.k.data() + h * r.d_k, r.m, r.d_k, HK);
    }
  }
  apply_overrides(Target::q, r.q, r.n, HK, true, r.d_k);
  apply_overrides(Target::k, r.k, r.m, HK, true, r.d_k);
  apply_overrides(Target::v, r.v, r.m, HV, true, r.d_v);
}

void Engine::run_mask() { result_.mask = build_mask(config_.mask, result_.n, result_.m); }

// S_h = Q_h·K_hᵀ · scale / τ     Q_h:(n, d_k)  K_h:(m, d_k)  ->  S_h:(n, m)
void Engine::run_score() {
  Result& r = result_;
  r.alpha = config_.alpha();
  if (!options_.keep_scores) {  // lean: computed together with the softmax, see run_softmax
    r.scores.clear();
    return;
  }
  const KernelSet& K = kernel_set();
  const int HK = r.heads * r.d_k;
  r.scores.resize((size_t)r.heads * r.n * r.m);
  for (int h = 0; h < r.heads; ++h)
    scores_forward(K, r.q.data() + h * r.d_k, HK, r.k.data() + h * r.d_k, HK, r.n, r.m, r.d_k, r.alpha,
                   r.scores.data() + (size_t)h * r.n * r.m);
}

// A_h = softmax_rows(S_h where allowed, else −∞)     S_h, A_h:(n, m)
//   kept scores: A_h from the stored S_h.
//   lean:        S_h = α·Q_h·K_hᵀ computed only where the mask allows, straight into A_h, each block
//                of rows turned into weights in place as soon as it is final.
// Masked cells get exactly 0; a fully masked row is all zeros (mask.fully_masked_rows lists them).
void Engine::run_softmax() {
  Result& r = result_;
  const KernelSet& K = kernel_set();
  const int n = r.n, m = r.m, HK = r.heads * r.d_k;
  r.weights.resize((size_t)r.heads * n * m);
  for (int h = 0; h < r.heads; ++h) {
    float* a_h = r.weights.data() + (size_t)h * n * m;
    if (options_.keep_scores) softmax_forward(K, r.scores.data() + (size_t)h * n * m, r.mask, a_h, nullptr);
    else attention_weights_forward(K, r.q.data() + h * r.d_k, HK, r.k.data() + h * r.d_k, HK, n, m, r.d_k, r.alpha, r.mask, a_h);
  }
  r.entropy.assign((size_t)r.heads * n, 0.0f);
  r.max_weight.assign((size_t)r.heads * n, 0.0f);
  if (options_.row_stats) compute_row_stats(r);
}

// O_h = A_h·V_h, written into concat's columns [h·d_v, (h+1)·d_v)     A_h:(n, m)  V_h:(m, d_v)
void Engine::run_mix() {
  Result& r = result_;
  const KernelSet& K = kernel_set();
  const int HV = r.heads * r.d_v;
  r.concat.resize((size_t)r.n * HV);
  for (int h = 0; h < r.heads; ++h)
    mix_forward(K, r.weights.data() + (size_t)h * r.n * r.m, r.v.data() + h * r.d_v, HV, r.n, r.m, r.d_v,
                r.concat.data() + h * r.d_v, HV, r.mask.ranges.data());
}

// out = concat·W_O     concat:(n, H·d_v)  W_O:(H·d_v, d_model)
void Engine::run_output() {
  Result& r = result_;
  const int HV = r.heads * r.d_v;
  r.output.resize((size_t)r.n * r.d_model);
  output_forward(kernel_set(), r.concat.data(), r.n, HV, r.w_o.data(), r.d_model, r.output.data(), false);
}

RunOutput run_attention(const Config& config, const KernelSet* kernels, EngineOptions options) {
  Engine engine(options);
  engine.set_kernels(kernels);
  RunOutput out;
  out.error = engine.set_config(config);
  if (!out.error.empty()) return out;
  engine.compute();
  out.result = engine.result();
  return out;
}

}  // namespace attn
