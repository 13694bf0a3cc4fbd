// colormap.h — colours for numbers: a sequential map for [0, 1] data, a diverging one for signed data.
#pragma once
#include <cstdint>

namespace attnlab {

enum class Colormap {
  sequential,  // viridis-like, dark purple (0) -> yellow (1): weights
  diverging,   // blue (negative) -> near white (0) -> red (positive): everything signed
};

// t in [0, 1] for sequential, [-1, 1] for diverging (clamped). Returns 0xAABBGGRR (ImGui's ImU32).
uint32_t colormap(Colormap map, float t);

// Black or white, whichever reads better on `background`.
uint32_t text_color_on(uint32_t background);

constexpr uint32_t kMaskedColor = 0xFF3A3A3A;  // masked cells (−∞): dark grey

}  // namespace attnlab
