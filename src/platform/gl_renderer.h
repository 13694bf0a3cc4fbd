// gl_renderer.h — draws Dear ImGui's output with OpenGL 3.2 core (desktop) or WebGL2 (web).
//
// Our own instead of imgui_impl_opengl3: that backend saves and restores the whole GL state every
// frame with ~15 glGet* queries, and in Chromium each query waits for the GPU process (measured:
// 2.5 ms per query, 30+ per frame on SwiftShader). This renderer owns the context, so it sets the
// state it needs and never reads any back.
#pragma once
#include "imgui.h"

namespace attnlab {

class GlRenderer {
 public:
  // glsl_header: "#version 150\n" (desktop) or "#version 300 es\nprecision mediump float;\n" (web).
  bool init(const char* glsl_header);
  void shutdown();
  // (Re)builds the font atlas texture from ImGui's current fonts.
  void rebuild_fonts();
  void render(const ImDrawData* draw_data, int framebuffer_w, int framebuffer_h);

 private:
  unsigned program_ = 0, vao_ = 0, vbo_ = 0, ebo_ = 0, font_texture_ = 0;
  int loc_proj_ = -1, loc_texture_ = -1, loc_coverage_ = -1;
};

}  // namespace attnlab
