// web_shell.h — the web shell's state, shared by its loop (web_main.cpp) and the page API behind
// window.attnlab (web_api.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gl_textures.h"
#include "shell_frame.h"

struct GLFWwindow;

namespace attnlab {

struct WebShell : Shell {
  GlTextures textures;
  GLFWwindow* window = nullptr;
  std::vector<unsigned char> font_bytes;
  int backing_w = 0, backing_h = 0;
  bool first_frame_done = false;
  bool learn_warmed = false;  // Learn mode drawn once, out of sight (learn_warmup.h) or shown
  double last_draw_ms = 0;
  std::string reply;       // the last string handed to JavaScript (valid until the next call)
  std::string page_state;  // the last state pushed to the page (text boxes, screen-reader text)
  std::string a11y, a11y_key;  // screen-reader text and the cell, head and query it was made for
  uint64_t a11y_version = 0;   // the result it was made from
  double a11y_ms = 0;          // when
  bool focus_text_pending = false;
  std::string png_name;  // a PNG asked for by the UI, saved right after the frame that asked is drawn
  ImVec4 png_crop;        // what of it (App::save_png)
  bool force_draw = false;
};

// The one shell; it lives for the page's lifetime (the page API reaches it through this).
WebShell& web_shell();

// One pass of the page's main loop: draws a frame when something changed (or force_draw is set).
void web_main_loop(WebShell& s);

// Wakes the page's loop if it sleeps: it looks at the next animation frame (web_main.cpp, js_start_loop).
void wake_loop();

}  // namespace attnlab
