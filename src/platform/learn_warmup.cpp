#include "learn_warmup.h"

#include "app.h"
#include "imgui.h"
#include "learn.h"

namespace attnlab {

int warm_learn_mode(const App& lab) {
  ImGuiContext* lab_context = ImGui::GetCurrentContext();
  if (!lab_context) return 0;
  int drawn = 0;
  const ImGuiIO& lab_io = ImGui::GetIO();
  const ImGuiStyle lab_style = ImGui::GetStyle();
  ImGuiContext* warm = ImGui::CreateContext(lab_io.Fonts);  // the atlas is built: shared, not rebuilt
  ImGui::SetCurrentContext(warm);
  ImGui::GetStyle() = lab_style;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = lab_io.DisplaySize;
  io.DeltaTime = 1.0f / 60.0f;
  {
    App app;  // no texture backend, no shell hooks, a session on this thread
    app.config = default_lab_config();
    app.text = app.config.target.text;
    app.dpi_scale = lab.dpi_scale;
    app.ui.ui_scale = app.ui.ui_scale_edit = lab.ui.ui_scale;
    app.style_scale = lab.style_scale;
    app.ui.learn_mode = true;
    // Two steps, evaluated after each: the curves, the readouts and the probe's thumbnails are drawn.
    if (learn_train_json(app, R"({"task": "induction", "train": {"steps": 2, "eval_every": 1, "eval_batch": 8}})").empty())
      for (int f = 0; f < 12; ++f) {
        ImGui::NewFrame();
        frame(app);
        ImGui::Render();
        ++drawn;
        if (f >= 3 && !learn_busy(app)) break;
      }
  }
  ImGui::DestroyContext(warm);  // (the shared atlas stays the lab's)
  ImGui::SetCurrentContext(lab_context);
  return drawn;
}

}  // namespace attnlab
