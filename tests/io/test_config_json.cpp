// The attnlab-cli schema: every key parses, every bad input names its field, and a config survives a
// round trip through JSON unchanged.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "config_json.h"
#include "engine.h"
#include "result_json.h"

namespace {

std::string error_of(const std::string& json) {
  attn::Config c;
  return attn::parse_config(json, c);
}

TEST(ConfigJson, ParsesEveryKey) {
  attn::Config c;
  const std::string err = attn::parse_config(R"({
    "text": "a b c", "d_model": 12, "heads": 3, "d_k": 5, "d_v": 2, "seed": 7, "positional": "rope",
    "embedding": "interpretable", "scale": 0.5, "temperature": 2, "max_tokens": 100, "truncate": true,
    "mask": ["causal", {"window": 2, "causal": false}, {"padding": [1]}, {"custom": [[1,1,0],[1,1,1],[0,1,1]]}],
    "edits": [{"matrix": "q", "head": 2, "row": 1, "col": 4, "value": 0.25}]
  })", c);
  ASSERT_EQ(err, "");
  EXPECT_EQ(c.target.text, "a b c");
  EXPECT_EQ(c.d_model, 12);
  EXPECT_EQ(c.heads, 3);
  EXPECT_EQ(c.d_k, 5);
  EXPECT_EQ(c.d_v, 2);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.positional, attn::Positional::rope);
  EXPECT_EQ(c.embedding, attn::Embedding::interpretable);
  EXPECT_EQ(c.scale_mode, attn::ScaleMode::custom);
  EXPECT_EQ(c.scale_value, 0.5f);
  EXPECT_EQ(c.temperature, 2.0f);
  ASSERT_EQ(c.mask.size(), 4u);
  EXPECT_EQ(c.mask[1].window, 2);
  EXPECT_FALSE(c.mask[1].window_causal);
  EXPECT_EQ(c.mask[3].cells[2], 0);
  ASSERT_EQ(c.overrides.size(), 1u);
  EXPECT_EQ(c.overrides[0].target, attn::Target::q);
}

TEST(ConfigJson, DkDefaultsToDModelOverHeads) {
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"d_model": 64, "heads": 8})", c), "");
  EXPECT_EQ(c.d_k, 8);
  EXPECT_EQ(c.d_v, 8);
}

TEST(ConfigJson, RoundTripsThroughJson) {
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"tokens": ["x", "y"], "d_model": 4, "heads": 2, "mask": [{"custom": [[1,0],[1,1]]}],
    "source": "p q r", "scale": false, "w_o": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]],
    "edits": [{"matrix": "x", "row": 1, "col": 2, "value": 0.1}]})", c), "");
  attn::Config back;
  ASSERT_EQ(attn::parse_config(attn::config_to_json(c), back), "");
  EXPECT_EQ(back, c);
}

TEST(ConfigJson, ErrorsNameTheField) {
  const auto starts = [](const std::string& err, const std::string& field) { return err.rfind(field, 0) == 0; };
  EXPECT_TRUE(starts(error_of("{"), "config: not valid JSON"));
  EXPECT_TRUE(starts(error_of("[1,2]"), "config: expected a JSON object"));
  EXPECT_TRUE(starts(error_of(R"({"bogus": 1})"), "bogus: unknown key"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": "big"})"), "d_model: expected an integer"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": 2.5})"), "d_model: expected an integer"));
  EXPECT_TRUE(starts(error_of(R"({"heads": 0})"), "heads: must be between 1 and 64"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": 1e12})"), "d_model: must be between"));
  EXPECT_TRUE(starts(error_of(R"({"temperature": 0})"), "temperature"));
  EXPECT_TRUE(starts(error_of(R"({"temperature": 1e400})"), "config: not valid JSON") ||
              starts(error_of(R"({"temperature": 1e400})"), "temperature"));
  EXPECT_TRUE(starts(error_of(R"({"positional": "spiral"})"), "positional: expected"));
  EXPECT_TRUE(starts(error_of(R"({"mask": "diagonal"})"), "mask: expected"));
  EXPECT_TRUE(starts(error_of(R"({"mask": [{"window": 0}]})"), "mask[0].window"));
  EXPECT_TRUE(starts(error_of(R"({"mask": [{"custom": [[1,0],[1]]}]})"), "mask[0].custom[1]"));
  EXPECT_TRUE(starts(error_of(R"({"mask": [{"custom": [[2]]}]})"), "mask[0].custom"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": 2, "heads": 1, "x": [[1, 2], [3]]})"), "x[1]"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": 2, "heads": 1, "w_q": [[[1]]]})"), "w_q[0][0]"));
  EXPECT_TRUE(starts(error_of(R"({"d_model": 2, "heads": 2, "w_q": [[[1],[1]]]})"), "w_q: expected a list of 2"));
  EXPECT_TRUE(starts(error_of(R"({"tokens": "abc"})"), "tokens: expected a list"));
  EXPECT_TRUE(starts(error_of(R"({"edits": [{"matrix": "z", "row": 0, "col": 0, "value": 1}]})"), "edits[0].matrix"));
  EXPECT_TRUE(starts(error_of(R"({"seed": -1})"), "seed"));
  EXPECT_TRUE(starts(error_of(R"({"text": "a\udc00"})"), "config: not valid JSON") ||
              starts(error_of(R"({"text": "a\udc00"})"), "text"));
}

TEST(ResultJson, HasEveryDocumentedKeyWithTheRightShapes) {
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"text": "one two three four", "d_model": 6, "heads": 2, "d_k": 3, "d_v": 2, "mask": "causal"})", c), "");
  const attn::RunOutput out = attn::run_attention(c);
  ASSERT_EQ(out.error, "");
  const nlohmann::json j = nlohmann::json::parse(attn::result_to_json(out.result, c));
  for (const char* key : {"tokens", "x", "heads", "concat", "output", "fully_masked_rows", "config"}) EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["heads"].size(), 2u);
  const auto& h = j["heads"][1];
  EXPECT_EQ(h["q"].size(), 4u);
  EXPECT_EQ(h["q"][0].size(), 3u);
  EXPECT_EQ(h["v"][0].size(), 2u);
  EXPECT_EQ(h["scores"].size(), 4u);
  EXPECT_EQ(h["allowed"][0], (nlohmann::json{1, 0, 0, 0}));
  EXPECT_EQ(h["weights"][0][0], 1.0);
  EXPECT_EQ(j["concat"][0].size(), 4u);
  EXPECT_EQ(j["output"][0].size(), 6u);
  EXPECT_EQ(j["config"]["mask"], (nlohmann::json{"causal"}));
}

}  // namespace
