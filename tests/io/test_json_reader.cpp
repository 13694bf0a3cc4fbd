// The one JSON reader of io (json_reader.h): every file the lab reads is parsed strictly, wherever it
// comes from — a config, a training config, a model file, a batch, the UI's view state.
#include <gtest/gtest.h>

#include <string>

#include "config_json.h"
#include "json_reader.h"
#include "model_json.h"

namespace {

TEST(JsonReader, EveryReaderRefusesDuplicateKeysAndSaysWhereJsonBreaks) {
  nlohmann::json j;
  EXPECT_EQ(attn::parse_json(R"({"a": 1, "a": 2})", "model", j), "model: duplicate key \"a\"");
  EXPECT_EQ(attn::parse_json("{\n  \"a\": [1,\n}", "batch", j).rfind("batch: not valid JSON at line 3, column 1", 0), 0u);
  EXPECT_EQ(attn::parse_json(R"({"a": {"b": 1}})", "view", j), "");
  EXPECT_EQ(j["a"]["b"], 1);
  // The readers of io use it: a training config, a model file and a batch with a repeated key.
  attn::learn::TrainSetup setup;
  EXPECT_EQ(attn::parse_train_config(R"({"task": "sort", "task": "reverse"})", setup), "config: duplicate key \"task\"");
  std::vector<float> params;
  EXPECT_EQ(attn::parse_model(R"({"format": "attnlab-model", "format": "x"})", setup, params), "model: duplicate key \"format\"");
  attn::learn::Batch b;
  EXPECT_EQ(attn::parse_batch(R"({"tokens": [[1]], "tokens": [[2]]})", attn::learn::ModelSpec{}, b), "batch: duplicate key \"tokens\"");
  EXPECT_EQ(attn::parse_batch("{", attn::learn::ModelSpec{}, b).rfind("batch: not valid JSON at line 1, column 2", 0), 0u);
}

TEST(JsonReader, AccessorsNameTheFieldAndKeepTheFirstError) {
  attn::JsonReader r;
  int i = 0;
  float f = 0;
  EXPECT_FALSE(r.integer(nlohmann::json(2.5), "heads", 1, 16, i));
  EXPECT_FALSE(r.number(nlohmann::json("x"), "lr", f));
  EXPECT_EQ(r.error, "heads: expected an integer");  // the first one stays
  attn::JsonReader m;
  std::vector<float> out;
  EXPECT_FALSE(m.matrix(nlohmann::json::parse("[[1, 2], [3]]"), "w", 2, 2, out));
  EXPECT_EQ(m.error, "w[1]: expected 2 numbers");
  attn::JsonReader ids;
  std::vector<int> tok;
  int rows = 0, cols = 0;
  EXPECT_TRUE(ids.id_rows(nlohmann::json::parse("[[0, 1], [2, 3]]"), "tokens", 0, 3, rows, cols, tok));
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 2);
  EXPECT_FALSE(ids.id_rows(nlohmann::json::parse("[[0, 9]]"), "tokens", 0, 3, rows, cols, tok));
  EXPECT_EQ(ids.error, "tokens[0][1]: must be between 0 and 3");
}

// A recurrent model file round-trips: its config (model, hidden, distance), its weights under PyTorch's
// names, and its history, whose log lines have no attention tables.
TEST(ModelFiles, RecurrentModelRoundTripsWithItsHistory) {
  attn::learn::TrainSetup s = attn::learn::default_setup(*attn::learn::find_task("delayed_copy"));
  s.spec.model = attn::learn::Arch::lstm, s.spec.hidden = 6, s.spec.layers = 2, s.spec.n_ctx = 9, s.spec.distance = 3;
  s.train.steps = 4, s.train.eval_every = 2, s.train.eval_batch = 4;
  attn::learn::Trainer t;
  ASSERT_EQ(t.start(s), "");
  t.evaluate();
  while (!t.done()) t.run(2);
  const std::string file = attn::model_to_json(t);
  attn::learn::TrainSetup back;
  std::vector<float> params;
  int step = -1;
  std::vector<attn::learn::EvalPoint> history;
  ASSERT_EQ(attn::parse_model(file, back, params, &step, &history), "");
  EXPECT_EQ(back, t.setup());
  EXPECT_EQ(params, t.model().params());
  EXPECT_EQ(step, 4);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_TRUE(history.back().pattern.empty());
  EXPECT_FLOAT_EQ((float)history.back().accuracy, (float)t.history().back().accuracy);
  // a tensor of the wrong shape is refused, naming it
  std::string bad = file;
  const size_t at = bad.find("\"bias_hh_l1\":[");
  ASSERT_NE(at, std::string::npos);
  bad.insert(at + 14, "0.5,");
  EXPECT_EQ(attn::parse_model(bad, back, params).rfind("weights.bias_hh_l1: expected a list of 24 numbers", 0), 0u);
}

}  // namespace
