// shell_frame.h — the one frame sequence both windowed shells run (desktop_main.cpp, web_main.cpp).
//
//   fonts (if the UI scale or pixel ratio changed) -> input relay -> ImGui new frame -> frame(App&)
//   -> ImGui render -> GL draw -> statistics
//
// The shells differ only in what surrounds it: the desktop polls GLFW, swaps buffers and may save a
// screenshot; the web sizes its canvas to the device pixel ratio and talks to the page.
#pragma once
#include <cstdint>
#include <vector>

#include "app.h"
#include "gl_renderer.h"
#include "glfw_input.h"

struct GLFWwindow;

namespace attnlab {

struct Shell {
  App app;
  GlRenderer renderer;
  InputRelay input;
  const void* font = nullptr;  // the UI font's TTF bytes (not owned)
  int font_size = 0;
};

// The most a file opened in the lab may have (a dropped file, --config, the page's file picker): a model of
// about a million weights; parsing one takes several times its size.
constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

// The shells' common start, once the window has its GL context: the ImGui context (no imgui.ini: the layout follows
// the window), the input relay and the GLFW backend on `window`, and the GL renderer for `glsl_version`, its
// shaders still compiling (shell.renderer.linked() says whether they linked; the first frame asks).
void start_shell(Shell& shell, GLFWwindow* window, const char* glsl_version);

// Whether a frame must be drawn now: input arrived, or the lab has something to show (needs_redraw).
// Shells skip the others: the screen keeps the last frame.
bool frame_due(Shell& shell, double seconds_since_last_draw);


// Draws one frame into a framebuffer of fb_w × fb_h pixels. The display size ImGui lays out in is the
// framebuffer's (the web's canvas backing store; the desktop passes GLFW's window size and scale).
// Records the whole frame's time in app.stats and the UI's share (frame(App&)) in app.ui_stats.
void draw_frame(Shell& shell, int fb_w, int fb_h, float display_w, float display_h);

}  // namespace attnlab
