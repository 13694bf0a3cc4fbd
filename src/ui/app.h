// app.h — the lab: the engine, the config the controls edit, the UI state, and the one frame function
// that both the desktop and the web loops call.
//
// Flow of one frame:  input/controls panels edit app.config -> sync_engine() hands it to the engine
// (which recomputes only the stages that changed) -> the matrix panels draw the engine's cached
// result. Panels never call the math themselves.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "engine.h"
#include "imgui.h"
#include "textures.h"
#include "ui_state.h"

namespace attnlab {

struct LearnState;  // learn.h

// Frame times over the last kWindow frames, for the status bar and window.attnlab.stats().
struct FrameStats {
  static constexpr int kWindow = 240;
  float ms[kWindow] = {};
  int count = 0, next = 0;
  long long frames = 0;
  void add(float frame_ms);
  float percentile(float p) const;  // p in [0, 1] over the stored frames
};

struct HeatmapTexture {
  ImTextureID id{};
  int w = 0, h = 0;
  uint64_t version = ~0ull;
  float range = 1.0f;  // the colour scale's ±range for signed data
  int last_used_frame = 0;
};

// Where a matrix's cells were drawn last frame (screen pixels): lets tests and the page API find cells.
struct ViewRect {
  float x = 0, y = 0, cell_w = 0, cell_h = 0;
  int rows = 0, cols = 0, head = 0;
  bool drawn = false;
};

struct App {
  attn::Engine engine;
  attn::Config config;       // what the controls edit; the engine holds the last one that was valid
  std::string text, source;  // the text boxes (their contents go into config on every edit)
  std::string error;         // why the current config was not taken (shown until it is fixed)
  std::string notice;        // a passing message ("2 edits dropped ...")
  double notice_until = 0.0;
  UiState ui;
  FrameStats stats;     // whole frames, as the shell measures them
  FrameStats ui_stats;  // the UI's share: frame(App&) alone (the rest is drawing)
  uint64_t result_version = 0;  // bumps whenever the engine recomputed something
  // Tokens as the UI font can draw them: a character the font lacks (CJK, emoji with DejaVu Sans)
  // shows as its code point, U+732B, instead of an anonymous box. Rebuilt with each result.
  std::vector<std::string> labels, source_labels;
  float recompute_ms = 0.0f;

  TextureBackend* textures = nullptr;  // set by the shell; nullptr: heatmaps draw plain rectangles
  std::unordered_map<ImGuiID, HeatmapTexture> heatmaps;
  std::vector<uint32_t> pixel_scratch;
  long long texture_uploads = 0;
  int last_vertices = 0;  // vertices ImGui produced for the last drawn frame
  ViewRect view_rects[(int)View::count];
  std::unordered_map<std::string, ImVec4> widget_rects;  // named controls' last rect (x, y, w, h)
  float style_scale = 1.0f;  // ui_scale × device pixel ratio: what fonts and sizes were built for
  float dpi_scale = 1.0f;    // set by the shell (devicePixelRatio on the web)
  bool fonts_dirty = true;   // the shell rebuilds the font texture when set
  bool layout_dirty = true;
  uint64_t drawn_version = ~0ull;  // result_version when the last frame was drawn
  double animate_for = 0.0;        // seconds after the last frame during which something still moves
  // The shell's way to share the current config: the web shell writes it into the page's link
  // (#c=...) and copies that; the desktop shell copies the JSON. Receives config_to_json(config).
  std::function<void(const std::string&)> share;
  ImVec2 last_display_size{0, 0};
  std::shared_ptr<LearnState> learn;  // Learn mode (learn.h), created on first use
};

// The lab's defaults: a sentence, 4 heads, no mask; the UI clamps input to 256 tokens.
attn::Config default_lab_config();

// Replaces the whole config (the API, presets, shared links). On error returns one line naming the
// field, and nothing changes.
std::string apply_config(App& app, attn::Config config);

// Hands app.config to the engine if it changed, fitting edits and masks to the current tokens first.
void sync_engine(App& app);

// Shows a passing message in the status bar for a few seconds.
void notify(App& app, std::string message);

// Sets fonts and style for a UI scale (1 = 16 px text). Needs the font file bytes (not owned).
void setup_style(App& app, const void* ttf, int ttf_size, float ui_scale);

// Remembers the last item's rectangle under `name` (for layout_json: tests and scripted tours).
void remember_item(App& app, const char* name);

// Whether the lab must draw a frame although no input arrived: results changed, fonts or layout
// need rebuilding, or something is animating. Shells skip idle frames (no input and this false):
// the screen keeps the last frame, which saves the whole cost of drawing it.
bool needs_redraw(const App& app, double seconds_since_last_frame);

// One frame of UI, between ImGui::NewFrame() and ImGui::Render().
void frame(App& app);

// JSON snapshots for window.attnlab and tests.
std::string stats_json(const App& app);
// Where each matrix view was drawn: {"weights": {"x":..,"y":..,"cell_w":..,"cell_h":..,"rows":..,"cols":..,"head":..}, ...}
std::string layout_json(const App& app);

}  // namespace attnlab
