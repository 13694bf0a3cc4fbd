// page_json.cpp — the JSON snapshots window.attnlab and the tests read: frame statistics (stats_json)
// and where everything was drawn (layout_json; docs/web-api.md). Written through attn::JsonWriter;
// each number keeps the precision the page has always had (printf's %.1f and friends), so the
// documents are byte for byte what they were.
#include <cstdio>
#include <string>
#include <string_view>

#include "app.h"
#include "imgui.h"
#include "json_writer.h"
#include "panels.h"

namespace attnlab {
namespace {

// v in printf's `format` ("%.1f"), as a JSON number.
void number(attn::JsonWriter& w, const char* format, double v) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  w.raw(b);
}

// Opens the object `name`: {x, y, w, h in tenths of a pixel, …}; the caller adds any other fields and closes it.
void open_rect(attn::JsonWriter& w, std::string_view name, float x, float y, float width, float height) {
  w.key(name);
  w.begin_object();
  const std::pair<const char*, float> parts[] = {{"x", x}, {"y", y}, {"w", width}, {"h", height}};
  for (const auto& [k, v] : parts) w.key(k), number(w, "%.1f", v);
}

}  // namespace

std::string stats_json(const App& app, std::string_view input_json) {
  std::string out;
  attn::JsonWriter w(&out, -1);
  w.begin_object();
  w.key("frame_ms_median"), number(w, "%.4f", app.stats.percentile(0.5f));
  w.key("frame_ms_p95"), number(w, "%.4f", app.stats.percentile(0.95f));
  w.key("recompute_ms"), number(w, "%.4f", app.recompute_ms);
  w.key("frames"), w.value((int64_t)app.stats.frames);
  w.key("ui_ms_median"), number(w, "%.4f", app.ui_stats.percentile(0.5f));
  w.key("ui_ms_p95"), number(w, "%.4f", app.ui_stats.percentile(0.95f));
  w.key("texture_uploads"), w.value((int64_t)app.heatmaps.uploads);
  w.key("vertices"), w.value((int64_t)app.last_vertices);
  if (!input_json.empty()) w.key("input"), w.raw(input_json);
  w.end_object();
  w.flush();
  return out;
}

std::string layout_json(const App& app) {
  std::string out;
  attn::JsonWriter w(&out, -1);
  w.begin_object();
  const ImGuiIO& io = ImGui::GetIO();
  const bool notice = notice_showing(app);
  w.key("_ui");
  w.begin_object();
  w.key("mode"), w.value(std::string_view(layout_mode_name(app.ui.layout)));
  w.key("display_w"), number(w, "%.1f", io.DisplaySize.x);
  w.key("display_h"), number(w, "%.1f", io.DisplaySize.y);
  w.key("ui_scale"), number(w, "%.3g", app.ui.ui_scale);
  w.key("font_px"), number(w, "%.1f", ImGui::GetFontSize());
  w.key("big_font_px"), number(w, "%.1f", app.big_font ? app.big_font->FontSize : 0.0f);
  w.key("presenter"), w.value(app.ui.presenter);
  w.key("presenter_both"), w.value(app.presenter_both);
  w.key("high_contrast"), w.value(app.ui.high_contrast);
  w.key("side_collapsed"), w.value(app.ui.side_collapsed);
  // The tour, the first-screen rule and the notice on screen (docs/web-api.md).
  w.key("tooltip"), w.value(app.tooltip_shown);
  w.key("lesson_first"), w.value(app.ui.lesson_first);
  w.key("tour");
  w.begin_object();
  w.key("open"), w.value(app.ui.show_tour);
  w.key("step"), w.value((int64_t)app.ui.tour_step);
  w.key("done"), w.value(tour_step_done(app));
  w.key("ticks"), w.value((int64_t)app.ui.tour_ticks);
  w.end_object();
  w.key("notice"), w.value(std::string_view(notice ? app.notice : std::string()));
  w.key("notice_title"), w.value(std::string_view(notice ? app.notice_title : std::string()));
  w.end_object();
  w.key("_windows");
  w.begin_object();
  for (const WindowRect& r : app.window_rects) {
    open_rect(w, r.name, r.x, r.y, r.w, r.h);
    w.key("scroll"), w.value((int64_t)r.scroll);
    w.key("clipped"), w.value(r.clipped);
    w.end_object();
  }
  w.end_object();
  for (const auto& [name, r] : app.widget_rects) open_rect(w, name, r.x, r.y, r.z, r.w), w.end_object();
  for (int v = 0; v < (int)View::count; ++v) {  // each matrix's whole block, for PNGs of one view
    const ImVec4& b = app.block_rects[v];
    if (!app.view_rects[v].drawn || b.z <= 0.0f) continue;
    open_rect(w, std::string("block:") + view_key((View)v), b.x, b.y, b.z, b.w);
    w.key("whole"), w.value(app.block_whole[v]);  // all of it inside its window's visible area
    w.end_object();
  }
  for (int v = 0; v < (int)View::count; ++v) {
    const ViewRect& r = app.view_rects[v];
    if (!r.drawn) continue;
    w.key(view_key((View)v));
    w.begin_object();
    w.key("x"), number(w, "%.1f", r.x);
    w.key("y"), number(w, "%.1f", r.y);
    w.key("cell_w"), number(w, "%.2f", r.cell_w);
    w.key("cell_h"), number(w, "%.2f", r.cell_h);
    w.key("rows"), w.value((int64_t)r.rows);
    w.key("cols"), w.value((int64_t)r.cols);
    w.key("head"), w.value((int64_t)r.head);
    w.end_object();
  }
  w.end_object();
  w.flush();
  return out;
}

}  // namespace attnlab
