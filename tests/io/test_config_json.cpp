// The attnlab-cli schema: every key parses, every bad input names its field, and a config survives a
// round trip through JSON unchanged.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config_json.h"
#include "engine.h"
#include "mask.h"
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
  EXPECT_TRUE(starts(error_of(R"({"mask": "diagonal"})"), "mask[0]: expected"));
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
  EXPECT_EQ(j["allowed"][0], (nlohmann::json{1, 0, 0, 0}));  // at the top level (shared by every head)
  EXPECT_EQ(h["allowed"], j["allowed"]);  // and in every head too, as the first schema promised
  EXPECT_EQ(h["weights"][0][0], 1.0);
  EXPECT_EQ(j["concat"][0].size(), 4u);
  EXPECT_EQ(j["output"][0].size(), 6u);
  EXPECT_EQ(j["config"]["mask"], (nlohmann::json{"causal"}));
}

// [SECTION] messages
TEST(ConfigJson, SyntaxErrorsSayLineAndColumn) {
  EXPECT_EQ(error_of("{\n  \"heads\": NaN}"), "config: not valid JSON at line 2, column 12: syntax error while parsing value - invalid literal");
  EXPECT_EQ(error_of("{\"temperature\": 1e400}").rfind("config: not valid JSON at line 1, column ", 0), 0u);
  EXPECT_NE(error_of("{\"temperature\": 1e400}").find("number overflow"), std::string::npos);
  EXPECT_NE(error_of("{\"text\": \"a\xff\"}").find("ill-formed UTF-8"), std::string::npos);
  EXPECT_NE(error_of(std::string("{\"text\": \"a\0\"}", 13)).find("U+0000"), std::string::npos);
  EXPECT_NE(error_of(R"({"text": "\ud800"})").find("surrogate"), std::string::npos);
  EXPECT_EQ(error_of(""), "config: empty (expected a JSON object)");
  for (const std::string bad : {"{\"a\": \"\xff\xfe\"", "\x01\x02", "{\"text\": \"\x1b[31m\"}"}) {
    const std::string e = error_of(bad);
    for (unsigned char ch : e) EXPECT_TRUE(ch >= 0x20 && ch < 0x7F) << "the message must be printable ASCII: " << e;
  }
}

TEST(ConfigJson, DuplicateKeysAreRefusedWithTheirPlace) {
  EXPECT_EQ(error_of(R"({"heads": 1, "heads": 2})"), "config: duplicate key \"heads\"");
  EXPECT_EQ(error_of(R"({"mask": [{"window": 2, "window": 3}]})"), "config: duplicate key \"window\" in mask[0]");
  EXPECT_EQ(error_of(R"({"source": {"text": "a", "text": "b"}})"), "config: duplicate key \"text\" in source");
  EXPECT_EQ(error_of(R"({"mask": [{"window": 2}, {"padding": [1], "padding": [1]}]})"),
            "config: duplicate key \"padding\" in mask[1]");
}

// A single term given as an object is mask[0], for the parser and for the engine alike.
TEST(ConfigJson, ASingleMaskObjectIsMask0Everywhere) {
  EXPECT_EQ(error_of(R"({"mask": {"window": 0}})").rfind("mask[0].window:", 0), 0u);
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"text": "a b", "mask": {"custom": [[1]]}})", c), "");
  attn::Engine e;
  EXPECT_EQ(e.set_config(c).rfind("mask[0].custom:", 0), 0u);
  EXPECT_EQ(error_of(R"({"mask": {"padding": [0], "causal": true}})"), "mask[0].causal: only a window term takes causal");
  EXPECT_EQ(error_of(R"({"mask": {"window": 2, "padding": [0]}})").rfind("mask[0]: one kind per term", 0), 0u);
}

TEST(ConfigJson, ListsAreBoundedBeforeTheyAreRead) {
  std::string pad = R"({"mask": {"padding": [0)";
  for (int i = 0; i < attn::Limits::max_padding_keys; ++i) pad += ",0";
  EXPECT_EQ(error_of(pad + "]}}"), "mask[0].padding: 4097 keys listed, at most 4096");
  std::string terms = R"({"mask": ["causal")";
  for (int i = 0; i < attn::Limits::max_mask_terms; ++i) terms += R"(,"causal")";
  EXPECT_EQ(error_of(terms + "]}"), "mask: 17 terms, at most 16");
}

// Every mask kind in the registration table survives config -> JSON -> config.
TEST(ConfigJson, EveryMaskKindRoundTrips) {
  for (const attn::MaskKind& k : attn::mask_kinds()) {
    if (k.kind == attn::MaskTerm::Kind::none) continue;
    attn::Config c;
    c.target.tokens = {"a", "b", "c"}, c.target.use_tokens = true;
    c.mask = {k.make(3, 3)};
    if (k.kind == attn::MaskTerm::Kind::padding) c.mask[0].keys = {2};
    if (k.kind == attn::MaskTerm::Kind::custom) c.mask[0].cells[1] = 0;
    attn::Config back;
    ASSERT_EQ(attn::parse_config(attn::config_to_json(c), back), "") << k.name;
    EXPECT_EQ(back.mask, c.mask) << k.name;
  }
}

// The writer spells each term as its kind's MaskParam says: the bare name, {name: payload}, then the flag.
TEST(ConfigJson, MaskTermsAreWrittenAsTheirEntriesSay) {
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"tokens": ["a", "b"], "mask": ["causal", {"causal": false, "window": 2},
                                   {"padding": [1]}, {"custom": [[1,0],[1,1]]}]})", c), "");
  const std::string j = attn::config_to_json(c, -1);
  EXPECT_NE(j.find(R"("mask":["causal",{"window":2,"causal":false},{"padding":[1]},{"custom":[[1,0],[1,1]]}])"),
            std::string::npos) << j;
}

// Every kind with a payload refuses a value of the wrong shape or outside its entry's range, naming mask[0].NAME.
TEST(ConfigJson, EveryMaskPayloadIsCheckedAgainstItsEntry) {
  for (const attn::MaskKind& k : attn::mask_kinds()) {
    if (k.bare()) continue;
    const std::string field = std::string("mask[0].") + k.name;
    EXPECT_EQ(error_of(std::string(R"({"mask": {")") + k.name + R"(": "x"}})").rfind(field, 0), 0u) << k.name;
    if (k.param.payload == attn::MaskPayload::integer) {
      EXPECT_EQ(error_of(std::string(R"({"mask": {")") + k.name + "\": " + std::to_string(k.param.hi + 1) + "}}").rfind(field + ":", 0), 0u);
      EXPECT_EQ(error_of(std::string(R"({"mask": {")") + k.name + "\": " + std::to_string(k.param.lo - 1) + "}}").rfind(field + ":", 0), 0u);
    }
    if (k.param.payload == attn::MaskPayload::index_list) {
      EXPECT_EQ(error_of(std::string(R"({"mask": {")") + k.name + "\": [" + std::to_string(k.param.hi + 1) + "]}}"),
                field + "[0]: must be between " + std::to_string(k.param.lo) + " and " + std::to_string(k.param.hi));
    }
  }
}

// [SECTION] presets: every file in assets/presets parses and runs
TEST(Presets, EveryPresetParsesAndRuns) {
  const std::filesystem::path dir = std::filesystem::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path());
    std::stringstream text;
    text << f.rdbuf();
    attn::Config c;
    ASSERT_EQ(attn::parse_config(text.str(), c), "") << entry.path();
    const attn::RunOutput out = attn::run_attention(c);
    EXPECT_EQ(out.error, "") << entry.path();
    ++count;
  }
  EXPECT_GE(count, 8);
}

// [SECTION] streamed output: byte for byte what nlohmann's dump prints for the same document
TEST(ResultJson, StreamedOutputIsExactlyNlohmannsDump) {
  using ojson = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;
  for (const char* config : {R"({"text": "one two three", "d_model": 6, "heads": 2, "mask": "causal"})",
                             R"({"text": "le chat", "source": "the cat is here", "d_model": 4, "heads": 1, "positional": "rope",
                                 "mask": [{"padding": [3]}, {"window": 2, "causal": false}], "edits": [{"matrix": "q", "row": 0, "col": 1, "value": 2}]})",
                             R"({"text": "a \"quoted\" \\ token \u00e9 \ud83d\ude00", "d_model": 3, "heads": 1, "temperature": 0.1})"}) {
    attn::Config c;
    ASSERT_EQ(attn::parse_config(config, c), "");
    for (bool lean : {false, true}) {
      attn::Engine e({.keep_scores = !lean});
      ASSERT_EQ(e.set_config(c), "");
      e.compute();
      for (int indent : {-1, 0, 2, 3}) {
        const std::string out = attn::result_to_json(e.result(), c, indent);
        EXPECT_EQ(ojson::parse(out).dump(indent), out) << config << " indent " << indent;
        std::FILE* f = std::tmpfile();
        ASSERT_EQ(attn::write_result_json(e.result(), c, f, indent), "");
        std::rewind(f);
        std::string back;
        char buf[4096];
        for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) back.append(buf, got);
        std::fclose(f);
        EXPECT_EQ(back, out);
        EXPECT_EQ(ojson::parse(out).contains("heads") && ojson::parse(out)["heads"][0].contains("scores"), !lean);
      }
    }
  }
}

TEST(ResultJson, OutputOverTheLimitIsRefusedBeforeWork) {
  attn::Config c;
  c.heads = 1;
  EXPECT_EQ(attn::check_output(c, 10, 10, -1, false), "");
  EXPECT_EQ(attn::check_output(c, 4096, 4096, -1, false), "");  // the largest single-head run: ~0.6 GiB
  const std::string e = attn::check_output(c, 4096, 4096, 16, false);
  EXPECT_EQ(e.rfind("text: the output would be up to", 0), 0u) << e;
}

TEST(ResultJson, WriteFailuresAreReported) {
  attn::Config c;
  const attn::RunOutput out = attn::run_attention(c);
  if (std::FILE* full = std::fopen("/dev/full", "wb")) {
    EXPECT_EQ(attn::write_result_json(out.result, c, full), "No space left on device");
    std::fclose(full);
  }
  EXPECT_NE(attn::write_result_csv(out.result, c, "/proc/attnlab-no-such-dir"), "");
}

TEST(Handmade, RoundTripsThroughTheConfigJson) {
  attn::Config c;
  ASSERT_EQ(attn::parse_config(R"({"heads": 2, "handmade": [{"head": 1, "kind": "pronoun"}]})", c), "");
  ASSERT_EQ(c.handmade.size(), 1u);
  attn::Config back;
  ASSERT_EQ(attn::parse_config(attn::config_to_json(c), back), "");
  EXPECT_EQ(back, c);
  EXPECT_NE(attn::parse_config(R"({"handmade": [{"head": 0}]})", c), "");
  EXPECT_NE(attn::parse_config(R"({"handmade": {"head": 0, "kind": "pronoun"}})", c), "");
}

}  // namespace
