// png_write.h — writes RGBA8 pixels as a PNG (stored, uncompressed deflate blocks: simple and exact).
#pragma once
#include <cstdint>
#include <string>

namespace attnlab {

// rgba: w×h pixels, row 0 at the top. Returns false if the file cannot be written.
bool write_png(const std::string& path, int w, int h, const uint8_t* rgba);

}  // namespace attnlab
