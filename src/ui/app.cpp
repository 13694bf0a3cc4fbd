#include "app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mask.h"
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

void notify(App& app, std::string message) {
  app.notice = std::move(message);
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
    notify(app, std::to_string(dropped) + (dropped == 1 ? " edit was" : " edits were") +
                    " dropped: the cell no longer exists at these sizes");
}

}  // namespace

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
  if (ImGui::GetCurrentContext()) {
    app.labels.clear(), app.source_labels.clear();
    for (const std::string& t : r.tokens) app.labels.push_back(drawable_label(t));
    for (const std::string& t : r.source_tokens) app.source_labels.push_back(drawable_label(t));
  }
  app.recompute_ms = (float)app.engine.last_compute_ms();
  app.ui.head = std::clamp(app.ui.head, 0, r.heads - 1);
  if (app.ui.query >= r.n) app.ui.query = -1;
  // Say what happened to the input when it was read again, not on every later recompute.
  if (app.engine.last_recomputed() & (1u << (int)attn::Stage::embed)) {
    if (r.dropped_tokens > 0)
      notify(app, "Input clamped to " + std::to_string(r.n) + " tokens (" + std::to_string(r.dropped_tokens) +
                      " more were left out)");
    if (r.invalid_bytes > 0) notify(app, std::to_string(r.invalid_bytes) + " bytes of invalid UTF-8 shown as \xEF\xBF\xBD");
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

std::string apply_config(App& app, attn::Config c) {
  // The lab shows at most 256 tokens; longer input is clamped (and says so) rather than refused.
  c.max_tokens = std::min(c.max_tokens, attn::Limits::max_tokens_ui);
  c.truncate = true;
  attn::Engine probe;  // validate without touching the live engine
  if (std::string err = probe.set_config(c); !err.empty()) return err;
  app.config = std::move(c);
  app.text = joined(app.config.target);
  app.source = joined(app.config.source);
  sync_engine(app);
  return app.error;
}

// [SECTION] style
void setup_style(App& app, const void* ttf, int ttf_size, float ui_scale) {
  app.ui.ui_scale = app.ui.ui_scale_edit = std::clamp(ui_scale, 0.6f, 3.0f);
  app.style_scale = app.ui.ui_scale * app.dpi_scale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
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
      0xFFFD, 0xFFFD,  // replacement character
      0,
  };
  if (ttf && ttf_size > 0) {
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;
    cfg.OversampleH = 2;
    io.Fonts->AddFontFromMemoryTTF(const_cast<void*>(ttf), ttf_size, std::round(16.0f * app.style_scale), &cfg, ranges);
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * app.style_scale);
    io.Fonts->AddFontDefault(&cfg);
  }
  io.Fonts->Build();
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
  style.ScaleAllSizes(app.style_scale);
  ImGui::GetStyle() = style;
  app.fonts_dirty = false;
  app.layout_dirty = true;
}

// [SECTION] layout and keyboard
namespace {

struct Rect {
  float x, y, w, h;
};

// Positions the next window (named for the reader; ImGui applies it to the next Begin). The layout is
// re-applied when the display size changes, otherwise windows keep where the person put them.
void place(App& app, const char* /*window*/, Rect r) {
  const ImGuiCond cond = app.layout_dirty ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

void cycle_mask(App& app) {
  // none -> causal -> sliding window (3, causal) -> none
  auto& mask = app.config.mask;
  const bool has_causal = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
  const bool has_window = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::window; });
  mask.clear();
  if (!has_causal && !has_window) {
    mask.push_back({attn::MaskTerm::Kind::causal});
    notify(app, "Mask: causal");
  } else if (has_causal) {
    attn::MaskTerm w{attn::MaskTerm::Kind::window};
    w.window = 3;
    mask.push_back(w);
    notify(app, "Mask: sliding window of 3 (causal)");
  } else {
    notify(app, "Mask: none");
  }
}

// Shortcuts are typed characters (layout-independent, and Dear ImGui 1.86 names only a few keys),
// read only while no text box has the keyboard.
void handle_shortcuts(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  const int heads = std::max(app.engine.result().heads, 1);
  if (io.WantTextInput) return;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown))) app.ui.head = (app.ui.head + 1) % heads;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) app.ui.head = (app.ui.head + heads - 1) % heads;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) app.ui.selected = {}, app.ui.query = -1;
  for (ImWchar c : io.InputQueueCharacters) {
    switch (c) {
      case ']': app.ui.head = (app.ui.head + 1) % heads; break;
      case '[': app.ui.head = (app.ui.head + heads - 1) % heads; break;
      case 'm': case 'M': cycle_mask(app); break;
      case '/': app.ui.focus_text = true; break;
      case 'n': case 'N': app.ui.show_numbers = !app.ui.show_numbers; break;
      case 'h': case 'H': case '?': app.ui.show_help = !app.ui.show_help; break;
      case 't': case 'T': app.ui.show_tour = !app.ui.show_tour; break;
      case 'w': case 'W': app.ui.show_weights = !app.ui.show_weights; break;
      case 'l': case 'L': app.ui.learn_mode = !app.ui.learn_mode, app.layout_dirty = true; break;
      default: break;
    }
  }
}

// The end of every frame, in either mode.
void end_frame(App& app, uint64_t version_at_start) {
  heatmap_collect_garbage(app);
  app.layout_dirty = false;
  app.drawn_version = version_at_start;
  // Keep drawing while a flash fades or a notice is up, and once more after, to take them away.
  const double now = ImGui::GetTime();
  const double until = std::max(app.ui.focus_until, app.notice.empty() ? 0.0 : app.notice_until);
  app.animate_for = until > now ? until - now + 0.1 : 0.0;
}

}  // namespace

void frame(App& app) {
  for (ViewRect& v : app.view_rects) v.drawn = false;
  // Panels drawn before this frame's sync show the previous result: if it changes during the
  // frame, the frame is not the final picture, so needs_redraw() asks for another.
  const uint64_t version_at_start = app.result_version;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.DisplaySize.x != app.last_display_size.x || io.DisplaySize.y != app.last_display_size.y) {
    app.layout_dirty = true;
    app.last_display_size = io.DisplaySize;
  }
  // Hovers found while drawing last frame drive this frame's highlights.
  app.ui.hover = app.ui.hover_next;
  app.ui.hover_token = app.ui.hover_token_next;
  app.ui.hover_next = {};
  app.ui.hover_token_next = -1;

  handle_shortcuts(app);
  learn_tick(app);  // training takes its slice of the frame whichever mode is shown
  if (app.ui.learn_mode) return draw_learn_mode(app), end_frame(app, version_at_start);

  const float s = app.style_scale;
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  const ImVec2 pad = ImGui::GetStyle().WindowPadding;
  const float min_h = ImGui::GetStyle().WindowMinSize.y;
  const float top = std::max(min_h, ImGui::GetFrameHeight() + 2.0f * pad.y);         // the pipeline strip
  const float bottom = std::max(min_h, ImGui::GetTextLineHeight() + 2.0f * pad.y);  // the status bar
  const float left_w = std::clamp(W * 0.22f, 250.0f * s, 380.0f * s);
  const float right_w = std::clamp(W * 0.22f, 250.0f * s, 420.0f * s);
  const float mid_w = std::max(200.0f, W - left_w - right_w);
  const float body_h = H - top - bottom;

  place(app, "pipeline", {0, 0, W, top});
  draw_pipeline_panel(app);
  place(app, "Input", {0, top, left_w, body_h * 0.34f});
  draw_input_panel(app);
  place(app, "Controls", {0, top + body_h * 0.34f, left_w, body_h * 0.66f});
  draw_controls_panel(app);

  sync_engine(app);  // controls changed this frame show in this frame's matrices

  place(app, "Matrices", {left_w, top, mid_w, body_h});
  draw_matrices_panel(app);
  place(app, "Inspector", {left_w + mid_w, top, right_w, body_h * 0.36f});
  draw_inspector_panel(app);
  place(app, "All heads", {left_w + mid_w, top + body_h * 0.36f, right_w, body_h * 0.30f});
  draw_heads_panel(app);
  place(app, "Lines", {left_w + mid_w, top + body_h * 0.66f, right_w, body_h * 0.34f});
  draw_lines_panel(app);
  place(app, "status", {0, H - bottom, W, bottom});
  draw_status_bar(app);
  draw_mode_switch(app);

  draw_hover_card(app);
  if (app.ui.show_help) draw_help_window(app);
  if (app.ui.show_tour) draw_tour_window(app);

  sync_engine(app);  // clicks in the matrices (mask cells, edits) are ready for the next frame
  end_frame(app, version_at_start);
}

bool needs_redraw(const App& app, double seconds_since_last_frame) {
  return app.fonts_dirty || app.layout_dirty || app.drawn_version != app.result_version ||
         app.engine.needs_compute() || seconds_since_last_frame < app.animate_for || app.ui.focus_text ||
         learn_busy(app);
}

std::string stats_json(const App& app) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"frame_ms_median\":%.4f,\"frame_ms_p95\":%.4f,\"recompute_ms\":%.4f,\"frames\":%lld,"
                "\"ui_ms_median\":%.4f,\"ui_ms_p95\":%.4f,\"texture_uploads\":%lld,\"vertices\":%d}",
                app.stats.percentile(0.5f), app.stats.percentile(0.95f), app.recompute_ms, app.stats.frames,
                app.ui_stats.percentile(0.5f), app.ui_stats.percentile(0.95f), app.texture_uploads, app.last_vertices);
  return buf;
}

void remember_item(App& app, const char* name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  app.widget_rects[name] = ImVec4(a.x, a.y, b.x - a.x, b.y - a.y);
}

std::string layout_json(const App& app) {
  std::string out = "{";
  for (const auto& [name, r] : app.widget_rects) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s\"%s\":{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", out.size() > 1 ? "," : "",
                  name.c_str(), r.x, r.y, r.z, r.w);
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
