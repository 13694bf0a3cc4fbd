// The renderer's split of ImGui's draw commands into solid and textured runs (src/platform/draw_runs.h):
// on a hand-made draw list, and on every command of the lab's real frames in both modes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "draw_runs.h"
#include "lab.h"

namespace {

using attnlab::for_each_draw_run;
using labtest::Lab;

struct DrawRun {
  unsigned first, count;
  bool solid;
};

std::vector<DrawRun> runs_of(const ImDrawList& list, const ImDrawCmd& cmd, bool atlas, float min_area) {
  std::vector<DrawRun> runs;
  for_each_draw_run(list, cmd, atlas, ImGui::GetIO().Fonts->TexUvWhitePixel, min_area,
                    [&](unsigned first, unsigned count, bool solid) { runs.push_back({first, count, solid}); });
  return runs;
}

double triangle_area(const ImDrawList& list, unsigned i) {
  const ImDrawVert &a = list.VtxBuffer[list.IdxBuffer[i]], &b = list.VtxBuffer[list.IdxBuffer[i + 1]],
                   &c = list.VtxBuffer[list.IdxBuffer[i + 2]];
  return 0.5 * std::fabs((double)(b.pos.x - a.pos.x) * (c.pos.y - a.pos.y) - (double)(c.pos.x - a.pos.x) * (b.pos.y - a.pos.y));
}

bool on_white(const ImDrawList& list, unsigned i) {
  const ImVec2 w = ImGui::GetIO().Fonts->TexUvWhitePixel;
  for (unsigned k = 0; k < 3; ++k) {
    const ImVec2 uv = list.VtxBuffer[list.IdxBuffer[i + k]].uv;
    if (uv.x != w.x || uv.y != w.y) return false;
  }
  return true;
}

// What every split must be: the command's indices once each, in order, whole triangles; a solid run
// only triangles on the white texel, together at least min_area. Returns the area drawn solid.
double check_runs(const ImDrawList& list, const ImDrawCmd& cmd, const std::vector<DrawRun>& runs, float min_area) {
  double solid_area = 0;
  unsigned next = cmd.IdxOffset;
  for (const DrawRun& r : runs) {
    EXPECT_EQ(r.first, next) << "runs must follow one another";
    EXPECT_GT(r.count, 0u);
    next = r.first + r.count;
    if (!r.solid) continue;
    EXPECT_EQ(r.count % 3, 0u);
    double area = 0;
    for (unsigned i = r.first; i < r.first + r.count; i += 3) {
      EXPECT_TRUE(on_white(list, i)) << "a sampled triangle drawn without its texture, index " << i;
      area += triangle_area(list, i);
    }
    EXPECT_GE(area, min_area * 0.999);
    solid_area += area;
  }
  EXPECT_EQ(next, cmd.IdxOffset + cmd.ElemCount) << "every index drawn";
  return solid_area;
}

TEST_F(Lab, DrawRunsSplitLargeSolidShapesFromTextInOrder) {
  ImDrawList list(ImGui::GetDrawListSharedData());
  list._ResetForNewFrame();
  list.PushClipRectFullScreen();
  list.PushTextureID(ImGui::GetIO().Fonts->TexID);
  list.AddRectFilled({0, 0}, {400, 300}, IM_COL32(40, 40, 40, 255));      // a panel: solid, large
  list.AddText({10, 10}, IM_COL32_WHITE, "attention");                    // sampled
  list.AddRectFilled({10, 40}, {20, 50}, IM_COL32(200, 0, 0, 255));       // solid, small: stays with the text
  list.AddText({30, 40}, IM_COL32_WHITE, "heads");                        // sampled
  list.AddRectFilled({0, 300}, {400, 600}, IM_COL32(60, 60, 60, 255));    // solid, large
  ASSERT_EQ(list.CmdBuffer.Size, 1);
  const ImDrawCmd& cmd = list.CmdBuffer[0];
  const std::vector<DrawRun> runs = runs_of(list, cmd, true, 4096.0f);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_TRUE(runs[0].solid);
  EXPECT_EQ(runs[0].count, 6u);  // the first panel's two triangles
  EXPECT_FALSE(runs[1].solid);   // both texts and the small square between them
  EXPECT_TRUE(runs[2].solid);
  EXPECT_EQ(runs[2].count, 6u);
  EXPECT_NEAR(check_runs(list, cmd, runs, 4096.0f), 2 * 400 * 300, 1e-3);

  // A texture other than the atlas (a heatmap) is sampled whatever its coordinates: one textured run.
  const std::vector<DrawRun> other = runs_of(list, cmd, false, 4096.0f);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_FALSE(other[0].solid);
  EXPECT_EQ(other[0].count, cmd.ElemCount);
  // Nothing large enough: the whole command textured, as before the split.
  const std::vector<DrawRun> none = runs_of(list, cmd, true, 1e9f);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].solid);
}

// Every command of the lab's real frames (the lab, then Learn mode) splits correctly, and the split
// reaches what it is for: most of the solid area of a frame (the windows' backgrounds) skips the texture.
TEST_F(Lab, DrawRunsOfTheLabsFramesDrawMostSolidAreaUntextured) {
  for (const bool learn : {false, true}) {
    if (learn) app.ui.learn_mode = true, frames(3);
    const ImDrawData* dd = ImGui::GetDrawData();
    ASSERT_NE(dd, nullptr);
    double solid_drawn = 0, solid_all = 0, screen = (double)dd->DisplaySize.x * dd->DisplaySize.y;
    int draws = 0, commands = 0;
    for (int n = 0; n < dd->CmdListsCount; ++n) {
      const ImDrawList& list = *dd->CmdLists[n];
      for (const ImDrawCmd& cmd : list.CmdBuffer) {
        if (cmd.UserCallback) continue;
        const bool atlas = cmd.GetTexID() == ImGui::GetIO().Fonts->TexID;
        const std::vector<DrawRun> runs = runs_of(list, cmd, atlas, 4096.0f);
        solid_drawn += check_runs(list, cmd, runs, 4096.0f);
        draws += (int)runs.size(), ++commands;
        if (atlas)
          for (unsigned i = cmd.IdxOffset; i + 2 < cmd.IdxOffset + cmd.ElemCount; i += 3)
            if (on_white(list, i)) solid_all += triangle_area(list, i);
      }
    }
    SCOPED_TRACE(learn ? "Learn mode" : "the lab");
    EXPECT_GT(solid_all, 0.9 * screen) << "the windows' backgrounds cover the screen";
    EXPECT_GT(solid_drawn, 0.85 * solid_all) << "drawn untextured: " << solid_drawn / screen << " screens of " << solid_all / screen;
    EXPECT_LT(draws, 3 * commands + 40) << "the split adds a few draw calls, not one per shape";
  }
}

}  // namespace
