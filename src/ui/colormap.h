// colormap.h — colours for numbers: a sequential map for [0, 1] data, a diverging one for signed data.
#pragma once
#include <cstdint>

namespace attnlab {

enum class Colormap {
  sequential,  // viridis-like, dark purple (0) -> yellow (1): weights
  diverging,   // blue (negative) -> near white (0) -> red (positive): everything signed
};

constexpr uint32_t kMaskedColor = 0xFF3A3A3A;  // masked cells (−∞): dark grey

// A colour map over a range, ready to colour many cells: each is one multiply-add, a clamp and a
// lookup in the map's table (colormap.cpp). Sequential maps [0, 1]; diverging maps [-range, range],
// 0 in the middle. Values outside are clamped; NaN (which the engine never gives) draws as masked.
struct ColorScale {
  static constexpr int kSteps = 2048;  // the table's entries
  const uint32_t* table;
  float scale, offset;
  ColorScale(Colormap map, float range);
  uint32_t operator()(float v) const {
    float x = v * scale + offset + 0.5f;
    x = x > 0.0f ? x : 0.0f;  // (NaN too: its lookup is safe, and replaced below)
    x = x < (float)kSteps - 0.5f ? x : (float)kSteps - 0.5f;
    const uint32_t c = table[(int)x];
    return v == v ? c : kMaskedColor;
  }
};

// t in [0, 1] for sequential, [-1, 1] for diverging (clamped). Returns 0xAABBGGRR (ImGui's ImU32).
inline uint32_t colormap(Colormap map, float t) { return ColorScale(map, 1.0f)(t); }

// Black or white, whichever reads better on `background`.
uint32_t text_color_on(uint32_t background);

}  // namespace attnlab
