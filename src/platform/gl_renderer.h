// gl_renderer.h — draws Dear ImGui's output with OpenGL 3.2 core (desktop) or WebGL2 (web).
//
// Our own instead of imgui_impl_opengl3: that backend saves and restores the whole GL state every
// frame with ~15 glGet* queries, and in Chromium each query waits for the GPU process (measured:
// 2.5 ms per query, 30+ per frame on SwiftShader). This renderer owns the context, so it sets the
// state it needs and never reads any back.
#pragma once
#include <cstdint>
#include <vector>

#include "imgui.h"

namespace attnlab {

class GlRenderer {
 public:
  // glsl_header: "#version 150\n" (desktop) or "#version 300 es\nprecision mediump float;\n" (web).
  // Starts compiling and linking the shaders and makes the buffers, and returns at once: nothing here
  // asks the GPU for an answer, so a browser's GPU process compiles on its own core while the page goes
  // on (building the font atlas). linked() waits for the answer.
  void init(const char* glsl_header);
  // Whether the shaders compiled and linked (asked once; the uniforms' places are read then). render()
  // draws nothing unless they did.
  bool linked();
  void shutdown();
  // (Re)builds the font atlas texture from ImGui's current fonts.
  void rebuild_fonts();
  void render(const ImDrawData* draw_data, int framebuffer_w, int framebuffer_h);

 private:
  struct Program {
    unsigned program = 0, vertex = 0, fragment = 0;
    int loc_proj = -1;
    void start(const char* glsl_header, bool solid);  // solid: the fragment shader that samples nothing
    bool link();  // asks whether it linked; the shaders go either way
    void shutdown();
  };
  enum class Link { unknown, ok, failed };
  Link link_ = Link::unknown;
  Program textured_, solid_;  // solid_: the runs that sample nothing (draw_runs.h)
  unsigned vao_ = 0, vbo_ = 0, ebo_ = 0, font_texture_ = 0;
  int loc_texture_ = -1, loc_coverage_ = -1;
  // Every list's vertices and indices in one buffer each, uploaded once a frame (a browser pays for
  // each GL call; two uploads per window were a fifth of the frame's GL time). Indices are the list's
  // plus where its vertices start.
  std::vector<ImDrawVert> vertices_;
  std::vector<uint32_t> indices_;
  float projection_[4] = {0, 0, 0, 0};  // the display rect the programs' projection was set for
  int coverage_ = -1;                   // the textured program's `coverage` uniform (-1: not set yet)
};

}  // namespace attnlab
