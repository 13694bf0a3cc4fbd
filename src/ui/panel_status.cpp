// Status bar: the sizes in play, which kernels run, and how long recomputing and drawing take.
#include <cstdio>

#include "app.h"
#include "panels.h"

namespace attnlab {

void draw_status_bar(App& app) {
  ImGui::Begin("status", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const attn::Result& r = app.engine.result();
  // In words a learner reads: the sizes in play, then how long the lab took (with the kernel set
  // named for the curious).
  char recompute[32];
  if (app.recompute_ms < 1.0f) std::snprintf(recompute, sizeof recompute, "%.0f \xC2\xB5s", app.recompute_ms * 1000.0f);
  else std::snprintf(recompute, sizeof recompute, "%.2f ms", app.recompute_ms);
  char sizes[160];
  if (r.cross) std::snprintf(sizes, sizeof sizes, "%d queries \xC3\x97 %d source keys", r.n, r.m);
  else std::snprintf(sizes, sizeof sizes, "%d tokens", r.n);
  // The whole line where it fits; on a narrow screen the sizes alone, in the short form.
  char line[320];
  std::snprintf(line, sizeof line, "%s  \xC2\xB7  %d head%s  \xC2\xB7  d_model %d, d_k %d, d_v %d  \xC2\xB7  computed in %s (%s)  \xC2\xB7  drawn in %.0f ms",
                sizes, r.heads, r.heads == 1 ? "" : "s", r.d_model, r.d_k, r.d_v, recompute, app.engine.kernel_set().name,
                app.stats.percentile(0.5f));
  if (ImGui::CalcTextSize(line).x > ImGui::GetContentRegionAvail().x)
    std::snprintf(line, sizeof line, "%s \xC2\xB7 %d head%s \xC2\xB7 d_model %d, d_k %d \xC2\xB7 %s", sizes, r.heads, r.heads == 1 ? "" : "s",
                  r.d_model, r.d_k, recompute);
  ImGui::TextUnformatted(line);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Computing every matrix took %s with the %s kernels; a whole frame takes %.2f ms (95%% under %.2f ms).",
                      recompute, app.engine.kernel_set().name, app.stats.percentile(0.5f), app.stats.percentile(0.95f));
  ImGui::End();
}

}  // namespace attnlab
