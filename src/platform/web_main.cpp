// The web shell: the same frame(App&) on a WebGL2 canvas through Emscripten's GLFW, and what it tells
// the page after a frame. The page API behind window.attnlab is web_api.cpp's table.
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "app.h"
#include "i18n.h"
#include "imgui_impl_glfw.h"
#include "imgui_internal.h"
#include "json_writer.h"
#include "learn_warmup.h"
#include "web_shell.h"
#include "worker_link.h"

namespace attnlab {
namespace {


EM_JS(void, js_share, (const char* json), { if (window.attnlabShare) window.attnlabShare(UTF8ToString(json)); });
EM_JS(void, js_share_run, (const char* json), { if (window.attnlabShareRun) window.attnlabShareRun(UTF8ToString(json)); });
EM_JS(void, js_open_file, (), { if (window.attnlabOpenFile) window.attnlabOpenFile(); });
EM_JS(void, js_first_frame, (), { if (Module.attnlabFirstFrame) Module.attnlabFirstFrame(); });
EM_JS(void, js_page_state, (const char* json), { if (Module.attnlabPageState) Module.attnlabPageState(UTF8ToString(json)); });
// Languages (app.js): a catalogue that is not compiled in, and the CJK font, fetched from the page's origin.
EM_JS(void, js_load_language, (const char* code), { if (window.attnlabLoadLanguage) window.attnlabLoadLanguage(UTF8ToString(code)); });
EM_JS(void, js_load_cjk_font, (), { if (window.attnlabLoadCjkFont) window.attnlabLoadCjkFont(); });

// New numbers in the same cell reach the screen reader at most this often (push_page_state).
constexpr double kA11yEveryMs = 250.0;
// Learn mode's warm-up comes this long after the lab's last frame (learn_warmup.h).
constexpr double kWarmAfterMs = 500.0;

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
  App& app = s.app;
  const float k = 1.0f / std::max(app.dpi_scale, 0.01f);  // backing pixels -> CSS pixels
  std::string out;
  attn::JsonWriter w(&out, -1);
  w.begin_object();
  w.key("boxes");
  w.begin_object();
  for (const char* name : {"text", "source"}) {
    const auto it = app.widget_visible.find(name);
    if (it == app.widget_visible.end()) continue;
    const ImVec4 r = it->second;
    if (covered(r)) continue;  // a popup, the help or a hover card lies over it: let ImGui's show
    w.key(name);
    w.begin_object();
    const std::pair<const char*, float> place[] = {
        {"x", r.x * k}, {"y", r.y * k}, {"w", r.z * k}, {"h", r.w * k}, {"font_px", ImGui::GetIO().Fonts->Fonts[0]->FontSize * k}};
    for (const auto& [key, v] : place) w.key(key), w.value(std::round(v * 10.0f) / 10.0f);  // a tenth of a pixel
    w.key("value");
    w.value(std::string_view(name[0] == 't' ? app.text : app.source));
    w.end_object();
  }
  w.end_object();
  w.key("presenter"), w.value(app.ui.presenter);
  w.key("high_contrast"), w.value(app.ui.high_contrast);
  w.key("focus_text"), w.value(s.focus_text_pending);
  w.key("fullscreen"), w.value((int64_t)app.ui.fullscreen_request);
  // The notice on screen, for the page's status region (a screen reader hears a link that failed).
  const bool notice = notice_showing(app);
  w.key("notice");
  w.value(std::string_view(notice ? (app.notice_title.empty() ? app.notice : app.notice_title + ". " + app.notice) : std::string()));
  app.ui.fullscreen_request = 0;
  s.focus_text_pending = false;
  // Screen-reader text only when what it describes changed: at once for another cell, head or query;
  // for new numbers in the same cell (a slider being dragged) at most four times a second, which is
  // all a reader can follow and keeps the formatting out of busy frames (web_main_loop sends the last one).
  const std::string cell_key = std::to_string((int)app.ui.hover.view) + "," + std::to_string(app.ui.hover.head) + "," +
                               std::to_string(app.ui.hover.row) + "," + std::to_string(app.ui.hover.col) + "/" +
                               std::to_string((int)app.ui.selected.view) + "," + std::to_string(app.ui.selected.row) + "," +
                               std::to_string(app.ui.selected.col) + "/" + std::to_string(app.ui.head) + "/" + std::to_string(app.ui.query);
  const double now = emscripten_get_now();
  if (cell_key != s.a11y_key || (app.result_version != s.a11y_version && now - s.a11y_ms >= kA11yEveryMs)) {
    s.a11y_key = cell_key;
    s.a11y_version = app.result_version;
    s.a11y_ms = now;
    s.a11y = attnlab::a11y_json(app);
  }
  w.key("a11y");
  w.raw(s.a11y);
  w.end_object();
  w.flush();
  if (out != s.page_state) {
    s.page_state = out;
    js_page_state(out.c_str());
  }
}
// Stops the page's module with `why`, which web/app.js's onAbort shows on the page.
EM_JS(void, abort_with, (const char* why), { abort(UTF8ToString(why)); });
// Files leaving the lab (web/app.js turns them into downloads). The PNG is read from the canvas in
// the same task that drew it, crop given in backing-store pixels (w = 0: the whole canvas).
EM_JS(void, js_download, (const char* name, const char* mime, const char* data, int size), {
  if (window.attnlabDownload) window.attnlabDownload(UTF8ToString(name), UTF8ToString(mime), HEAPU8.slice(data, data + size));
});
EM_JS(void, js_save_png, (const char* name, float x, float y, float w, float h), {
  if (window.attnlabSavePng) window.attnlabSavePng(UTF8ToString(name), x, y, w, h);
});

// The page's loop. Emscripten's main loop takes every animation frame, and each one the browser gives
// wakes its compositor, the page's thread and the GPU process, even when the lab then draws nothing:
// 60 ms of CPU a second for an idle lab in headless Chromium on two cores, taken from a training worker
// or a laptop's battery. This loop asks for the next animation frame only after it drew (something may
// still move); after a pass that drew nothing it sleeps until the lab is next due by the clock alone
// (loop_pass), and input, a page call (attnlab_call) or a worker's message (web/app.js calls
// `wake`) wakes it at the next animation frame.
using LoopPass = double (*)();  // (EM_JS reads a parameter's name after its type's last word)
EM_JS(void, js_start_loop, (LoopPass pass), {
  var look = wasmTable.get(pass), frame = 0, timer = 0;
  function tick() {
    frame = 0, timer = 0;
    var ms = look();
    if (ms > 0) timer = setTimeout(tick, ms);
    else frame = requestAnimationFrame(tick);
  }
  Module["attnlabWake"] = function() {
    if (frame) return;
    if (timer) clearTimeout(timer), timer = 0;
    frame = requestAnimationFrame(tick);
  };
  // What Emscripten's GLFW listens to, and a resize or a tab shown again (the loop then sizes the canvas).
  ["mousemove", "mousedown", "mouseup", "wheel", "keydown", "keypress", "keyup", "touchstart", "touchmove", "touchend",
   "touchcancel", "pointerdown", "pointermove", "pointerup", "resize", "focus", "blur"].forEach(function(type) {
    window.addEventListener(type, Module["attnlabWake"], {capture: true, passive: true});
  });
  document.addEventListener("visibilitychange", Module["attnlabWake"]);
  frame = requestAnimationFrame(tick);
});
EM_JS(void, js_wake, (), { if (Module["attnlabWake"]) Module["attnlabWake"](); });
// Emscripten's GLFW listens for gamepads, which the lab does not read (ImGui's gamepad navigation is
// off); a listener makes Chromium poll the gamepads 60 times a second for as long as the page is open.
EM_JS(void, js_ignore_gamepads, (), {
  if (typeof GLFW === "undefined") return;
  window.removeEventListener("gamepadconnected", GLFW.onGamepadConnected, true);
  window.removeEventListener("gamepaddisconnected", GLFW.onGamepadDisconnected, true);
});

// The longest the loop sleeps when nothing is due: what a change no wake-up announces waits at most.
constexpr double kMaxSleepMs = 250.0;

// How long the loop may sleep after a pass that drew nothing (0: look again at the next animation
// frame): until the lab is due by the clock (Learn mode's next frame while a worker trains), the
// screen reader's last numbers are sent, or Learn mode's warm-up; at most kMaxSleepMs.
double sleep_ms(const WebShell& s, double now) {
  const double since_draw = now - s.last_draw_ms;
  double wait = std::min(kMaxSleepMs, 1000.0 * redraw_due_in(s.app, since_draw / 1000.0));
  if (s.app.result_version != s.a11y_version) wait = std::min(wait, s.a11y_ms + kA11yEveryMs - now);
  if (!s.learn_warmed) wait = std::min(wait, kWarmAfterMs - since_draw);
  return std::max(0.0, std::ceil(wait));
}

}  // namespace

WebShell& web_shell() {
  static WebShell shell;  // lives until the page closes
  return shell;
}

void web_main_loop(WebShell& s) {
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
    // equals the screen's, which a page may not do without a user gesture. Only when it differs:
    // setting a canvas's size makes its drawing buffer again even when the size is the same.
    int cw = 0, ch = 0;
    emscripten_get_canvas_element_size("#canvas", &cw, &ch);
    if (cw != bw || ch != bh) emscripten_set_canvas_element_size("#canvas", bw, bh);
    s.backing_w = bw, s.backing_h = bh;
    // A new size empties the canvas, and the layout follows the size: a window resized or a tablet
    // turned, with no input, is drawn at once (it was left black until the next input).
    s.force_draw = true;
  }
  if ((float)dpr != app.dpi_scale) {
    app.dpi_scale = (float)dpr;
    app.fonts_dirty = true;
  }
  // Draw only when something happened: input, a new result, an animation. An idle lab draws nothing,
  // and its loop sleeps (loop_pass).
  if (!s.force_draw && s.first_frame_done && !frame_due(s, (t0 - s.last_draw_ms) / 1000.0)) {
    if (app.result_version != s.a11y_version && t0 - s.a11y_ms >= kA11yEveryMs) push_page_state(s);  // the last numbers
    // Once, after half a second with nothing to draw: Learn mode's code compiled before it is shown
    // (learn_warmup.h). Not once Learn mode was drawn: its own frames compiled it.
    else if (!s.learn_warmed && t0 - s.last_draw_ms >= kWarmAfterMs) {
      s.learn_warmed = true;
      warm_learn_mode(app);
    }
    return;
  }
  s.force_draw = false;
  s.last_draw_ms = t0;
  attnlab::draw_frame(s, bw, bh, (float)bw, (float)bh);  // ImGui works in backing-store pixels
  if (app.ui.learn_mode) s.learn_warmed = true;  // (by this frame)
  if (!s.renderer.linked()) abort_with("the lab's WebGL 2 shaders did not compile");  // said on the page (onAbort)
  if (!s.png_name.empty()) {  // the pixels just drawn, before the browser takes the frame
    const ImVec4 r = s.png_crop;  // backing-store pixels, as ImGui's
    js_save_png(s.png_name.c_str(), r.x, r.y, r.z, r.w);
    s.png_name.clear();
  }
  if (app.ui.focus_text) app.ui.focus_text = false, s.focus_text_pending = true;
  push_page_state(s);
  if (!s.first_frame_done) {
    s.first_frame_done = true;
    js_first_frame();
  }
}

void wake_loop() { js_wake(); }

namespace {

// One pass of the page's loop (js_start_loop): draws if something is due, then says how many
// milliseconds the loop may sleep (0: until the next animation frame).
double loop_pass() {
  WebShell& s = web_shell();
  const double drawn_before = s.last_draw_ms;
  web_main_loop(s);
  if (s.last_draw_ms != drawn_before) return 0.0;
  return sleep_ms(s, emscripten_get_now());
}

}  // namespace
}  // namespace attnlab

int main() {
  using namespace attnlab;  // the page's JavaScript hooks (js_*) above
  attnlab::WebShell& shell = attnlab::web_shell();
  std::ifstream f("/fonts/DejaVuSans.ttf", std::ios::binary | std::ios::ate);  // (embedded in the module)
  shell.font_bytes.resize(std::max<std::streamoff>(0, f.tellg()));
  f.seekg(0).read(reinterpret_cast<char*>(shell.font_bytes.data()), (std::streamsize)shell.font_bytes.size());
  shell.font = shell.font_bytes.data();
  shell.font_size = (int)shell.font_bytes.size();

  attnlab::App& app = shell.app;
  app.config = attnlab::default_lab_config();
  app.text = app.config.target.text;
  // The lab's first computation would also pay for the browser compiling the engine's code (it
  // compiles a WebAssembly function when first called): 15–30 ms for ten tokens that then take a
  // tenth of a millisecond, and the status bar would say so until the next change. A throwaway engine
  // computes the starting config first; the first frame's computation is then timed on its own.
  if (attn::Engine warm; warm.set_config(app.config).empty()) warm.compute();
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
  app.save_png = [](const std::string& name, ImVec4 crop) {
    attnlab::web_shell().png_name = name;
    attnlab::web_shell().png_crop = crop;
  };
  // Learn mode trains in a Web Worker when the page has one (worker_link.h), else in slices of frames.
  app.session_link = [] {
    return attnlab::make_worker_link([](const std::string& why) {
      attnlab::report_problem(attnlab::web_shell().app, attnlab::tr("problem.worker.title"), why);
    });
  };

  if (!glfwInit()) return 1;
  js_ignore_gamepads();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  // An opaque canvas with neither depth nor stencil (GLFW's defaults ask for both, and for alpha):
  // nothing drawn uses them, and the browser clears each one every frame and blends an alpha canvas
  // into the page, which a software GPU pays for in every frame's pixels.
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  // The canvas as the page sized it (its CSS size times the pixel ratio, web/app.js): its drawing
  // buffer is not made again at another size.
  int canvas_w = 0, canvas_h = 0;
  emscripten_get_canvas_element_size("#canvas", &canvas_w, &canvas_h);
  shell.window = glfwCreateWindow(canvas_w > 0 ? canvas_w : 1280, canvas_h > 0 ? canvas_h : 720, attnlab::tr("app.title"), nullptr, nullptr);
  if (!shell.window) return 1;
  glfwMakeContextCurrent(shell.window);
  // The shaders compile in the browser's GPU process while the first frame builds the font atlas;
  // that frame asks whether they linked (web_main_loop).
  start_shell(shell, shell.window, "#version 300 es\nprecision mediump float;\n");
  // The first frame now, not at the first animation frame (which a loading page may get a tenth of a
  // second later); the loop (js_start_loop) draws the rest.
  attnlab::web_main_loop(shell);
  js_start_loop(attnlab::loop_pass);
  return 0;
}
