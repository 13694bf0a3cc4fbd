// The web shell: the same frame(App&) on a WebGL2 canvas through Emscripten's GLFW, plus the C
// functions behind the page's window.attnlab API (web/app.js wraps them).
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.h"
#include "i18n.h"
#include "config_json.h"
#include "gl_textures.h"
#include "glfw_input.h"
#include "imgui_impl_glfw.h"
#include "imgui_internal.h"
#include <string_view>
#include "gl_renderer.h"
#include "learn.h"
#include "worker_link.h"
#include "result_json.h"
#include "shell_frame.h"
#include "export.h"
#include "presets.h"
#include "formula.h"
#include "view_state.h"

namespace {

struct WebShell : attnlab::Shell {
  attnlab::GlTextures textures;
  GLFWwindow* window = nullptr;
  std::vector<unsigned char> font_bytes;
  int backing_w = 0, backing_h = 0;
  bool first_frame_done = false;
  double last_draw_ms = 0;
  std::string reply;       // the last string handed to JavaScript (valid until the next call)
  std::string page_state;  // the last state pushed to the page (text boxes, screen-reader text)
  std::string a11y, a11y_key;  // screen-reader text and the cell, head and query it was made for
  uint64_t a11y_version = 0;   // the result it was made from
  double a11y_ms = 0;          // when
  bool focus_text_pending = false;
  std::string png_name;  // a PNG asked for by the UI, saved right after the next frame is drawn
  attnlab::View png_view = attnlab::View::count;
  bool force_draw = false;
};

// The page API (exported C functions) needs to reach the one shell; it lives for the page's lifetime.
WebShell* g_shell = nullptr;

// An exported function's answer: kept in the shell until the next call, so the page can read it.
const char* reply(std::string text) {
  g_shell->reply = std::move(text);
  return g_shell->reply.c_str();
}

EM_JS(void, js_share, (const char* json), { if (window.attnlabShare) window.attnlabShare(UTF8ToString(json)); });
EM_JS(void, js_share_run, (const char* json), { if (window.attnlabShareRun) window.attnlabShareRun(UTF8ToString(json)); });
EM_JS(void, js_open_file, (), { if (window.attnlabOpenFile) window.attnlabOpenFile(); });
EM_JS(void, js_first_frame, (), { if (Module.attnlabFirstFrame) Module.attnlabFirstFrame(); });
EM_JS(void, js_page_state, (const char* json), { if (Module.attnlabPageState) Module.attnlabPageState(UTF8ToString(json)); });
// Languages (app.js): a catalogue that is not compiled in, and the CJK font, fetched from the page's origin.
EM_JS(void, js_load_language, (const char* code), { if (window.attnlabLoadLanguage) window.attnlabLoadLanguage(UTF8ToString(code)); });
EM_JS(void, js_load_cjk_font, (), { if (window.attnlabLoadCjkFont) window.attnlabLoadCjkFont(); });

// Tells the page what it mirrors in HTML after a frame, when it changed: where the text boxes are
// (real <textarea>s lie over them, so phones open their keyboard and IMEs work), their text, the
// screen-reader text, presenter mode and requests for full screen.
// Whether a window drawn in front of the one that holds the box overlaps `r` (backing pixels). The
// holder is the backmost panel that contains the box (the Input panel, or on a phone the Matrices tab,
// which leads with the sentence): popups, the help or a hover card in front of it cover the box.
bool covered(const ImVec4& r) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiWindow* holder = nullptr;
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->WasActive || w->Hidden) continue;
    const bool overlaps = w->Pos.x < r.x + r.z && w->Pos.x + w->Size.x > r.x && w->Pos.y < r.y + r.w && w->Pos.y + w->Size.y > r.y;
    if (!holder) {
      const bool contains = w->Pos.x <= r.x && w->Pos.y <= r.y && w->Pos.x + w->Size.x >= r.x + r.z && w->Pos.y + w->Size.y >= r.y + r.w;
      if (contains && !(w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip))) holder = w;
      continue;
    }
    if (w->RootWindow != holder && overlaps) return true;
  }
  return false;
}

void push_page_state(WebShell& s) {
  attnlab::App& app = s.app;
  const float k = 1.0f / std::max(app.dpi_scale, 0.01f);  // backing pixels -> CSS pixels
  std::string out = "{\"boxes\":{";
  const auto escaped = [](const std::string& t) {
    std::string e;
    for (unsigned char c : t) {
      if (c == '"' || c == '\\') e += '\\', e += (char)c;
      else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); e += b; }
      else e += (char)c;
    }
    return e;
  };
  bool first = true;
  for (const char* name : {"text", "source"}) {
    const auto it = app.widget_visible.find(name);
    if (it == app.widget_visible.end()) continue;
    const ImVec4 r = it->second;
    if (covered(r)) continue;  // a popup, the help or a hover card lies over it: let ImGui's show
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\":{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f,\"font_px\":%.1f,\"value\":\"", first ? "" : ",", name,
                  r.x * k, r.y * k, r.z * k, r.w * k, ImGui::GetIO().Fonts->Fonts[0]->FontSize * k);
    out += buf;
    out += escaped(name[0] == 't' ? app.text : app.source) + "\"}";
    first = false;
  }
  out += "},\"presenter\":" + std::string(app.ui.presenter ? "true" : "false");
  out += ",\"high_contrast\":" + std::string(app.ui.high_contrast ? "true" : "false");
  out += ",\"focus_text\":" + std::string(s.focus_text_pending ? "true" : "false");
  out += ",\"fullscreen\":" + std::to_string(app.ui.fullscreen_request);
  // The notice on screen, for the page's status region (a screen reader hears a link that failed).
  const bool notice = attnlab::notice_showing(app);
  out += ",\"notice\":\"" + escaped(notice ? (app.notice_title.empty() ? app.notice : app.notice_title + ". " + app.notice) : std::string()) + "\"";
  app.ui.fullscreen_request = 0;
  s.focus_text_pending = false;
  // Screen-reader text only when what it describes changed: at once for another cell, head or query;
  // for new numbers in the same cell (a slider being dragged) at most four times a second, which is
  // all a reader can follow and keeps the formatting out of busy frames (main_loop sends the last one).
  const std::string cell_key = std::to_string((int)app.ui.hover.view) + "," + std::to_string(app.ui.hover.head) + "," +
                               std::to_string(app.ui.hover.row) + "," + std::to_string(app.ui.hover.col) + "/" +
                               std::to_string((int)app.ui.selected.view) + "," + std::to_string(app.ui.selected.row) + "," +
                               std::to_string(app.ui.selected.col) + "/" + std::to_string(app.ui.head) + "/" + std::to_string(app.ui.query);
  const double now = emscripten_get_now();
  if (cell_key != s.a11y_key || (app.result_version != s.a11y_version && now - s.a11y_ms >= 250.0)) {
    s.a11y_key = cell_key;
    s.a11y_version = app.result_version;
    s.a11y_ms = now;
    s.a11y = attnlab::a11y_json(app);
  }
  out += ",\"a11y\":" + s.a11y + "}";
  if (out != s.page_state) {
    s.page_state = out;
    js_page_state(out.c_str());
  }
}
// Files leaving the lab (web/app.js turns them into downloads). The PNG is read from the canvas in
// the same task that drew it, crop given in backing-store pixels (w = 0: the whole canvas).
EM_JS(void, js_download, (const char* name, const char* mime, const char* data, int size), {
  if (window.attnlabDownload) window.attnlabDownload(UTF8ToString(name), UTF8ToString(mime), HEAPU8.slice(data, data + size));
});
EM_JS(void, js_save_png, (const char* name, float x, float y, float w, float h), {
  if (window.attnlabSavePng) window.attnlabSavePng(UTF8ToString(name), x, y, w, h);
});

void main_loop(void* arg) {
  WebShell& s = *static_cast<WebShell*>(arg);
  attnlab::App& app = s.app;
  const double t0 = emscripten_get_now();

  // Size the canvas's backing store to its CSS size times the device pixel ratio: crisp text on
  // HiDPI screens. ImGui then works in backing pixels (mouse positions arrive in them too).
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double dpr = std::max(0.5, emscripten_get_device_pixel_ratio());
  const int bw = std::max(1, (int)std::lround(css_w * dpr)), bh = std::max(1, (int)std::lround(css_h * dpr));
  if (bw != s.backing_w || bh != s.backing_h) {
    // Set the canvas directly: Emscripten's glfwSetWindowSize asks for fullscreen when the size
    // equals the screen's, which a page may not do without a user gesture.
    emscripten_set_canvas_element_size("#canvas", bw, bh);
    s.backing_w = bw, s.backing_h = bh;
  }
  if ((float)dpr != app.dpi_scale) {
    app.dpi_scale = (float)dpr;
    app.fonts_dirty = true;
  }
  // Draw only when something happened: input, a new result, an animation. An idle lab costs nothing.
  if (!s.force_draw && !s.input.recent_input() && s.first_frame_done &&
      !attnlab::needs_redraw(app, (t0 - s.last_draw_ms) / 1000.0)) {
    if (app.result_version != s.a11y_version && t0 - s.a11y_ms >= 250.0) push_page_state(s);  // the last numbers
    return;
  }
  s.force_draw = false;
  s.last_draw_ms = t0;
  attnlab::draw_frame(s, bw, bh, (float)bw, (float)bh);  // ImGui works in backing-store pixels
  if (!s.png_name.empty()) {  // the pixels just drawn, before the browser takes the frame
    const int v = (int)s.png_view;
    const ImVec4 r = s.png_view == attnlab::View::count ? ImVec4(0, 0, 0, 0) : app.block_rects[v];
    js_save_png(s.png_name.c_str(), r.x - 4.0f, r.y - 4.0f, r.z > 0 ? r.z + 8.0f : 0.0f, r.w + 8.0f);
    s.png_name.clear();
  }
  if (app.ui.focus_text) app.ui.focus_text = false, s.focus_text_pending = true;
  push_page_state(s);
  if (!s.first_frame_done) {
    s.first_frame_done = true;
    js_first_frame();
  }
}

}  // namespace

// [SECTION] page API — see web/app.js for the JavaScript side and docs/web-api.md for the contract.
extern "C" {

// Applies a config (attnlab-cli schema). Returns "" or the error naming the field; state is kept on error.
EMSCRIPTEN_KEEPALIVE const char* attnlab_apply(const char* json) {
  attn::Config c;
  std::string err = attn::parse_config(json ? json : "", c);
  if (err.empty()) err = attnlab::apply_config(g_shell->app, c);
  return reply(err);
}

// The current config, as JSON in the attnlab-cli schema (mask edits and number edits included).
EMSCRIPTEN_KEEPALIVE const char* attnlab_config() {
  return reply(attn::config_to_json(g_shell->app.engine.config()));
}

// Exactly what `attnlab-cli run` prints for the current config.
EMSCRIPTEN_KEEPALIVE const char* attnlab_result() {
  attnlab::App& app = g_shell->app;
  app.engine.compute();
  return reply(attn::result_to_json(app.engine.result(), app.engine.config()));
}

// Where things are drawn (backing-store pixels): matrix views and named controls. For tests and tours.
EMSCRIPTEN_KEEPALIVE const char* attnlab_layout() {
  return reply(attnlab::layout_json(g_shell->app));
}

// How the lab is shown (selected head, colour ranges, numbers, ...), as JSON (src/ui/view_state.h).
EMSCRIPTEN_KEEPALIVE const char* attnlab_view_state() {
  return reply(attnlab::view_state_to_json(g_shell->app.ui));
}

// Sets the keys given; returns "" or the error naming the key (then nothing changes).
EMSCRIPTEN_KEEPALIVE const char* attnlab_set_view_state(const char* json) {
  return reply(attnlab::apply_view(g_shell->app, json ? json : ""));
}

// The formula strip as text, exactly as shown.
// The built-in presets: [{key, file, name, description, view}] in the Presets menu's order.
EMSCRIPTEN_KEEPALIVE const char* attnlab_presets() {
  return reply(attnlab::presets_json());
}

// Applies a preset by key, file or title (as the Presets menu does). "" or why not (nothing changes).
EMSCRIPTEN_KEEPALIVE const char* attnlab_preset(const char* key) {
  return reply(attnlab::apply_preset(g_shell->app, std::string_view(key ? key : "")));
}

EMSCRIPTEN_KEEPALIVE const char* attnlab_formula() {
  return reply(attnlab::formula_text(g_shell->app.engine.config()));
}

// One view's matrix as CSV (export.h); "" for an unknown view name.
EMSCRIPTEN_KEEPALIVE const char* attnlab_csv(const char* view) {
  for (int v = 0; v < (int)attnlab::View::count; ++v)
    if (view && std::string(view) == attnlab::view_key((attnlab::View)v)) return reply(attnlab::view_csv(g_shell->app, (attnlab::View)v));
  return reply("");
}

// Draws a frame now, whether or not anything changed: the canvas then holds the current picture
// until this JavaScript task ends (screenshot() reads it right after).
EMSCRIPTEN_KEEPALIVE void attnlab_redraw() {
  g_shell->force_draw = true;
  main_loop(g_shell);
}

// Draws a frame now and returns every text its widgets drew, line by line (tests look for text that
// did not come from the catalogue; docs/web-api.md).
EMSCRIPTEN_KEEPALIVE const char* attnlab_drawn_text() {
  g_shell->app.capture_text = true;
  attnlab_redraw();
  return reply(g_shell->app.drawn_text);
}

// Starts the frame statistics afresh (so a measurement does not include start-up frames).
EMSCRIPTEN_KEEPALIVE void attnlab_reset_stats() {
  g_shell->app.stats = {};
  g_shell->app.ui_stats = {};
}

// Input the page routes here instead of through Emscripten's GLFW (see glfw_input.h): wheel notches
// (+dy = content moves down, GLFW's sign) and the first finger in CSS pixels (kind 0 start, 1 move, 2 end).
EMSCRIPTEN_KEEPALIVE void attnlab_wheel(float dx, float dy) { g_shell->input.add_wheel(dx, dy); }
EMSCRIPTEN_KEEPALIVE void attnlab_touch(int kind, float x, float y) {
  const float k = g_shell->app.dpi_scale;
  g_shell->input.touch(kind, x * k, y * k);
}

// The page's <textarea> over a text box changed (typing, an IME, the on-screen keyboard): which is
// "text" or "source". Same effect as typing into ImGui's box.
EMSCRIPTEN_KEEPALIVE void attnlab_set_text(const char* which, const char* text) {
  attnlab::App& app = g_shell->app;
  const bool source = which && std::string(which) == "source";
  attnlab::set_text_box(app, source, text ? text : "");
  g_shell->input.add_wheel(0, 0);  // counts as input: draw the new result
}

// Presenter mode from the page (a link's #present / ?present, the API): on 1/0, contrast 1/0/-1 (keep).
EMSCRIPTEN_KEEPALIVE void attnlab_set_presenter(int on, int contrast) {
  attnlab::App& app = g_shell->app;
  app.ui.presenter = on != 0;
  if (contrast >= 0 && (contrast != 0) != app.ui.high_contrast) app.ui.high_contrast = contrast != 0, app.fonts_dirty = true;
  g_shell->input.add_wheel(0, 0);
}

// The UI scale (0.75–3): larger type and cells for a projector; also the page's ?scale= parameter.
EMSCRIPTEN_KEEPALIVE void attnlab_set_ui_scale(float scale) {
  attnlab::set_ui_scale(g_shell->app, scale);
  g_shell->input.add_wheel(0, 0);
}

// What the page's screen-reader region says now (also pushed to the page after each change).
EMSCRIPTEN_KEEPALIVE const char* attnlab_a11y() {
  return reply(attnlab::a11y_json(g_shell->app));
}

// The '/' shortcut and the page: put the cursor in the text box (the page focuses its <textarea>).
EMSCRIPTEN_KEEPALIVE void attnlab_focus_text() { g_shell->focus_text_pending = true; g_shell->input.add_wheel(0, 0); }

EMSCRIPTEN_KEEPALIVE const char* attnlab_stats() {
  std::string out = attnlab::stats_json(g_shell->app);
  out.pop_back();  // '}': the input relay's state goes in too
  return reply(out + ",\"input\":" + g_shell->input.state_json() + "}");
}

// Learn mode (docs/web-api.md): a training config as `attnlab-cli train` reads it; "" or the error naming
// the field (the current run is kept on error).
EMSCRIPTEN_KEEPALIVE const char* attnlab_train(const char* json) {
  return reply(attnlab::learn_train_json(g_shell->app, json ? json : ""));
}
// The trained model as a model file ("" when nothing was trained), and opening one.
EMSCRIPTEN_KEEPALIVE const char* attnlab_model() {
  return reply(attnlab::learn_model_json(g_shell->app));
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_open_model(const char* json) {
  return reply(attnlab::learn_open_model(g_shell->app, json ? json : ""));
}
// A file the person picked or dropped on the page (a model, or a config): "" or the error (also on screen).
EMSCRIPTEN_KEEPALIVE const char* attnlab_open_file(const char* name, const char* text) {
  return reply(attnlab::open_file_text(g_shell->app, name ? name : "the file", text ? text : ""));
}
// A message on screen (the notice line), from the page: e.g. a file it would not read.
EMSCRIPTEN_KEEPALIVE const char* attnlab_notify(const char* text) {
  attnlab::notify(g_shell->app, text ? text : "");
  g_shell->force_draw = true;  // an idle lab draws it now
  return reply("");
}
// A problem the page met (a link or a file it could not use, a save that failed): shown until closed.
EMSCRIPTEN_KEEPALIVE const char* attnlab_problem(const char* title, const char* detail) {
  attnlab::report_problem(g_shell->app, title ? title : "", detail ? detail : "");
  g_shell->force_draw = true;
  return reply("");
}
// Learn mode's probe: text in the task's tokens, "" for the held-out example. "" or the error.
EMSCRIPTEN_KEEPALIVE const char* attnlab_set_probe(const char* text) {
  return reply(attnlab::learn_set_probe(g_shell->app, text ? text : ""));
}
// The run's training config, for a link that trains it again.
EMSCRIPTEN_KEEPALIVE const char* attnlab_run_config() {
  return reply(attnlab::learn_run_json(g_shell->app));
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_train_status() {
  return reply(attnlab::learn_status_json(g_shell->app));
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_train_history() {
  return reply(attnlab::learn_history_json(g_shell->app));
}
EMSCRIPTEN_KEEPALIVE void attnlab_stop_training() { attnlab::learn_stop(g_shell->app); }
// The training worker sent something: draw the next frame even if nothing else changed.
EMSCRIPTEN_KEEPALIVE void attnlab_wake() { g_shell->force_draw = true; }

// Interventions on the Learn run (docs/inspect.md): `command` ablate | patch | attribute | circuits |
// rollout with the CLI's options as a JSON object's fields; the CLI's JSON document, or one line naming
// the field (it never starts with '{'). "view": what the Inspect view shows (learn.h).
EMSCRIPTEN_KEEPALIVE const char* attnlab_inspect(const char* command, const char* options) {
  const std::string what = command ? command : "";
  if (what == "view") return reply(attnlab::learn_inspect_view_json(g_shell->app));
  std::string error;
  const std::string out = attnlab::learn_inspect_json(g_shell->app, what, options ? options : "", error);
  return reply(error.empty() ? out : error);
}

// Languages (docs/web-api.md): the languages offered, the current one, and choosing one. `text` is its
// catalogue when the page fetched it (lang/<code>.txt), "" for one compiled in; "" or why not.
EMSCRIPTEN_KEEPALIVE const char* attnlab_languages() {
  nlohmann::json out = nlohmann::json::array();
  for (const attnlab::Language& l : attnlab::languages())
    out.push_back({{"code", l.code}, {"name", l.name}, {"cjk", l.cjk}, {"menu", !l.hidden}, {"builtin", l.text != nullptr || l.hidden}});
  return reply(out.dump());
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_language() { return reply(attnlab::language()); }
EMSCRIPTEN_KEEPALIVE const char* attnlab_set_language(const char* code, const char* text) {
  const std::string err = attnlab::choose_language(g_shell->app, code ? code : "", text ? text : "");
  g_shell->force_draw = true;
  return reply(err);
}
// The CJK font's bytes, copied into memory the page allocated with _malloc (kept for the page's lifetime).
EMSCRIPTEN_KEEPALIVE void attnlab_set_cjk_font(const unsigned char* bytes, int size) {
  attnlab::set_cjk_font(g_shell->app, bytes, size);
  g_shell->force_draw = true;
}

}  // extern "C"

int main() {
  static WebShell shell;  // lives until the page closes
  g_shell = &shell;
  std::ifstream f("/fonts/DejaVuSans.ttf", std::ios::binary);
  shell.font_bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  shell.font = shell.font_bytes.data();
  shell.font_size = (int)shell.font_bytes.size();

  attnlab::App& app = shell.app;
  app.config = attnlab::default_lab_config();
  app.text = app.config.target.text;
  app.textures = &shell.textures;
  app.external_text_boxes = true;  // the page's <textarea>s edit the text (see push_page_state)
  app.share = [](const std::string& json) { js_share(json.c_str()); };
  app.share_run = [](const std::string& json) { js_share_run(json.c_str()); };
  app.open_file = [] { js_open_file(); };
  app.load_language = [](const std::string& code) { js_load_language(code.c_str()); };
  app.load_cjk_font = [] { js_load_cjk_font(); };
  app.download = [](const std::string& name, const std::string& mime, const std::string& data) {
    js_download(name.c_str(), mime.c_str(), data.data(), (int)data.size());
  };
  app.save_png = [](const std::string& name, attnlab::View view) {
    g_shell->png_name = name;
    g_shell->png_view = view;
    g_shell->force_draw = true;
  };
  // Learn mode trains in a Web Worker when the page has one (worker_link.h), else in slices of frames.
  app.session_link = [] {
    return attnlab::make_worker_link([](const std::string& why) {
      attnlab::report_problem(g_shell->app, attnlab::tr("problem.worker.title"), why);
    });
  };

  if (!glfwInit()) return 1;
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  shell.window = glfwCreateWindow(1280, 720, attnlab::tr("app.title"), nullptr, nullptr);
  if (!shell.window) return 1;
  glfwMakeContextCurrent(shell.window);
  shell.input.install(shell.window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(shell.window, false);  // callbacks: InputRelay
  if (!shell.renderer.init("#version 300 es\nprecision mediump float;\n")) return 1;
  emscripten_set_main_loop_arg(main_loop, &shell, 0, false);
  return 0;
}
