// Status bar: the sizes in play, which kernels run, and how long recomputing and drawing take.
#include <cstdio>

#include "app.h"
#include "i18n.h"
#include "panels.h"

namespace attnlab {

void draw_status_bar(App& app) {
  ImGui::Begin("status", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const attn::Result& r = app.engine.result();
  // In words a learner reads: the sizes in play, then how long the lab took (with the kernel set
  // named for the curious). A frame's time leaves out the lab's first frame, which builds the fonts
  // (FrameStats::startup): on a page just loaded it would say a frame takes a third of a second.
  char recompute[32];
  if (app.recompute_ms < 1.0f) std::snprintf(recompute, sizeof recompute, "%.0f \xC2\xB5s", app.recompute_ms * 1000.0f);
  else std::snprintf(recompute, sizeof recompute, "%.2f ms", app.recompute_ms);
  const std::string sizes = r.cross ? trf("status.cross_sizes", {{"n", r.n}, {"m", r.m}}) : trn("status.tokens", r.n, {{"n", r.n}});
  const std::string heads = trn("status.heads", r.heads, {{"n", r.heads}});
  // The whole line where it fits; on a narrow screen the sizes alone, in the short form.
  app.status_shows_first_frame = app.stats.startup >= 0 && app.stats.count == 1;
  std::string line = trf("status.line", {{"sizes", sizes}, {"heads", heads}, {"d_model", r.d_model}, {"d_k", r.d_k}, {"d_v", r.d_v},
                                         {"time", recompute}, {"kernels", app.engine.kernel_set().name},
                                         {"frame_ms", num(app.stats.percentile(0.5f, true), 0)}});
  if (ImGui::CalcTextSize(line.c_str()).x > ImGui::GetContentRegionAvail().x)
    line = trf("status.line_short", {{"sizes", sizes}, {"heads", heads}, {"d_model", r.d_model}, {"d_k", r.d_k}, {"time", recompute}});
  ImGui::TextUnformatted(line.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", trf("status.tip", {{"time", recompute}, {"kernels", app.engine.kernel_set().name},
                                               {"frame_ms", num(app.stats.percentile(0.5f, true), 2)},
                                               {"p95_ms", num(app.stats.percentile(0.95f, true), 2)}}).c_str());
  ImGui::End();
}

}  // namespace attnlab
