#include "json_writer.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "json_util.h"

namespace attn {

int JsonWriter::format(float v, char* buf) {
  if (!std::isfinite(v)) return (int)(std::memcpy(buf, "null", 4), 4);  // as nlohmann: never reached for results
  char* end = nlohmann::detail::to_chars(buf, buf + 32, v);
  return (int)(end - buf);
}

void JsonWriter::put(std::string_view s) {
  buf_.append(s);
  bytes_ += (int64_t)s.size();
  if (buf_.size() >= (1u << 16)) flush();
}

void JsonWriter::put(char c) {
  buf_ += c;
  ++bytes_;
  if (buf_.size() >= (1u << 16)) flush();
}

std::string JsonWriter::flush() {
  if (str_) {
    str_->append(buf_);
  } else if (file_ && !buf_.empty() && !error_) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) error_ = errno ? errno : EIO;
  }
  buf_.clear();
  if (file_ && !error_ && std::fflush(file_) != 0) error_ = errno ? errno : EIO;
  return error_ ? std::strerror(error_) : "";
}

void JsonWriter::newline(int depth) {
  if (indent_ < 0) return;
  put('\n');
  for (int i = 0; i < depth * indent_; ++i) put(' ');
}

void JsonWriter::element() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& l = levels_.back();
  if (!l.first) put(',');
  l.first = false;
  newline((int)levels_.size());
}

void JsonWriter::open(char c) {
  element();
  put(c);
  levels_.push_back({});
}

void JsonWriter::close(char c) {
  const bool empty = levels_.back().first;
  levels_.pop_back();
  if (!empty) newline((int)levels_.size());
  put(c);
}

void JsonWriter::key(std::string_view k) {
  element();
  put(ojson(std::string(k)).dump(-1, ' ', false, ojson::error_handler_t::replace));
  put(indent_ < 0 ? ":" : ": ");
  after_key_ = true;
}

void JsonWriter::value(float v) {
  element();
  char b[32];
  put(std::string_view(b, (size_t)format(v, b)));
}

void JsonWriter::value(int64_t v) {
  element();
  put(std::to_string(v));
}

void JsonWriter::value(bool v) {
  element();
  put(v ? "true" : "false");
}

void JsonWriter::value(std::string_view s) {
  element();
  put(ojson(std::string(s)).dump(-1, ' ', false, ojson::error_handler_t::replace));
}

void JsonWriter::raw(std::string_view json) {
  element();
  const int depth = (int)levels_.size();
  for (char c : json) {  // strings in dumped JSON never hold a raw newline, so each one is structure
    put(c);
    if (c == '\n')
      for (int i = 0; i < depth * indent_; ++i) put(' ');
  }
}

void JsonWriter::row(const float* v, int n) {
  begin_array();
  for (int i = 0; i < n; ++i) value(v[i]);
  end_array();
}

void JsonWriter::row(const uint8_t* v, int n) {
  begin_array();
  for (int i = 0; i < n; ++i) {
    element();
    put(v[i] ? '1' : '0');
  }
  end_array();
}

}  // namespace attn
