// json_writer.h — JSON written as it is produced, byte for byte what nlohmann's dump(indent) would
// print for the same document (ordered keys, float numbers in shortest round-trip form), so a large
// result never exists whole in memory. Output goes to a FILE* in 64 KiB blocks or to a string.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

class JsonWriter {
 public:
  JsonWriter(std::FILE* out, int indent) : file_(out), indent_(indent) {}
  JsonWriter(std::string* out, int indent) : str_(out), indent_(indent) {}
  ~JsonWriter() { flush(); }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view k);  // inside an object, before its value
  void value(float v);
  void value(int64_t v);
  void value(bool v);
  void value(std::string_view utf8);
  // A complete JSON value already dumped by nlohmann at this writer's indent (it is re-indented to
  // this depth).
  void raw(std::string_view json);
  void row(const float* v, int n);  // a list of numbers
  void row(const uint8_t* v, int n);  // a list of 0/1

  // Sends what is buffered; returns "" or the OS error (write failures are remembered, not lost).
  std::string flush();
  // Bytes produced so far.
  int64_t bytes() const { return bytes_; }

  // Shortest round-trip decimal of v, as nlohmann prints a float ("0.1", "1.0", "1e-05").
  static int format(float v, char* buf);  // buf: 32 bytes; returns the length

 private:
  void open(char c);
  void close(char c);
  void element();  // before a value: comma and newline as needed
  void put(std::string_view s);
  void put(char c);
  void newline(int depth);

  std::FILE* file_ = nullptr;
  std::string* str_ = nullptr;
  int indent_ = -1;
  std::string buf_;
  int error_ = 0;
  int64_t bytes_ = 0;
  struct Level {
    bool first = true;
  };
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace attn
