// json_reader.cpp — see json_reader.h.
#include "json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "config.h"

namespace attn {

using json = nlohmann::json;

std::string printable(std::string_view s, size_t max) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7F) {
      out += (char)ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", ch);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

namespace {

// "line L, column C" of byte offset `at` in text (both from 1).
std::string line_column(std::string_view text, size_t at) {
  at = std::min(at, text.size());
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// nlohmann's SAX DOM builder, plus: a duplicate key is an error, and the error says where, by path or
// by line and column.
class StrictDom {
 public:
  StrictDom(json& root, std::string_view text, const char* what) : text_(text), what_(what), dom_(root, /*allow_exceptions=*/false) {}
  std::string error;

  bool null() { return value(), dom_.null(); }
  bool boolean(bool v) { return value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) { return value(), dom_.number_float(v, s); }
  bool string(std::string& v) { return value(), dom_.string(v); }
  bool binary(json::binary_t& v) { return value(), dom_.binary(v); }
  bool start_object(std::size_t n) {
    value();
    path_.push_back({false, 0, {}, {}});
    return dom_.start_object(n);
  }
  bool key(std::string& k) {
    Level& l = path_.back();
    if (!l.keys.insert(k).second) {
      error = std::string(what_) + ": duplicate key \"" + printable(k) + "\"" + (path_.size() > 1 ? " in " + where() : "");
      return false;
    }
    l.key = k;
    return dom_.key(k);
  }
  bool end_object() { path_.pop_back(); return dom_.end_object(); }
  bool start_array(std::size_t n) {
    value();
    path_.push_back({true, -1, {}, {}});
    return dom_.start_array(n);
  }
  bool end_array() { path_.pop_back(); return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    std::string what = ex.what();
    if (const size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
    if (what.rfind("parse error", 0) == 0)
      if (const size_t p = what.find(": "); p != std::string::npos) what.erase(0, p + 2);
    if (const size_t p = what.find("; last read"); p != std::string::npos) what.erase(p);
    const size_t at = ex.id >= 100 && ex.id < 200 ? static_cast<const nlohmann::detail::parse_error&>(ex).byte : position;
    error = std::string(what_) + ": not valid JSON at " + line_column(text_, at ? at - 1 : 0) + ": " + printable(what, 160);
    return false;
  }

 private:
  struct Level {
    bool array;
    long index;           // arrays: the element being read
    std::string key;      // objects: the key being read
    std::set<std::string> keys;
  };
  void value() {  // a value starts: in an array, it is the next element
    if (!path_.empty() && path_.back().array) ++path_.back().index;
  }
  std::string where() const {  // the enclosing object, as a field name: mask[0], source
    std::string out;
    for (size_t i = 0; i + 1 < path_.size(); ++i) {
      const Level& l = path_[i];
      if (l.array) out += "[" + std::to_string(l.index) + "]";
      else out += (out.empty() ? "" : ".") + printable(l.key);
    }
    return out;
  }
  std::string_view text_;
  const char* what_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Level> path_;
};

}  // namespace

std::string parse_json(std::string_view text, const char* what, json& out) {
  out = json();
  StrictDom dom(out, text, what);
  if (!json::sax_parse(text.begin(), text.end(), &dom)) return dom.error.empty() ? std::string(what) + ": not valid JSON" : dom.error;
  return "";
}

// [SECTION] accessors
bool JsonReader::fail(const std::string& field, const std::string& what) {
  if (error.empty()) error = field + ": " + what;
  return false;
}

bool JsonReader::integer(const json& v, const std::string& field, long long lo, long long hi, long long& out) {
  if (!v.is_number() || (v.is_number_float() && std::floor(v.get<double>()) != v.get<double>()))
    return fail(field, "expected an integer");
  const double d = v.get<double>();
  if (d < (double)lo || d > (double)hi) return fail(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  out = (long long)d;
  return true;
}

bool JsonReader::integer(const json& v, const std::string& field, long long lo, long long hi, int& out) {
  long long x = 0;
  if (!integer(v, field, lo, hi, x)) return false;
  out = (int)x;
  return true;
}

bool JsonReader::number(const json& v, const std::string& field, float& out) {
  if (!v.is_number()) return fail(field, "expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::fabs(d) > 1e30) return fail(field, "expected a finite number");
  out = (float)d;
  return true;
}

bool JsonReader::boolean(const json& v, const std::string& field, bool& out) {
  if (!v.is_boolean()) return fail(field, "expected true or false");
  out = v.get<bool>();
  return true;
}

bool JsonReader::string(const json& v, const std::string& field, std::string& out) {
  if (!v.is_string()) return fail(field, "expected a string");
  out = v.get<std::string>();
  return true;
}

bool JsonReader::strings(const json& v, const std::string& field, std::vector<std::string>& out) {
  if (!v.is_array()) return fail(field, "expected a list of strings");
  out.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) return fail(field + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(v[i].get<std::string>());
  }
  return true;
}

bool JsonReader::rows_of_numbers(const json& v, const std::string& field, std::vector<float>& out, int& rows, int& cols,
                                 int expect_cols) {
  if (!v.is_array() || v.empty()) return fail(field, "expected a non-empty list of rows");
  rows = (int)v.size();
  cols = -1;
  out.clear();
  for (size_t r = 0; r < v.size(); ++r) {
    const json& row = v[r];
    const std::string rf = field + "[" + std::to_string(r) + "]";
    if (!row.is_array()) return fail(rf, "expected a list of numbers");
    if (cols < 0) cols = (int)row.size();
    if ((int)row.size() != cols)
      return fail(rf, "expected " + std::to_string(cols) + " numbers like the first row, got " + std::to_string(row.size()));
    if (expect_cols >= 0 && cols != expect_cols)
      return fail(rf, "expected " + std::to_string(expect_cols) + " numbers, got " + std::to_string(cols));
    for (size_t c = 0; c < row.size(); ++c) {
      float f;
      if (!number(row[c], rf + "[" + std::to_string(c) + "]", f)) return false;
      out.push_back(f);
    }
  }
  return true;
}

bool JsonReader::matrix(const json& v, const std::string& field, int rows, int cols, std::vector<float>& out) {
  if (!v.is_array() || (int)v.size() != rows)
    return fail(field, "expected " + std::to_string(rows) + " rows of " + std::to_string(cols) + " numbers");
  for (int r = 0; r < rows; ++r) {
    const json& row = v[(size_t)r];
    const std::string rf = field + "[" + std::to_string(r) + "]";
    if (!row.is_array() || (int)row.size() != cols) return fail(rf, "expected " + std::to_string(cols) + " numbers");
    for (int c = 0; c < cols; ++c) {
      float x = 0;
      if (!number(row[(size_t)c], rf + "[" + std::to_string(c) + "]", x)) return false;
      if (std::fabs(x) > Limits::max_abs_value) return fail(rf + "[" + std::to_string(c) + "]", "must be within ±1e4");
      out.push_back(x);
    }
  }
  return true;
}

bool JsonReader::tensor3(const json& v, const std::string& field, int heads, int rows, int cols, std::vector<float>& out) {
  if (!v.is_array() || (int)v.size() != heads)
    return fail(field, "expected a list of " + std::to_string(heads) + " matrices (one per head) of " + std::to_string(rows) + "x" +
                           std::to_string(cols));
  out.clear();
  for (int h = 0; h < heads; ++h) {
    std::vector<float> m;
    int r = 0, c = 0;
    const std::string hf = field + "[" + std::to_string(h) + "]";
    if (!rows_of_numbers(v[(size_t)h], hf, m, r, c, cols)) return false;
    if (r != rows) return fail(hf, "expected " + std::to_string(rows) + " rows (d_model), got " + std::to_string(r));
    out.insert(out.end(), m.begin(), m.end());
  }
  return true;
}

bool JsonReader::id_rows(const json& v, const std::string& field, int lo, int hi, int& rows, int& cols, std::vector<int>& out) {
  if (!v.is_array() || v.empty()) return fail(field, "expected a non-empty list of rows of token ids");
  rows = (int)v.size(), cols = -1;
  for (int r = 0; r < rows; ++r) {
    const json& row = v[(size_t)r];
    const std::string rf = field + "[" + std::to_string(r) + "]";
    if (!row.is_array() || row.empty()) return fail(rf, "expected a non-empty list of token ids");
    if (cols < 0) cols = (int)row.size();
    if ((int)row.size() != cols) return fail(rf, "expected " + std::to_string(cols) + " ids like the first row");
    for (int c = 0; c < cols; ++c) {
      int id = 0;
      if (!integer(row[(size_t)c], rf + "[" + std::to_string(c) + "]", lo, hi, id)) return false;
      out.push_back(id);
    }
  }
  return true;
}

}  // namespace attn
