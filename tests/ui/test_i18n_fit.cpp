// What a longer language must still fit, read from the real panels headless with the shells' font: on a
// phone (390x844) in English, German, Spanish and Chinese, the bar's six buttons without scrolling it
// sideways, the probe box's hint whole (in the box, or wrapped above it where the box cannot hold it:
// learn_probe_hint) and Inspect heads' attribution menu showing its value whole.
#include <fstream>
#include <iterator>
#include <string>

#include "i18n.h"
#include "learn_fixture.h"
#include "panels.h"

namespace {

using labtest::Learn;

std::string catalogue(const std::string& code) {
  std::ifstream in(std::string(ATTNLAB_LANG_DIR) + "/" + code + ".txt", std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class Fit : public Learn {
 protected:
  void TearDown() override {
    std::string error;
    attnlab::set_language("en", "", &error);
    Learn::TearDown();
  }
  // The lab on a phone (390x844, the shells' font at UI scale 1) in `code`.
  void phone(const std::string& code) {
    std::string error;
    ASSERT_TRUE(attnlab::set_language(code, code == "en" ? "" : catalogue(code), &error)) << error;
    use_shell_font(1.0f);
    ImGui::GetIO().DisplaySize = ImVec2(390, 844);
    app.layout_dirty = true;
    frames(3);
  }
  float frame_pad() const { return 2.0f * ImGui::GetStyle().FramePadding.x; }
};

const char* const kLanguages[] = {"en", "de", "es", "zh"};

// The bar: presets, export, share, tour, help and the language, on one line that does not scroll sideways.
TEST_F(Fit, TheBarsButtonsFitAPhoneInEveryLanguage) {
  for (const char* code : kLanguages) {
    phone(code);
    const ImGuiWindow* bar = attnlab::find_window("pipeline");
    ASSERT_NE(bar, nullptr);
    EXPECT_EQ(bar->ScrollMax.x, 0.0f) << code << ": the bar scrolls sideways by " << bar->ScrollMax.x << " px";
    const ImVec4 language = app.widget_rects.at("language");
    EXPECT_LE(language.x + language.z, bar->Pos.x + bar->Size.x) << code << ": the language button passes the bar's edge";
  }
}

// Learn mode's probe box says what to type ("your own input, in the task's tokens"): the hint is whole,
// in the box where it fits, else on the line above it.
TEST_F(Fit, TheProbeBoxsHintIsWholeOnAPhone) {
  train_small_rnn();
  for (const char* code : kLanguages) {
    phone(code);
    if (app.widget_rects.count("learn_tab_Attention")) click("learn_tab_Attention");
    app.widget_rects.clear();
    frames(1);
    ASSERT_EQ(app.widget_rects.count("learn_probe_text"), 1u) << code;
    const float box = app.widget_rects.at("learn_probe_text").z;
    const float needed = ImGui::CalcTextSize(attnlab::tr("learn.probe.hint")).x + frame_pad();
    if (box >= needed) continue;
    // Not in the box: then above it, in the window.
    ASSERT_EQ(app.widget_rects.count("learn_probe_hint"), 1u)
        << code << ": the box is " << box << " px, its hint needs " << needed << " px and is drawn nowhere else";
    const ImGuiWindow* w = attnlab::find_window("Attention on a probe");
    const ImVec4 above = app.widget_rects.at("learn_probe_hint");
    EXPECT_LE(above.x + above.z, w->Pos.x + w->Size.x) << code;
    EXPECT_LE(above.y + above.w, app.widget_rects.at("learn_probe_text").y + 0.5f) << code << ": above the box";
  }
}

// Inspect heads' Logit attribution: the menu of which logit to split shows its value whole.
TEST_F(Fit, TheAttributionMenuShowsItsValueOnAPhone) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 20}})"), "");
  app.ui.learn_mode = true;
  train_to_end();
  frames(2);
  for (const char* code : kLanguages) {
    phone(code);
    if (app.widget_rects.count("learn_tab_Attention")) click("learn_tab_Attention");
    click("learn_view_inspect");
    click("inspect_view_attribution");
    ASSERT_EQ(app.widget_rects.count("inspect_attr_target"), 1u) << code;
    const float combo = app.widget_rects.at("inspect_attr_target").z;
    const float needed = ImGui::CalcTextSize(attnlab::tr("inspect.attr.of_prediction")).x + frame_pad() + ImGui::GetFrameHeight();
    EXPECT_GE(combo, needed) << code << ": \"" << attnlab::tr("inspect.attr.of_prediction") << "\" is cut";
    click("inspect_view_ablation");
    click("learn_view_attention");
  }
}

}  // namespace
