// draw_runs.h — where one of ImGui's draw commands can skip the texture.
//
// ImGui draws every shape through its font atlas: a filled rectangle samples the atlas's white texel
// as a glyph samples its coverage. On a software GPU (SwiftShader in a browser without a GPU driver,
// Mesa's llvmpipe on the desktop) that sampling is most of what a pixel costs: a window-sized textured
// quad cost about 2.7 times an untextured one (SwiftShader, 1280x720: 15 ms of CPU against 5.5). So the
// renderer draws the large runs of solid triangles, the windows' and panels' backgrounds, with a
// shader that samples nothing, and the rest as before, in the same order. The picture is the same:
// the atlas's white texel is 1.0, so the color comes out unchanged (screenshots of both modes at four
// sizes differed only in their timing text, and at two pixels by one level of one channel).
#pragma once
#include <functional>

#include "imgui.h"

namespace attnlab {

// Calls draw(first, count, solid) for consecutive index ranges of `cmd` (first: an index into the
// list's index buffer; count: a multiple of 3), in order, covering every index of the command once.
// `solid` ranges are runs of triangles whose three corners all sit on `white_uv` (the atlas's white
// texel) and which together cover at least `min_area` (in the units of the vertices' positions,
// squared); everything else, small solid runs included, is drawn textured. With a texture other than
// the atlas (`atlas` false) the whole command is one textured range.
void for_each_draw_run(const ImDrawList& list, const ImDrawCmd& cmd, bool atlas, ImVec2 white_uv, float min_area,
                       const std::function<void(unsigned first, unsigned count, bool solid)>& draw);

}  // namespace attnlab
