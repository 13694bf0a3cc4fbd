// The lab's real UI, run headless: every panel for many frames at two window sizes, and the person's
// actions (typing, clicking cells, keyboard shortcuts, pasting nonsense) sent through ImGui's input.
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <iterator>
#include <tuple>
#include <vector>

#include "lab.h"
#include "mask.h"
#include "panels.h"
#include "widgets.h"

namespace {

using namespace labtest;
using attnlab::App;
using attnlab::View;

TEST_F(Lab, EveryPanelRunsAndTheLayoutFitsWithoutOverlap) {
  for (ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080)}) {
    open(size.x, size.y);
    app.ui.show_weights = true;
    app.ui.show_help = app.ui.show_tour = false;
    frames(60);
    std::vector<const char*> panels = {"pipeline", "status"};  // and every side panel (panes.h)
    for (const attnlab::PaneInfo& p : attnlab::panes()) panels.push_back(p.label);
    for (const char* a : panels) {
      const ImRect ra = window(a);
      EXPECT_GE(ra.Min.x, 0.0f) << a;
      EXPECT_GE(ra.Min.y, 0.0f) << a;
      EXPECT_LE(ra.Max.x, size.x + 0.5f) << a;
      EXPECT_LE(ra.Max.y, size.y + 0.5f) << a;
      for (const char* b : panels) {
        if (a == b) continue;
        ImRect inter = window(a);
        inter.ClipWithFull(window(b));
        EXPECT_TRUE(inter.GetWidth() <= 0.5f || inter.GetHeight() <= 0.5f) << a << " overlaps " << b;
      }
    }
    for (View v : {View::x, View::q, View::k, View::v, View::scores, View::masked, View::weights}) EXPECT_TRUE(app.view_rects[(int)v].drawn) << attnlab::view_key(v);
    app.ui.show_help = app.ui.show_tour = true;
    frames(10);
    EXPECT_NE(attnlab::find_window("Help"), nullptr);
    EXPECT_NE(attnlab::find_window("Tour"), nullptr);
    // The tour has a slot of its own: it lies over none of the panels (those with no share beside it,
    // the Lines panel, give way).
    for (const char* a : panels) {
      const attnlab::PaneInfo* pane = nullptr;
      for (const attnlab::PaneInfo& p : attnlab::panes()) pane = a == p.label ? &p : pane;
      if (pane && pane->share_with_tour == 0.0f) {
        EXPECT_EQ(attnlab::find_window(a)->Active, false) << a << " gives way to the tour";
        continue;
      }
      ImRect inter = window(a);
      inter.ClipWithFull(window("Tour"));
      EXPECT_TRUE(inter.GetWidth() <= 0.5f || inter.GetHeight() <= 0.5f) << "the tour overlaps " << a;
    }
    EXPECT_EQ(attnlab::find_window("Lines")->Active, false);
  }
}

// The side panels are one table (panes.h's kPanes): on a phone each tab shows its panel alone, the
// window the table names, and the lab draws none of the others.
TEST_F(Lab, EachSidePanelOfTheTableIsShownAloneUnderItsTabOnAPhone) {
  open(390, 844);
  ASSERT_EQ(app.ui.layout, attnlab::LayoutMode::tabs);
  ASSERT_EQ(attnlab::panes().size(), (size_t)attnlab::Pane::count);
  for (const attnlab::PaneInfo& shown : attnlab::panes()) {
    app.ui.pane = shown.pane;
    frames(3);
    for (const attnlab::PaneInfo& other : attnlab::panes()) {
      const ImGuiWindow* w = attnlab::find_window(other.label);
      const bool drawn = w && w->Active;
      EXPECT_EQ(drawn, other.pane == shown.pane) << other.label << " with the " << shown.label << " tab chosen";
    }
    EXPECT_GT(window(shown.label).GetHeight(), 844.0f * 0.5f) << shown.label << " fills the body";
  }
}

// The side panels' table (panes.h) gives each column exactly its height: the shares of a column's panels
// add up to 1, and with the tour docked the right column's leave it a third or more. At 1600 × 900 each
// panel stands in its column, under the one before it.
TEST_F(Lab, TheSidePanelsSharesFillTheirColumns) {
  float share[3] = {}, with_tour[3] = {};
  for (const attnlab::PaneInfo& p : attnlab::panes()) share[(int)p.column] += p.share, with_tour[(int)p.column] += p.share_with_tour;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(share[c], 1.0f, 1e-6f) << "column " << c;
  EXPECT_NEAR(with_tour[0], 1.0f, 1e-6f);
  EXPECT_NEAR(with_tour[1], 1.0f, 1e-6f);
  EXPECT_LE(with_tour[2], 0.67f) << "the docked tour needs room under the right column";
  open(1600, 900);
  const attnlab::Placement P = attnlab::choose_layout(app, 1600, 900);
  ASSERT_EQ(P.mode, attnlab::LayoutMode::columns);
  const attnlab::PaneInfo* above[3] = {};
  for (const attnlab::PaneInfo& p : attnlab::panes()) {
    const attnlab::WinRect& r = P[p.pane];
    ASSERT_GT(r.w, 0.0f) << p.label;
    EXPECT_NEAR(r.h, (P.status.y - P.nav.y - P.nav.h) * p.share, 0.01f) << p.label;
    if (const attnlab::PaneInfo* a = above[(int)p.column]) {
      EXPECT_EQ(r.x, P[a->pane].x) << p.label << " stands in " << a->label << "'s column";
      EXPECT_NEAR(r.y, P[a->pane].y + P[a->pane].h, 0.01f) << p.label << " stands under " << a->label;
    }
    above[(int)p.column] = &p;
  }
}

// docs/web-api.md names every side panel's tab (tab_<label>) and window (windows.{… <label> …}), and
// every matrix view's key (layout().views.{…}).
TEST(Docs, TheWebApiDocsNameEverySidePanelsTabAndWindowAndEveryView) {
  std::ifstream f(std::string(ATTNLAB_SOURCE_DIR) + "/docs/web-api.md", std::ios::binary);
  const std::string doc((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty()) << "docs/web-api.md not found";
  const size_t windows = doc.find("`windows.{");
  ASSERT_NE(windows, std::string::npos);
  const std::string window_list = doc.substr(windows, doc.find('}', windows) - windows);
  for (const attnlab::PaneInfo& p : attnlab::panes()) {
    EXPECT_NE(doc.find(std::string("tab_") + p.label + ","), std::string::npos) << "docs/web-api.md's layout() widgets do not name tab_" << p.label;
    EXPECT_NE(window_list.find(std::string(" ") + p.label + ","), std::string::npos) << "docs/web-api.md's layout() windows do not name " << p.label;
  }
  const size_t at = doc.find("`views.{");
  ASSERT_NE(at, std::string::npos);
  const std::string view_list = "," + doc.substr(at + 8, doc.find('}', at) - at - 8) + ",";
  for (const attnlab::ViewInfo& v : attnlab::views())
    EXPECT_NE(view_list.find(std::string(",") + v.key + ","), std::string::npos) << "docs/web-api.md's layout().views do not name " << v.key;
}

// The mask kinds' controls are two tables (engine/mask.cpp's kinds, panel_controls.cpp's controls): every
// kind the lab offers has its checkbox; ticking it adds its term and shows that kind's own controls;
// unticking takes both away.
TEST_F(Lab, EveryOfferedMaskKindsCheckboxAddsItsTermAndShowsItsControls) {
  open(1280, 1600);
  const std::map<std::string, std::vector<std::string>> controls = {
      {"causal", {}}, {"window", {"window_width", "window_causal"}}, {"padding", {"padding_key_0", "padding_key_3"}}, {"custom", {"allow_all"}}};
  int offered = 0;
  for (const attn::MaskKind& k : attn::mask_kinds()) {
    if (!k.label) continue;
    ++offered;
    const std::string box = std::string("mask:") + k.name;
    ASSERT_TRUE(app.widget_visible.count(box)) << box;
    const auto has_term = [&] {
      return std::any_of(app.config.mask.begin(), app.config.mask.end(), [&](const attn::MaskTerm& t) { return t.kind == k.kind; });
    };
    for (const bool tick : {true, false}) {
      const ImVec4 r = app.widget_visible[box];
      click(ImVec2(r.x + r.z * 0.5f, r.y + r.w * 0.5f));
      frames(2);
      EXPECT_EQ(has_term(), tick) << box;
      for (const std::string& c : controls.at(k.name)) EXPECT_EQ(app.widget_visible.count(c) == 1, tick) << c << (tick ? " after ticking " : " after unticking ") << box;
    }
  }
  EXPECT_EQ(offered, (int)controls.size());
}

TEST_F(Lab, TypingIntoTheTextBoxRetokenises) {
  replace_text("hello brave new world");
  EXPECT_EQ(result().tokens, (std::vector<std::string>{"hello", "brave", "new", "world"}));
  EXPECT_EQ(result().n, 4);
  type(" again");
  EXPECT_EQ(result().n, 5);
}

TEST_F(Lab, ClickingAWeightCellMasksItAndTheRowRenormalises) {
  ASSERT_GT(result().weights_head(0)(2, 1), 0.0f);
  app.ui.focus_view = View::weights;  // scrolled into view, as the pipeline strip's "softmax" does
  frames(3);
  click(cell(View::weights, 2, 1));
  const auto& mask = app.engine.config().mask;
  ASSERT_EQ(mask.size(), 1u);
  EXPECT_EQ(mask[0].kind, attn::MaskTerm::Kind::custom);
  EXPECT_EQ(result().weights_head(0)(2, 1), 0.0f);
  double sum = 0;
  for (int j = 0; j < result().m; ++j) sum += result().weights_head(0)(2, j);
  EXPECT_NEAR(sum, 1.0, 1e-5);
  click(cell(View::weights, 2, 1));  // and back
  EXPECT_GT(result().weights_head(0)(2, 1), 0.0f);
}

TEST_F(Lab, KeyboardShortcutsSwitchHeadsAndMasks) {
  EXPECT_EQ(app.ui.head, 0);
  type("]");
  EXPECT_EQ(app.ui.head, 1);
  type("[[");
  EXPECT_EQ(app.ui.head, result().heads - 1);
  type("m");
  ASSERT_EQ(app.engine.config().mask.size(), 1u);
  EXPECT_EQ(app.engine.config().mask[0].kind, attn::MaskTerm::Kind::causal);
  EXPECT_EQ(result().weights_head(0)(0, 1), 0.0f);
  type("m");  // the sliding window, as wide as the mask table's default
  ASSERT_EQ(app.engine.config().mask.size(), 1u);
  EXPECT_EQ(app.engine.config().mask[0].kind, attn::MaskTerm::Kind::window);
  EXPECT_EQ(app.engine.config().mask[0].window, attn::MaskTerm::default_window);
  type("n");
  EXPECT_FALSE(app.ui.show_numbers);
  type("l");
  EXPECT_TRUE(app.ui.learn_mode);
  type("L");
  EXPECT_FALSE(app.ui.learn_mode);
  // The Help window lists every shortcut from the same table the keys run from.
  int typed = 0;
  for (const attnlab::Shortcut& k : attnlab::shortcuts()) typed += k.chars[0] != 0;
  EXPECT_GE(typed, 9);
}

TEST_F(Lab, EditingAQCellChangesTheScoresDownstream) {
  click(cell(View::q, 1, 2));
  EXPECT_EQ(app.ui.selected.view, View::q);
  EXPECT_EQ(app.ui.selected.row, 1);
  const float before = result().scores_head(0)(1, 3);
  // Ctrl+click turns the inspector's drag box into a text field: type a new value.
  const ImRect ins = window("Inspector");
  const ImGuiStyle& st = ImGui::GetStyle();
  const ImVec2 drag(ins.Min.x + st.WindowPadding.x + 30.0f,
                    ins.Min.y + ImGui::GetFrameHeight() + st.WindowPadding.y + ImGui::GetFrameHeightWithSpacing() + ImGui::GetFrameHeight() * 0.5f);
  click(drag, true);
  key(ImGuiKey_A, true);
  type("3.5");
  key(ImGuiKey_Enter);
  ASSERT_EQ(app.engine.config().overrides.size(), 1u);
  EXPECT_EQ(app.engine.config().overrides[0].target, attn::Target::q);
  EXPECT_FLOAT_EQ(result().q_head(0)(1, 2), 3.5f);
  EXPECT_NE(result().scores_head(0)(1, 3), before);
}

TEST_F(Lab, BadInputIsClampedOrRefusedWithAMessageAndNothingBreaks) {
  std::string many;
  for (int i = 0; i < 10000; ++i) many += "word ";
  click(text_box());
  key(ImGuiKey_A, true);
  paste(many);
  EXPECT_EQ(result().n, attn::Limits::max_tokens_ui);
  EXPECT_NE(app.notice.find("clamped to 256"), std::string::npos) << app.notice;
  frames(30);

  replace_text("猫が寝る 🐈‍⬛ and naïve café");
  EXPECT_EQ(result().tokens, (std::vector<std::string>{"猫", "が", "寝", "る", "🐈‍⬛", "and", "naïve", "café"}));
  key(ImGuiKey_A, true);
  paste("ab\xff\xfe cd");
  ASSERT_GE(result().n, 2);
  EXPECT_EQ(result().tokens.front(), "ab");
  EXPECT_EQ(result().tokens.back(), "cd");
  for (const std::string& t : result().tokens) EXPECT_TRUE(t == "ab" || t == "cd" || t == "\xEF\xBF\xBD") << t;

  const auto tokens_before = result().tokens;
  replace_text("   ");
  frames(2);
  EXPECT_NE(app.error.find("no tokens"), std::string::npos) << app.error;
  EXPECT_EQ(result().tokens, tokens_before);  // the last good result stays on screen
  replace_text("back to normal");
  EXPECT_TRUE(app.error.empty());
  EXPECT_EQ(result().n, 3);
}

// A texture backend that only counts: every texture created must be released or still in use.
class CountingTextures : public attnlab::TextureBackend {
 public:
  std::set<intptr_t> live;
  intptr_t next = 1;
  std::map<intptr_t, std::pair<int, int>> sizes;
  ImTextureID upload(ImTextureID existing, int w, int h, const uint32_t*) override {
    intptr_t id = (intptr_t)existing;
    if (!id) live.insert(id = next++);
    EXPECT_TRUE(live.count(id)) << "upload into a released texture";
    if (sizes.count(id)) {
      EXPECT_EQ(sizes[id], std::make_pair(w, h)) << "a texture refilled at another size";
    }
    sizes[id] = {w, h};
    return (ImTextureID)id;
  }
  void release(ImTextureID id) override { EXPECT_EQ(live.erase((intptr_t)id), 1u); }
};

TEST_F(Lab, HeatmapTexturesFollowSizeChangesWithoutLeaking) {
  CountingTextures textures;
  app.textures = &textures;
  frames(3);
  const size_t drawn = textures.live.size();
  EXPECT_GT(drawn, 10u);
  std::string text = "one";
  for (int i = 0; i < 12; ++i) {  // every change resizes most matrices
    text += " more";
    app.text = text;
    frames(3);
  }
  EXPECT_EQ(result().n, 13);
  EXPECT_LE(textures.live.size(), drawn + 2) << "textures of old sizes were not released";
  app.textures = nullptr;
}

// The desktop's --config is applied before ImGui exists: the first frame must still label the
// matrices with the tokens (it showed 0…n and "?" in hover cards).
TEST_F(Lab, AConfigAppliedBeforeTheUiExistsIsLabelledWithItsTokens) {
  ImGui::DestroyContext();
  App early;
  early.config = attnlab::default_lab_config();
  attn::Config c = early.config;
  c.target.text = "labels from the start";
  ASSERT_EQ(attnlab::apply_config(early, c), "");
  EXPECT_TRUE(early.labels.empty());
  ImGui::CreateContext();
  ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
  attnlab::setup_style(early, nullptr, 0, 1.0f);
  unsigned char* pixels;
  int pw, ph;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &pw, &ph);
  ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  ImGui::NewFrame();
  attnlab::frame(early);
  ImGui::Render();
  EXPECT_EQ(early.labels, (std::vector<std::string>{"labels", "from", "the", "start"}));
}

// The layout rule's modes: three columns, a side column with tabs, or one panel at a time.
TEST_F(Lab, TheLayoutFollowsTheScreenAndTheUiScale) {
  EXPECT_EQ(attnlab::choose_layout(app, 1280, 720).mode, attnlab::LayoutMode::columns);
  EXPECT_EQ(attnlab::choose_layout(app, 1024, 768).mode, attnlab::LayoutMode::sidebar);
  EXPECT_EQ(attnlab::choose_layout(app, 390, 844).mode, attnlab::LayoutMode::tabs);
  for (float w : {390.0f, 1024.0f, 1280.0f, 1920.0f, 3840.0f}) {
    const attnlab::Placement p = attnlab::choose_layout(app, w, 720);
    std::vector<attnlab::WinRect> placed = {p.pipeline, p.nav, p.status};
    placed.insert(placed.end(), p.panes.begin(), p.panes.end());
    for (const attnlab::WinRect& r : placed) {
      if (r.w == 0) continue;
      EXPECT_GE(r.x, 0.0f);
      EXPECT_LE(r.x + r.w, w + 0.5f) << w;
      EXPECT_LE(r.y + r.h, 720.5f) << w;
    }
    EXPECT_GT(p[attnlab::Pane::matrices].w, 0.0f) << "the matrices are always shown";
  }
  app.ui.side_collapsed = true;
  EXPECT_EQ(attnlab::choose_layout(app, 1280, 720)[attnlab::Pane::matrices].w, 1280.0f);
}

// The layout rule's cell half, as the browser test checks it: at phone to 4K sizes and UI scales 1-3,
// every matrix drawn keeps cells of at least 8 px (a block that cannot goes on a line of its own).
// With the shells' font (DejaVu Sans), whose labels are wider than ImGui's built-in one.
TEST_F(Lab, EveryMatrixKeepsCellsOfAtLeastEightPixelsAtEverySize) {
  for (auto [w, h, scale] : {std::tuple{390.0f, 844.0f, 1.0f}, {1024.0f, 768.0f, 1.0f}, {1280.0f, 720.0f, 1.0f}, {1920.0f, 1080.0f, 1.0f},
                             {1280.0f, 720.0f, 2.0f}, {1920.0f, 1080.0f, 2.0f}, {1280.0f, 720.0f, 3.0f}, {3840.0f, 2160.0f, 1.0f}}) {
    open(w, h);
    use_shell_font(scale);
    frames(4);
    int drawn = 0;
    for (const auto& v : app.view_rects) {
      if (!v.drawn) continue;
      ++drawn;
      EXPECT_GE(v.cell_w, 8.0f) << w << "x" << h << " scale " << scale << " view " << (&v - app.view_rects) << " cols " << v.cols;
      EXPECT_GE(v.cell_h, 8.0f) << w << "x" << h << " scale " << scale;
    }
    EXPECT_GE(drawn, 4) << w << "x" << h << " scale " << scale;
  }
}

// Keyboard: a matrix with the focus takes the arrows as a cell cursor; the cursor's cell is what the
// inspector and the screen-reader text describe, and Enter does what a click does.
TEST_F(Lab, ArrowKeysMoveACellCursorInsideTheFocusedMatrix) {
  click(cell(View::q, 1, 1));  // selects Q(1, 1); the heatmap now has the keyboard focus
  ASSERT_EQ(app.ui.selected, (attnlab::CellRef{View::q, 0, 1, 1}));
  ImGui::GetIO().MousePos = ImVec2(-1000, -1000);  // the mouse leaves: the keyboard is in charge
  frames(2);
  key(ImGuiKey_DownArrow);
  key(ImGuiKey_LeftArrow);
  key(ImGuiKey_RightArrow);
  key(ImGuiKey_UpArrow);
  key(ImGuiKey_RightArrow);
  frames(1);
  EXPECT_EQ(app.ui.key_cell.view, View::q);
  EXPECT_EQ(app.ui.key_cell.row, 1);
  EXPECT_EQ(app.ui.key_cell.col, 2);
  EXPECT_EQ(app.ui.hover, (attnlab::CellRef{View::q, 0, 1, 2})) << "the cursor's cell is described";
  key(ImGuiKey_Enter);
  frames(1);
  EXPECT_EQ(app.ui.selected, (attnlab::CellRef{View::q, 0, 1, 2})) << "Enter selects like a click";
}

TEST_F(Lab, ApplyRejectsBadConfigsAndKeepsState) {
  attn::Config c = app.engine.config();
  c.heads = 0;
  const std::string err = attnlab::apply_config(app, c);
  EXPECT_EQ(err.rfind("heads", 0), 0u) << err;
  EXPECT_EQ(app.engine.config().heads, 4);
  c = app.engine.config();
  c.heads = 8;
  c.d_k = c.d_v = 4;
  EXPECT_EQ(attnlab::apply_config(app, c), "");
  frames(2);
  EXPECT_EQ(result().heads, 8);
}

// The views table (views.cpp) says what the panels, exports and the screen-reader text do with each view:
// unique keys and names, rows and columns labelled by the sequences that have their lengths, per-head
// views that change with the head and the others that do not, and the colour ranges the lab starts with.
TEST_F(Lab, EveryViewIsRegisteredOnceAndItsEntryFitsItsMatrix) {
  attn::Config c = attnlab::default_lab_config();
  c.cross = true, c.source.text = "le chat dort", c.positional = attn::Positional::learned;
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(2);
  const attn::Result& r = result();
  std::set<std::string> keys, names;
  ASSERT_EQ(attnlab::views().size(), (size_t)View::count);
  for (const attnlab::ViewInfo& v : attnlab::views()) {
    EXPECT_TRUE(keys.insert(v.key).second) << v.key;
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_EQ(&attnlab::view_info(v.view), &v);
    const attn::MatView m0 = v.matrix(r, 0), m1 = v.matrix(r, 1);
    ASSERT_GT(m0.rows, 0) << v.key;
    if (v.rows == attnlab::Labels::queries) {
      EXPECT_EQ(m0.rows, r.n) << v.key;
    } else if (v.rows == attnlab::Labels::keys) {
      EXPECT_EQ(m0.rows, r.m) << v.key;
    }
    if (v.cols == attnlab::Labels::keys) {
      EXPECT_EQ(m0.cols, r.m) << v.key;
    }
    EXPECT_EQ(m0.data != m1.data, v.per_head) << v.key << ": per head, or one for all heads";
    EXPECT_EQ(v.editable, v.view == View::x || v.target != attn::Target::x) << v.key;
    EXPECT_EQ(app.ui.fixed_range[(size_t)v.view], v.fixed_range) << v.key;
  }
  EXPECT_EQ(attnlab::view_info(View::scores).fixed_range, 5.0f);
}

// The UI font the shells embed is DejaVu Sans cut down at build time to the characters the atlas bakes
// (scripts/ui_font_subset.py): it must bake exactly the atlas the whole font bakes, at every UI scale.
TEST(UiFont, TheSubsetBakesTheSameAtlas) {
  const auto read = [](const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::vector<char> whole = read(ATTNLAB_FONT_PATH), subset = read(ATTNLAB_UI_FONT_PATH);
  ASSERT_FALSE(whole.empty());
  ASSERT_FALSE(subset.empty());
  EXPECT_LT(subset.size(), whole.size() / 3) << "the subset keeps what the atlas uses only";
  for (float scale : {1.0f, 2.0f}) {
    struct Baked {
      std::vector<unsigned char> pixels;
      int w = 0, h = 0, glyphs = 0;
    };
    const auto bake = [&](const std::vector<char>& ttf) {
      ImGui::CreateContext();
      attnlab::App app;
      attnlab::setup_style(app, ttf.data(), (int)ttf.size(), scale);
      Baked b;
      unsigned char* px = nullptr;
      ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&px, &b.w, &b.h);
      b.pixels.assign(px, px + (size_t)b.w * b.h * 4);
      for (ImFont* f : ImGui::GetIO().Fonts->Fonts) b.glyphs += f->Glyphs.Size;
      ImGui::DestroyContext();
      return b;
    };
    const Baked a = bake(whole), b = bake(subset);
    EXPECT_EQ(a.glyphs, b.glyphs) << "scale " << scale;
    ASSERT_EQ(a.w, b.w);
    ASSERT_EQ(a.h, b.h);
    EXPECT_TRUE(a.pixels == b.pixels) << "scale " << scale << ": the atlases differ";
  }
}

}  // namespace


// Issue 16, item 10: with more tokens than the Lines panel has text lines for, only some keys can be
// labelled; a followed query's strongest keys are labelled first, so the endpoints of its thickest lines
// always say which token they are.
TEST_F(Lab, TheLinesPanelLabelsTheKeysAFollowedQueryAttendsToMost) {
  std::string text;
  for (int i = 0; i < 48; ++i) text += (i ? " w" : "w") + std::to_string(i);
  replace_text(text);
  ASSERT_EQ(result().n, 48);
  app.ui.lines_all_heads = false;
  app.ui.head = 0;
  for (int query : {5, 20, 47}) {
    app.ui.query = query;
    frames(2);
    const auto& labelled = app.lines_key_labels;
    ASSERT_LT(labelled.size(), 48u) << "the panel must be too short to label every key for this test";
    // The keys of the query's row, strongest first, down to the weakest a line is drawn for.
    std::vector<std::pair<float, int>> keys;
    for (int j = 0; j < result().m; ++j) keys.emplace_back(result().weights_head(0)(query, j), j);
    std::sort(keys.begin(), keys.end(), std::greater<>());
    EXPECT_NE(std::find(labelled.begin(), labelled.end(), keys[0].second), labelled.end())
        << "query " << query << ": its strongest key " << keys[0].second << " has no label";
    // No two labels at the same key, and the strongest keys come before the every-k-th ones.
    EXPECT_EQ(std::set<int>(labelled.begin(), labelled.end()).size(), labelled.size());
    EXPECT_EQ(labelled.front(), keys[0].second);
  }
}

// With many tokens the Lines panel drew 2472 lines at 103 tokens and eight heads (each query's 3
// strongest keys in every head): one colour filled the panel, and a software GPU spent 25-30 ms a frame
// on them. Now each line starts at a labelled query: its 3 strongest keys with one head shown, each
// head's strongest with all; a followed query, all its keys. The note saying so sits above the lines
// (it was drawn over them, cut at the panel's edge). The counts are checked against the weights.
TEST_F(Lab, TheLinesPanelDrawsTheLabelledQueriesStrongestKeysUnderItsNote) {
  open(1920, 1800);  // tall enough for all 103 rows in the panel (3 px each) without scrolling
  static const char* words[] = {"the", "cat", "sat", "on", "the", "mat", "and", "slept", "well", "until", "morning"};
  std::string text;
  for (int i = 0; i < 103; ++i) text += std::string(i ? " " : "") + words[i % 11];
  replace_text(text);
  ASSERT_EQ(result().n, 103);
  app.config.heads = 8;
  ASSERT_EQ(attnlab::apply_config(app, app.config), "");
  ASSERT_EQ(result().heads, 8);
  // The weights a line is drawn for (strongest_keys: at least 0.02), per query and head.
  const auto keys_over_faintest = [&](int h, int i) {
    int count = 0;
    for (int j = 0; j < result().m; ++j) count += result().weights_head(h)(i, j) >= 0.02f;
    return count;
  };
  float rows_y = 0.0f;  // where the rows are while no token is followed
  for (const bool all : {true, false}) {
    for (const int query : {-1, 40}) {
      app.ui.lines_all_heads = all;
      app.ui.head = 2;
      app.ui.query = query;
      frames(2);
      const int h0 = all ? 0 : 2, h1 = all ? 8 : 3;
      const std::vector<int>& labelled = app.lines_query_labels;
      int expected = 0;
      if (query >= 0) {
        for (int h = h0; h < h1; ++h) expected += keys_over_faintest(h, query);
      } else {
        ASSERT_LT(labelled.size(), 103u) << "rows too short to label every query, as intended here";
        ASSERT_GT(labelled.size(), 10u);
        for (int i : labelled)
          for (int h = h0; h < h1; ++h) expected += std::min(all ? 1 : 3, keys_over_faintest(h, i));
      }
      EXPECT_EQ(app.lines_drawn, expected) << (all ? "all heads" : "one head") << ", query " << query;
      // The keys the lines reach are named first, the strongest first: every k-th key alone left most
      // lines ending at a key with no name.
      if (query < 0) {
        std::vector<std::pair<float, int>> ends;  // (weight, key) of every line drawn
        std::vector<int> keys;
        for (int i : labelled)
          for (int h = h0; h < h1; ++h) {
            const attn::MatView a = result().weights_head(h);
            const attn::Range span = result().mask.ranges[(size_t)i];
            attnlab::strongest_keys(a.data + (size_t)i * a.ld + span.lo, span.hi - span.lo, all ? 1 : 3, keys);
            for (int j : keys) ends.emplace_back(a(i, span.lo + j), span.lo + j);
          }
        ASSERT_EQ((int)ends.size(), expected);
        const std::vector<int>& named_keys = app.lines_key_labels;
        const auto is_named = [&](int j) { return std::find(named_keys.begin(), named_keys.end(), j) != named_keys.end(); };
        EXPECT_TRUE(is_named(std::max_element(ends.begin(), ends.end())->second)) << "the strongest line's key has no name";
        const int at_named = (int)std::count_if(ends.begin(), ends.end(), [&](auto& e) { return is_named(e.second); });
        std::printf("[ lines    ] %s: %d of %d lines end at a named key (%zu keys named)\n", all ? "all heads" : "one head", at_named, expected, named_keys.size());
        EXPECT_GE(at_named * 5, expected * 3) << "fewer than 3 lines in 5 end at a named key";
      }
      // The note above the lines, inside the panel; the lines whole in the panel (none left out for
      // lying outside its visible part, which the count above assumes).
      const auto win = std::find_if(app.window_rects.begin(), app.window_rects.end(), [](const attnlab::WindowRect& r) { return r.name == "Lines"; });
      ASSERT_NE(win, app.window_rects.end());
      ASSERT_TRUE(app.widget_rects.count("lines_note") && app.widget_rects.count("lines_queries"));
      const ImVec4 note = app.widget_rects.at("lines_note"), rows = app.widget_rects.at("lines_queries");
      EXPECT_LE(note.y + note.w, rows.y) << "the note overlaps the lines";
      EXPECT_LE(note.x + note.z, win->x + win->w) << "the note runs past the panel's edge";
      EXPECT_FALSE(win->clipped);
      ASSERT_LE(rows.y + rows.w, win->y + win->h) << "the rows do not fit the panel at this size";
      // With one head shown the panel names it, beside "all heads", inside the panel.
      EXPECT_EQ(app.widget_visible.count("lines_head"), all ? 0u : 1u) << "the head's name drawn this frame";
      if (!all) {
        const ImVec4 named = app.widget_rects.at("lines_head"), box = app.widget_rects.at("lines_all_heads");
        EXPECT_GT(named.x, box.x + box.z) << "the head's name is not beside the box";
        EXPECT_LT(std::fabs((named.y + named.w * 0.5f) - (box.y + box.w * 0.5f)), box.w * 0.5f) << "not on the box's line";
        EXPECT_LE(named.x + named.z, win->x + win->w) << "the head's name runs past the panel's edge";
      }
      // What the note says: the rule in force, or that a followed token's every line is drawn.
      app.capture_text = true;
      frames(1);
      const char* said = query >= 0 ? attnlab::tr("lines.followed") : all ? attnlab::tr("lines.strongest_heads_labelled") : attnlab::tr("lines.strongest_labelled");
      EXPECT_NE(app.drawn_text.find(said), std::string::npos) << "query " << query << ": the note is not \"" << said << "\"";
      // The rows stay where they were whether a token is followed or not.
      if (query < 0) rows_y = rows.y;
      else EXPECT_EQ(rows.y, rows_y) << "the rows moved when a token was followed";
    }
  }
  // Pointing at a name follows that name's token. Rows are 3 px here and a name about three times as
  // tall: pointing a little above or below a name's middle picked the next row's token, whose label
  // then replaced the names around it.
  app.ui.lines_all_heads = true;
  app.ui.query = -1;
  frames(2);
  const std::vector<int> named = app.lines_query_labels;  // every k-th query, none followed
  ASSERT_GE(named.size(), 3u);
  const ImVec4 rows = app.widget_rects.at("lines_queries");
  const float row_h = rows.w / 103.0f, step = (float)(named[1] - named[0]);
  ASSERT_GT(step, 1.0f) << "names thinned out, as intended here";
  ImGuiIO& io = ImGui::GetIO();
  // The first and the last name too: where names are taller than rows, the top of the first and the
  // bottom of the last lie outside the rows (the bottom of the last followed nothing).
  for (int k : {named.front(), named[1], named[named.size() / 2], named[named.size() - 2], named.back()}) {
    for (float dy : {-0.4f, 0.0f, 0.4f}) {  // within the name: a fraction of the rows between two names
      io.MousePos = ImVec2(rows.x + rows.z * 0.5f, rows.y + row_h * (k + 0.5f) + dy * step * row_h);
      frames(2);
      EXPECT_EQ(app.ui.hover_token, k) << "pointing " << dy << " of a name's spacing from the middle of token " << k << "'s name";
      std::vector<int> now = app.lines_query_labels;
      std::sort(now.begin(), now.end());
      EXPECT_EQ(now, named) << "pointing at token " << k << "'s name changed which queries are named";
    }
  }
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  frames(2);
}

// The Lines panel's keys for a query (strongest_keys, one pass keeping a few in order) are those a sort
// of the row gives: weights of at least 0.02, strongest first, equal weights in key order, the first
// `count` of them; or, when every key may be drawn, all of those in key order.
TEST(Lines, StrongestKeysAreThoseASortedRowBeginsWith) {
  std::mt19937 rng(7);
  std::vector<int> got;
  for (int trial = 0; trial < 2000; ++trial) {
    const int m = 1 + (int)(rng() % 40);
    std::vector<float> row((size_t)m);
    for (float& w : row) {
      const unsigned kind = rng() % 5;  // zeros (masked), faint, the 0.02 edge, and a few values that repeat
      w = kind == 0 ? 0.0f : kind == 1 ? 0.019f : kind == 2 ? 0.02f : (float)(rng() % 8) / 8.0f + 0.0625f;
    }
    for (int count : {1, 3, 5, m, m + 1}) {
      std::vector<int> want;
      for (int j = 0; j < m; ++j)
        if (row[(size_t)j] >= 0.02f) want.push_back(j);
      if (count < m) {
        std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return row[(size_t)a] > row[(size_t)b]; });
        if ((int)want.size() > count) want.resize((size_t)count);
      }
      attnlab::strongest_keys(row.data(), m, count, got);
      ASSERT_EQ(got, want) << "trial " << trial << ", " << m << " keys, count " << count;
    }
  }
}

// A page just loaded said "drawn in 313 ms" until the first input: its only frames were the first,
// which builds the font atlas and compiles the UI's code, and the second. The status bar leaves the
// first frame out (while others are stored); stats() keeps every frame.
TEST(FrameStats, TheSteadyFigureLeavesOutTheFirstFrameWhileOthersAreStored) {
  attnlab::FrameStats s;
  s.add(313.0f, true);
  EXPECT_EQ(s.percentile(0.5f, true), 313.0f) << "alone, it is all there is";
  s.add(9.0f);
  EXPECT_EQ(s.percentile(0.5f, true), 9.0f);
  EXPECT_EQ(s.percentile(0.5f), 313.0f) << "every frame, as attnlab.stats() reports";
  for (int i = 0; i < attnlab::FrameStats::kWindow - 2; ++i) s.add(2.0f);
  EXPECT_EQ(s.percentile(1.0f, true), 9.0f) << "the first frame still stored, still left out";
  EXPECT_EQ(s.percentile(1.0f), 313.0f);
  s.add(2.0f);  // the first frame's place taken
  EXPECT_EQ(s.startup, -1);
  EXPECT_EQ(s.percentile(1.0f, true), 9.0f);
  EXPECT_EQ(s.percentile(1.0f), 9.0f);
}

TEST_F(Lab, TheStatusBarSaysWhatAFrameTakesNotWhatTheFirstOneDid) {
  app.stats = {};
  app.stats.add(313.0f, true);
  app.stats.add(9.0f);
  app.capture_text = true;
  frames(1);
  EXPECT_NE(app.drawn_text.find("drawn in 9 ms"), std::string::npos) << app.drawn_text.substr(0, 600);
  EXPECT_EQ(app.drawn_text.find("drawn in 313 ms"), std::string::npos);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0)) << "an idle lab";
  // A page's second frame drew the status bar with the first frame alone stored: once the second is
  // stored, one more frame is due, and then none.
  app.stats = {};
  app.stats.add(313.0f, true);
  frames(1);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0)) << "nothing newer to say yet";
  app.stats.add(9.0f);
  EXPECT_TRUE(attnlab::needs_redraw(app, 10.0)) << "the status bar still says 313 ms";
  frames(1);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0));
  // In Learn mode (no status bar) nothing is due for it.
  app.stats = {};
  app.stats.add(313.0f, true);
  frames(1);
  app.ui.learn_mode = true;
  frames(2);
  app.stats.add(9.0f);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0)) << "no status bar drawn: no frame due for it";
}

// A notice does not move, so the lab does not draw while it shows: one frame when its time is up takes
// it away. (It drew every frame for the notice's 8-15 s: 60 frames a second of a software GPU's CPU
// after pressing M.) A flash, which fades, still draws until it is gone.
TEST_F(Lab, ANoticeAsksForOneFrameWhenItsTimeIsUpNotOneEachFrame) {
  frames(3);
  ASSERT_FALSE(attnlab::needs_redraw(app, 10.0)) << "an idle lab";
  attnlab::notify(app, "The mask is now causal.");
  frames(2);  // (a window that appears is measured first and shown the next frame)
  ASSERT_TRUE(attnlab::notice_showing(app));
  EXPECT_FALSE(attnlab::needs_redraw(app, 0.5)) << "nothing moves while the notice shows";
  EXPECT_NEAR(attnlab::redraw_due_in(app, 0.0), 8.0, 0.2) << "due when its 8 s are up";
  app.notice_until = ImGui::GetTime() + 0.5;  // (its time nearly up)
  frames(1);
  EXPECT_FALSE(attnlab::needs_redraw(app, 0.3));
  EXPECT_TRUE(attnlab::needs_redraw(app, 0.6)) << "the frame that takes it away";
  frames(40);  // two thirds of a second
  EXPECT_FALSE(attnlab::notice_showing(app));
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0)) << "and then nothing";
  // A sticky problem waits for OK: no frame is due for it.
  attnlab::report_problem(app, "A problem", "It stays until closed.");
  frames(2);
  EXPECT_TRUE(attnlab::notice_showing(app));
  EXPECT_FALSE(attnlab::needs_redraw(app, 100.0));
  // A flash fades: frames until it is gone.
  app.ui.focus_until = ImGui::GetTime() + 1.2;
  frames(1);
  EXPECT_TRUE(attnlab::needs_redraw(app, 0.5));
}

// The teacher's walk (issue 16): after Open in the lab, 16 tokens in the Lines panel were labelled every
// other one. Rows a little shorter than a text line take a smaller type (down to 70 %), so every token
// keeps its label; only below that do labels thin out.
TEST_F(Lab, TheLinesPanelLabelsEveryTokenWhileRowsHoldSmallerType) {
  open(1920, 1080);  // every panel in its column
  // 24 tokens: rows of 70-95 % of a text line in this window (the teacher had 16 in a shorter one).
  replace_text("the cat sat on the mat because it was tired and then the dog came in to see what the noise was about at");
  ASSERT_EQ(result().n, 24);
  app.ui.lines_all_heads = false;
  app.ui.query = -1;
  frames(2);
  const auto win = std::find_if(app.window_rects.begin(), app.window_rects.end(), [](const attnlab::WindowRect& r) { return r.name == "Lines"; });
  ASSERT_NE(win, app.window_rects.end()) << "the Lines panel is drawn";
  // Its rows: the window's height less its checkbox line and padding, over 16 tokens.
  const float fs = ImGui::GetFontSize(), row_h = (win->h - ImGui::GetFrameHeightWithSpacing() - 3.0f * ImGui::GetStyle().WindowPadding.y - fs) / 24.0f;
  ASSERT_LT(row_h, 0.95f * fs) << "rows shorter than a text line, as in the teacher's walk";
  ASSERT_GE(row_h, 0.7f * 0.95f * fs) << "but tall enough for 70 % type";
  EXPECT_EQ(app.lines_key_labels.size(), 24u) << "rows " << row_h << " px for " << fs << " px type";
}

// Issue 16, item 10: a card's text wraps at spaces only. Dear ImGui's own wrapping may break after a
// '.', and a narrow hover card then showed "-0." on one line and "75922" on the next.
TEST_F(Lab, CardTextWrapsAtSpacesSoANumberIsNeverSplit) {
  const char* text = "weight -0.75922 = 0.1234567 × -6.1500041 + 12.25";
  const std::vector<std::string> numbers = {"-0.75922", "0.1234567", "-6.1500041", "12.25"};
  const auto split_one = [&](const std::string& lines) {
    return std::any_of(numbers.begin(), numbers.end(), [&](const std::string& n) { return lines.find(n) == std::string::npos; });
  };
  ImGui::NewFrame();
  ImFont* font = ImGui::GetFont();
  // A width at which Dear ImGui's wrapping (what ImGui::TextWrapped draws) splits a number.
  float width = 0.0f;
  std::string theirs;
  for (float w = 3.0f * ImGui::GetFontSize(); w < 20.0f * ImGui::GetFontSize() && width == 0.0f; w += 1.0f) {
    theirs.clear();
    for (const char *p = text, *end = text + std::strlen(text); p < end;) {
      const char* cut = font->CalcWordWrapPositionA(1.0f, p, end, w);
      if (cut == p) ++cut;
      theirs.append(p, cut).push_back('\n');
      p = cut;
      while (p < end && *p == ' ') ++p;
    }
    if (split_one(theirs)) width = w;
  }
  ASSERT_GT(width, 0.0f) << "Dear ImGui no longer splits a number at any width: the case is gone";
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(width + 2.0f * ImGui::GetStyle().WindowPadding.x, 400));
  ImGui::Begin("narrow card", nullptr, ImGuiWindowFlags_NoDecoration);
  ImGui::LogToBuffer();
  attnlab::text_wrapped_words("%s", text);
  const std::string ours = ImGui::GetCurrentContext()->LogBuffer.c_str();
  ImGui::LogFinish();
  ImGui::End();
  ImGui::EndFrame();
  EXPECT_NE(ours.find('\n'), std::string::npos) << "the text wraps at that width:\n" << ours;
  EXPECT_FALSE(split_one(ours)) << "a number is split at width " << width << ":\n" << ours << "\nDear ImGui's:\n" << theirs;
}
