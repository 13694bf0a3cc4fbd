// tasks.cpp — the task table (see tasks.h) and the metrics every task shares.
//
// [SECTION] helpers
// [SECTION] previous_token
// [SECTION] reverse
// [SECTION] sort
// [SECTION] induction
// [SECTION] translate
// [SECTION] neighbours
// [SECTION] delayed_copy
// [SECTION] the table
// [SECTION] batches and metrics
#include "learn/tasks.h"

#include <algorithm>
#include <cmath>

#include "table.h"

namespace attn::learn {

std::string validate(const TrainOptions& t) {
  const auto range = check_range;
  std::string e;
  if (!(e = range("train.steps", t.steps, 0, TrainLimits::max_steps)).empty()) return e;
  if (!(e = range("train.batch", t.batch, 1, TrainLimits::max_batch)).empty()) return e;
  if (!(e = range("train.micro_batch", t.micro_batch, 1, TrainLimits::max_batch)).empty()) return e;
  if (!(e = range("train.eval_every", t.eval_every, 1, TrainLimits::max_steps)).empty()) return e;
  if (!(e = range("train.eval_batch", t.eval_batch, 1, TrainLimits::max_eval_batch)).empty()) return e;
  if (!(e = validate(t.adamw)).empty()) return "train." + e;
  if (!(t.stop_accuracy >= 0.0f && t.stop_accuracy <= 1.0f)) return "train.stop_accuracy: must be between 0 (off) and 1";
  if (!(e = range("train.stop_evaluations", t.stop_evaluations, 1, 1000)).empty()) return e;
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] helpers
// ---------------------------------------------------------------------------------------------------
namespace {

int uniform_int(Rng& rng, int n) { return (int)(rng.next_u64() % (uint64_t)n); }  // bias < n/2⁶⁴: negligible

std::vector<int> random_tokens(Rng& rng, int n, int values) {
  std::vector<int> t((size_t)n);
  for (int& x : t) x = uniform_int(rng, values);
  return t;
}

// k distinct values from 0..values-1, in random order (a partial Fisher–Yates shuffle).
std::vector<int> distinct(Rng& rng, int k, int values) {
  std::vector<int> all((size_t)values);
  for (int i = 0; i < values; ++i) all[(size_t)i] = i;
  for (int i = 0; i < k; ++i) std::swap(all[(size_t)i], all[(size_t)(i + uniform_int(rng, values - i))]);
  all.resize((size_t)k);
  return all;
}

std::string need_vocab(const ModelSpec& s, int needed) {
  if (s.vocab >= needed) return "";
  return "vocab: this task needs at least " + std::to_string(needed) + " token ids, got " + std::to_string(s.vocab);
}
std::string need_n(int n, int lo, int hi, const char* why) {
  if (n >= lo && n <= hi) return "";
  return "n: must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (" + why + "), got " +
         std::to_string(n);
}

MaskTerm causal() { return MaskTerm{.kind = MaskTerm::Kind::causal}; }

std::string letter_name(int id) { return id < 26 ? std::string(1, (char)('a' + id)) : "<" + std::to_string(id) + ">"; }
std::string digit_name(int id) { return id < 10 ? std::string(1, (char)('0' + id)) : "<" + std::to_string(id) + ">"; }
int no_source(int) { return 0; }

// ---------------------------------------------------------------------------------------------------
// [SECTION] previous_token: y_i = x_{i−1}                           ideal: key i−1 (the sub-diagonal)
// ---------------------------------------------------------------------------------------------------
void previous_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 16, s.n_ctx = 16, s.layers = 1, s.heads = 2, s.d_model = 32, s.d_k = 16, s.d_v = 16;
  s.mask = {causal()};
  t.steps = 400;
}
std::string previous_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, 2); !e.empty()) return e;
  return need_n(n, 2, ModelLimits::max_seq, "one position to copy from and one to predict");
}
Example previous_generate(const ModelSpec& s, int n, Rng& rng) {
  Example e;
  e.tokens = random_tokens(rng, n, s.vocab);
  e.targets.assign((size_t)n, -1);
  for (int i = 1; i < n; ++i) e.targets[(size_t)i] = e.tokens[(size_t)i - 1];
  return e;
}
void previous_ideal(const Example&, int, int, int, int i, std::vector<int>& keys) {
  if (i >= 1) keys.push_back(i - 1);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] reverse: y_i = x_{n−1−i}                                ideal: key n−1−i (the anti-diagonal)
// ---------------------------------------------------------------------------------------------------
void reverse_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 16, s.n_ctx = 12, s.layers = 1, s.heads = 2, s.d_model = 32, s.d_k = 16, s.d_v = 16;
  s.mask = {};
  t.steps = 600;
}
std::string reverse_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, 2); !e.empty()) return e;
  return need_n(n, 2, ModelLimits::max_seq, "at least two tokens to reverse");
}
Example reverse_generate(const ModelSpec& s, int n, Rng& rng) {
  Example e;
  e.tokens = random_tokens(rng, n, s.vocab);
  e.targets.resize((size_t)n);
  for (int i = 0; i < n; ++i) e.targets[(size_t)i] = e.tokens[(size_t)(n - 1 - i)];
  return e;
}
void reverse_ideal(const Example& e, int, int, int, int i, std::vector<int>& keys) {
  keys.push_back((int)e.tokens.size() - 1 - i);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] sort: x = d_0 … d_{k−1} | s_0 … s_{k−1}  (k distinct digits, then "|", then them sorted);
// at "|" and at each s_{i−1} predict s_i.     ideal: the key j < k holding s_i (the i-th smallest)
// ---------------------------------------------------------------------------------------------------
constexpr int kSep = 10;
void sort_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 11, s.n_ctx = 11, s.layers = 2, s.heads = 2, s.d_model = 64, s.d_k = 32, s.d_v = 32;
  s.mask = {causal()};
  t.steps = 800;
}
std::string sort_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, kSep + 1); !e.empty()) return e;
  if (n % 2 == 0) return "n: must be odd (k digits, the separator, k sorted digits), got " + std::to_string(n);
  return need_n(n, 3, 21, "2k+1 for k = 1..10 distinct digits");
}
Example sort_generate(const ModelSpec&, int n, Rng& rng) {
  const int k = (n - 1) / 2;
  Example e;
  e.tokens = distinct(rng, k, 10);
  std::vector<int> sorted = e.tokens;
  std::sort(sorted.begin(), sorted.end());
  e.tokens.push_back(kSep);
  e.tokens.insert(e.tokens.end(), sorted.begin(), sorted.end());
  e.targets.assign((size_t)n, -1);
  for (int i = 0; i < k; ++i) e.targets[(size_t)(k + i)] = sorted[(size_t)i];
  return e;
}
void sort_ideal(const Example& e, int, int, int, int i, std::vector<int>& keys) {
  const int k = ((int)e.tokens.size() - 1) / 2;
  if (i < k || i >= 2 * k) return;
  for (int j = 0; j < k; ++j)
    if (e.tokens[(size_t)j] == e.targets[(size_t)i]) keys.push_back(j);
}
std::string sort_name(int id) { return id == kSep ? "|" : digit_name(id); }

// ---------------------------------------------------------------------------------------------------
// [SECTION] induction: a pattern of P = 6..14 distinct tokens repeated to fill n; predict the next token
// wherever it is predictable (from the second period on). A variable period matters: with a fixed
// offset of n/2 a 1-layer model solves it from positions alone, by attending to i − n/2 + 1 (measured
// with PyTorch: 100% with one layer; so no induction head would be needed, and the lesson would vanish).
// ideal: the last layer attends to j+1 where x_j = x_i, j < i (prefix matching); earlier layers to the
// previous token, i−1 (the previous-token head the induction head composes with).
// ---------------------------------------------------------------------------------------------------
constexpr int kMinPeriod = 6, kMaxPeriod = 14;
void induction_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 28, s.n_ctx = 32, s.layers = 2, s.heads = 2, s.d_model = 32, s.d_k = 16, s.d_v = 16;
  s.mask = {causal()};
  t.steps = 1000;
}
std::string induction_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, kMaxPeriod + 1); !e.empty()) return e;
  return need_n(n, 2 * kMaxPeriod, ModelLimits::max_seq, "at least two periods of the longest pattern");
}
Example induction_generate(const ModelSpec& s, int n, Rng& rng) {
  const int period = kMinPeriod + uniform_int(rng, kMaxPeriod - kMinPeriod + 1);
  const std::vector<int> pattern = distinct(rng, period, s.vocab - 1);  // the last id stays spare
  Example e;
  e.tokens.resize((size_t)n);
  for (int i = 0; i < n; ++i) e.tokens[(size_t)i] = pattern[(size_t)(i % period)];
  e.targets.assign((size_t)n, -1);
  for (int i = period; i + 1 < n; ++i) e.targets[(size_t)i] = e.tokens[(size_t)i + 1];
  return e;
}
void induction_ideal(const Example& e, int layers, int layer, int, int i, std::vector<int>& keys) {
  if (layer < layers - 1) {
    if (i >= 1) keys.push_back(i - 1);
    return;
  }
  for (int j = 0; j < i; ++j)
    if (e.tokens[(size_t)j] == e.tokens[(size_t)i]) keys.push_back(j + 1);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] translate (cross-attention): source = n digits; the output is the digits reversed and
// mapped to symbols (0→A … 9→J), decoded with teacher forcing: input <s> y_0 … y_{n−2}, target y_i.
// Every layer's queries come from the output, keys and values from the source.
// ideal: output i attends to source n−1−i (an anti-diagonal alignment matrix)
// ---------------------------------------------------------------------------------------------------
constexpr int kSymbol0 = 10, kBos = 20;
void translate_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 21, s.n_ctx = 8, s.n_src = 8, s.cross = true, s.layers = 1, s.heads = 2, s.d_model = 32, s.d_k = 16,
  s.d_v = 16;
  s.mask = {};
  t.steps = 600;
}
std::string translate_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, kBos + 1); !e.empty()) return e;
  if (!s.cross) return "cross: translate is a cross-attention task";
  return need_n(n, 1, std::min(ModelLimits::max_seq, s.n_src), "as long as the source, at most source_n");
}
Example translate_generate(const ModelSpec&, int n, Rng& rng) {
  Example e;
  e.source = random_tokens(rng, n, 10);
  e.targets.resize((size_t)n);
  for (int i = 0; i < n; ++i) e.targets[(size_t)i] = kSymbol0 + e.source[(size_t)(n - 1 - i)];
  e.tokens.resize((size_t)n);
  e.tokens[0] = kBos;
  for (int i = 1; i < n; ++i) e.tokens[(size_t)i] = e.targets[(size_t)i - 1];
  return e;
}
int translate_source_length(int n) { return n; }
void translate_ideal(const Example& e, int, int, int, int i, std::vector<int>& keys) {
  keys.push_back((int)e.source.size() - 1 - i);
}
std::string translate_name(int id) {
  if (id < 10) return digit_name(id);
  if (id < kBos) return std::string(1, (char)('A' + id - kSymbol0));
  return id == kBos ? "<s>" : "<" + std::to_string(id) + ">";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] neighbours (two relations): x_i are digits 0..5; predict the pair (x_{i−1}, x_{i+1}) as one
// token id 6 + 6·x_{i−1} + x_{i+1}. A head averages what it attends to, so one head cannot fetch both
// neighbours separately: one head must learn "previous", another "next".
// ideal: relation 0 → key i−1, relation 1 → key i+1
// ---------------------------------------------------------------------------------------------------
constexpr int kValues = 6, kPair0 = kValues;
void neighbours_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = kPair0 + kValues * kValues, s.n_ctx = 10, s.layers = 1, s.heads = 2, s.d_model = 32, s.d_k = 16,
  s.d_v = 16;
  s.mask = {};
  t.steps = 1000;
}
std::string neighbours_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, kPair0 + kValues * kValues); !e.empty()) return e;
  return need_n(n, 3, ModelLimits::max_seq, "a token with two neighbours");
}
Example neighbours_generate(const ModelSpec&, int n, Rng& rng) {
  Example e;
  e.tokens = random_tokens(rng, n, kValues);
  e.targets.assign((size_t)n, -1);
  for (int i = 1; i + 1 < n; ++i)
    e.targets[(size_t)i] = kPair0 + kValues * e.tokens[(size_t)i - 1] + e.tokens[(size_t)i + 1];
  return e;
}
void neighbours_ideal(const Example& e, int, int, int relation, int i, std::vector<int>& keys) {
  if (i < 1 || i + 1 >= (int)e.tokens.size()) return;
  keys.push_back(relation == 0 ? i - 1 : i + 1);
}
std::string neighbours_name(int id) {
  if (id < kValues) return digit_name(id);
  if (id < kPair0 + kValues * kValues) {
    const int p = id - kPair0;
    return digit_name(p / kValues) + "," + digit_name(p % kValues);
  }
  return "<" + std::to_string(id) + ">";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] delayed_copy: random tokens; y_i = x_{i−distance} for i ≥ distance (the spec's `distance`).
// The lesson of why attention replaced recurrence: attention fetches the token d back in one step at
// any d; a recurrent state must carry it through d steps.      ideal: key i − distance (a diagonal)
// ---------------------------------------------------------------------------------------------------
void delayed_defaults(ModelSpec& s, TrainOptions& t) {
  s.vocab = 16, s.n_ctx = 32, s.distance = 8, s.layers = 1, s.heads = 2, s.d_model = 32, s.d_k = 16, s.d_v = 16;
  s.hidden = 64;
  s.mask = {causal()};
  t.steps = 600, t.adamw.clip = 1.0f;
}
std::string delayed_check(const ModelSpec& s, int n) {
  if (std::string e = need_vocab(s, 2); !e.empty()) return e;
  if (std::string e = need_n(n, 2, ModelLimits::max_seq, "a token to copy and a position distance later"); !e.empty()) return e;
  if (s.distance < 1 || s.distance >= n)
    return "distance: must be between 1 and n-1 = " + std::to_string(n - 1) + ", got " + std::to_string(s.distance);
  return "";
}
Example delayed_generate(const ModelSpec& s, int n, Rng& rng) {
  Example e;
  e.tokens = random_tokens(rng, n, s.vocab);
  e.targets.assign((size_t)n, -1);
  for (int i = s.distance; i < n; ++i) e.targets[(size_t)i] = e.tokens[(size_t)(i - s.distance)];
  return e;
}
void delayed_ideal(const Example& e, int, int, int, int i, std::vector<int>& keys) {
  if (e.targets[(size_t)i] >= 0) {
    // the distance is where the first target is: targets start at i = distance
    int d = 0;
    while (e.targets[(size_t)d] < 0) ++d;
    keys.push_back(i - d);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// [SECTION] the table
// ---------------------------------------------------------------------------------------------------
const std::vector<Task>& tasks() {
  static const std::vector<Task> table = {
      {"previous_token", "Predict the previous token: y_i = x_(i-1). One layer, causal mask.",
       "attends to the previous position (the sub-diagonal)", 1, {"previous", ""}, false, previous_defaults,
       previous_check, previous_generate, no_source, previous_ideal, letter_name},
      {"reverse",
       "Predict the sequence reversed: y_i = x_(n-1-i). One layer, no mask. With positional \"none\" it must fail: "
       "attention without positions is permutation-invariant, so every query sees the same set of keys and "
       "cannot tell which one is at position n-1-i.",
       "attends to the mirrored position n-1-i (the anti-diagonal)", 1, {"mirror", ""}, false, reverse_defaults,
       reverse_check, reverse_generate, no_source, reverse_ideal, letter_name},
      {"sort",
       "k distinct digits, a separator |, then the same digits sorted: at | and after each sorted digit, predict "
       "the next one. Causal mask.",
       "the i-th output attends to the input position holding the i-th smallest digit", 1, {"next smallest", ""}, false,
       sort_defaults, sort_check, sort_generate, no_source, sort_ideal, sort_name},
      {"induction",
       "A pattern of 6-14 distinct tokens repeated to fill the sequence: predict the next token wherever it is "
       "predictable (after the first period). Needs two layers: a previous-token head in layer 0 and an "
       "induction head in layer 1; one layer cannot do it.",
       "last layer: from token x_i to the token after its earlier occurrence (prefix matching); earlier "
       "layers: the previous token",
       1, {"prefix match", ""}, true, induction_defaults, induction_check, induction_generate, no_source,
       induction_ideal, letter_name},
      {"translate",
       "Cross-attention: a digit sequence (the source) into its reverse written in symbols (0->A ... 9->J), "
       "decoded with teacher forcing from <s>.",
       "output i attends to source position n-1-i (an anti-diagonal alignment matrix)", 1, {"alignment", ""}, false,
       translate_defaults, translate_check, translate_generate, translate_source_length, translate_ideal,
       translate_name},
      {"neighbours",
       "Digits 0-5: predict the pair (x_(i-1), x_(i+1)) as one token. Two heads must specialise: one on the "
       "previous token, one on the next.",
       "one head on the previous position, another on the next", 2, {"previous", "next"}, false, neighbours_defaults,
       neighbours_check, neighbours_generate, no_source, neighbours_ideal, neighbours_name},
      {"delayed_copy",
       "Random tokens: predict the token `distance` positions back, y_i = x_(i-distance), for i >= distance. "
       "Attention fetches it in one step at any distance; a recurrent model (model rnn or lstm) must carry it "
       "through its state for `distance` steps, and fails as the distance grows.",
       "attends to the position `distance` back (the diagonal at that offset)", 1, {"delayed", ""}, false,
       delayed_defaults, delayed_check, delayed_generate, no_source, delayed_ideal, letter_name},
  };
  return table;
}

const Task* find_task(const std::string& name) { return find_named(tasks(), name); }

std::string task_names() { return names_of(tasks()); }

// ---------------------------------------------------------------------------------------------------
// [SECTION] batches and metrics
// ---------------------------------------------------------------------------------------------------
Batch make_batch(const Task& task, const ModelSpec& spec, int size, int n, Rng& rng) {
  Batch b;
  b.size = size, b.n = n, b.m = task.source_length(n);
  b.tokens.reserve((size_t)size * n);
  b.targets.reserve((size_t)size * n);
  for (int s = 0; s < size; ++s) {
    Example e = task.generate(spec, n, rng);
    b.tokens.insert(b.tokens.end(), e.tokens.begin(), e.tokens.end());
    b.targets.insert(b.targets.end(), e.targets.begin(), e.targets.end());
    b.source.insert(b.source.end(), e.source.begin(), e.source.end());
  }
  return b;
}

Batch batch_of(const Example& e) {
  Batch b;
  b.size = 1, b.n = (int)e.tokens.size(), b.m = (int)e.source.size();
  b.tokens = e.tokens, b.targets = e.targets, b.source = e.source;
  return b;
}

Batch slice(const Batch& b, int first, int count) {
  Batch c;
  c.size = count, c.n = b.n, c.m = b.m;
  c.tokens.assign(b.tokens.begin() + (size_t)first * b.n, b.tokens.begin() + (size_t)(first + count) * b.n);
  c.targets.assign(b.targets.begin() + (size_t)first * b.n, b.targets.begin() + (size_t)(first + count) * b.n);
  if (b.m) c.source.assign(b.source.begin() + (size_t)first * b.m, b.source.begin() + (size_t)(first + count) * b.m);
  return c;
}

void keep_first_positions(Batch& b, int n) {
  // row s moves from s·b.n down to s·n: never past a row not yet moved, so in place, front to back
  for (std::vector<int>* v : {&b.tokens, &b.targets}) {
    for (int s = 1; s < b.size; ++s) std::copy_n(v->begin() + (long)s * b.n, n, v->begin() + (long)s * n);
    v->resize((size_t)b.size * n);
  }
  b.n = n;
}

std::string ids_from_labels(const Task& task, int vocab, std::string_view text, const char* field, std::vector<int>& ids) {
  ids.clear();
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n') ++j;
    if (j == i) break;
    const std::string_view label = text.substr(i, j - i);
    int found = -1;
    for (int id = 0; id < vocab && found < 0; ++id)
      if (task.token_name(id) == label) found = id;
    if (found < 0) {
      std::string known;
      for (int id = 0; id < vocab && known.size() < 200; ++id) known += (id ? " " : "") + task.token_name(id);
      return std::string(field) + ": '" + std::string(label) + "' is not in the vocabulary (" + known + ")";
    }
    ids.push_back(found);
    i = j;
  }
  if (ids.empty()) return std::string(field) + ": no tokens";
  return "";
}

template <class T>
void MetricSums::add(const Task& task, const Model<T>& model, const Batch& batch, double batch_loss) {
  const ModelSpec& s = model.spec();
  const int B = batch.size, n = batch.n, m = model.m(), V = s.vocab, L = s.layers, H = s.heads, R = task.relations;
  if (mass.empty()) mass.assign((size_t)L * H * R, 0.0), queries.assign((size_t)L * R, 0.0), saturated.assign((size_t)L * H, 0);
  // accuracy: argmax of the logits at each target cell
  long long cells = 0;
  for (int r = 0; r < B * n; ++r) {
    const int target = batch.targets[(size_t)r];
    if (target < 0) continue;
    const T* z = model.logits().data() + (size_t)r * V;
    correct += (int)(std::max_element(z, z + V) - z) == target;
    ++cells;
  }
  total += cells;
  loss += batch_loss * (double)cells;
  if (s.recurrent()) return;  // no attention: accuracy and loss only
  // pattern: for each (layer, head, relation), the weight on the ideal keys of each query that has some
  std::vector<int> keys;
  Example e;
  for (int b = 0; b < B; ++b) {
    e.tokens.assign(batch.tokens.begin() + (size_t)b * n, batch.tokens.begin() + (size_t)(b + 1) * n);
    e.targets.assign(batch.targets.begin() + (size_t)b * n, batch.targets.begin() + (size_t)(b + 1) * n);
    if (batch.m) e.source.assign(batch.source.begin() + (size_t)b * batch.m, batch.source.begin() + (size_t)(b + 1) * batch.m);
    for (int l = 0; l < L; ++l)
      for (int r = 0; r < R; ++r)
        for (int i = 0; i < n; ++i) {
          keys.clear();
          task.ideal_keys(e, L, l, r, i, keys);
          if (keys.empty()) continue;
          queries[(size_t)l * R + r] += 1.0;
          for (int h = 0; h < H; ++h) {
            const T* a = model.weights(l).data() + (((size_t)b * H + h) * n + i) * m;
            double sum = 0.0;
            for (int j : keys) sum += a[j];
            mass[((size_t)l * H + h) * R + r] += sum;
          }
        }
  }
  // saturation: rows whose largest weight is above the threshold, among the rows that have a choice
  // (two keys or more to see: with one, the weight is 1 whatever the scores)
  std::vector<uint8_t> choice((size_t)n, 0);
  for (int i = 0; i < n; ++i) {
    int seen = 0;
    for (int j = 0; j < m; ++j) seen += model.mask().allows(i, j);
    choice[(size_t)i] = seen >= 2;
    rows += choice[(size_t)i] ? B : 0;
  }
  for (int l = 0; l < L; ++l)
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
          if (!choice[(size_t)i]) continue;
          const T* a = model.weights(l).data() + (((size_t)b * H + h) * n + i) * m;
          saturated[(size_t)l * H + h] += (double)*std::max_element(a, a + m) > Metrics::kSaturated;
        }
}

Metrics MetricSums::finish(const Task& task, int L, int H) const {
  const int R = task.relations;
  Metrics out;
  out.loss = total ? loss / (double)total : 0.0;
  out.accuracy = total ? (double)correct / (double)total : 0.0;
  out.layers = L, out.heads = H, out.relations = R;
  // the mean mass per query
  out.pattern.assign((size_t)L * H * R, 0.0);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      for (int r = 0; r < R; ++r)
        if (!queries.empty() && queries[(size_t)l * R + r] > 0)
          out.pattern[((size_t)l * H + h) * R + r] = mass[((size_t)l * H + h) * R + r] / queries[(size_t)l * R + r];
  out.saturation.assign((size_t)L * H, 0.0);
  for (size_t k = 0; k < saturated.size() && k < out.saturation.size(); ++k)
    out.saturation[k] = rows ? (double)saturated[k] / (double)rows : 0.0;
  // the task's score: per relation the best head (of the last layer, or of any); the worst relation
  out.pattern_score = 1.0;
  for (int r = 0; r < R; ++r) {
    double best = 0.0;
    for (int l = task.last_layer_pattern ? L - 1 : 0; l < L; ++l)
      for (int h = 0; h < H; ++h) best = std::max(best, out.pattern_at(l, h, r));
    out.pattern_score = std::min(out.pattern_score, best);
  }
  return out;
}

template <class T>
Metrics measure(const Task& task, const Model<T>& model, const Batch& batch, double loss) {
  MetricSums sums;
  sums.add(task, model, batch, loss);
  Metrics out = sums.finish(task, model.spec().layers, model.spec().heads);
  out.loss = loss;  // as given, not re-derived from the sum
  return out;
}

template void MetricSums::add(const Task&, const Model<float>&, const Batch&, double);
template void MetricSums::add(const Task&, const Model<double>&, const Batch&, double);
template Metrics measure(const Task&, const Model<float>&, const Batch&, double);
template Metrics measure(const Task&, const Model<double>&, const Batch&, double);

}  // namespace attn::learn
