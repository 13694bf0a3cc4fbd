// Where the lab's own windows wrap Chinese, read back from what they draw: the glyphs in a window's draw
// list, grouped into lines by their top edge. A line that ends in a digit or '.' followed by a line that
// starts with one is a number cut in two ("0." / "25"), which Dear ImGui's TextWrapped does in text with
// no spaces and text_wrapped_words (widgets.h) never does. The tour, Inspect heads' readout and the
// recurrence lesson's accuracy line are read at widths from a phone's to a wide window's.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "i18n.h"
#include "learn_fixture.h"
#include "panels.h"
#include "widgets.h"

namespace {

using labtest::Learn;

std::string catalogue(const char* code) {
  std::ifstream in(std::string(ATTNLAB_LANG_DIR) + "/" + code + ".txt", std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void append_utf8(std::string& s, unsigned c) {
  if (c < 0x80) s += (char)c;
  else if (c < 0x800) s += (char)(0xC0 | (c >> 6)), s += (char)(0x80 | (c & 0x3F));
  else s += (char)(0xE0 | (c >> 12)), s += (char)(0x80 | ((c >> 6) & 0x3F)), s += (char)(0x80 | (c & 0x3F));
}

// The lines of text `window` drew last frame, top to bottom, each left to right, spaces left out (they
// draw nothing). A glyph is known by its quad: the first vertex carries the glyph's (U0, V0), the third
// its (U1, V1) (ImDrawList::PrimRectUV). Glyphs the font lacks draw as its fallback, '?'. With `within`
// (x, y, w, h on screen), only the glyphs inside it: one widget's words, not a plot's axis labels.
std::vector<std::string> drawn_lines(ImGuiWindow* window, const ImVec4* within = nullptr) {
  std::map<std::pair<float, float>, const ImFontGlyph*> by_uv;
  for (ImFont* font : ImGui::GetIO().Fonts->Fonts)
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) by_uv[{g.U0, g.V0}] = &g;
  std::map<int, std::map<float, unsigned>> rows;  // top edge -> x -> code point
  const ImVector<ImDrawVert>& v = window->DrawList->VtxBuffer;
  for (int i = 0; i + 2 < v.Size; ++i) {
    const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
    if (it == by_uv.end() || v[i + 2].uv.x != it->second->U1 || v[i + 2].uv.y != it->second->V1) continue;
    const ImFontGlyph& g = *it->second;
    if (within && (v[i].pos.x < within->x - 1.0f || v[i].pos.x > within->x + within->z + 1.0f || v[i].pos.y < within->y - 1.0f ||
                   v[i].pos.y > within->y + within->w + 1.0f)) {
      i += 3;
      continue;
    }
    const float scale = (v[i + 2].pos.y - v[i].pos.y) / (g.Y1 - g.Y0 > 0.0f ? g.Y1 - g.Y0 : 1.0f);
    rows[(int)std::lround(v[i].pos.y - g.Y0 * scale)][v[i].pos.x] = g.Codepoint;
    i += 3;
  }
  std::vector<std::string> lines;
  for (const auto& [top, glyphs] : rows) {
    std::string line;
    for (const auto& [x, c] : glyphs) append_utf8(line, c);
    lines.push_back(line);
  }
  return lines;
}

bool numeric(char c) { return (c >= '0' && c <= '9') || c == '.'; }

// Every place in `lines` where a number runs on from one line into the next.
std::vector<std::string> split_numbers(const std::vector<std::string>& lines) {
  std::vector<std::string> cuts;
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (!lines[i].empty() && !lines[i + 1].empty() && numeric(lines[i].back()) && numeric(lines[i + 1].front()))
      cuts.push_back("'" + lines[i] + "' / '" + lines[i + 1] + "'");
  return cuts;
}

class DrawnWrap : public Learn {
 protected:
  void SetUp() override {
    Lab::SetUp();
    open(1920, 1080);
    std::string error;
    ASSERT_TRUE(attnlab::set_language("zh", catalogue("zh"), &error)) << error;
  }
  void TearDown() override {
    std::string error;
    attnlab::set_language("en", "", &error);
    Lab::TearDown();
  }
  // `window` at every pixel width from `from` to `to` em (as tall as the display, so no line is clipped):
  // the cuts its lines show (only those of the widget named `widget`, if one is named), and whether
  // `number` was seen whole on a line at least once.
  std::vector<std::string> cuts_over_widths(const char* window, float from, float to, const std::string& number, bool* seen,
                                            const char* widget = nullptr) {
    std::vector<std::string> cuts;
    *seen = false;
    const float em = ImGui::GetFontSize();
    for (float w = from * em; w <= to * em; w += 1.0f) {  // every pixel: a cut may show at one width in a few
      ImGui::SetWindowPos((std::string("###") + window).c_str(), ImVec2(10.0f, 10.0f));
      ImGui::SetWindowSize((std::string("###") + window).c_str(), ImVec2(w, 1000.0f));
      frames(2);
      ImGuiWindow* win = attnlab::find_window(window);
      if (!win) {
        ADD_FAILURE() << window << " is not open";
        return cuts;
      }
      const auto rect = widget ? app.widget_rects.find(widget) : app.widget_rects.end();
      if (widget && rect == app.widget_rects.end()) {
        ADD_FAILURE() << widget << " is not drawn at " << (int)w << " px";
        return cuts;
      }
      const std::vector<std::string> lines = drawn_lines(win, widget ? &rect->second : nullptr);
      for (const std::string& l : lines) *seen = *seen || l.find(number) != std::string::npos;
      for (const std::string& c : split_numbers(lines)) cuts.push_back(c + " at " + std::to_string((int)w) + " px");
    }
    return cuts;
  }
};

// The tour's step on temperature (τ = 0.25 in a Chinese sentence) at widths from a phone's to a wide
// window's: no number is broken across two lines.
TEST_F(DrawnWrap, TourStepInChineseKeepsNumbersWhole) {
  app.ui.show_tour = true;
  app.ui.tour_moved = true;  // where the test puts it, at the width the test sets
  attnlab::tour_open_step(app, 4);  // tour.5, on temperature
  frames(2);
  bool seen = false;
  const std::vector<std::string> cuts = cuts_over_widths("Tour", 10.0f, 40.0f, "0.25", &seen);
  EXPECT_TRUE(seen) << "0.25 never drawn whole: the test no longer reads the tour's text";
  EXPECT_TRUE(cuts.empty()) << cuts.size() << " cuts, the first " << cuts.front();
}

// Inspect heads in Chinese with a head removed: the readout's accuracy, its change in points and the
// loss (figures such as 12.5%) are never broken across two lines, from a phone's width to a wide window's.
TEST_F(DrawnWrap, InspectReadoutInChineseKeepsNumbersWhole) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 20}})"), "");
  app.ui.learn_mode = true;
  train_to_end();
  frames(2);
  click("learn_view_inspect");
  click("inspect_l0_h0");  // removed: the readout gives the accuracy, the points lost and the loss
  const nlohmann::json view = nlohmann::json::parse(attnlab::learn_inspect_view_json(app));
  ASSERT_EQ(view["ablated"].size(), 1u);
  const std::string pct = attnlab::num(100.0 * view["accuracy"].get<double>(), 1);
  bool seen = false;
  const std::vector<std::string> cuts = cuts_over_widths("Attention on a probe", 10.0f, 40.0f, pct, &seen, "inspect_readout");
  EXPECT_TRUE(seen) << pct << " never drawn whole: the test no longer reads the readout";
  EXPECT_TRUE(cuts.empty()) << cuts.size() << " cuts, the first " << cuts.front();
}

// The recurrence lesson's accuracy view in Chinese: the line under the plot ("这次运行：RNN，距离 2，
// 46.1% 正确（第 40 步）") keeps its figures whole at every width.
TEST_F(DrawnWrap, RecurrenceLessonInChineseKeepsNumbersWhole) {
  train_small_rnn();
  click("learn_view_sweep");
  ASSERT_FALSE(L().run().history.empty());
  const std::string pct = attnlab::num(100.0 * L().run().history.back().accuracy, 1);
  bool seen = false;
  const std::vector<std::string> cuts = cuts_over_widths("Attention on a probe", 10.0f, 40.0f, pct, &seen, "learn_run_accuracy");
  EXPECT_TRUE(seen) << pct << " never drawn whole: the test no longer reads the lesson's line";
  EXPECT_TRUE(cuts.empty()) << cuts.size() << " cuts, the first " << cuts.front();
}

// text_wrapped_words keeps the lines it made for a text at a width in a font (widgets.cpp), so a panel
// drawn again is not measured again. What it draws is still wrap_lines' answer for the width and font in
// effect: the same text at another width, back at the first, in a larger font, and another text.
TEST_F(Learn, WrappedTextKeptBetweenFramesFollowsWidthAndFont) {
  const std::string first = "Each query row of A is a softmax over the keys: its weights are positive and add up to 1.00, "
                            "so a head can only share out one unit of attention among the tokens it may see.";
  const std::string second = "A temperature of 0.25 sharpens every row; 4.0 flattens them towards uniform.";
  const auto measure = [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
  struct Case {
    float width, scale;
    const std::string* text;
  };
  for (const Case& c : {Case{180, 1.0f, &first}, Case{260, 1.0f, &first}, Case{180, 1.0f, &first}, Case{180, 1.4f, &first},
                        Case{180, 1.0f, &second}, Case{180, 1.0f, &first}}) {
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(10.0f, 10.0f));
    ImGui::SetNextWindowSize(ImVec2(c.width, 1000.0f));
    ImGui::Begin("wrap test", nullptr, ImGuiWindowFlags_NoTitleBar);
    ImGui::SetWindowFontScale(c.scale);
    const float width = std::max(ImGui::CalcWrapWidthForPos(ImGui::GetCursorScreenPos(), 0.0f), 8.0f * ImGui::GetFontSize());
    std::vector<std::string> expected;
    for (std::string_view line : attnlab::wrap_lines(*c.text, width, measure)) {
      std::string glyphs;  // as drawn_lines reads them: spaces draw nothing
      for (char ch : line)
        if (ch != ' ') glyphs += ch;
      expected.push_back(glyphs);
    }
    attnlab::text_wrapped_words("%s", c.text->c_str());
    ImGui::End();
    ImGui::Render();
    const std::string where = std::to_string((int)c.width) + " px at scale " + std::to_string(c.scale);
    ASSERT_GE(expected.size(), 2u) << where << ": the text wraps";
    EXPECT_EQ(drawn_lines(attnlab::find_window("wrap test")), expected) << where;
  }
}

}  // namespace
