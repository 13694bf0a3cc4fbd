#include "app.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

#include "imgui_internal.h"
#include "i18n.h"
#include "mask.h"
#include "positional.h"
#include "heatmap.h"
#include "learn.h"
#include "panels.h"
#include "tokenizer.h"
#include "widgets.h"

namespace attnlab {

// [SECTION] frame statistics
void FrameStats::add(float frame_ms) {
  ms[next] = frame_ms;
  next = (next + 1) % kWindow;
  count = std::min(count + 1, kWindow);
  ++frames;
}

float FrameStats::percentile(float p) const {
  if (count == 0) return 0.0f;
  std::vector<float> v(ms, ms + count);
  const size_t k = std::min((size_t)std::lround(p * (float)(count - 1)), v.size() - 1);
  std::nth_element(v.begin(), v.begin() + (long)k, v.end());
  return v[k];
}

// [SECTION] config
attn::Config default_lab_config() {
  attn::Config c;
  c.target.text = "the cat sat on the mat because it was tired";
  c.max_tokens = attn::Limits::max_tokens_ui;
  c.truncate = true;
  return c;
}

void text_edited(App& app, attn::SequenceInput& seq) {
  if (seq.use_tokens) seq.use_tokens = false;  // typing switches explicit tokens back to text
  if (!seq.x.empty()) {
    seq.x.clear(), seq.x_rows = 0;
    notify(app, tr("notice.vectors_dropped"));
  }
}

void set_text_box(App& app, bool source, std::string text) {
  if (source && !app.config.cross) return;
  (source ? app.source : app.text) = std::move(text);
  text_edited(app, source ? app.config.source : app.config.target);
}

void notify(App& app, std::string message) {
  if (app.notice_sticky && notice_showing(app)) return;  // a problem stays until it is closed
  app.notice = std::move(message);
  app.notice_title.clear();
  app.notice_until = ImGui::GetCurrentContext() ? ImGui::GetTime() + 6.0 : 6.0;
}

namespace {

int count_tokens(const attn::SequenceInput& s, int max_tokens) {
  if (!s.x.empty()) return s.x_rows;
  if (s.use_tokens) return std::min((int)s.tokens.size(), max_tokens);
  return (int)attn::tokenize(s.text, max_tokens).tokens.size();
}

// Keeps hand-made state meaningful when the number of tokens changes: the custom mask grows or
// shrinks (new cells allowed), padding keys and edits that point past the end are dropped (with a
// notice, so nothing disappears silently).
void fit_to_tokens(App& app, attn::Config& c) {
  const int n = count_tokens(c.target, c.max_tokens);
  const int m = c.cross ? count_tokens(c.source, c.max_tokens) : n;
  if (n == 0 || m == 0) return;
  for (attn::MaskTerm& t : c.mask) {
    if (t.kind == attn::MaskTerm::Kind::custom && (t.rows != n || t.cols != m)) {
      std::vector<uint8_t> cells((size_t)n * m, 1);
      for (int i = 0; i < std::min(n, t.rows); ++i)
        for (int j = 0; j < std::min(m, t.cols); ++j) cells[(size_t)i * m + j] = t.cells[(size_t)i * t.cols + j];
      t.rows = n, t.cols = m, t.cells = std::move(cells);
    }
    if (t.kind == attn::MaskTerm::Kind::padding)
      std::erase_if(t.keys, [&](int k) { return k >= m; });
  }
  const int dropped = (int)std::erase_if(c.overrides, [&](const attn::Override& o) {
    const attn::Shape shape = attn::target_shape(c, o.target, n, m);
    return o.head >= c.heads || o.row >= shape.rows || o.col >= shape.cols;
  });
  if (dropped > 0)
    notify(app, trn("notice.edits_dropped", dropped, {{"n", (int)dropped}}));
}

}  // namespace

// Token labels depend on the font (what it can draw), so they are made once ImGui exists: a config
// applied before the first frame (the desktop's --config) gets its labels on that frame.
static void refresh_labels(App& app) {
  const attn::Result& r = app.engine.result();
  for (const std::string& t : r.tokens) want_cjk_text(app, t);
  for (const std::string& t : r.source_tokens) want_cjk_text(app, t);
  app.labels.clear(), app.source_labels.clear();
  for (const std::string& t : r.tokens) app.labels.push_back(drawable_label(t));
  for (const std::string& t : r.source_tokens) app.source_labels.push_back(drawable_label(t));
  app.labels_version = app.result_version;
}

void sync_engine(App& app) {
  // The text boxes feed the config unless it carries explicit tokens (set through the API or a link;
  // typing in a box switches that sequence back to text: see panel_input.cpp).
  if (!app.config.target.use_tokens) app.config.target.text = app.text;
  if (app.config.cross && !app.config.source.use_tokens) app.config.source.text = app.source;
  if (app.config == app.engine.config() && !app.engine.needs_compute()) {
    app.error.clear();
    return;
  }
  attn::Config c = app.config;
  fit_to_tokens(app, c);
  const std::string err = app.engine.set_config(c);
  if (!err.empty()) {
    app.error = err;  // keep showing the last good result
    return;
  }
  app.error.clear();
  app.config = c;
  app.engine.compute();
  const attn::Result& r = app.engine.result();
  ++app.result_version;
  if (ImGui::GetCurrentContext()) refresh_labels(app);
  app.recompute_ms = (float)app.engine.last_compute_ms();
  app.ui.head = std::clamp(app.ui.head, 0, r.heads - 1);
  if (app.ui.query >= r.n) app.ui.query = -1;
  // Say what happened to the input when it was read again, not on every later recompute.
  if (app.engine.last_recomputed() & (1u << (int)attn::Stage::embed)) {
    if (r.dropped_tokens > 0)
      notify(app, trf("notice.input_clamped", {{"n", r.n}, {"dropped", r.dropped_tokens}}));
    if (r.invalid_bytes > 0) notify(app, trn("notice.invalid_utf8", r.invalid_bytes, {{"n", r.invalid_bytes}}));
  }
}

namespace {
std::string joined(const attn::SequenceInput& s) {
  if (!s.use_tokens) return s.text;
  std::string out;
  for (size_t i = 0; i < s.tokens.size(); ++i) out += (i ? " " : "") + s.tokens[i];
  return out;
}
}  // namespace

bool sizes_tied(const attn::Config& c) { return c.d_k == std::max(1, c.d_model / std::max(c.heads, 1)) && c.d_v == c.d_k; }

std::string apply_config(App& app, attn::Config c) {
  // The lab shows at most 256 tokens; longer input is clamped (and says so) rather than refused.
  c.max_tokens = std::min(c.max_tokens, attn::Limits::max_tokens_ui);
  c.truncate = true;
  attn::Engine probe;  // validate without touching the live engine
  if (std::string err = probe.set_config(c); !err.empty()) return err;
  app.config = std::move(c);
  app.text = joined(app.config.target);
  app.source = joined(app.config.source);
  app.ui.tie_sizes = sizes_tied(app.config);
  app.ui.origin = {};  // a setup of its own (Open in the lab sets it again after this)
  sync_engine(app);
  return app.error;
}

// [SECTION] style
void set_ui_scale(App& app, float scale) {
  if (!std::isfinite(scale)) return;
  app.ui.ui_scale = app.ui.ui_scale_edit = std::clamp(scale, 0.75f, 3.0f);
  app.fonts_dirty = true;  // the shell rebuilds the fonts before the next frame
}

void setup_style(App& app, const void* ttf, int ttf_size, float ui_scale) {
  app.ui.ui_scale = app.ui.ui_scale_edit = std::clamp(ui_scale, 0.6f, 3.0f);  // (the desktop's --scale may say 0.6)
  app.style_scale = app.ui.ui_scale * app.dpi_scale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // kUiGlyphRanges: what the atlas bakes, and what scripts/ui_font_subset.py keeps of DejaVu Sans at
  // build time (it reads these lines): a character added here is added to the font too.
  static const ImWchar ranges[] = {
      0x0020, 0x024F,  // Latin, Latin-1, Latin Extended-A/B
      0x0370, 0x03FF,  // Greek (τ, Σ)
      0x0400, 0x04FF,  // Cyrillic
      0x1D40, 0x1D40,  // ᵀ
      0x2010, 0x205E,  // punctuation (·, …, —)
      0x2070, 0x209F,  // super- and subscripts
      0x2190, 0x21FF,  // arrows
      0x2200, 0x22FF,  // mathematical operators (−, ∞, √, ∑)
      0x25A0, 0x25FF,  // geometric shapes
      0x2713, 0x2717,  // check marks and crosses (the tour's ✓)
      0xFFFD, 0xFFFD,  // replacement character
      0,
  };
  if (ttf && ttf_size > 0) {
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;
    cfg.OversampleH = 2;
    io.Fonts->AddFontFromMemoryTTF(const_cast<void*>(ttf), ttf_size, std::round(16.0f * app.style_scale), &cfg, ranges);
    merge_cjk_font(app, std::round(16.0f * app.style_scale));
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * app.style_scale);
    io.Fonts->AddFontDefault(&cfg);
  }
  // Presenter mode's type: 26 CSS px (× the pixel ratio) whatever the UI scale, so numbers in cells
  // stay legible from the back of a room and the big matrices still fit a 1280×720 projector.
  if (ttf && ttf_size > 0) {
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;
    app.big_font = io.Fonts->AddFontFromMemoryTTF(const_cast<void*>(ttf), ttf_size, std::round(26.0f * app.dpi_scale), &cfg, ranges);
    merge_cjk_font(app, std::round(26.0f * app.dpi_scale));
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(26.0f * app.dpi_scale);
    app.big_font = io.Fonts->AddFontDefault(&cfg);
  }
  io.Fonts->Build();
  app.labels_version = ~0ull;  // what the new atlas can draw changes the token labels
  // Keyboard: arrows move between controls, Space/Enter press them, Tab cycles the fields (ImGui 1.86
  // navigation). Windows move only by their title bars, so a finger dragging a panel scrolls it.
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.ConfigWindowsMoveFromTitleBarOnly = true;
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowPadding = ImVec2(8, 8);
  style.ItemSpacing = ImVec2(7, 5);
  style.ScrollbarSize = 12.0f;
  style.Colors[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.11f, 0.13f, 1.0f);
  style.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
  style.Colors[ImGuiCol_PopupBg].w = 1.0f;  // menus, tooltips and hover cards opaque: what lies under them does not show through
  if (app.ui.high_contrast) {  // white on black, bright frames and borders (presenter's C key)
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_PopupBg] = ImVec4(0.05f, 0.05f, 0.05f, 1);
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.8f);
    c[ImGuiCol_FrameBg] = ImVec4(0.12f, 0.12f, 0.12f, 1);
    c[ImGuiCol_Button] = ImVec4(0.0f, 0.25f, 0.6f, 1);
    c[ImGuiCol_TitleBgActive] = c[ImGuiCol_TitleBg] = ImVec4(0.0f, 0.25f, 0.6f, 1);
    c[ImGuiCol_NavHighlight] = ImVec4(1, 1, 0, 1);
    style.WindowBorderSize = style.FrameBorderSize = 1.0f;
  }
  style.ScaleAllSizes(app.style_scale);
  ImGui::GetStyle() = style;
  app.fonts_dirty = false;
  app.layout_dirty = true;
}

// [SECTION] layout and keyboard
const char* layout_mode_name(LayoutMode m) {
  switch (m) {
    case LayoutMode::columns: return "columns";
    case LayoutMode::sidebar: return "sidebar";
    case LayoutMode::tabs: return "tabs";
  }
  return "?";
}

// The rule (docs/web-api.md, tested at 390×844 … 3840×2160 and UI scale 1–3):
//   * the matrices get at least kMinMatrices × UI scale pixels of width (room for three blocks of a
//     short sentence side by side with readable cells); the side panels get 250–420 × UI scale each;
//   * three columns when both side columns and the matrices fit; else one side column whose tabs
//     switch between the side panels; else (phones, or a big UI scale on a small screen) one panel at
//     a time under a tab bar;
//   * every window lies inside the display; content taller or wider than its window scrolls.
Placement choose_layout(const App& app, float W, float H) {
  const float s = app.style_scale;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float min_h = st.WindowMinSize.y;
  constexpr float kMinMatrices = 560.0f;
  Placement P;
  // The formula strip, with room for its scrollbar when its contents are wider than the screen.
  // Bars one line high, plus room for a horizontal scrollbar when their contents are wider than W.
  const auto bar = [&](const char* name, float line) {
    const ImGuiWindow* w = ImGui::FindWindowByName(name);
    const bool wide = w && w->ContentSize.x + 2.0f * st.WindowPadding.x > W + 0.5f;
    return std::max(min_h, line + 2.0f * st.WindowPadding.y) + (wide ? st.ScrollbarSize : 0.0f);
  };
  const float top = bar("pipeline", ImGui::GetFrameHeight());
  // The nav bar's buttons wrap onto more lines where they do not fit across (draw_nav_bar): as many
  // lines as it drew last frame.
  const ImGuiWindow* nav_window = ImGui::FindWindowByName("nav");
  const float nav_lines = nav_window ? std::max(1.0f, std::round((nav_window->ContentSize.y + st.ItemSpacing.y) /
                                                                 (ImGui::GetFrameHeight() + st.ItemSpacing.y))) : 1.0f;
  const float nav = bar("nav", nav_lines * ImGui::GetFrameHeight() + (nav_lines - 1.0f) * st.ItemSpacing.y);
  const float bottom = bar("status", ImGui::GetTextLineHeight());
  P.pipeline = {0, 0, W, top};
  P.nav = {0, top, W, nav};
  const float y0 = top + nav, body_h = std::max(min_h, H - y0 - bottom);
  P.status = {0, H - bottom, W, bottom};

  const float col_w = std::clamp(W * 0.22f, 250.0f * s, 380.0f * s);
  const float right_w = std::clamp(W * 0.22f, 250.0f * s, 420.0f * s);
  const float side_w = std::clamp(W * 0.30f, 260.0f * s, 420.0f * s);
  if (W >= col_w + right_w + kMinMatrices * s) P.mode = LayoutMode::columns;
  else if (W >= side_w + kMinMatrices * s) P.mode = LayoutMode::sidebar;
  else P.mode = LayoutMode::tabs;

  // The open tour has a slot of its own in every layout, so it never covers what a step asks the
  // learner to look at (a tour the learner dragged floats where they put it).
  const bool dock_tour = app.ui.show_tour && !app.ui.tour_moved;
  WinRect body{0, y0, W, body_h};
  if (P.mode == LayoutMode::tabs) {
    // A large UI scale on a small screen: the status line gives its room to the panel.
    if (body_h < 0.5f * H) P.status = {}, body.h = H - y0;
    if (dock_tour) {  // a strip across the bottom, as tall as the tour's text (at most a third of the screen; it scrolls)
      if (P.status.w > 0) body.h += P.status.h, P.status = {};  // the status line gives its room to the panel and the tour
      const ImGuiWindow* t = find_window("Tour");
      const float want = t && t->ContentSize.y > 0.0f ? t->ContentSize.y + 2.0f * st.WindowPadding.y + ImGui::GetFrameHeight() : 0.34f * H;
      const float h = std::clamp(want, std::min(160.0f * s, 0.34f * H), 0.34f * H);
      body.h -= h;
      P.tour = {0, body.y + body.h, W, h};
    }
    switch (app.ui.pane) {
      case Pane::input: P.input = body; break;
      case Pane::controls: P.controls = body; break;
      case Pane::inspector: P.inspector = body; break;
      case Pane::heads: P.heads = body; break;
      case Pane::lines: P.lines = body; break;
      default: P.matrices = body; break;
    }
    return P;
  }
  if (app.ui.side_collapsed) {
    P.matrices = body;
    if (dock_tour) P.matrices.w -= right_w, P.tour = {W - right_w, y0, right_w, body_h};
    return P;
  }
  if (P.mode == LayoutMode::sidebar) {
    const float side_h = dock_tour ? body_h * 0.5f : body_h;
    const WinRect side{0, y0, side_w, side_h};
    if (dock_tour) P.tour = {0, y0 + side_h, side_w, body_h - side_h};
    switch (app.ui.side_pane) {
      case Pane::controls: P.controls = side; break;
      case Pane::inspector: P.inspector = side; break;
      case Pane::heads: P.heads = side; break;
      case Pane::lines: P.lines = side; break;
      default: P.input = side; break;
    }
    P.matrices = {side_w, y0, W - side_w, body_h};
    return P;
  }
  const float mid_w = W - col_w - right_w;
  P.input = {0, y0, col_w, body_h * 0.34f};
  P.controls = {0, y0 + body_h * 0.34f, col_w, body_h * 0.66f};
  P.matrices = {col_w, y0, mid_w, body_h};
  P.inspector = {col_w + mid_w, y0, right_w, body_h * 0.36f};
  P.heads = {col_w + mid_w, y0 + body_h * 0.36f, right_w, body_h * 0.30f};
  if (dock_tour) {  // the tour takes the Lines panel's place (no step looks at the lines), and more
    P.inspector.h = body_h * 0.30f;
    P.heads = {col_w + mid_w, y0 + body_h * 0.30f, right_w, body_h * 0.26f};
    P.tour = {col_w + mid_w, y0 + body_h * 0.56f, right_w, body_h * 0.44f};
  } else {
    P.lines = {col_w + mid_w, y0 + body_h * 0.66f, right_w, body_h * 0.34f};
  }
  return P;
}

namespace {

// Positions the next window (ImGui applies it to the next Begin). In columns mode the layout is
// re-applied when the display size or mode changes, otherwise windows keep where the person put them;
// in sidebar and tabs modes panels share places, so each is put in its place every frame.
void resume_text_capture(App& app);  // [SECTION] text capture, below

void place(App& app, const WinRect& r) {
  resume_text_capture(app);
  const ImGuiCond cond = app.relayout || app.ui.layout != LayoutMode::columns ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

// Floating windows (help, tour) are sized by their panels for a 1× UI; on a small screen or a large
// scale they would leave it. Limit their size to the display, and bring them back inside if they are out.
void keep_on_screen(App& app, const char* name) {
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float margin = 4.0f * app.style_scale;
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::max(50.0f, d.x - 2 * margin), std::max(50.0f, d.y - 2 * margin)));
  if (ImGuiWindow* w = find_window(name)) {
    const ImVec2 size(std::min(w->Size.x, d.x - 2 * margin), std::min(w->Size.y, d.y - 2 * margin));
    const ImVec2 pos(std::clamp(w->Pos.x, margin, std::max(margin, d.x - margin - size.x)),
                     std::clamp(w->Pos.y, margin, std::max(margin, d.y - margin - size.y)));
    if (pos.x != w->Pos.x || pos.y != w->Pos.y) ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  }
}

// Every visible top-level window's rectangle, for layout_json (tests check nothing leaves the screen).
void remember_windows(App& app) {
  app.window_rects.clear();
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active || w->Hidden || w->IsFallbackWindow || (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup)))
      continue;
    const bool scrolls = w->ScrollMax.y > 0.0f || w->ScrollMax.x > 0.0f;
    // A translated window is named "title###id" (i18n.h tr_id): tests and the page API see the id.
    const char* id = std::strstr(w->Name, "###");
    app.window_rects.push_back({id ? id + 3 : w->Name, w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, scrolls && !(w->Flags & ImGuiWindowFlags_NoScrollbar) ? 1 : scrolls ? 2 : 0,
                                w->ContentSize.x > w->ContentRegionRect.GetWidth() + 1.0f && !(w->Flags & ImGuiWindowFlags_HorizontalScrollbar)});
  }
}

void cycle_mask(App& app) {
  // none -> causal -> sliding window (the mask table's default width, causal) -> none
  auto& mask = app.config.mask;
  const bool has_causal = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
  const bool has_window = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::window; });
  mask.clear();
  if (!has_causal && !has_window) {
    mask.push_back({attn::MaskTerm::Kind::causal});
    notify(app, tr("notice.mask_causal"));
  } else if (has_causal) {
    const attn::Result& r = app.engine.result();
    mask.push_back(attn::mask_kind(attn::MaskTerm::Kind::window).make(r.n, r.m));  // the table's default window
    notify(app, trf("notice.mask_window", {{"n", mask.back().window}}));
  } else {
    notify(app, tr("notice.mask_none"));
  }
}

// [SECTION] keyboard shortcuts: one table, read by handle_shortcuts() and by the Help window.
// Shortcuts are typed characters (layout-independent, and Dear ImGui 1.86 names only a few keys) or
// named keys, read only while no text box has the keyboard.
void next_head(App& app) { app.ui.head = (app.ui.head + 1) % std::max(app.engine.result().heads, 1); }
void previous_head(App& app) {
  const int heads = std::max(app.engine.result().heads, 1);
  app.ui.head = (app.ui.head + heads - 1) % heads;
}
void toggle_tour(App& app) {
  app.ui.show_tour = !app.ui.show_tour;
  if (app.ui.show_tour) tour_open_step(app, app.ui.tour_step);
}

constexpr Shortcut kShortcuts[] = {
    {"]", ImGuiKey_PageDown, "shortcut.next_head.keys", "shortcut.next_head", next_head},
    {"[", ImGuiKey_PageUp, "shortcut.previous_head.keys", "shortcut.previous_head", previous_head},
    {"mM", ImGuiKey_COUNT, "shortcut.mask.keys", "shortcut.mask", cycle_mask},
    {"/", ImGuiKey_COUNT, "shortcut.text_box.keys", "shortcut.text_box", [](App& app) { app.ui.focus_text = true; }},
    {"nN", ImGuiKey_COUNT, "shortcut.numbers.keys", "shortcut.numbers", [](App& app) { app.ui.show_numbers = !app.ui.show_numbers; }},
    {"wW", ImGuiKey_COUNT, "shortcut.weights.keys", "shortcut.weights", [](App& app) { app.ui.show_weights = !app.ui.show_weights; }},
    {"tT", ImGuiKey_COUNT, "shortcut.tour.keys", "shortcut.tour", toggle_tour},
    {"hH?", ImGuiKey_COUNT, "shortcut.help.keys", "shortcut.help", [](App& app) { app.ui.show_help = !app.ui.show_help; }},
    {"pP", ImGuiKey_COUNT, "shortcut.presenter.keys", "shortcut.presenter",
     [](App& app) { app.ui.presenter = true, app.ui.fullscreen_request = 1, app.ui.presenter_since = ImGui::GetFrameCount(); }},
    {"lL", ImGuiKey_COUNT, "shortcut.learn.keys", "shortcut.learn", [](App& app) { set_learn_mode(app, !app.ui.learn_mode); }},
    {"", ImGuiKey_Escape, "shortcut.escape.keys", "shortcut.escape", [](App& app) { app.ui.selected = {}, app.ui.query = -1; }},
    // Dear ImGui's own keyboard navigation, listed for the Help window.
    {"", ImGuiKey_COUNT, "shortcut.arrows.keys", "shortcut.arrows", nullptr},
    {"", ImGuiKey_COUNT, "shortcut.tab.keys", "shortcut.tab", nullptr},
};

void handle_shortcuts(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || app.ui.presenter) return;  // presenter mode has its own keys
  for (const Shortcut& s : kShortcuts)
    if (s.run && s.key != ImGuiKey_COUNT && ImGui::IsKeyPressed(ImGui::GetKeyIndex(s.key))) s.run(app);
  for (ImWchar c : io.InputQueueCharacters)
    for (const Shortcut& s : kShortcuts)
      if (s.run && c < 128 && c != 0 && std::strchr(s.chars, (int)c)) {
        s.run(app);
        break;
      }
}

// The end of every frame, in either mode.
// [SECTION] text capture (attnlab.drawnText(), for tests)
// Dear ImGui's log records every text a widget renders, but it is scoped to one window: each top-level
// End() finishes it, handing a "clipboard" log to io.SetClipboardTextFn. So for the capture frame the
// clipboard function collects the pieces, and the log is started again before each panel (place())
// and after each remembered widget (remember_item()). Depth 0: the log opens no tree node.
namespace {
struct SavedClipboard {
  void (*set)(void*, const char*) = nullptr;
  void* user = nullptr;
} saved_clipboard;
}  // namespace

void begin_text_capture(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  saved_clipboard = {io.SetClipboardTextFn, io.ClipboardUserData};
  app.drawn_text.clear();
  io.ClipboardUserData = &app;
  io.SetClipboardTextFn = [](void* user, const char* text) {
    std::string& out = static_cast<App*>(user)->drawn_text;
    out += text;
    out += '\n';
  };
  ImGui::LogToClipboard(0);
}

void resume_text_capture(App& app) {
  if (app.capture_text && !ImGui::GetCurrentContext()->LogEnabled) ImGui::LogToClipboard(0);
}

void end_text_capture(App& app) {
  ImGui::LogFinish();
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = saved_clipboard.set;
  io.ClipboardUserData = saved_clipboard.user;
  app.capture_text = false;
}

void end_frame(App& app, uint64_t version_at_start) {
  if (app.capture_text) end_text_capture(app);
  remember_windows(app);  // every window drawn this frame, the tour and the notice included
  heatmap_collect_garbage(app.heatmaps, app.textures);
  app.tooltip_shown = false;  // any tooltip or hover card this frame (a finger that lifted must leave none)
  app.windows_settling = false;  // a window that appeared this frame is measured first and shown the next
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (w->Active && !w->Hidden && (w->Flags & ImGuiWindowFlags_Tooltip)) app.tooltip_shown = true;
    if (w->Active && !(w->Flags & ImGuiWindowFlags_ChildWindow) && (w->Appearing || w->HiddenFramesCannotSkipItems > 0))
      app.windows_settling = true;
  }
  app.drawn_version = version_at_start;
  // Keep drawing while a flash fades or a notice is up, and once more after, to take them away.
  const double now = ImGui::GetTime();
  const double until = std::max(app.ui.focus_until, app.notice.empty() || app.notice_sticky ? 0.0 : app.notice_until);
  app.animate_for = until > now ? until - now + 0.1 : 0.0;
}

}  // namespace

std::span<const Shortcut> shortcuts() { return kShortcuts; }

void frame(App& app) {
  for (ViewRect& v : app.view_rects) v.drawn_last = v.drawn, v.drawn = false;
  app.widget_visible.clear();
  // Panels drawn before this frame's sync show the previous result: if it changes during the
  // frame, the frame is not the final picture, so needs_redraw() asks for another.
  const uint64_t version_at_start = app.result_version;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.DisplaySize.x != app.last_display_size.x || io.DisplaySize.y != app.last_display_size.y) {
    app.layout_dirty = true;
    app.last_display_size = io.DisplaySize;
  }
  // A layout change asked for during a frame (a button that hides the side panels, a mode switch) is
  // applied from the next frame's start, when every window is placed afresh.
  app.relayout = std::exchange(app.layout_dirty, false);
  // Hovers found while drawing last frame drive this frame's highlights.
  app.ui.hover = app.ui.hover_next;
  app.ui.hover_token = app.ui.hover_token_next;
  app.ui.hover_next = {};
  app.ui.hover_token_next = -1;

  if (app.labels_version != app.result_version) refresh_labels(app);
  if (app.capture_text) begin_text_capture(app);
  handle_shortcuts(app);
  learn_tick(app);  // training takes its slice of the frame whichever mode is shown
  // The windows of a mode that comes back take the front as they reappear: the tour goes back in front
  // of them, whichever way the mode changed (a key, a button, Open in the lab, a tour step).
  if (app.ui.learn_mode != app.drawn_learn_mode) app.ui.tour_raise = 2, app.drawn_learn_mode = app.ui.learn_mode;
  // The tour opening, closing or being dragged out of its slot changes every panel's place.
  if (const bool docked = app.ui.show_tour && !app.ui.tour_moved; docked != app.drawn_tour_docked)
    app.relayout = true, app.drawn_tour_docked = docked;
  if (app.ui.learn_mode) {
    draw_learn_mode(app);
    if (app.ui.show_tour) keep_on_screen(app, "Tour"), draw_tour_window(app);  // the tour's Learn chapter
    draw_notice(app);
    return end_frame(app, version_at_start);
  }

  if (app.ui.presenter) {
    app.tour_slot = {};  // over the presenter's view, floating
    draw_presenter(app);
  } else {
    const Placement P = choose_layout(app, io.DisplaySize.x, io.DisplaySize.y);
    if (P.mode != app.ui.layout) app.relayout = true;
    app.ui.layout = P.mode;
    place(app, P.pipeline);
    draw_pipeline_panel(app);
    place(app, P.nav);
    draw_nav_bar(app);
    if (P.input.w > 0) place(app, P.input), draw_input_panel(app);
    if (P.controls.w > 0) place(app, P.controls), draw_controls_panel(app);

    sync_engine(app);  // controls changed this frame show in this frame's matrices

    if (P.matrices.w > 0) place(app, P.matrices), draw_matrices_panel(app);
    if (P.inspector.w > 0) place(app, P.inspector), draw_inspector_panel(app);
    if (P.heads.w > 0) place(app, P.heads), draw_heads_panel(app);
    if (P.lines.w > 0) place(app, P.lines), draw_lines_panel(app);
    if (P.status.w > 0) place(app, P.status), draw_status_bar(app);
    app.tour_slot = P.tour;
  }
  draw_hover_card(app);
  if (app.ui.show_help) keep_on_screen(app, "Help"), draw_help_window(app);
  if (app.ui.show_tour) keep_on_screen(app, "Tour"), draw_tour_window(app);
  draw_notice(app);

  sync_engine(app);  // clicks in the matrices (mask cells, edits) are ready for the next frame
  end_frame(app, version_at_start);
}

bool needs_redraw(const App& app, double seconds_since_last_frame) {
  return app.fonts_dirty || app.layout_dirty || app.windows_settling || app.drawn_version != app.result_version ||
         app.engine.needs_compute() || seconds_since_last_frame < app.animate_for || app.ui.focus_text ||
         learn_busy(app);
}

std::string stats_json(const App& app) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"frame_ms_median\":%.4f,\"frame_ms_p95\":%.4f,\"recompute_ms\":%.4f,\"frames\":%lld,"
                "\"ui_ms_median\":%.4f,\"ui_ms_p95\":%.4f,\"texture_uploads\":%lld,\"vertices\":%d}",
                app.stats.percentile(0.5f), app.stats.percentile(0.95f), app.recompute_ms, app.stats.frames,
                app.ui_stats.percentile(0.5f), app.ui_stats.percentile(0.95f), app.heatmaps.uploads, app.last_vertices);
  return buf;
}

ImGuiWindow* find_window(const char* id) {
  if (ImGuiWindow* w = ImGui::FindWindowByName((std::string("###") + id).c_str())) return w;
  return ImGui::FindWindowByName(id);
}

void remember_item(App& app, const char* name) {
  resume_text_capture(app);
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  app.widget_rects[name] = ImVec4(a.x, a.y, b.x - a.x, b.y - a.y);
  // The part not clipped by its window (what the page may cover with an HTML element), this frame only.
  const ImRect clip = ImGui::GetCurrentWindow()->ClipRect;
  const ImVec2 lo(std::max(a.x, clip.Min.x), std::max(a.y, clip.Min.y)), hi(std::min(b.x, clip.Max.x), std::min(b.y, clip.Max.y));
  if (hi.x > lo.x && hi.y > lo.y) app.widget_visible[name] = ImVec4(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y);
}

std::string layout_json(const App& app) {
  std::string out = "{";
  {
    const ImGuiIO& io = ImGui::GetIO();
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "\"_ui\":{\"mode\":\"%s\",\"display_w\":%.1f,\"display_h\":%.1f,\"ui_scale\":%.3g,\"font_px\":%.1f,"
                  "\"big_font_px\":%.1f,\"presenter\":%s,\"presenter_both\":%s,\"high_contrast\":%s,\"side_collapsed\":%s",
                  layout_mode_name(app.ui.layout), io.DisplaySize.x, io.DisplaySize.y, app.ui.ui_scale, ImGui::GetFontSize(),
                  app.big_font ? app.big_font->FontSize : 0.0f, app.ui.presenter ? "true" : "false", app.presenter_both ? "true" : "false",
                  app.ui.high_contrast ? "true" : "false", app.ui.side_collapsed ? "true" : "false");
    out += buf;
    // The tour, the first-screen rule and the notice on screen (docs/web-api.md).
    std::snprintf(buf, sizeof buf, ",\"tooltip\":%s,\"lesson_first\":%s,\"tour\":{\"open\":%s,\"step\":%d,\"done\":%s,\"ticks\":%u}",
                  app.tooltip_shown ? "true" : "false", app.ui.lesson_first ? "true" : "false", app.ui.show_tour ? "true" : "false", app.ui.tour_step,
                  tour_step_done(app) ? "true" : "false", app.ui.tour_ticks);
    out += buf;
    const auto quote = [](const std::string& t) { return nlohmann::json(t).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
    out += ",\"notice\":" + quote(notice_showing(app) ? app.notice : std::string()) +
           ",\"notice_title\":" + quote(notice_showing(app) ? app.notice_title : std::string()) + "}";
    out += ",\"_windows\":{";
    for (size_t i = 0; i < app.window_rects.size(); ++i) {
      const WindowRect& w = app.window_rects[i];
      std::snprintf(buf, sizeof buf, "%s\"%s\":{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f,\"scroll\":%d,\"clipped\":%s}", i ? "," : "",
                    w.name.c_str(), w.x, w.y, w.w, w.h, w.scroll, w.clipped ? "true" : "false");
      out += buf;
    }
    out += "}";
  }
  for (const auto& [name, r] : app.widget_rects) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s\"%s\":{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", out.size() > 1 ? "," : "",
                  name.c_str(), r.x, r.y, r.z, r.w);
    out += buf;
  }
  for (int v = 0; v < (int)View::count; ++v) {  // each matrix's whole block, for PNGs of one view
    const ImVec4& b = app.block_rects[v];
    if (!app.view_rects[v].drawn || b.z <= 0.0f) continue;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s\"block:%s\":{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", out.size() > 1 ? "," : "",
                  view_key((View)v), b.x, b.y, b.z, b.w);
    out += buf;
  }
  for (int v = 0; v < (int)View::count; ++v) {
    const ViewRect& r = app.view_rects[v];
    if (!r.drawn) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s\"%s\":{\"x\":%.1f,\"y\":%.1f,\"cell_w\":%.2f,\"cell_h\":%.2f,\"rows\":%d,\"cols\":%d,\"head\":%d}",
                  out.size() > 1 ? "," : "", view_key((View)v), r.x, r.y, r.cell_w, r.cell_h, r.rows, r.cols, r.head);
    out += buf;
  }
  return out + "}";
}

}  // namespace attnlab
