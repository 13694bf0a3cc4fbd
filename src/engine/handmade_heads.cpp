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
#include "table.h"

namespace attn {

namespace {

// Index of an interpretable feature ("animal", "plural", ...), or -1.
int feature(const std::string& name) {
  const std::vector<std::string>& f = interpretable_features();
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] == name) return (int)i;
  return -1;
}

// The column that is 1 for every token (embeddings.tsv's last one), or -1.
int bias_feature() { return feature("bias"); }

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
  const int meaning = (int)interpretable_features().size() - (bias_feature() >= 0 ? 1 : 0);  // not bias
  const int dims = std::min({c.d_k, c.d_model, table ? meaning : c.d_k});
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

// [SECTION] positional heads (RoPE)
//
// RoPE turns pair p = (2p, 2p+1) of the query at position i by the angle i·θ_p and of the key at j
// by j·θ_p (θ_p = 10000^(−2p/d_k)). These heads read only the bias dimension, which is 1 for every
// token, so before the rotation every query is one vector q and every key one vector k: what is left
// to tell tokens apart is their positions. With each key pair (g, 0) and each query pair
// g·(cos φ_p, −sin φ_p):
//   q_i·k_j = g²·Σ_p cos((i − j)·θ_p − φ_p)
// Every pair agrees (cos = 1) where i − j = φ_p/θ_p, and only there when the pairs turn at different
// speeds. φ_p = θ_p puts that peak on the previous token (i − j = 1), φ_p = 0 on the token itself.
// Moving a distance δ off the peak costs g²·loss(δ), loss(δ) = Σ_p (1 − cos(δ·θ_p)); g sets how
// sharp the peak is.

double rope_theta(int p, int d_k) { return std::pow(10000.0, -(2.0 * p) / d_k); }

double loss_at(int delta, int d_k) {
  double sum = 0.0;
  for (int p = 0; p < d_k / 2; ++p) sum += 1.0 - std::cos(delta * rope_theta(p, d_k));
  return sum;
}

// W_Q and W_K read the bias row into every rotated pair; peak at i − j = `back`, where a step off it
// costs `drop` (after 1/√d_k) at least over the first 31 distances.
void build_rotary(const Config& c, HandmadeWeights& w, int back, float drop, bool sharp) {
  zero(c, w);
  const int b = bias_feature();
  if (b < 0 || b >= c.d_model || c.d_k < 2) return;
  // The smallest loss off the peak: at δ = 1 for many pairs; with few pairs (d_k ≤ 8) a far distance
  // where the fast pairs come round again. A sharp head is strong enough to beat that echo too,
  // bounded to 8× the nearest loss so that d_k = 2's scores stay readable.
  double least = loss_at(1, c.d_k);
  if (sharp) {
    for (int delta = 2; delta < 32; ++delta) least = std::min(least, loss_at(delta, c.d_k));
    least = std::max(least, loss_at(1, c.d_k) / 8.0);
  }
  const double g = std::sqrt(drop * std::sqrt((double)c.d_k) / least);
  for (int p = 0; p < c.d_k / 2; ++p) {
    const double phi = back * rope_theta(p, c.d_k);
    w.w_k[(size_t)b * c.d_k + 2 * p] = (float)g;
    w.w_q[(size_t)b * c.d_k + 2 * p] = (float)(g * std::cos(phi));
    w.w_q[(size_t)b * c.d_k + 2 * p + 1] = (float)(-g * std::sin(phi));
  }
  copy_values(c, w);
}

// Previous token: the peak one position back, every other distance at least 8 lower.
void build_previous_token(const Config& c, HandmadeWeights& w) { build_rotary(c, w, 1, 8.0f, true); }

// Window: the peak on the token itself, the neighbours 1 lower, so a soft window of about three
// tokens (i − 1, i, i + 1) shares the weight and far tokens get almost none.
void build_window(const Config& c, HandmadeWeights& w) { build_rotary(c, w, 0, 1.0f, false); }

constexpr HandmadeKind kKinds[] = {
    {"same_word", "same word",
     "Each token looks for copies of itself: W_Q and W_K both read the embedding, so q\xC2\xB7k is largest for the same "
     "word. Clearest with no positional encoding (a position added to X makes two copies differ a little).",
     build_same_word, false, false},
    {"pronoun", "pronoun \xE2\x86\x92 noun",
     "Needs the interpretable embedding. W_Q and W_K read kind (animal, person, thing) and number: 'it' (singular, "
     "animal or thing) finds singular animals and things, not plurals; a function column keeps 'the' and 'because' out. "
     "Every token runs the same rule, so nouns also find nouns like themselves.",
     build_pronoun, true, false},
    {"previous_token", "previous token",
     "Needs RoPE and the interpretable embedding. W_Q and W_K read only the 'bias' feature, 1 for every word, so "
     "every query is the same vector and so is every key; RoPE then turns each by its position, and the query is set "
     "one turn behind, so each token scores its previous token highest whatever the words. d_k 8 or more keeps it "
     "sharp in long texts (with few rotation pairs the pattern comes back every few tokens).",
     build_previous_token, true, true},
    {"window", "soft window \xC2\xB1""1",
     "Needs RoPE and the interpretable embedding. Built like the previous-token head, but the peak is on the token "
     "itself and the head is weaker, so the weight spreads over the token and its neighbours: a soft window, made of "
     "position alone. Compare with the window mask, which cuts hard. Best with d_k 16 or more.",
     build_window, true, true},
};

}  // namespace

std::span<const HandmadeKind> handmade_kinds() { return kKinds; }

const HandmadeKind* find_handmade_kind(const std::string& name) { return find_named(kKinds, name); }

const char* handmade_label(const std::string& name) {
  const HandmadeKind* k = find_handmade_kind(name);
  return k ? k->label : "?";
}

std::string meet_handmade_needs(Config& c, const std::string& kind) {
  const HandmadeKind* k = find_handmade_kind(kind);
  std::string changed;
  auto note = [&](const std::string& s) { changed += (changed.empty() ? "" : ", ") + s; };
  if (!k) return changed;
  if ((k->needs_table || k->needs_rope) && c.embedding != Embedding::interpretable) {
    c.embedding = Embedding::interpretable;
    note("embedding: interpretable");
  }
  if (k->needs_rope && c.positional != Positional::rope) {
    c.positional = Positional::rope;
    note("position: RoPE");
  }
  if (k->needs_rope && bias_feature() >= c.d_model) {
    c.d_model = 16;
    note("d_model: 16 (the bias feature is dimension " + std::to_string(bias_feature()) + ")");
  }
  return changed;
}

std::string build_handmade_head(const Config& c, const std::string& kind, HandmadeWeights& out) {
  const HandmadeKind* k = find_handmade_kind(kind);
  if (!k) return "handmade: unknown kind \"" + kind + "\"";
  k->build(c, out);
  return "";
}

}  // namespace attn
