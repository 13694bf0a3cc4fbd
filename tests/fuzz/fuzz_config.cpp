// libFuzzer target: arbitrary bytes as an attnlab-cli config, then the engine on whatever parses.
// Any crash, hang, sanitizer report or NaN in a result is a bug.
//   clang++ -g -O1 -fsanitize=fuzzer,address,undefined ... (see tests/fuzz/run.sh)
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config_json.h"
#include "engine.h"
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
  attn::Engine engine;
  if (!engine.set_config(c).empty()) return 0;
  engine.compute();
  const attn::Result& r = engine.result();
  for (float v : r.weights)
    if (!std::isfinite(v) || v < 0.0f || v > 1.0f) std::abort();
  for (float v : r.output)
    if (std::isnan(v)) std::abort();
  attn::result_to_json(r, c);
  return 0;
}
