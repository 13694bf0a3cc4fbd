// Learn mode's Inspect view, run headless through the real panels: train the default induction model,
// switch the probe's window to "Inspect heads", click the previous-token head to ablate it and read the
// accuracy fall, click it again to restore it, fill the grid with Ablate each head; the page API's
// interventions give the CLI's JSON of the same model file, and refuse bad options naming the field
// with the run kept. The view fits the screens the lab is shown on.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "inspect_json.h"
#include "learn/inspect.h"
#include "learn_fixture.h"
#include "model_json.h"
#include "panels.h"

namespace {

using labtest::Learn;
namespace lrn = attn::learn;
using json = nlohmann::json;

class Inspect : public Learn {
 protected:
  json view() { return json::parse(attnlab::learn_inspect_view_json(app)); }
  // The default induction model (seed 1, 1000 steps: docs/inspect.md's measured one), trained through
  // the page API's train(), then the Inspect view shown by its switch.
  void train_induction() {
    ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction"})"), "");
    L().budget_ms = 200.0f;  // larger slices: the same steps in fewer frames
    L().frame_target_ms = 1000.0f;
    train_to_end();
    ASSERT_TRUE(L().run().done);
    frames(2);
    click("learn_view_inspect");
    frames(1);
  }
  std::string api(const char* command, const char* options, std::string* error = nullptr) {
    std::string e;
    const std::string out = attnlab::learn_inspect_json(app, command, options, e);
    if (error) *error = e;
    else EXPECT_EQ(e, "") << command << " " << options;
    return out;
  }
};

TEST_F(Inspect, ClickingAHeadAblatesItAndTheAccuracyFallsThenComesBack) {
  train_induction();
  json v = view();
  ASSERT_TRUE(v["open"]) << v.dump();
  // Nothing ablated: the held-out set's numbers are the run's last evaluation, number for number.
  const lrn::EvalPoint& last = L().run().history.back();
  EXPECT_EQ(v["accuracy"].get<double>(), last.accuracy);
  EXPECT_EQ(v["loss"].get<double>(), last.loss);
  EXPECT_GT(last.accuracy, 0.99);
  ASSERT_EQ(app.widget_rects.count("inspect_l1_h1"), 1u) << "a 2 x 2 grid";
  EXPECT_EQ(app.widget_rects.count("inspect_l2_h0"), 0u);

  // Layer 0's head 1 is the previous-token head the induction heads need (docs/inspect.md: 66%).
  click("inspect_l0_h1");
  v = view();
  EXPECT_EQ(v["ablated"], json::parse("[[0, 1]]"));
  const double without = v["accuracy"];
  EXPECT_LT(without, last.accuracy - 0.2) << "removing the previous-token head breaks induction";
  EXPECT_GT(v["loss"].get<double>(), last.loss + 1.0);
  // The page API's ablate of the same head says the same.
  const json a = json::parse(api("ablate", R"({"heads": "0.1"})"));
  EXPECT_NEAR(a["accuracy"].get<double>(), without, 1e-6);  // the CLI's JSON prints 6 digits
  EXPECT_NEAR(a["baseline"]["accuracy"].get<double>(), last.accuracy, 1e-6);
  // The probe is measured again with the head removed: its predictions are the ablated model's.
  EXPECT_LT(v["probe_right"].get<int>(), v["probe_right_intact"].get<int>()) << v.dump();
  EXPECT_GT(v["probe_targets"].get<int>(), 0);
  EXPECT_EQ(app.widget_rects.count("inspect_thumb_l1_h0"), 1u) << "the probe's attention with the head removed";

  // Two heads: both induction heads together leave almost nothing (4.5% in docs/inspect.md).
  click("inspect_l0_h1");
  EXPECT_EQ(view()["accuracy"].get<double>(), last.accuracy) << "restored";
  click("inspect_l1_h0");
  click("inspect_l1_h1");
  EXPECT_LT(view()["accuracy"].get<double>(), 0.2);
  click("inspect_restore");
  EXPECT_EQ(view()["ablated"], json::array());
  EXPECT_EQ(view()["accuracy"].get<double>(), last.accuracy);
}

TEST_F(Inspect, AblateEachFillsTheGridAndThePageApiGivesTheClisJson) {
  train_induction();
  click("inspect_each");
  EXPECT_TRUE(view()["each"]);
  // The page API on the run against the engine on the model file the run downloads (what the CLI reads).
  lrn::TrainSetup setup;
  std::vector<float> params;
  ASSERT_EQ(attn::parse_model(attnlab::learn_model_json(app), setup, params), "");
  lrn::Subject<float> s;
  ASSERT_EQ(lrn::open_subject(setup, params, s), "");
  const std::string each = api("ablate", R"({"each": true})");
  EXPECT_EQ(each, attn::ablation_table_json(lrn::ablate_each(s, lrn::AblationMode::zero)));
  EXPECT_EQ(api("ablate", R"({"each": true, "mode": "mean"})"), attn::ablation_table_json(lrn::ablate_each(s, lrn::AblationMode::mean)));
  const json table = json::parse(each);
  EXPECT_LT(table["heads"][0][1]["accuracy"].get<double>(), table["baseline"]["accuracy"].get<double>() - 0.2);

  lrn::Model<float> model(setup.spec);
  model.params() = params;
  lrn::Circuits c;
  ASSERT_EQ(lrn::circuits(model, 1, 0, c), "");
  EXPECT_EQ(api("circuits", R"({"layer": 1, "head": 0})"), attn::circuits_json(*s.task, c, lrn::composition_of(model, 1, 0)));
  const json patch = json::parse(api("patch", R"({"example": 3, "corrupt_at": 7, "position": 20})"));
  EXPECT_EQ(patch["position"], 20);
  EXPECT_EQ(patch["residual"].size(), 3u);
  const json attr = json::parse(api("attribute", R"({"tokens": "a b c a b"})"));
  EXPECT_EQ(attr["positions"].size(), 5u);
  EXPECT_EQ(json::parse(api("rollout", "{}"))["rollout"].size(), 2u);
}

TEST_F(Inspect, BadOptionsNameTheFieldAndTheRunIsKept) {
  std::string e;
  EXPECT_EQ(api("ablate", R"({"heads": "0.0"})", &e), "");
  EXPECT_EQ(e.rfind("model:", 0), 0u) << e;  // nothing trained yet
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 20}})"), "");
  train_to_end();
  const std::vector<float> before = weights();
  const int step = L().run().step;
  const struct { const char* command; const char* options; const char* field; } bad[] = {
      {"ablate", R"({"heads": "2.0"})", "heads:"},           {"ablate", R"({"heads": "0.1", "mode": "max"})", "mode:"},
      {"ablate", "{}", "heads:"},                            {"ablate", R"({"heads": "0.1", "bogus": 1})", "bogus:"},
      {"ablate", R"({"heads": "0.1", "example": 99999})", "example:"},
      {"patch", R"({"corrupt": "a b"})", "corrupt:"},        {"patch", R"({"corrupt_at": 7, "position": 999})", "position:"},
      {"patch", R"({"clean": "a Q c", "corrupt_at": 1})", "clean:"},
      {"attribute", R"({"target": 9999})", "target:"},       {"attribute", R"({"tokens": "a ? c"})", "tokens:"},
      {"circuits", R"({"layer": 5, "head": 0})", "layer:"},  {"circuits", R"({"layer": 0})", "head:"},
      {"rollout", R"({"tokens": 3})", "tokens:"},            {"juggle", "{}", "command:"},
      {"ablate", "[1]", "options:"},
  };
  for (const auto& b : bad) {
    EXPECT_EQ(api(b.command, b.options, &e), "") << b.options;
    EXPECT_EQ(e.rfind(b.field, 0), 0u) << b.command << " " << b.options << " -> " << e;
  }
  EXPECT_EQ(weights(), before);
  EXPECT_EQ(L().run().step, step);
}

TEST_F(Inspect, ARecurrentModelHasNoHeadsAndSaysSo) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "delayed_copy", "model": "rnn", "hidden": 16, "n": 10, "distance": 2,
                                               "train": {"steps": 10, "eval_every": 10, "eval_batch": 32}})"),
            "");
  train_to_end();
  frames(2);
  click("learn_view_inspect");
  const json v = view();
  EXPECT_FALSE(v["open"]);
  EXPECT_NE(v["why"].get<std::string>().find("no attention heads"), std::string::npos) << v.dump();
  EXPECT_EQ(app.widget_rects.count("inspect_l0_h0"), 0u);
  std::string e;
  api("ablate", R"({"each": true})", &e);
  EXPECT_EQ(e.rfind("model:", 0), 0u) << e;
}

// The grid, the readout and Ablate each stay inside the window on a phone (tabs), a laptop, a
// projector at UI scale 2 and a large screen.
TEST_F(Inspect, TheViewFitsEveryScreen) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 20}})"), "");
  train_to_end();
  frames(2);
  click("learn_view_inspect");
  const struct { float w, h, scale; } screens[] = {{390, 844, 1}, {1366, 768, 1}, {1280, 720, 2}, {1920, 1080, 1}};
  for (const auto& sc : screens) {
    use_shell_font(sc.scale);
    ImGui::GetIO().DisplaySize = ImVec2(sc.w, sc.h);
    app.layout_dirty = true;
    frames(3);
    if (app.widget_rects.count("learn_tab_Attention")) click("learn_tab_Attention"), frames(2);
    const ImGuiWindow* w = attnlab::find_window("Attention on a probe");
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(w->WasActive) << sc.w << "x" << sc.h;
    for (const char* name : {"learn_view_attention", "inspect_each", "inspect_readout", "inspect_l0_h0", "inspect_l1_h1"}) {
      ASSERT_EQ(app.widget_rects.count(name), 1u) << name << " at " << sc.w << "x" << sc.h;
      const ImVec4 r = app.widget_rects[name];
      EXPECT_GE(r.x, w->Pos.x) << name << " at " << sc.w << "x" << sc.h;
      EXPECT_LE(r.x + r.z, w->Pos.x + w->Size.x + 0.5f) << name << " at " << sc.w << "x" << sc.h;
      EXPECT_GE(r.y, w->Pos.y) << name << " at " << sc.w << "x" << sc.h;
      EXPECT_LE(r.y + r.w, w->Pos.y + w->Size.y + 0.5f) << name << " at " << sc.w << "x" << sc.h << " (below the window)";
    }
    for (const auto& wr : app.window_rects) EXPECT_NE(wr.scroll, 2) << wr.name << " at " << sc.w << "x" << sc.h;
  }
}

}  // namespace

namespace {

// The tour's step "Remove a head" opens the Inspect view on the induction model and ticks once a head
// whose removal costs accuracy is clicked away.
TEST_F(Inspect, TheTourStepTicksWhenAHeadThatMattersIsRemoved) {
  int step = -1;
  for (int k = 0; k < attnlab::tour_step_count(); ++k)
    if (std::string(attnlab::tour_step_title(k)).find("Remove a head") != std::string::npos) step = k;
  ASSERT_GE(step, 0);
  // The step before it leaves an induction run with d_k 128 (the sqrt(d_k) experiment): not the model
  // whose heads this step talks about, so the step starts the default one afresh.
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "d_model": 64, "heads": 2, "d_k": 128, "d_v": 32, "train": {"steps": 4, "eval_every": 2}})"), "");
  train_to_end();
  app.ui.show_tour = true;
  attnlab::tour_open_step(app, step);
  frames(2);
  EXPECT_EQ(L().probe_panel, 1) << "the step shows Inspect heads";
  EXPECT_EQ(L().setup.task, "induction");
  EXPECT_EQ(L().run().step, 0) << "the d_k 128 run was not kept";
  EXPECT_EQ(L().run().run_setup.spec, attnlab::learn_defaults(*attn::learn::find_task("induction")).spec);
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction"})"), "");
  L().budget_ms = 200.0f, L().frame_target_ms = 1000.0f;
  train_to_end();
  frames(2);
  EXPECT_FALSE(attnlab::tour_step_done(app));
  click("inspect_l0_h0");  // a head the model hardly needs (−0.4 points): not yet
  EXPECT_FALSE(attnlab::tour_step_done(app));
  click("inspect_l0_h0");
  click("inspect_l0_h1");  // the previous-token head
  EXPECT_TRUE(attnlab::tour_step_done(app));
}

}  // namespace

namespace {

// The views beside ablation, by clicks: patching's pair (the corrupt-one-token helper, a typed corrupted
// input, a refused one that keeps the last result), logit attribution's bars (a click keeps a position's
// parts, which add up to its logit), circuits and the composition table, rollout. Each against the engine
// on the model file the run downloads.
TEST_F(Inspect, PatchingAttributionCircuitsAndRolloutByClicks) {
  train_induction();
  lrn::TrainSetup setup;
  std::vector<float> params;
  ASSERT_EQ(attn::parse_model(attnlab::learn_model_json(app), setup, params), "");
  lrn::Model<float> model(setup.spec);
  model.params() = params;
  const lrn::Example probe = attnlab::learn_probe_example(L());

  click("inspect_view_patching");
  json v = view();
  EXPECT_EQ(v["view"], "patching");
  ASSERT_TRUE(v.contains("patch")) << v.dump();
  // The default pair: the probe, and the probe with token n/4 replaced by a token it lacks.
  lrn::Example clean = probe, corrupt;
  clean.targets.clear();
  const int at = (int)probe.tokens.size() / 4;
  ASSERT_EQ(lrn::corrupt_one_token(setup.spec, clean, at, -1, corrupt), "");
  lrn::PatchResult want;
  ASSERT_EQ(lrn::patch(model, clean, corrupt, -1, want), "");
  EXPECT_EQ(v["patch"]["position"], want.position);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) EXPECT_NEAR(v["patch"]["heads"][l][h].get<double>(), want.heads_restored[(size_t)l * 2 + h], 1e-9);
  ASSERT_EQ(v["patch"]["residual"].size(), 3u);
  EXPECT_EQ(app.widget_rects.count("inspect_patch_heads"), 1u);
  EXPECT_EQ(app.widget_rects.count("inspect_patch_stream"), 1u);

  // A token the vocabulary lacks, typed into the corrupted input: an error naming the field, and the
  // last pair's result kept on screen.
  click("inspect_patch_corrupt");
  type(" Q");
  frames(2);
  v = view();
  EXPECT_EQ(v["patch_error"].get<std::string>().rfind("corrupt:", 0), 0u) << v.dump();
  EXPECT_EQ(v["patch"]["position"], want.position) << "the last result stays";
  // "Probe again" makes the pair from the probe once more; the message goes.
  click("inspect_patch_reset");
  frames(1);
  v = view();
  EXPECT_FALSE(v.contains("patch_error")) << v.dump();

  click("inspect_view_attribution");
  ASSERT_EQ(app.widget_rects.count("inspect_attr_bars"), 1u);
  const ImVec4 bars = app.widget_rects["inspect_attr_bars"];
  const int n = (int)probe.tokens.size(), pick = n - 2;
  click(ImVec2(bars.x + bars.z * ((float)pick + 0.5f) / (float)n, bars.y + bars.w * 0.5f));
  frames(1);
  v = view();
  ASSERT_TRUE(v.contains("attribution")) << v.dump();
  EXPECT_EQ(v["attribution"]["position"], pick);
  lrn::Attribution a;
  ASSERT_EQ(lrn::attribute(model, probe, -1, a), "");
  double sum = v["attribution"]["embedding"].get<double>();
  for (const json& h : v["attribution"]["heads"]) sum += h.get<double>();
  EXPECT_NEAR(sum, a.positions[(size_t)pick].logit, 1e-4 * (1.0 + std::fabs(sum))) << "the parts add up to the logit";
  EXPECT_EQ(v["attribution"]["target"], a.positions[(size_t)pick].target);

  click("inspect_view_circuits");
  click("inspect_circ_l1_h0");
  EXPECT_EQ(view()["circuit"], json::parse("[1, 0]"));
  for (const char* w : {"inspect_circ_qk", "inspect_circ_ov", "inspect_comp_0"}) EXPECT_EQ(app.widget_rects.count(w), 1u) << w;

  click("inspect_view_rollout");
  for (const char* w : {"inspect_roll_attention", "inspect_roll_rollout", "inspect_roll_l0"}) EXPECT_EQ(app.widget_rects.count(w), 1u) << w;
}

// The intervention experiments: once the run ends, Inspect heads opens on the view the experiment names
// and does what it asks (Ablate each head; the probe's pair with token 7 corrupted).
TEST_F(Inspect, TheInterventionExperimentsRunTheirActionWhenTheRunEnds) {
  const auto all = attnlab::experiments();
  const auto index = [&](const char* key) {
    for (int i = 0; i < (int)all.size(); ++i)
      if (all[(size_t)i].key == key) return i;
    return -1;
  };
  for (const char* key : {"induction_heads", "neighbours_heads", "patching"}) {
    const int i = index(key);
    ASSERT_GE(i, 0) << key;
    EXPECT_EQ(all[(size_t)i].variants.size(), 1u) << key;
    EXPECT_FALSE(all[(size_t)i].inspect.empty()) << key;
  }
  attnlab::set_learn_mode(app, true);  // where the experiments are picked
  frames(1);
  ASSERT_EQ(attnlab::learn_load_experiment(app, index("patching"), 0), "");
  EXPECT_EQ(L().probe_panel, 1) << "its question is answered in Inspect heads";
  L().setup.train.steps = 300;  // shorter than the experiment's 1000: enough for an induction head to form
  ASSERT_EQ(attnlab::learn_train(app), "");
  L().budget_ms = 200.0f, L().frame_target_ms = 1000.0f;
  train_to_end();
  frames(3);
  json v = view();
  EXPECT_EQ(v["view"], "patching") << v.dump();
  ASSERT_TRUE(v.contains("patch")) << v.dump();
  const std::string clean = v["patch"]["clean"], corrupt = v["patch"]["corrupt"];
  EXPECT_NE(clean, corrupt);
  EXPECT_EQ(clean.substr(0, 12), corrupt.substr(0, 12)) << "tokens 0..6 (one letter and a space each) are the same";

  ASSERT_EQ(attnlab::learn_load_experiment(app, index("neighbours_heads"), 0), "");
  L().setup.train.steps = 200;
  ASSERT_EQ(attnlab::learn_train(app), "");
  train_to_end();
  frames(3);
  v = view();
  EXPECT_EQ(v["view"], "ablation");
  EXPECT_TRUE(v["each"]) << "Ablate each head ran";
}

}  // namespace
