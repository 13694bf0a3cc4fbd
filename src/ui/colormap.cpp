#include "colormap.h"

#include <glm/common.hpp>
#include <glm/vec3.hpp>

namespace attnlab {
namespace {

// Control points sampled from matplotlib's viridis and RdBu (facts: their published RGB values).
constexpr glm::vec3 kViridis[] = {{0.267f, 0.005f, 0.329f}, {0.283f, 0.141f, 0.458f}, {0.254f, 0.265f, 0.530f},
                                  {0.207f, 0.372f, 0.553f}, {0.164f, 0.471f, 0.558f}, {0.128f, 0.567f, 0.551f},
                                  {0.135f, 0.659f, 0.518f}, {0.267f, 0.749f, 0.441f}, {0.478f, 0.821f, 0.318f},
                                  {0.741f, 0.873f, 0.150f}, {0.993f, 0.906f, 0.144f}};
constexpr glm::vec3 kRdBu[] = {{0.020f, 0.188f, 0.380f}, {0.129f, 0.400f, 0.675f}, {0.263f, 0.576f, 0.765f},
                               {0.573f, 0.773f, 0.871f}, {0.820f, 0.898f, 0.941f}, {0.969f, 0.969f, 0.969f},
                               {0.992f, 0.859f, 0.780f}, {0.957f, 0.647f, 0.510f}, {0.839f, 0.376f, 0.302f},
                               {0.698f, 0.094f, 0.169f}, {0.404f, 0.000f, 0.122f}};

template <size_t N>
glm::vec3 sample(const glm::vec3 (&stops)[N], float t) {
  const float x = glm::clamp(t, 0.0f, 1.0f) * (float)(N - 1);
  const int i = glm::min((int)x, (int)N - 2);
  return glm::mix(stops[i], stops[i + 1], x - (float)i);
}

uint32_t pack(glm::vec3 c) {
  const glm::ivec3 b = glm::ivec3(glm::clamp(c, 0.0f, 1.0f) * 255.0f + 0.5f);
  return 0xFF000000u | (uint32_t)b.b << 16 | (uint32_t)b.g << 8 | (uint32_t)b.r;
}

// Each map as ColorScale::kSteps colours, interpolated once: a cell's colour is then one lookup (a
// heatmap of 100 000 cells is coloured in well under a millisecond). Between two entries the
// interpolated colour moves by less than a fifth of one 8-bit level, so the table draws what the
// interpolation would.
constexpr int kSteps = ColorScale::kSteps;
struct Table {
  uint32_t c[kSteps];
};
template <size_t N>
Table tabulate(const glm::vec3 (&stops)[N]) {
  Table t;
  for (int i = 0; i < kSteps; ++i) t.c[i] = pack(sample(stops, (float)i / (float)(kSteps - 1)));
  return t;
}
const Table kSequential = tabulate(kViridis), kDiverging = tabulate(kRdBu);

}  // namespace

ColorScale::ColorScale(Colormap map, float range) {
  const float last = (float)(kSteps - 1);
  if (map == Colormap::sequential) {
    table = kSequential.c, scale = last, offset = 0.0f;
  } else {
    table = kDiverging.c, scale = 0.5f * last / (range > 0.0f ? range : 1.0f), offset = 0.5f * last;
  }
}

uint32_t text_color_on(uint32_t bg) {
  const float r = (float)(bg & 0xFF), g = (float)((bg >> 8) & 0xFF), b = (float)((bg >> 16) & 0xFF);
  return 0.299f * r + 0.587f * g + 0.114f * b > 140.0f ? 0xFF101010u : 0xFFF5F5F5u;
}

}  // namespace attnlab
