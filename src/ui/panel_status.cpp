// Status bar: the sizes in play, which kernels run, and how long recomputing and drawing take.
#include "app.h"
#include "panels.h"

namespace attnlab {

void draw_status_bar(App& app) {
  ImGui::Begin("status", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const attn::Result& r = app.engine.result();
  ImGui::Text("n=%d  m=%d  heads=%d  d_model=%d  d_k=%d  d_v=%d  |  kernels: %s  |  recompute %.3f ms  |  frame %.2f ms (p95 %.2f)",
              r.n, r.m, r.heads, r.d_model, r.d_k, r.d_v, app.engine.kernel_set().name, app.recompute_ms,
              app.stats.percentile(0.5f), app.stats.percentile(0.95f));
  if (!app.notice.empty() && ImGui::GetTime() < app.notice_until) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.35f, 1.0f), "  %s", app.notice.c_str());
  }
  ImGui::End();
}

}  // namespace attnlab
