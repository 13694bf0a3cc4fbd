// json_reader.h — how io reads JSON, in one place: strict parsing (a duplicate key is refused, a
// syntax error says where, by line and column) and type-checked accessors that name the field in
// every message, so that no nlohmann call behind them can throw. config_json (lab configs),
// model_json (training configs, model files, batches) and the UI's view state read through it.
#pragma once
#include <string>
#include <string_view>
#include <vector>
#include <nlohmann/json.hpp>

namespace attn {

// Parses `text` into `out`: "" or one line, "WHAT: not valid JSON at line L, column C: ..." or
// "WHAT: duplicate key "k" in mask[0]" (JSON allows a repeated key; a file whose second "heads"
// silently wins is a trap).
std::string parse_json(std::string_view text, const char* what, nlohmann::json& out);

// A string as it may appear in a one-line message: printable ASCII kept, every other byte as \xNN
// (so invalid UTF-8 or a NUL never reaches a terminal), at most `max` bytes of s.
std::string printable(std::string_view s, size_t max = 40);

// Type-checked accessors. Each returns false when the value does not fit, and the first such
// message ("field: what") stays in `error`.
class JsonReader {
 public:
  using json = nlohmann::json;
  std::string error;
  bool fail(const std::string& field, const std::string& what);
  bool integer(const json& v, const std::string& field, long long lo, long long hi, long long& out);
  bool integer(const json& v, const std::string& field, long long lo, long long hi, int& out);
  bool number(const json& v, const std::string& field, float& out);  // finite, |x| ≤ 1e30
  bool boolean(const json& v, const std::string& field, bool& out);
  bool string(const json& v, const std::string& field, std::string& out);
  bool strings(const json& v, const std::string& field, std::vector<std::string>& out);  // a list of strings
  // A non-empty list of equal rows of numbers, of any size (rows, cols reported back; expect_cols ≥ 0
  // requires that many columns); `out` is replaced, row-major.
  bool rows_of_numbers(const json& v, const std::string& field, std::vector<float>& out, int& rows, int& cols,
                       int expect_cols = -1);
  // Exactly rows × cols numbers (a list of rows), each within ±1e4, appended to `out`.
  bool matrix(const json& v, const std::string& field, int rows, int cols, std::vector<float>& out);
  // [heads][rows][cols] into one flat buffer, every shape checked.
  bool tensor3(const json& v, const std::string& field, int heads, int rows, int cols, std::vector<float>& out);
  // A non-empty list of equal, non-empty rows of token ids in [lo, hi], appended to `out`.
  bool id_rows(const json& v, const std::string& field, int lo, int hi, int& rows, int& cols, std::vector<int>& out);
};

}  // namespace attn
