#include "gl_renderer.h"

#include "draw_runs.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#endif

namespace attnlab {

namespace {

const char* kVertex = R"(
in vec2 position;
in vec2 uv;
in vec4 color;
uniform mat4 projection;
out vec2 frag_uv;
out vec4 frag_color;
void main() {
  frag_uv = uv;
  frag_color = color;
  gl_Position = projection * vec4(position, 0.0, 1.0);
})";

// One fragment shader, compiled twice: as written for the textured program, and with SOLID defined for
// the shapes that cover only the atlas's white texel (draw_runs.h), which take the color with nothing
// sampled (the vertex shader is the same for both).
const char* kFragment = R"(
in vec2 frag_uv;
in vec4 frag_color;
out vec4 out_color;
#ifdef SOLID
void main() {
  out_color = frag_color;
}
#else
uniform sampler2D tex;
uniform bool coverage;  // the font atlas: one channel, the glyphs' coverage (white text times the color)
void main() {
  vec4 t = texture(tex, frag_uv);
  out_color = frag_color * (coverage ? vec4(1.0, 1.0, 1.0, t.r) : t);
}
#endif
)";

// A run of solid triangles smaller than this (framebuffer pixels) is drawn with its neighbours: a
// draw call of its own would cost more than the texture lookups it saves.
constexpr float kMinSolidPixels = 4096.0f;

GLuint compile(GLenum type, const std::string& source) {
  GLuint s = glCreateShader(type);
  const char* src = source.c_str();
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);  // its status is asked in linked(), not here: asking waits for the compiler
  return s;
}

void report_compile_error(GLuint shader) {
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok) return;
  char log[1024];
  glGetShaderInfoLog(shader, sizeof log, nullptr, log);
  std::fprintf(stderr, "attnlab: shader does not compile: %s\n", log);
}

}  // namespace

void GlRenderer::Program::start(const char* glsl_header, bool solid) {
  vertex = compile(GL_VERTEX_SHADER, std::string(glsl_header) + kVertex);
  fragment = compile(GL_FRAGMENT_SHADER, std::string(glsl_header) + (solid ? "#define SOLID\n" : "") + kFragment);
  program = glCreateProgram();
  glAttachShader(program, vertex);
  glAttachShader(program, fragment);
  glBindAttribLocation(program, 0, "position");
  glBindAttribLocation(program, 1, "uv");
  glBindAttribLocation(program, 2, "color");
  glLinkProgram(program);
}

bool GlRenderer::Program::link() {
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok) {
    loc_proj = glGetUniformLocation(program, "projection");
  } else {
    report_compile_error(vertex);
    report_compile_error(fragment);
  }
  glDeleteShader(vertex);  // the program keeps what it needs
  glDeleteShader(fragment);
  vertex = fragment = 0;
  return ok;
}

void GlRenderer::Program::shutdown() {
  if (program) glDeleteProgram(program);
  if (vertex) glDeleteShader(vertex);
  if (fragment) glDeleteShader(fragment);
  program = vertex = fragment = 0;
  loc_proj = -1;
}

void GlRenderer::init(const char* glsl_header) {
  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "attnlab_gl";
  textured_.start(glsl_header, false);
  solid_.start(glsl_header, true);
  std::fill(projection_, projection_ + 4, 0.0f);  // new programs: no uniform set yet
  coverage_ = -1;

  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glGenBuffers(1, &ebo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);  // recorded in the VAO
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), (void*)offsetof(ImDrawVert, pos));
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), (void*)offsetof(ImDrawVert, uv));
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ImDrawVert), (void*)offsetof(ImDrawVert, col));
  glBindVertexArray(0);
}

bool GlRenderer::linked() {
  if (link_ == Link::unknown) {
    const bool textured = textured_.link(), solid = solid_.link();
    link_ = textured && solid ? Link::ok : Link::failed;
    if (link_ == Link::ok) {
      loc_texture_ = glGetUniformLocation(textured_.program, "tex");
      loc_coverage_ = glGetUniformLocation(textured_.program, "coverage");
    }
  }
  return link_ == Link::ok;
}

void GlRenderer::rebuild_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  // One byte a texel (the coverage), not four: a quarter of the upload, which a page's first frame
  // waits for (render() draws it as white times the vertex color, as ImGui's RGBA atlas would be).
  io.Fonts->GetTexDataAsAlpha8(&pixels, &w, &h);
  if (!font_texture_) glGenTextures(1, &font_texture_);
  glBindTexture(GL_TEXTURE_2D, font_texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  io.Fonts->SetTexID((ImTextureID)(intptr_t)font_texture_);
}

void GlRenderer::render(const ImDrawData* dd, int fb_w, int fb_h) {
  if (fb_w <= 0 || fb_h <= 0 || !dd || !linked()) return;
  // The state ImGui needs: alpha blending, scissoring, no culling or depth.
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_w, fb_h);
  const float L = dd->DisplayPos.x, R = dd->DisplayPos.x + dd->DisplaySize.x;
  const float T = dd->DisplayPos.y, B = dd->DisplayPos.y + dd->DisplaySize.y;
  const float display[4] = {L, R, T, B};
  if (!std::equal(display, display + 4, projection_)) {  // (a program keeps its uniforms)
    const float ortho[4][4] = {{2.0f / (R - L), 0, 0, 0},
                               {0, 2.0f / (T - B), 0, 0},
                               {0, 0, -1.0f, 0},
                               {(R + L) / (L - R), (T + B) / (B - T), 0, 1.0f}};
    glUseProgram(solid_.program);
    glUniformMatrix4fv(solid_.loc_proj, 1, GL_FALSE, &ortho[0][0]);
    glUseProgram(textured_.program);
    glUniform1i(loc_texture_, 0);
    glUniformMatrix4fv(textured_.loc_proj, 1, GL_FALSE, &ortho[0][0]);
    std::copy(display, display + 4, projection_);
  }
  glUseProgram(textured_.program);
  const ImVec2 white_uv = ImGui::GetIO().Fonts->TexUvWhitePixel;
  const float min_solid_area = kMinSolidPixels / (dd->FramebufferScale.x * dd->FramebufferScale.y);
  bool solid_in_use = false;  // which program is in use
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);

  static_assert(sizeof(ImDrawIdx) == 4, "built with 32-bit indices (see cmake/imgui.cmake)");
  vertices_.resize((size_t)dd->TotalVtxCount);
  indices_.resize((size_t)dd->TotalIdxCount);
  for (size_t n = 0, v = 0, i = 0; n < (size_t)dd->CmdListsCount; ++n) {
    const ImDrawList* list = dd->CmdLists[n];
    std::copy(list->VtxBuffer.begin(), list->VtxBuffer.end(), vertices_.begin() + (std::ptrdiff_t)v);
    for (ImDrawIdx k : list->IdxBuffer) indices_[i++] = (uint32_t)(k + v);
    v += (size_t)list->VtxBuffer.Size;
  }
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(vertices_.size() * sizeof(ImDrawVert)), vertices_.data(), GL_STREAM_DRAW);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(indices_.size() * sizeof(uint32_t)), indices_.data(), GL_STREAM_DRAW);

  const ImVec2 clip_off = dd->DisplayPos, clip_scale = dd->FramebufferScale;
  GLuint bound = ~0u;  // the texture bound for the commands so far (none yet)
  int scissor[4] = {-1, -1, -1, -1};  // the scissor set so far (none yet): each GL call costs a browser a few µs
  unsigned list_first = 0;  // where the list's indices start in indices_
  for (int n = 0; n < dd->CmdListsCount; list_first += (unsigned)dd->CmdLists[n]->IdxBuffer.Size, ++n) {
    const ImDrawList* list = dd->CmdLists[n];
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
        continue;
      }
      const float x0 = (cmd.ClipRect.x - clip_off.x) * clip_scale.x, y0 = (cmd.ClipRect.y - clip_off.y) * clip_scale.y;
      const float x1 = (cmd.ClipRect.z - clip_off.x) * clip_scale.x, y1 = (cmd.ClipRect.w - clip_off.y) * clip_scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      const int rect[4] = {(int)x0, (int)((float)fb_h - y1), (int)(x1 - x0), (int)(y1 - y0)};
      if (!std::equal(rect, rect + 4, scissor)) glScissor(rect[0], rect[1], rect[2], rect[3]), std::copy(rect, rect + 4, scissor);
      const GLuint texture = (GLuint)(intptr_t)cmd.GetTexID();
      if (texture != bound) glBindTexture(GL_TEXTURE_2D, texture), bound = texture;
      const int coverage = texture == font_texture_ ? 1 : 0;
      for_each_draw_run(*list, cmd, coverage, white_uv, min_solid_area, [&](unsigned first, unsigned count, bool solid) {
        if (solid != solid_in_use) glUseProgram(solid ? solid_.program : textured_.program), solid_in_use = solid;
        // (a uniform is set on the program in use: the textured one's, only while it is)
        if (!solid && coverage != coverage_) glUniform1i(loc_coverage_, coverage), coverage_ = coverage;
        glDrawElements(GL_TRIANGLES, (GLsizei)count, GL_UNSIGNED_INT, (void*)(intptr_t)((list_first + first) * sizeof(uint32_t)));
      });
    }
  }
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(0);
}

void GlRenderer::shutdown() {
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (ebo_) glDeleteBuffers(1, &ebo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  textured_.shutdown();
  solid_.shutdown();
  font_texture_ = vbo_ = ebo_ = vao_ = 0;
  link_ = Link::unknown;
  std::fill(projection_, projection_ + 4, 0.0f);
  coverage_ = -1;
}

}  // namespace attnlab
