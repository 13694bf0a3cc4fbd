// handmade_heads.h — heads whose W_Q, W_K and W_V are written by hand for one pattern, so that a
// lab with untrained (random) weights can still show what a meaningful head looks like. They are
// constructed, not learned: each entry says what it reads and when it works.
//
// One table (kHandmadeHeads in handmade_heads.cpp): name, label, help, builder. The config names a
// head and a kind ("handmade": [{"head": 0, "kind": "pronoun"}]); the engine's weights stage puts
// the built matrices in that head's columns instead of the seeded ones (W_O stays seeded).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "config.h"

namespace attn {

struct HandmadeWeights {
  std::vector<float> w_q, w_k;  // (d_model, d_k), row-major
  std::vector<float> w_v;       // (d_model, d_v)
};

struct HandmadeKind {
  const char* name;   // in the config: "same_word"
  const char* label;  // for people: "same word"
  const char* help;   // what it reads, what it shows, when it works
  // Fills the three matrices for config `c` (sizes already validated).
  void (*build)(const Config& c, HandmadeWeights& out);
  // What the rest of the config must be for the pattern to show (meet_handmade_needs sets it).
  bool needs_table;  // the interpretable embedding: reads its features by name
  bool needs_rope;   // RoPE and the table's bias dimension (d_model > its index): reads position alone
};

std::span<const HandmadeKind> handmade_kinds();
const HandmadeKind* find_handmade_kind(const std::string& name);  // nullptr if unknown
const char* handmade_label(const std::string& name);               // "?" if unknown

// The matrices for one kind under config `c`. Returns "" or why not (unknown kind).
std::string build_handmade_head(const Config& c, const std::string& kind, HandmadeWeights& out);

// Changes `c` so that a head of `kind` shows its pattern (the embedding, the positional encoding,
// d_model), and says what changed for people ("embedding: interpretable, position: RoPE"); "" if
// nothing had to change or the kind is unknown.
std::string meet_handmade_needs(Config& c, const std::string& kind);

}  // namespace attn
