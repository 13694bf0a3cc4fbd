// config.h — everything a person (or a script) can set, as plain data, and the limits on it.
// The JSON form of this struct is the attnlab-cli schema (docs/cli.md, src/io/config_json.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "positional.h"  // Positional, beside the encodings' table

namespace attn {

// [SECTION] limits — every one is checked before any work starts, and a config beyond one is
// rejected with one line naming the field and the limit (docs/cli.md lists them all).
struct Limits {
  static constexpr int max_tokens_ui = 256;    // the lab clamps pasted text to this many tokens
  static constexpr int max_tokens = 4096;      // the CLI and the API accept up to this many
  static constexpr int max_d_model = 4096;
  static constexpr int max_heads = 64;
  static constexpr int max_d_head = 1024;      // d_k and d_v
  static constexpr int max_head_width = 16384; // heads·d_k and heads·d_v
  static constexpr int64_t max_attention_cells = int64_t(1) << 26;  // heads·n·m (scores and weights each)
  static constexpr float max_abs_value = 1e4f; // explicit x / weights / edited numbers
  static constexpr float min_temperature = 1e-3f, max_temperature = 1e3f;
  static constexpr float max_abs_scale = 1e4f;
  static constexpr int max_text_bytes = 1 << 20;
  static constexpr int max_mask_terms = 16;        // terms in `mask`
  static constexpr int max_padding_keys = 4096;    // keys listed by one padding term
  static constexpr int max_edits = 65536;          // entries in `edits`
  static constexpr int64_t max_config_bytes = int64_t(64) << 20;  // a config's JSON text
  // The engine's buffers for one config (estimate_memory below), in the CLI and in the page alike.
  static constexpr int64_t max_memory_bytes = int64_t(512) << 20;
};

enum class Embedding { hashed, interpretable };
enum class ScaleMode { inv_sqrt_dk, none, custom };

// One term of the mask; several terms combine by AND (a cell is allowed only if every term allows it).
// Each kind is registered once, in mask.cpp (name, check, what it hides, the lab's label and help).
struct MaskTerm {
  enum class Kind {
    none,     // allows everything
    causal,   // query i sees keys j <= i
    window,   // |i - j| < window (and j <= i if window_causal)
    padding,  // keys listed in `keys` are hidden from every query
    custom,   // an explicit rows×cols matrix, 1 = may attend
    count
  };
  static constexpr int default_window = 3;  // what the lab starts a sliding window at
  Kind kind = Kind::none;
  int window = 1;
  bool window_causal = true;
  std::vector<int> keys;
  int rows = 0, cols = 0;
  std::vector<uint8_t> cells;  // rows×cols, row-major
  bool operator==(const MaskTerm&) const = default;
};

// A matrix whose numbers can be edited one by one.
enum class Target { x, w_q, w_k, w_v, w_o, q, k, v };

// One edited number: target[head][row][col] = value (head is ignored for x and w_o); the shapes are
// given by target_shape() below.
struct Override {
  Target target = Target::x;
  int head = 0, row = 0, col = 0;
  float value = 0.0f;
  bool operator==(const Override&) const = default;
};

// A sequence of tokens: from text, from an explicit token list, or from explicit vectors.
struct SequenceInput {
  std::string text;
  std::vector<std::string> tokens;  // used instead of `text` when use_tokens
  bool use_tokens = false;
  std::vector<float> x;             // explicit embeddings, rows×d_model, used when !x.empty()
  int x_rows = 0;
  bool operator==(const SequenceInput&) const = default;
};

// A head whose W_Q, W_K, W_V are built by hand for one pattern instead of drawn from the seed
// (kinds and how each is built: handmade_heads.h).
struct HandmadeHead {
  int head = 0;
  std::string kind;  // "same_word", "pronoun"
  bool operator==(const HandmadeHead&) const = default;
};

// [SECTION] the attention spec: what a lab config and a trained model (learn::ModelSpec) share —
// the sizes, the positional encoding, the scaling, the temperature and the mask — with one check and
// one scale factor. Each extends it with what is its own (the lab: text, seed, edits; a model: layers,
// vocabulary, lengths) and its own limits.
struct AttentionLimits {
  int max_d_model, max_heads, max_d_head;
};
constexpr AttentionLimits kLabLimits{Limits::max_d_model, Limits::max_heads, Limits::max_d_head};

struct AttentionSpec {
  int d_model = 32;
  int heads = 4;
  int d_k = 8;
  int d_v = 8;
  Positional positional = Positional::sinusoidal;
  ScaleMode scale_mode = ScaleMode::inv_sqrt_dk;
  float scale_value = 1.0f;  // used when scale_mode == custom
  float temperature = 1.0f;
  std::vector<MaskTerm> mask;

  float effective_scale() const;                                  // the factor on Q·Kᵀ before the temperature
  float alpha() const { return effective_scale() / temperature; }  // S = alpha · Q·Kᵀ
  bool operator==(const AttentionSpec&) const = default;
};
// "" when the shared fields are within `limits` (sizes, heads·d_k and heads·d_v, temperature, a custom
// scale), else one line naming the field. The mask is checked against the tokens, later.
std::string validate(const AttentionSpec& s, const AttentionLimits& limits);

struct Config : AttentionSpec {
  SequenceInput target{"the cat sat on the mat because it was tired", {}, false, {}, 0};
  bool cross = false;       // cross-attention: keys and values come from `source`
  SequenceInput source;
  int max_tokens = Limits::max_tokens;  // longer input is an error, unless truncate is set
  bool truncate = false;                // clamp to max_tokens instead (what the lab does)

  uint64_t seed = 42;
  Embedding embedding = Embedding::hashed;

  // Explicit weights replace the seeded ones when non-empty.
  std::vector<float> w_q, w_k;  // heads × d_model × d_k
  std::vector<float> w_v;       // heads × d_model × d_v
  std::vector<float> w_o;       // (heads·d_v) × d_model
  std::vector<HandmadeHead> handmade;  // applied over the seeded (or given) W_Q, W_K, W_V of those heads

  std::vector<Override> overrides;

  bool operator==(const Config&) const = default;
};

// rows × cols of one head's `target` for n queries and m keys: x (n, d_model), q (n, d_k),
// k (m, d_k), v (m, d_v), w_q/w_k (d_model, d_k), w_v (d_model, d_v), w_o (heads·d_v, d_model).
struct Shape {
  int rows = 0, cols = 0;
};
Shape target_shape(const Config& c, Target target, int n, int m);

// Checks sizes, ranges and finiteness. Returns "" when valid, else one line naming the field.
// Token counts are checked by the engine after tokenizing (they depend on the text).
std::string validate(const Config& c);

// The bytes the engine's buffers will take for this config with n queries and m keys (the config's
// own arrays, the embeddings, the W matrices, Q/K/V, scores if kept, weights, mask, outputs and the
// kernels' scratch), and the field that contributes most, for the message.
struct MemoryEstimate {
  int64_t bytes = 0;
  const char* field = "";  // "heads", "text" or "d_model"
  const char* part = "";   // what dominates, in words
};
MemoryEstimate estimate_memory(const Config& c, int n, int m, bool keep_scores = true);
// "" when estimate_memory fits Limits::max_memory_bytes, else one line naming the field and the budget.
std::string check_memory(const Config& c, int n, int m, bool keep_scores = true);
std::string format_bytes(int64_t bytes);  // "1.4 GiB", "512 MiB", "3 KiB"
// "" when lo ≤ v ≤ hi, else "FIELD: must be between LO and HI, got V".
std::string check_range(const char* field, long long v, long long lo, long long hi);

const char* to_string(Positional p);
const char* to_string(Embedding e);
const char* to_string(Target t);
const char* to_string(MaskTerm::Kind k);

}  // namespace attn
