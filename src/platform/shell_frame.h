// shell_frame.h — the one frame sequence both windowed shells run (desktop_main.cpp, web_main.cpp).
//
//   fonts (if the UI scale or pixel ratio changed) -> input relay -> ImGui new frame -> frame(App&)
//   -> ImGui render -> GL draw -> statistics
//
// The shells differ only in what surrounds it: the desktop polls GLFW, swaps buffers and may save a
// screenshot; the web sizes its canvas to the device pixel ratio and talks to the page.
#pragma once
#include <vector>

#include "app.h"
#include "gl_renderer.h"
#include "glfw_input.h"

namespace attnlab {

struct Shell {
  App app;
  GlRenderer renderer;
  InputRelay input;
  const void* font = nullptr;  // the UI font's TTF bytes (not owned)
  int font_size = 0;
};

// Draws one frame into a framebuffer of fb_w × fb_h pixels. The display size ImGui lays out in is the
// framebuffer's (the web's canvas backing store; the desktop passes GLFW's window size and scale).
// Records the whole frame's time in app.stats and the UI's share (frame(App&)) in app.ui_stats.
void draw_frame(Shell& shell, int fb_w, int fb_h, float display_w, float display_h);

}  // namespace attnlab
