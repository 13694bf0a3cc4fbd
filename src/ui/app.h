// app.h — the lab: the engine, the config the controls edit, the UI state, and the one frame function
// that both the desktop and the web loops call.
//
// Flow of one frame:  input/controls panels edit app.config -> sync_engine() hands it to the engine
// (which recomputes only the stages that changed) -> the matrix panels draw the engine's cached
// result. Panels never call the math themselves.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "engine.h"
#include "heatmap.h"
#include "i18n.h"
#include "imgui.h"
#include "textures.h"
#include "ui_state.h"

struct ImGuiWindow;  // imgui_internal.h

namespace attn {
class SessionLink;  // io/session_link.h
}

namespace attnlab {

struct App;
struct LearnState;  // learn.h

// Frame times over the last kWindow frames, for the status bar and window.attnlab.stats().
struct FrameStats {
  static constexpr int kWindow = 240;
  float ms[kWindow] = {};
  int count = 0, next = 0;
  long long frames = 0;
  // Where the app's first frame is stored, while it is (-1: not). That frame builds the font atlas
  // and, in a browser, waits for the shaders and has the UI's code compiled: 0.1–0.3 s, once.
  int startup = -1;
  void add(float frame_ms, bool startup_frame = false);
  // p in [0, 1] over the stored frames; `steady`: leaving out the first frame while others are stored
  // (what the status bar says a frame takes).
  float percentile(float p, bool steady = false) const;
};

// Where a matrix's cells were drawn last frame (screen pixels): lets tests and the page API find cells.
struct ViewRect {
  float x = 0, y = 0, cell_w = 0, cell_h = 0;
  int rows = 0, cols = 0, head = 0;
  bool drawn = false;       // this frame (so far: panels drawn before the matrices see false)
  bool drawn_last = false;  // last frame (what a menu drawn before the matrices may offer)
};

// A window's place on the display (pixels).
struct WinRect {
  float x = 0, y = 0, w = 0, h = 0;
};

// Where each window goes this frame; w = 0: not shown.
struct Placement {
  LayoutMode mode = LayoutMode::columns;
  WinRect pipeline, nav, status;
  WinRect tour;  // the open tour's own slot (it covers no panel); w = 0: closed, or floating where the learner dragged it
  std::array<WinRect, (size_t)Pane::count> panes;  // each side panel's (panes.h)
  WinRect& operator[](Pane p) { return panes[(size_t)p]; }
  const WinRect& operator[](Pane p) const { return panes[(size_t)p]; }
};

// A drawn top-level window, for layout_json. scroll: 0 fits, 1 scrolls, 2 too big for a window that cannot scroll.
// clipped: something in it is wider than the window, which cannot scroll sideways (a label cut at its edge).
struct WindowRect {
  std::string name;
  float x, y, w, h;
  int scroll;
  bool clipped = false;
};

// A keyboard shortcut (shortcuts.cpp's table, also what the Help window lists): typed characters and/or a
// named key, what it does in words, and the action (nullptr: Dear ImGui's own navigation, listed only).
struct Shortcut {
  const char* chars;  // typed characters that trigger it ("": none)
  ImGuiKey key;       // a named key that triggers it (ImGuiKey_COUNT: none)
  Key keys;           // for people: "] or PageDown" (catalogue keys, i18n.h)
  Key what;
  void (*run)(App& app);
};
std::span<const Shortcut> shortcuts();

// [SECTION] App, by job. App is the four parts below plus the UI state; each member keeps its plain
// name (app.engine, app.download, app.view_rects), and a function that needs only one part can take it.

// The lab's data: the config the controls edit, the engine and its result, the text boxes, the notice.
struct LabState {
  attn::Engine engine;
  attn::Config config;       // what the controls edit; the engine holds the last one that was valid
  std::string text, source;  // the text boxes (their contents go into config on every edit)
  std::string error;         // why the current config was not taken (shown until it is fixed)
  std::string notice;        // a passing message ("2 edits dropped ...") or a problem (notice_sticky)
  std::string notice_title;  // a problem's headline ("This link could not be opened")
  bool notice_sticky = false;  // a problem: shown until closed
  double notice_until = 0.0;
  uint64_t result_version = 0;  // bumps whenever the engine recomputed something
  // Tokens as the UI font can draw them: a character the font lacks (CJK, emoji with DejaVu Sans)
  // shows as its code point, U+732B, instead of an anonymous box. Rebuilt with each result.
  std::vector<std::string> labels, source_labels;
  uint64_t labels_version = ~0ull;  // result_version the token labels were made for
  float recompute_ms = 0.0f;
  // The status bar's frame time came from the first frame alone (FrameStats::startup): the frame after
  // one more is stored is drawn, so that a page just loaded does not keep saying "drawn in 300 ms".
  bool status_shows_first_frame = false;
  std::shared_ptr<LearnState> learn;  // Learn mode (learn.h), created on first use
};

// What the shell gives the lab: its textures and pixel ratio, and its ways to share, save and open
// files, fetch languages and fonts, and run Learn mode off the UI's thread. Unset: not in this shell.
struct ShellHooks {
  TextureBackend* textures = nullptr;  // set by the shell; nullptr: heatmaps draw plain rectangles
  float dpi_scale = 1.0f;              // set by the shell (devicePixelRatio on the web)
  bool external_text_boxes = false;    // the web page lays real <textarea>s over the text boxes
  // The shell's way to share the current config: the web shell writes it into the page's link
  // (#c=...) and copies that; the desktop shell copies the JSON. Receives config_to_json(config).
  std::function<void(const std::string&)> share;
  // The same for a training run (Learn mode): receives learn_run_json(); the web shell makes a #train=
  // link that trains the same run again. open_file: the shell asks the person for a file (the web
  // shell's file picker) and hands it to learn_open_model or apply_setup; unset where there is none.
  std::function<void(const std::string&)> share_run;
  std::function<void()> open_file;
  // Files leaving the lab (export.h). download: the shell saves `data` as `filename` (the web shell
  // as a browser download). save_png: after this frame is drawn, the shell saves what is on screen as
  // a PNG: the rect `crop` (x, y, w, h in ImGui's pixels; w = 0: the whole display). The UI asks only
  // once the picture is wholly on screen (export.h request_png). Unset: the Export menu says this
  // build cannot save files.
  std::function<void(const std::string& filename, const std::string& mime, const std::string& data)> download;
  std::function<void(const std::string& filename, ImVec4 crop)> save_png;
  // A shell's way to run Learn mode's session off the UI's thread (a std::thread, a Web Worker), asked
  // when Learn mode starts; null or returning null: in slices of each frame (io/session_link.h).
  std::function<std::unique_ptr<attn::SessionLink>()> session_link;
  // Languages (i18n.h, languages.cpp). load_language: the shell fetches a catalogue that is not
  // compiled in (the web shell: lang/<code>.txt from the page's own origin) and hands it to
  // choose_language; unset where every catalogue is compiled in.
  std::function<void(const std::string& code)> load_language;
  // The shell's way to fetch the CJK font (FontState), asked once, when a CJK language is chosen or
  // CJK text is typed.
  std::function<void()> load_cjk_font;
};

// Fonts and style (style.cpp): what the atlas was built for and from.
struct FontState {
  ImFont* big_font = nullptr;  // presenter mode's type (≥ 24 CSS px at every UI scale)
  float style_scale = 1.0f;    // ui_scale × device pixel ratio: what fonts and sizes were built for
  bool fonts_dirty = true;     // the shell rebuilds the font texture when set
  // The CJK font, a subset of WenQuanYi Micro Hei made at build time: its bytes (not owned) once the
  // shell has them. cjk_chars: the characters the atlas takes from it (the catalogue's and the
  // tokens'), so the atlas holds only what is drawn; a new one rebuilds the fonts.
  const void* cjk_font = nullptr;
  int cjk_font_size = 0;
  bool cjk_font_asked = false;
  std::vector<ImWchar> cjk_chars;   // sorted
  std::vector<ImWchar> cjk_ranges;  // cjk_chars as ImGui glyph ranges (alive while the atlas is built)
};

// A PNG asked for from the Export menu (export.h request_png), waiting until its picture is on screen.
struct PngRequest {
  bool pending = false;
  View view = View::count;  // View::count: the whole lab
  std::string name;
  int frames = 0;                  // frames since it was asked for
  int scrolled_at = 0;             // the frame its block was scrolled into view (0: not yet)
  int enlarged_at = 0;             // the frame it was shown in the Enlarge window (0: not)
  View zoom_before = View::count;  // what the Enlarge window showed before (put back afterwards)
};

// What the frames record (frame.cpp): where things were drawn, for the next frame, the tests and the
// page API; what the drawing keeps between frames; the frame statistics; whether another frame is due.
struct FrameRecords {
  FrameStats stats;     // whole frames, as the shell measures them
  FrameStats ui_stats;  // the UI's share: frame(App&) alone (the rest is drawing)
  HeatmapCache heatmaps;  // heatmap colours as textures, refilled only when their numbers change
  LabelWidths label_widths;  // the token labels' widths, measured once per set of labels and font
  int last_vertices = 0;  // vertices ImGui produced for the last drawn frame
  ViewRect view_rects[(int)View::count];
  ImVec4 block_rects[(int)View::count] = {};  // each matrix block's rect last frame (title to notes), x, y, w, h
  bool block_whole[(int)View::count] = {};    // ... and whether all of it was inside its window's visible area
  ImVec4 zoom_block_rect;                     // the Enlarge window's block last frame
  bool zoom_block_whole = false;
  PngRequest png;  // a PNG waiting for its picture (export.h)
  std::unordered_map<std::string, ImVec4> widget_rects;  // named controls' last rect (x, y, w, h)
  std::unordered_map<std::string, ImVec4> widget_visible;  // the same, clipped to its window; drawn this frame only
  std::vector<WindowRect> window_rects;                   // top-level windows drawn last frame
  std::vector<int> lines_key_labels;                      // the keys the Lines panel labelled last frame
  std::vector<int> lines_query_labels;                    // and the queries
  int lines_drawn = 0;                                    // and how many lines it drew
  bool tooltip_shown = false;                             // a tooltip (or hover card) was drawn last frame
  bool windows_settling = false;  // a window appeared last frame (measured, not yet shown): draw another
  WinRect tour_slot;  // where this frame's layout (the lab's or Learn mode's) puts the tour; w = 0: it floats
  bool presenter_both = false;  // presenter mode showed S and A side by side last frame
  ImVec2 last_display_size{0, 0};
  bool layout_dirty = true;  // place every window afresh from the next frame (set by anything that changes the layout)
  bool relayout = true;      // this frame places every window afresh (layout_dirty, taken at the frame's start)
  uint64_t drawn_version = ~0ull;  // result_version when the last frame was drawn
  bool drawn_learn_mode = false;   // the mode the last frame drew (a switch brings the tour back in front)
  bool drawn_tour_docked = false;  // the last frame gave the tour its own slot (a change places every panel afresh)
  double animate_for = 0.0;        // seconds after the last frame during which something still moves
  double notice_ends_in = -1.0;    // seconds after the last frame when its notice's time is up (-1: none timed)
  // Text capture for tests (the page's attnlab.drawnText()): set, the next frame logs every text its
  // widgets draw (Dear ImGui's log) into drawn_text, line by line as on screen.
  bool capture_text = false;
  std::string drawn_text;
};

struct App : LabState, ShellHooks, FontState, FrameRecords {
  UiState ui;  // what is shown and selected (ui_state.h)
};

// The lab's defaults: a sentence, 4 heads, no mask; the UI clamps input to 256 tokens.
attn::Config default_lab_config();

// Whether a config's d_k and d_v are the tied choice, d_model / heads rounded down (Controls' tie box
// starts ticked for such a config; once the learner unticks it, it stays so until another config arrives).
bool sizes_tied(const attn::Config& c);

// Replaces the whole config (the API, presets, shared links). On error returns one line naming the
// field, and nothing changes.
std::string apply_config(App& app, attn::Config config);

// Hands app.config to the engine if it changed, fitting edits and masks to the current tokens first.
void sync_engine(App& app);

// A text box was edited (in ImGui or, on the web, in the page's <textarea>): explicit tokens or
// vectors give way to the text. set_text_box replaces a box's whole text ("source" only in cross mode).
void text_edited(App& app, attn::SequenceInput& seq);
void set_text_box(App& app, bool source, std::string text);

// Shows a passing message for a few seconds (panel_notice.cpp draws it, in every mode).
void notify(App& app, std::string message);
// Shows a problem until the person closes it: a link or a file that could not be used, a save that
// failed. `detail` says what was wrong and what the lab shows instead.
void report_problem(App& app, std::string title, std::string detail);
bool notice_showing(const App& app);

// Makes `code` the UI's language. `text`: its catalogue, where the shell loaded it (empty: compiled in;
// when it is neither, the shell is asked to load it and the language changes when it arrives).
// Returns "" or why not; the language then stays as it was.
std::string choose_language(App& app, const std::string& code, std::string_view text = {});
// The language menu's items (the bar's button opens the popup "language").
void language_menu(App& app);
// The CJK font's bytes arrived from the shell (not owned): the atlas takes them at the next rebuild.
void set_cjk_font(App& app, const void* ttf, int size);
// Characters of `text` that need the CJK font: asks for it, or rebuilds the atlas with them.
void want_cjk_text(App& app, std::string_view text);

// Merges the CJK font's glyphs for app.cjk_chars into the font last added to the atlas (setup_style).
void merge_cjk_font(App& app, float size_px);

// Sets fonts and style for a UI scale (1 = 16 px text). Needs the font file bytes (not owned).
void setup_style(App& app, const void* ttf, int ttf_size, float ui_scale);

// A new UI scale (0.75–3; 1 = 16 px text): fonts and sizes are rebuilt before the next frame.
void set_ui_scale(App& app, float scale);

// A top-level window by its id: a translated window is named "title###id" (i18n.h tr_id), so its
// title changes with the language and its id does not; an untranslated one by its plain name.
ImGuiWindow* find_window(const char* id);

// Remembers the last item's rectangle under `name` (for layout_json: tests and scripted tours).
void remember_item(App& app, const char* name);
// The same for a rectangle of the current window that is not one item's (min and max corners).
void remember_rect(App& app, const char* name, ImVec2 min, ImVec2 max);

// Whether the lab must draw a frame although no input arrived: results changed, fonts or layout
// need rebuilding, or something is animating. Shells skip idle frames (no input and this false):
// the screen keeps the last frame, which saves the whole cost of drawing it.
bool needs_redraw(const App& app, double seconds_since_last_frame);
// In how many seconds needs_redraw() turns true with no input and nothing else changing: 0 when it is
// true now, infinity when only input or news from outside (a page call, a worker's state) can make it.
// What a shell that sleeps between frames waits for (web_main.cpp).
double redraw_due_in(const App& app, double seconds_since_last_frame);

// One frame of UI, between ImGui::NewFrame() and ImGui::Render().
void frame(App& app);

// Where the panels go on a W × H display at the current UI scale (the rule is beside its code).
Placement choose_layout(const App& app, float W, float H);

// How firmly place() holds a window where the layout puts it.
enum class Pin {
  layout,    // the lab's panels: re-placed when the display size or mode changes, and in sidebar and tabs
             // modes (where panels share places) every frame; the text capture goes on in the window
  relayout,  // Learn mode's windows: re-placed only when the display size or mode changes
};
// Positions the next window (ImGui applies it to the next Begin) at r, held as `pin` says; in between
// re-placements windows keep where the person put them.
void place(App& app, const WinRect& r, Pin pin = Pin::layout);

// JSON snapshots for window.attnlab and tests (page_json.cpp). input_json: the shell's input relay's
// state, written as the field "input" when given (the page's stats()).
std::string stats_json(const App& app, std::string_view input_json = {});
// Where each matrix view, named control and window was drawn, and the layout mode; see docs/web-api.md.
std::string layout_json(const App& app);

// What a screen reader should hear and read: the described cell's explanation, the weights row of
// its query, and the focused matrix as a table (capped). JSON for the page's aria-live region.
std::string a11y_json(const App& app);

}  // namespace attnlab
