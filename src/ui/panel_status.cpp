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
  char recompute[32];
  if (app.recompute_ms < 1.0f) std::snprintf(recompute, sizeof recompute, "%.0f \xC2\xB5s", app.recompute_ms * 1000.0f);
  else std::snprintf(recompute, sizeof recompute, "%.2f ms", app.recompute_ms);
  ImGui::Text("n=%d  m=%d  heads=%d  d_model=%d  d_k=%d  d_v=%d  |  kernels: %s  |  recompute %s  |  frame %.2f ms (p95 %.2f)",
              r.n, r.m, r.heads, r.d_model, r.d_k, r.d_v, app.engine.kernel_set().name, recompute,
              app.stats.percentile(0.5f), app.stats.percentile(0.95f));
  if (!app.notice.empty() && ImGui::GetTime() < app.notice_until) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.35f, 1.0f), "  %s", app.notice.c_str());
  }
  ImGui::End();
}

}  // namespace attnlab
