#include "gl_textures.h"

#include <cstdint>

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#endif

namespace attnlab {

ImTextureID GlTextures::upload(ImTextureID existing, int w, int h, const uint32_t* rgba) {
  // No glGetIntegerv to restore the previous binding: in a browser every GL query waits for the GPU,
  // and the renderer binds each draw command's texture anyway.
  GLuint tex = (GLuint)(intptr_t)existing;
  const bool fresh = tex == 0;
  if (fresh) glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);  // (rows of RGBA texels: the default unpack alignment, 4, fits)
  if (fresh) {
    // One texel per cell, drawn magnified: nearest keeps cell edges sharp.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  if (fresh) glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  else glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  return (ImTextureID)(intptr_t)tex;
}

void GlTextures::release(ImTextureID id) {
  GLuint tex = (GLuint)(intptr_t)id;
  if (tex) glDeleteTextures(1, &tex);
}

}  // namespace attnlab
