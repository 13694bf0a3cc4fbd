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

#include "app.h"
#include "config_json.h"
#include "gl_textures.h"
#include "glfw_input.h"
#include "imgui_impl_glfw.h"
#include "gl_renderer.h"
#include "learn.h"
#include "result_json.h"

namespace {

struct WebShell {
  attnlab::App app;
  attnlab::GlTextures textures;
  attnlab::GlRenderer renderer;
  GLFWwindow* window = nullptr;
  std::vector<unsigned char> font;
  int backing_w = 0, backing_h = 0;
  bool first_frame_done = false;
  attnlab::InputRelay input;
  double last_draw_ms = 0;
  std::string reply;  // the last string handed to JavaScript (valid until the next call)
};

// The page API (exported C functions) needs to reach the one shell; it lives for the page's lifetime.
WebShell* g_shell = nullptr;

EM_JS(void, js_share, (const char* json), { if (window.attnlabShare) window.attnlabShare(UTF8ToString(json)); });
EM_JS(void, js_first_frame, (), { if (Module.attnlabFirstFrame) Module.attnlabFirstFrame(); });

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
  if (!s.input.recent_input() && s.first_frame_done && !attnlab::needs_redraw(app, (t0 - s.last_draw_ms) / 1000.0))
    return;
  s.last_draw_ms = t0;
  if (app.fonts_dirty) {
    attnlab::setup_style(app, s.font.data(), (int)s.font.size(), app.ui.ui_scale);
    s.renderer.rebuild_fonts();
  }
  ImGui_ImplGlfw_NewFrame();
  ImGui::GetIO().DisplaySize = ImVec2((float)bw, (float)bh);  // GLFW's idea of the size lags the canvas
  ImGui::GetIO().DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  ImGui::NewFrame();
  attnlab::frame(app);
  const double t_ui = emscripten_get_now();
  ImGui::Render();
  app.last_vertices = ImGui::GetDrawData()->TotalVtxCount;
  glViewport(0, 0, bw, bh);
  glClearColor(0.06f, 0.07f, 0.08f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  s.renderer.render(ImGui::GetDrawData(), bw, bh);
  s.input.after_frame();
  app.stats.add((float)(emscripten_get_now() - t0));
  app.ui_stats.add((float)(t_ui - t0));
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
  g_shell->reply = err;
  return g_shell->reply.c_str();
}

// The current config, as JSON in the attnlab-cli schema (mask edits and number edits included).
EMSCRIPTEN_KEEPALIVE const char* attnlab_config() {
  g_shell->reply = attn::config_to_json(g_shell->app.engine.config());
  return g_shell->reply.c_str();
}

// Exactly what `attnlab-cli run` prints for the current config.
EMSCRIPTEN_KEEPALIVE const char* attnlab_result() {
  attnlab::App& app = g_shell->app;
  app.engine.compute();
  g_shell->reply = attn::result_to_json(app.engine.result(), app.engine.config());
  return g_shell->reply.c_str();
}

// Where things are drawn (backing-store pixels): matrix views and named controls. For tests and tours.
EMSCRIPTEN_KEEPALIVE const char* attnlab_layout() {
  g_shell->reply = attnlab::layout_json(g_shell->app);
  return g_shell->reply.c_str();
}

// Starts the frame statistics afresh (so a measurement does not include start-up frames).
EMSCRIPTEN_KEEPALIVE void attnlab_reset_stats() {
  g_shell->app.stats = {};
  g_shell->app.ui_stats = {};
}

EMSCRIPTEN_KEEPALIVE const char* attnlab_stats() {
  g_shell->reply = attnlab::stats_json(g_shell->app);
  return g_shell->reply.c_str();
}

// Learn mode (docs/web-api.md): a training config as `attnlab-cli train` reads it; "" or the error naming
// the field (the current run is kept on error).
EMSCRIPTEN_KEEPALIVE const char* attnlab_train(const char* json) {
  g_shell->reply = attnlab::learn_train_json(g_shell->app, json ? json : "");
  return g_shell->reply.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_train_status() {
  g_shell->reply = attnlab::learn_status_json(g_shell->app);
  return g_shell->reply.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* attnlab_train_history() {
  g_shell->reply = attnlab::learn_history_json(g_shell->app);
  return g_shell->reply.c_str();
}
EMSCRIPTEN_KEEPALIVE void attnlab_stop_training() { attnlab::learn_stop(g_shell->app); }

}  // extern "C"

int main() {
  static WebShell shell;  // lives until the page closes
  g_shell = &shell;
  std::ifstream f("/fonts/DejaVuSans.ttf", std::ios::binary);
  shell.font.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());

  attnlab::App& app = shell.app;
  app.config = attnlab::default_lab_config();
  app.text = app.config.target.text;
  app.textures = &shell.textures;
  app.share = [](const std::string& json) { js_share(json.c_str()); };

  if (!glfwInit()) return 1;
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  shell.window = glfwCreateWindow(1280, 720, "Attention Lab", nullptr, nullptr);
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
