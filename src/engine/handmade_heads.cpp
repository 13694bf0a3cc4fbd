// Hand-built heads: W_Q, W_K, W_V written from what the embedding's dimensions mean.
//
// A score is q_i·k_j = (x_i·W_Q)·(x_j·W_K), a sum over d_k terms: a head "looks for" a pattern when
// W_Q and W_K pick out the same properties from the query and the key. Here each column of W_Q and
// W_K is one such property, read straight off the embedding, times a strength β chosen so that a
// full match scores about 8 after the 1/√d_k scaling (softmax is then clearly peaked).
#include "handmade_heads.h"

#include <algorithm>
#include <cmath>

#include "embedding.h"

namespace attn {

namespace {

// Index of an interpretable feature ("animal", "plural", ...), or -1.
int feature(const std::string& name) {
  const std::vector<std::string>& f = interpretable_features();
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] == name) return (int)i;
  return -1;
}

void zero(const Config& c, HandmadeWeights& w) {
  w.w_q.assign((size_t)c.d_model * c.d_k, 0.0f);
  w.w_k.assign((size_t)c.d_model * c.d_k, 0.0f);
  w.w_v.assign((size_t)c.d_model * c.d_v, 0.0f);
}

// W_V copies the first d_v embedding dimensions: a row of the head's output is then the weighted
// average of the attended tokens' embeddings, readable in the same features.
void copy_values(const Config& c, HandmadeWeights& w) {
  for (int d = 0; d < std::min(c.d_model, c.d_v); ++d) w.w_v[(size_t)d * c.d_v + d] = 1.0f;
}

// β with β²·match/√d_k ≈ 8 (match: the dot product of a full match before β).
float strength(int d_k, float match) { return std::sqrt(8.0f * std::sqrt((float)d_k) / std::max(match, 1e-3f)); }

// Same word: W_Q = W_K = β·(the embedding's own dimensions), so q_i·k_j = β²·e_i·e_j, largest when
// token j is the same word as token i. The interpretable embedding uses its 8 features; the random
// one the last d_k dimensions, where a sinusoidal position changes slowest (so position disturbs
// the match least). Works best with no positional encoding or RoPE.
void build_same_word(const Config& c, HandmadeWeights& w) {
  zero(c, w);
  const bool table = c.embedding == Embedding::interpretable;
  const int dims = std::min({c.d_k, c.d_model, table ? (int)interpretable_features().size() : c.d_k});
  const int first = table ? 0 : c.d_model - dims;
  const float beta = strength(c.d_k, table ? 1.5f : (float)dims);
  for (int t = 0; t < dims; ++t) {
    w.w_q[(size_t)(first + t) * c.d_k + t] = beta;
    w.w_k[(size_t)(first + t) * c.d_k + t] = beta;
  }
  copy_values(c, w);
}

// Pronoun → noun (interpretable embedding): the query reads a token's kind (animal, person, thing)
// and number (plural), the key reads the same from every token, so "it" (half animal, half thing,
// singular) matches a singular animal or thing best and a plural one not at all. One more column
// keeps function words out: q = +function, k = −function, so a pronoun (function 0.8) scores
// "the", "because" and itself down.
void build_pronoun(const Config& c, HandmadeWeights& w) {
  zero(c, w);
  const char* reads[] = {"animal", "person", "thing", "plural"};
  int col = 0;
  const float beta = strength(c.d_k, 0.75f);
  for (const char* name : reads) {
    const int f = feature(name);
    if (f < 0 || f >= c.d_model || col >= c.d_k) continue;
    w.w_q[(size_t)f * c.d_k + col] = beta;
    w.w_k[(size_t)f * c.d_k + col] = beta;
    ++col;
  }
  const int fn = feature("function");
  if (fn >= 0 && fn < c.d_model && col < c.d_k) {
    w.w_q[(size_t)fn * c.d_k + col] = beta;
    w.w_k[(size_t)fn * c.d_k + col] = -beta;
  }
  copy_values(c, w);
}

constexpr HandmadeKind kKinds[] = {
    {"same_word", "same word",
     "Each token looks for copies of itself: W_Q and W_K both read the embedding, so q\xC2\xB7k is largest for the same "
     "word. Clearest with no positional encoding (a position added to X makes two copies differ a little).",
     build_same_word},
    {"pronoun", "pronoun \xE2\x86\x92 noun",
     "Needs the interpretable embedding. W_Q and W_K read kind (animal, person, thing) and number: 'it' (singular, "
     "animal or thing) finds singular animals and things, not plurals; a function column keeps 'the' and 'because' out. "
     "Every token runs the same rule, so nouns also find nouns like themselves.",
     build_pronoun},
};

}  // namespace

std::span<const HandmadeKind> handmade_kinds() { return kKinds; }

const HandmadeKind* find_handmade_kind(const std::string& name) {
  for (const HandmadeKind& k : kKinds)
    if (name == k.name) return &k;
  return nullptr;
}

const char* handmade_label(const std::string& name) {
  const HandmadeKind* k = find_handmade_kind(name);
  return k ? k->label : "?";
}

std::string build_handmade_head(const Config& c, const std::string& kind, HandmadeWeights& out) {
  const HandmadeKind* k = find_handmade_kind(kind);
  if (!k) return "handmade: unknown kind \"" + kind + "\"";
  k->build(c, out);
  return "";
}

}  // namespace attn
