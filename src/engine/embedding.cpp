#include "embedding.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "prng.h"

namespace attn {

extern const char* const kInterpretableTsv;  // generated from assets/embeddings.tsv by CMake

namespace {

struct Table {
  std::vector<std::string> features;
  std::unordered_map<std::string, std::vector<float>> rows;
  int bias = -1;  // the column that is 1 for every token
};

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (char)std::tolower((unsigned char)c);
  return out;
}

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> cells;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '\t') {
      cells.emplace_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return cells;
}

Table parse_table() {
  Table t;
  std::string_view text(kInterpretableTsv);
  bool header = true;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells = split_tabs(line);
    if (header) {
      t.features.assign(cells.begin() + 1, cells.end());
      for (size_t i = 0; i < t.features.size(); ++i)
        if (t.features[i] == "bias") t.bias = (int)i;
      header = false;
      continue;
    }
    std::vector<float> row;
    for (size_t i = 1; i < cells.size(); ++i) row.push_back(std::strtof(cells[i].c_str(), nullptr));
    row.resize(t.features.size(), 0.0f);
    t.rows[lower_ascii(cells[0])] = std::move(row);
  }
  return t;
}

const Table& table() {
  static const Table t = parse_table();
  return t;
}

void fill_normal(uint64_t stream, float stddev, std::span<float> out) {
  Rng rng(stream);
  for (float& v : out) v = stddev * rng.normal();
}

}  // namespace

const std::vector<std::string>& interpretable_features() { return table().features; }

void embed_token(std::string_view token, Embedding kind, uint64_t seed, std::span<float> out) {
  const std::string key = lower_ascii(token);
  const uint64_t stream = hash_string(key, seed);
  if (kind == Embedding::hashed) return fill_normal(stream, 1.0f, out);

  const Table& t = table();
  const auto it = t.rows.find(key);
  if (it == t.rows.end()) {  // unknown word: a small random vector, with the constant bias feature
    fill_normal(stream, 0.3f, out);
    if (t.bias >= 0 && (size_t)t.bias < out.size()) out[(size_t)t.bias] = 1.0f;
    return;
  }
  const size_t known = std::min(out.size(), it->second.size());
  for (size_t i = 0; i < known; ++i) out[i] = it->second[i];
  fill_normal(stream, 0.05f, out.subspan(known));
}

void glorot_matrix(uint64_t seed, uint32_t tag, int head, int rows, int cols, std::span<float> out) {
  Rng rng(hash_string(std::string_view((const char*)&tag, sizeof tag), seed ^ (0x51ED27ull * (uint64_t)(head + 1))));
  const float limit = std::sqrt(6.0f / (float)(rows + cols));
  for (float& v : out) v = rng.uniform_sym(limit);
}

}  // namespace attn
