#include "gl_renderer.h"

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

const char* kFragment = R"(
in vec2 frag_uv;
in vec4 frag_color;
uniform sampler2D tex;
uniform bool coverage;  // the font atlas: one channel, the glyphs' coverage (white text times the color)
out vec4 out_color;
void main() {
  vec4 t = texture(tex, frag_uv);
  out_color = frag_color * (coverage ? vec4(1.0, 1.0, 1.0, t.r) : t);
})";

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

void GlRenderer::init(const char* glsl_header) {
  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "attnlab_gl";
  vertex_ = compile(GL_VERTEX_SHADER, std::string(glsl_header) + kVertex);
  fragment_ = compile(GL_FRAGMENT_SHADER, std::string(glsl_header) + kFragment);
  program_ = glCreateProgram();
  glAttachShader(program_, vertex_);
  glAttachShader(program_, fragment_);
  glBindAttribLocation(program_, 0, "position");
  glBindAttribLocation(program_, 1, "uv");
  glBindAttribLocation(program_, 2, "color");
  glLinkProgram(program_);

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
    GLint ok = 0;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (ok) {
      link_ = Link::ok;
      loc_proj_ = glGetUniformLocation(program_, "projection");
      loc_texture_ = glGetUniformLocation(program_, "tex");
      loc_coverage_ = glGetUniformLocation(program_, "coverage");
    } else {
      link_ = Link::failed;
      report_compile_error(vertex_);
      report_compile_error(fragment_);
    }
    glDeleteShader(vertex_);  // the program keeps what it needs
    glDeleteShader(fragment_);
    vertex_ = fragment_ = 0;
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
  const float ortho[4][4] = {{2.0f / (R - L), 0, 0, 0},
                             {0, 2.0f / (T - B), 0, 0},
                             {0, 0, -1.0f, 0},
                             {(R + L) / (L - R), (T + B) / (B - T), 0, 1.0f}};
  glUseProgram(program_);
  glUniform1i(loc_texture_, 0);
  glUniformMatrix4fv(loc_proj_, 1, GL_FALSE, &ortho[0][0]);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);

  const ImVec2 clip_off = dd->DisplayPos, clip_scale = dd->FramebufferScale;
  GLuint bound = ~0u;  // the texture bound for the commands so far (none yet)
  static_assert(sizeof(ImDrawIdx) == 4, "built with 32-bit indices (see cmake/imgui.cmake)");
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* list = dd->CmdLists[n];
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)list->VtxBuffer.Size * (GLsizeiptr)sizeof(ImDrawVert), list->VtxBuffer.Data, GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)list->IdxBuffer.Size * (GLsizeiptr)sizeof(ImDrawIdx), list->IdxBuffer.Data, GL_STREAM_DRAW);
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
        continue;
      }
      const float x0 = (cmd.ClipRect.x - clip_off.x) * clip_scale.x, y0 = (cmd.ClipRect.y - clip_off.y) * clip_scale.y;
      const float x1 = (cmd.ClipRect.z - clip_off.x) * clip_scale.x, y1 = (cmd.ClipRect.w - clip_off.y) * clip_scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      glScissor((int)x0, (int)((float)fb_h - y1), (int)(x1 - x0), (int)(y1 - y0));
      const GLuint texture = (GLuint)(intptr_t)cmd.GetTexID();
      if (texture != bound) {
        glBindTexture(GL_TEXTURE_2D, texture);
        glUniform1i(loc_coverage_, texture == font_texture_ ? 1 : 0);
        bound = texture;
      }
      glDrawElements(GL_TRIANGLES, (GLsizei)cmd.ElemCount, GL_UNSIGNED_INT, (void*)(intptr_t)(cmd.IdxOffset * sizeof(ImDrawIdx)));
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
  if (program_) glDeleteProgram(program_);
  if (vertex_) glDeleteShader(vertex_);
  if (fragment_) glDeleteShader(fragment_);
  font_texture_ = vbo_ = ebo_ = vao_ = program_ = vertex_ = fragment_ = 0;
  link_ = Link::unknown;
}

}  // namespace attnlab
