// textures.h — how the UI gets pixels onto the GPU without knowing which GPU API the shell uses.
// The desktop and web shells implement it with OpenGL / WebGL2; headless tests use a fake.
#pragma once
#include <cstdint>

#include "imgui.h"

namespace attnlab {

class TextureBackend {
 public:
  virtual ~TextureBackend() = default;
  // Creates (existing == 0) or refills a w×h RGBA8 texture, nearest-neighbour sampled; returns its id.
  virtual ImTextureID upload(ImTextureID existing, int w, int h, const uint32_t* rgba) = 0;
  virtual void release(ImTextureID id) = 0;
  // The largest side a texture may have. WebGL 2 guarantees 2048; a shell that asks the GPU may say more.
  virtual int max_size() const { return 2048; }
};

}  // namespace attnlab
