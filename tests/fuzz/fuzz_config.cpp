// libFuzzer target: arbitrary bytes as an attnlab-cli config, then the engine on whatever parses.
// Any crash, hang, sanitizer report or NaN in a result is a bug.
// Built as the CMake target fuzz_config by the sanitizer build with clang (tests/CMakeLists.txt) and
// run by tests/fuzz/run.sh. Each input runs twice: with the scores kept and lean, and the result's
// JSON must parse back.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config_json.h"
#include "engine.h"
#include "explain.h"
#include "result_json.h"
#include "tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  attn::tokenize(text, 64);  // the tokenizer on raw bytes, invalid UTF-8 included
  attn::Config c;
  if (!attn::parse_config(text, c).empty()) return 0;
  // Keep each run small enough to fuzz quickly; the limits themselves are tested elsewhere.
  if ((int64_t)c.d_model * c.heads * (c.d_k + c.d_v) > (1 << 16)) return 0;
  c.max_tokens = std::min(c.max_tokens, 48);
  c.truncate = true;
  for (bool keep_scores : {true, false}) {
    attn::Engine engine({.keep_scores = keep_scores});
    if (!engine.set_config(c).empty()) return 0;
    engine.compute();
    const attn::Result& r = engine.result();
    for (float v : r.weights)
      if (!std::isfinite(v) || v < 0.0f || v > 1.0f) std::abort();
    for (float v : r.output)
      if (std::isnan(v)) std::abort();
    const std::string json = attn::result_to_json(r, c);
    if (nlohmann::json::parse(json, nullptr, false).is_discarded()) std::abort();
    if (r.n > 0 && r.m > 0) attn::explain_cell_text(r, 0, r.n - 1, r.m - 1);
  }
  return 0;
}
