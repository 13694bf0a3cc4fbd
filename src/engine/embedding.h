// embedding.h — token vectors (X before position) and the seeded weight matrices.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"

namespace attn {

// Writes the d_model-vector of `token` into out. hashed: N(0,1) entries from a stream keyed by the
// lower-cased token and the seed, so a word always gets the same vector. interpretable: the row of the
// built-in table (assets/embeddings.tsv), small seeded noise in the dimensions past the table's; a word
// not in the table gets a small random vector. Every token has 1 in the table's "bias" column.
void embed_token(std::string_view token, Embedding kind, uint64_t seed, std::span<float> out);

// The interpretable table's feature names, in column order ("animal", "person", ...).
const std::vector<std::string>& interpretable_features();

// Seeded Glorot-uniform matrix (rows × cols, limit √(6/(rows+cols))), one stream per (seed, tag, head),
// so head h's weights do not change when the number of heads changes.
void glorot_matrix(uint64_t seed, uint32_t tag, int head, int rows, int cols, std::span<float> out);

}  // namespace attn
