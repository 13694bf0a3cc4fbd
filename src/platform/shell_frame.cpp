#include "shell_frame.h"

#include <chrono>

#include "imgui_impl_glfw.h"

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <GL/gl.h>
#endif

namespace attnlab {

void start_shell(Shell& shell, GLFWwindow* window, const char* glsl_version) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout follows the window; nothing to remember
  shell.input.install(window);
  ImGui_ImplGlfw_InitForOpenGL(window, false);  // callbacks: InputRelay
  shell.renderer.init(glsl_version);
}

bool frame_due(Shell& shell, double seconds_since_last_draw) {
  return shell.input.recent_input() || needs_redraw(shell.app, seconds_since_last_draw);
}

void draw_frame(Shell& shell, int fb_w, int fb_h, float display_w, float display_h) {
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t) { return std::chrono::duration<float, std::milli>(clock::now() - t).count(); };
  App& app = shell.app;
  const bool startup = app.stats.frames == 0 && app.fonts_dirty;  // the app's first frame (FrameStats::startup)
  const auto t0 = clock::now();
  if (app.fonts_dirty) {
    setup_style(app, shell.font, shell.font_size, app.ui.ui_scale);
    shell.renderer.rebuild_fonts();
  }
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  // GLFW's idea of the size can lag the canvas on the web; the shells pass what they draw into.
  io.DisplaySize = ImVec2(display_w, display_h);
  io.DisplayFramebufferScale = ImVec2(display_w > 0 ? (float)fb_w / display_w : 1.0f, display_h > 0 ? (float)fb_h / display_h : 1.0f);
  shell.input.before_new_frame();  // touch and wheel input the backend does not know about
  ImGui::NewFrame();
  const auto t_ui = clock::now();
  frame(app);
  app.ui_stats.add(ms_since(t_ui));
  shell.input.set_pointer_over_cell(app.ui.hover_next.valid());
  ImGui::Render();
  app.last_vertices = ImGui::GetDrawData()->TotalVtxCount;
  glViewport(0, 0, fb_w, fb_h);
  const ImVec4 bg = app.ui.high_contrast ? ImVec4(0, 0, 0, 1) : ImVec4(0.06f, 0.07f, 0.08f, 1.0f);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  shell.renderer.render(ImGui::GetDrawData(), fb_w, fb_h);
  shell.input.after_frame();
  app.stats.add(ms_since(t0), startup);
}

}  // namespace attnlab
