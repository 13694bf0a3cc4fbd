// gl_textures.h — TextureBackend on OpenGL 3 (desktop) and WebGL2 (web).
#pragma once
#include "textures.h"

namespace attnlab {

class GlTextures final : public TextureBackend {
 public:
  ImTextureID upload(ImTextureID existing, int w, int h, const uint32_t* rgba) override;
  void release(ImTextureID id) override;
};

}  // namespace attnlab
