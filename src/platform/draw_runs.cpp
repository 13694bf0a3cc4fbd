#include "draw_runs.h"

#include <cmath>

namespace attnlab {

namespace {

bool on_white(const ImDrawVert& v, ImVec2 white_uv) { return v.uv.x == white_uv.x && v.uv.y == white_uv.y; }

// Half the cross product of two edges.
float area(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c) {
  return 0.5f * std::fabs((b.pos.x - a.pos.x) * (c.pos.y - a.pos.y) - (c.pos.x - a.pos.x) * (b.pos.y - a.pos.y));
}

}  // namespace

void for_each_draw_run(const ImDrawList& list, const ImDrawCmd& cmd, bool atlas, ImVec2 white_uv, float min_area,
                       const std::function<void(unsigned first, unsigned count, bool solid)>& draw) {
  const unsigned begin = cmd.IdxOffset, end = cmd.IdxOffset + cmd.ElemCount - cmd.ElemCount % 3;
  if (!atlas || end == begin) {
    if (cmd.ElemCount) draw(cmd.IdxOffset, cmd.ElemCount, false);
    return;
  }
  const ImDrawIdx* idx = list.IdxBuffer.Data;
  const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
  unsigned textured_from = begin;  // the start of the textured range not yet drawn
  unsigned i = begin;
  while (i < end) {
    // The run of solid triangles starting at i, and its area.
    unsigned j = i;
    float run_area = 0.0f;
    while (j < end) {
      const ImDrawVert &a = vtx[idx[j]], &b = vtx[idx[j + 1]], &c = vtx[idx[j + 2]];
      if (!on_white(a, white_uv) || !on_white(b, white_uv) || !on_white(c, white_uv)) break;
      run_area += area(a, b, c);
      j += 3;
    }
    if (j > i && run_area >= min_area) {
      if (i > textured_from) draw(textured_from, i - textured_from, false);
      draw(i, j - i, true);
      textured_from = j;
    }
    i = j > i ? j : i + 3;  // past the run, or past the textured triangle that ended it
  }
  const unsigned last = cmd.IdxOffset + cmd.ElemCount;  // (with any stray indices past the last triangle)
  if (last > textured_from) draw(textured_from, last - textured_from, false);
}

}  // namespace attnlab
