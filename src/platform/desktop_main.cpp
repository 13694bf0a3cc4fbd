// attnlab — the desktop shell: a GLFW window with OpenGL 3, looping on the shared frame(App&).
//
//   attnlab [--config FILE | --preset NAME] [--size WxH] [--scale S] [--fullscreen] [--present] [--high-contrast]
//           [--frames N | --seconds S] [--screenshot FILE.png] [--print-config] [--print-view] [--print-stats]
//           [--print-layout] [--train CONFIG.json [--until-trained]] [--model MODEL.json] [--print-train]
// --config takes a config in the attnlab-cli schema; a "view" object in it (as presets have) sets how it
// is shown, and a "name" and "description" go on screen. --preset opens a built-in preset by its short
// name (causal, no_scaling, rope, ...: the Presets menu's files without number and .json).
// --fullscreen opens on the primary monitor at its own resolution (F11 toggles it too); --present
// starts in presenter mode (P toggles it), --high-contrast with white on black.
// --train opens Learn mode training that config (docs/train.md), --until-trained exits when it stops (with
// --seconds as a bound); --model opens a model file (attnlab-cli train --out, or Download model) in Learn
// mode; --print-train prints the page's trainStatus() JSON. A model or config file dropped on the window
// opens the same way (files up to 16 MiB).
// --frames N / --seconds S run that long and exit (with --screenshot, the last frame is saved as a PNG
// first); --print-config prints the final config as JSON, --print-view the view state (as the page's
// attnlab.view()), --print-stats the frame statistics, --print-layout where windows and widgets were
// drawn (the page's attnlab.layout(), in window pixels). SIGTERM or SIGINT ends a run as its bound
// would (the same prints), once the input sent before it has been drawn. --ready-file FILE is written
// once three frames are on screen (Dear ImGui has settled its windows), so that a script's first click
// finds the lab drawn.
#include <GLFW/glfw3.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app.h"
#include "config_json.h"
#include "presets.h"
#include "view_state.h"
#include "font_embed.h"
#include "gl_textures.h"
#include "glfw_input.h"
#include "imgui_impl_glfw.h"
#include "gl_renderer.h"
#include "i18n.h"
#include "learn.h"
#include "session_link.h"
#include "png_write.h"
#include "shell_frame.h"

namespace {

// SIGTERM or SIGINT ends a run once the input already sent has been drawn, so that a test script can
// send its clicks and keys, stop the app and read --print-layout without guessing how long frames take.
volatile std::sig_atomic_t g_stop_requested = 0;
void request_stop(int) { g_stop_requested = 1; }

struct Options {
  std::string config_path, preset, screenshot;
  std::string lang;  // --lang CODE; empty: the system locale (LC_ALL, LC_MESSAGES, LANG), else English
  int width = 1600, height = 900, frames = 0;
  float scale = 1.0f, seconds = 0.0f;
  bool print_config = false, print_view = false, print_stats = false, print_layout = false, fullscreen = false, present = false,
       high_contrast = false;
  std::string train_path;  // Learn mode: train this config from the start
  std::string model_path;  // Learn mode: open this model file (paused at its step)
  bool print_train = false, until_trained = false;
  bool train_in_frames = false;  // Learn mode's session in slices of each frame, as the page does, not on its own thread
  std::string ready_file;        // --ready-file: written once three frames are on screen (tests wait for it)
};

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--config" && more) o.config_path = argv[++i];
    else if (a == "--preset" && more) o.preset = argv[++i];
    else if (a == "--screenshot" && more) o.screenshot = argv[++i];
    else if (a == "--frames" && more) o.frames = std::atoi(argv[++i]);
    else if (a == "--scale" && more) o.scale = (float)std::atof(argv[++i]);
    else if (a == "--seconds" && more) o.seconds = (float)std::atof(argv[++i]);
    else if (a == "--size" && more) {
      if (std::sscanf(argv[++i], "%dx%d", &o.width, &o.height) != 2 || o.width < 320 || o.height < 240 ||
          o.width > 8192 || o.height > 8192) {
        std::fprintf(stderr, "attnlab: --size expects WxH between 320x240 and 8192x8192\n");
        return false;
      }
    } else if (a == "--print-config") o.print_config = true;
    else if (a == "--print-view") o.print_view = true;
    else if (a == "--print-stats") o.print_stats = true;
    else if (a == "--print-layout") o.print_layout = true;
    else if (a == "--fullscreen") o.fullscreen = true;
    else if (a == "--present") o.present = true;
    else if (a == "--high-contrast") o.high_contrast = true;
    else if (a == "--lang" && more) o.lang = argv[++i];
    else if (a == "--train" && more) o.train_path = argv[++i];
    else if (a == "--model" && more) o.model_path = argv[++i];
    else if (a == "--print-train") o.print_train = true;
    else if (a == "--until-trained") o.until_trained = true;
    else if (a == "--train-in-frames") o.train_in_frames = true;
    else if (a == "--ready-file" && more) o.ready_file = argv[++i];
    else {
      std::fprintf(stderr, "usage: attnlab [--config FILE | --preset NAME] [--size WxH] [--scale S] [--fullscreen] [--present] [--high-contrast] [--lang CODE] [--frames N | --seconds S] [--screenshot FILE.png] [--print-config] [--print-view] [--print-stats] [--print-layout] [--train CONFIG.json [--until-trained]] [--model MODEL.json] [--print-train] [--train-in-frames] [--ready-file FILE]\n");
      return false;
    }
  }
  if (o.frames < 0 || o.seconds < 0.0f || o.seconds > 86400.0f || o.scale < 0.5f || o.scale > 4.0f) {
    std::fprintf(stderr, "attnlab: --frames and --seconds must be >= 0, --scale between 0.5 and 4\n");
    return false;
  }
  return true;
}

// Saves the frame just drawn (the back buffer) as a PNG: all of it, or the rectangle `crop` (x, y, w, h
// in framebuffer pixels, row 0 at the top; w <= 0: everything).
bool save_screenshot(GLFWwindow* window, const std::string& path, ImVec4 crop = ImVec4(0, 0, 0, 0)) {
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  int x = 0, y = 0, w = fw, h = fh;
  if (crop.z > 0.0f && crop.w > 0.0f) {
    x = std::clamp((int)crop.x, 0, fw - 1), y = std::clamp((int)crop.y, 0, fh - 1);
    w = std::clamp((int)std::ceil(crop.z), 1, fw - x), h = std::clamp((int)std::ceil(crop.w), 1, fh - y);
  }
  std::vector<uint8_t> pixels((size_t)w * h * 4), flipped(pixels.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, fh - y - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  for (int r = 0; r < h; ++r)  // GL's row 0 is the bottom
    std::memcpy(&flipped[(size_t)r * w * 4], &pixels[(size_t)(h - 1 - r) * w * 4], (size_t)w * 4);
  return attnlab::write_png(path, w, h, flipped.data());
}

// F11 switches between a window and the whole primary monitor.
void toggle_fullscreen(GLFWwindow* window, int& saved_x, int& saved_y, int& saved_w, int& saved_h) {
  if (GLFWmonitor* m = glfwGetWindowMonitor(window)) {
    (void)m;
    glfwSetWindowMonitor(window, nullptr, saved_x, saved_y, saved_w, saved_h, GLFW_DONT_CARE);
    return;
  }
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (!mode) return;
  glfwGetWindowPos(window, &saved_x, &saved_y);
  glfwGetWindowSize(window, &saved_w, &saved_h);
  glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

// A whole file as text, at most attnlab::kMaxFileBytes (what a request may make the app read); false if not.
bool read_file(const std::string& path, std::string& text, std::string& err) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return err = "is a folder, not a file", false;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > attnlab::kMaxFileBytes) return err = "over the 16 MiB a file may have", false;
  std::ifstream f(path, std::ios::binary);
  if (!f) return err = "cannot read the file", false;
  std::stringstream ss;
  ss << f.rdbuf();
  text = ss.str();
  return true;
}

attnlab::App* g_app = nullptr;  // for GLFW's drop callback

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) return 2;

  static attnlab::Shell shell;  // large; lives for the whole run
  attnlab::App& app = shell.app;
  if (!opt.train_in_frames) app.session_link = attn::make_thread_link;  // training never makes the window wait
  app.config = attnlab::default_lab_config();
  app.text = app.config.target.text;
  std::string text, err;
  if (!opt.config_path.empty()) {
    if (read_file(opt.config_path, text, err)) err = attnlab::apply_setup(app, text);
    if (!err.empty()) {
      std::fprintf(stderr, "attnlab: %s: %s\n", opt.config_path.c_str(), err.c_str());
      return 2;
    }
  }
  if (!opt.preset.empty()) {
    if (const std::string err = attnlab::apply_preset(app, opt.preset); !err.empty()) {
      std::fprintf(stderr, "attnlab: %s\n", err.c_str());
      return 2;
    }
  }
  // The language: --lang, else the system locale's (LANGUAGE's first entry, LC_ALL, LC_MESSAGES, LANG), else English.
  if (!opt.lang.empty()) {
    if (!attnlab::match_language(opt.lang)) {
      std::fprintf(stderr, "attnlab: --lang %s: unknown language (known:", opt.lang.c_str());
      for (const attnlab::Language& l : attnlab::languages()) std::fprintf(stderr, " %s", l.code);
      std::fprintf(stderr, ")\n");
      return 2;
    }
  }
  const attnlab::Language* lang = attnlab::match_language(opt.lang);
  for (const char* var : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (lang || !v || !*v) continue;
    const std::string first = std::string(v).substr(0, std::string(v).find(':'));
    lang = attnlab::match_language(first);
    if (first == "C" || first == "POSIX") break;
  }
  if (lang) attnlab::choose_language(app, lang->code);
  if (attnlab::embedded_cjk_font_size() > 0) {
    attnlab::set_cjk_font(app, attnlab::embedded_cjk_font(), attnlab::embedded_cjk_font_size());
    app.fonts_dirty = true;
  }
  app.ui.presenter = opt.present;
  app.ui.high_contrast = opt.high_contrast;

  if (!opt.train_path.empty()) {
    if (read_file(opt.train_path, text, err)) err = attnlab::learn_train_json(app, text);
    if (!err.empty()) return std::fprintf(stderr, "attnlab: %s: %s\n", opt.train_path.c_str(), err.c_str()), 2;
  }
  if (!opt.model_path.empty()) {
    if (read_file(opt.model_path, text, err)) err = attnlab::learn_open_model(app, text);
    if (!err.empty()) return std::fprintf(stderr, "attnlab: %s: %s\n", opt.model_path.c_str(), err.c_str()), 2;
  }

  glfwSetErrorCallback([](int code, const char* msg) { std::fprintf(stderr, "attnlab: GLFW error %d: %s\n", code, msg); });
  if (!glfwInit()) {
    std::fprintf(stderr, "attnlab: cannot open a window (no display? try xvfb-run)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 2);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  GLFWmonitor* monitor = opt.fullscreen ? glfwGetPrimaryMonitor() : nullptr;
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (opt.fullscreen && !mode) std::fprintf(stderr, "attnlab: no monitor for --fullscreen; opening a window\n");
  GLFWwindow* window = mode ? glfwCreateWindow(mode->width, mode->height, attnlab::tr("app.title"), monitor, nullptr)
                            : glfwCreateWindow(opt.width, opt.height, attnlab::tr("app.title"), nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "attnlab: cannot create an OpenGL 3.2 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(opt.frames > 0 ? 0 : 1);
  const auto started = std::chrono::steady_clock::now();

  attnlab::start_shell(shell, window, "#version 150\n");
  if (!shell.renderer.linked()) {
    std::fprintf(stderr, "attnlab: the OpenGL 3.2 shaders do not link\n");
    return 1;
  }
  attnlab::GlTextures textures;
  app.textures = &textures;
  app.share = [window](const std::string& json) { glfwSetClipboardString(window, json.c_str()); };
  app.share_run = [window](const std::string& json) { glfwSetClipboardString(window, json.c_str()); };
  g_app = &app;
  glfwSetDropCallback(window, [](GLFWwindow*, int count, const char** paths) {
    if (count < 1 || !g_app) return;
    std::string text, err;
    const std::string name = std::filesystem::path(paths[0]).filename().string();
    if (read_file(paths[0], text, err)) attnlab::open_file_text(*g_app, name, text);
    else attnlab::report_problem(*g_app, attnlab::tr("problem.file.title"), attnlab::trf("problem.file.detail", {{"name", name}, {"reason", err}}));
  });
  // The Export menu saves into the current folder and says where.
  app.download = [&app](const std::string& name, const std::string&, const std::string& data) {
    std::ofstream out(name, std::ios::binary);
    out.write(data.data(), (std::streamsize)data.size());
    attnlab::notify(app, out ? attnlab::trf("notice.saved_in", {{"name", name}, {"folder", std::filesystem::current_path().string()}})
                             : attnlab::trf("notice.cannot_write", {{"name", name}}));
  };
  std::string png_name;  // a PNG asked for this frame, saved once the frame is drawn
  ImVec4 png_crop;
  app.save_png = [&](const std::string& name, ImVec4 crop) { png_name = name, png_crop = crop; };
  shell.font = attnlab::embedded_font();
  shell.font_size = attnlab::embedded_font_size();
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetWindowContentScale(window, &xscale, &yscale);
  app.dpi_scale = xscale > 0.5f ? xscale : 1.0f;
  app.ui.ui_scale = opt.scale;

  int frame_index = 0, saved_x = 40, saved_y = 40, saved_w = opt.width, saved_h = opt.height;
  // Tests that count frames or seconds draw every frame. --until-trained draws as the interactive app
  // does (training on its thread asks for frames at its own pace), so what it measures is what a person
  // gets; its --seconds is then only a bound.
  const bool every_frame = opt.frames > 0 || (opt.seconds > 0.0f && !opt.until_trained);
  auto last_draw = std::chrono::steady_clock::now();
  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  int stop_frame = -1;  // the frame at which a stop was first seen
  while (!glfwWindowShouldClose(window)) {
    const auto t0 = std::chrono::steady_clock::now();
    glfwPollEvents();
    // Interactive: sleep until input while nothing changes (no busy loop at the display's rate).
    const bool past_bound = opt.seconds > 0.0f && std::chrono::duration<float>(t0 - started).count() >= opt.seconds;
    if (!g_stop_requested && !every_frame && !past_bound && frame_index > 0 &&
        !attnlab::frame_due(shell, std::chrono::duration<double>(t0 - last_draw).count())) {
      glfwWaitEventsTimeout(0.1);
      continue;
    }
    last_draw = t0;
    if (const int want = app.ui.fullscreen_request; want != 0) {
      app.ui.fullscreen_request = 0;
      const bool is_full = glfwGetWindowMonitor(window) != nullptr;
      if (want == 2 || (want == 1) != is_full) toggle_fullscreen(window, saved_x, saved_y, saved_w, saved_h);
    }
    int fw = 0, fh = 0, ww = 0, wh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glfwGetWindowSize(window, &ww, &wh);
    attnlab::draw_frame(shell, fw, fh, (float)ww, (float)wh);
    ++frame_index;
    if (!png_name.empty()) {  // the crop is in window units; the framebuffer may be denser
      const float k = ww > 0 ? (float)fw / (float)ww : 1.0f;
      const ImVec4 crop(png_crop.x * k, png_crop.y * k, png_crop.z * k, png_crop.w * k);
      attnlab::notify(app, save_screenshot(window, png_name, crop)
                               ? attnlab::trf("notice.saved_in", {{"name", png_name}, {"folder", std::filesystem::current_path().string()}})
                               : attnlab::trf("notice.cannot_write", {{"name", png_name}}));
      png_name.clear();
    }
    const float elapsed = std::chrono::duration<float>(std::chrono::steady_clock::now() - started).count();
    // A stop waits two frames (each polls the events that were sent before it) and then for the input
    // queue to be drawn and settled.
    if (g_stop_requested && stop_frame < 0) stop_frame = frame_index;
    const bool stopped = stop_frame >= 0 && frame_index >= stop_frame + 2 && !shell.input.recent_input();
    const bool last = (opt.frames > 0 && frame_index >= opt.frames) || (opt.seconds > 0.0f && elapsed >= opt.seconds) ||
                      (opt.until_trained && !attnlab::learn_busy(app)) || stopped;
    if (last && !opt.screenshot.empty() && !save_screenshot(window, opt.screenshot)) {
      std::fprintf(stderr, "attnlab: cannot write %s\n", opt.screenshot.c_str());
      return 1;
    }
    glfwSwapBuffers(window);
    if (frame_index == 3 && !opt.ready_file.empty()) std::ofstream(opt.ready_file) << "drawn\n";
    if (last) break;
  }
  if (opt.print_config) std::printf("%s\n", attn::config_to_json(app.engine.config()).c_str());
  if (opt.print_view) std::printf("%s\n", attnlab::view_state_to_json(app.ui).c_str());
  if (opt.print_stats) std::printf("%s\n", attnlab::stats_json(app).c_str());
  if (opt.print_layout) std::printf("%s\n", attnlab::layout_json(app).c_str());
  if (opt.print_train) std::printf("%s\n", attnlab::learn_status_json(app).c_str());

  app.learn.reset();  // stops Learn mode's training thread and joins it
  shell.renderer.shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
