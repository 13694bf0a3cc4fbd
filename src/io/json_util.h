// json_util.h — the JSON type used for output: ordered keys and float numbers, so every value prints
// as the shortest decimal that reads back as the same float (0.1f prints "0.1", not 0.10000000149…).
#pragma once
#include <nlohmann/json.hpp>

namespace attn {

using ojson = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

// rows×cols matrix at `data` with row stride ld, as a list of rows.
inline ojson matrix_json(const float* data, int rows, int cols, int ld) {
  ojson m = ojson::array();
  for (int r = 0; r < rows; ++r) {
    ojson row = ojson::array();
    for (int c = 0; c < cols; ++c) row.push_back(data[(size_t)r * ld + c]);
    m.push_back(std::move(row));
  }
  return m;
}

}  // namespace attn
