// The guided tour: a few steps, each pointing at one part of the formula and setting up what to see.
#include <algorithm>

#include "app.h"
#include "config_json.h"
#include "panels.h"

namespace attnlab {

namespace {

struct Step {
  const char* title;
  const char* text;
  View view;           // the matrix to bring into view
  const char* config;  // applied when the step opens (nullptr: leave the settings alone)
};

// Our own words; each step changes one thing so its effect is easy to see.
const Step kSteps[] = {
    {"Tokens become vectors",
     "Every token gets a row of numbers, X. The same word always starts from the same vector; the position "
     "vector added to it is what tells 'cat' at position 1 from 'cat' at position 5.",
     View::x, R"({"text": "the cat saw the other cat", "d_model": 16, "heads": 2, "positional": "sinusoidal"})"},
    {"Three views of each token",
     "Three matrices turn X into queries (what a token looks for), keys (how it can be found) and values "
     "(what it passes on). Each head has its own three.",
     View::q, nullptr},
    {"Matching queries against keys",
     "Row i of the scores holds query i dotted with every key. The result is scaled by 1/sqrt(d_k) so its "
     "spread does not grow with the vector length.",
     View::scores, nullptr},
    {"From scores to weights",
     "Softmax turns each row into positive weights that add up to one. Hover a cell to see the exponentials "
     "and the sum behind it.",
     View::weights, nullptr},
    {"Hiding the future",
     "A causal mask gives every later key a score of minus infinity, so its weight is exactly zero. The "
     "remaining weights in each row grow to fill the gap.",
     View::masked, R"({"text": "the cat saw the other cat", "d_model": 16, "heads": 2, "mask": "causal"})"},
    {"Mixing values",
     "Each output row is the weighted average of the value rows. Heads are then placed side by side and "
     "projected back to d_model numbers.",
     View::head_out, nullptr},
    {"Your turn",
     "Change the number of heads, untick the scaling, edit a number in Q or click weights to mask them. "
     "Every matrix updates as you go.",
     View::weights, nullptr},
};
constexpr int kStepCount = (int)(sizeof kSteps / sizeof kSteps[0]);

void open_step(App& app, int k) {
  app.ui.tour_step = std::clamp(k, 0, kStepCount - 1);
  const Step& s = kSteps[app.ui.tour_step];
  if (s.config) {
    attn::Config c;
    if (attn::parse_config(s.config, c).empty()) apply_config(app, c);
  }
  app.ui.focus_view = s.view;
  app.ui.focus_until = ImGui::GetTime() + 1.5;
}

}  // namespace

void draw_tour_window(App& app) {
  ImGui::SetNextWindowSize(ImVec2(440 * app.style_scale, 0), ImGuiCond_Always);
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y - 60 * app.style_scale),
                          ImGuiCond_FirstUseEver, ImVec2(0.5f, 1.0f));
  if (!ImGui::Begin("Tour", &app.ui.show_tour, ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  const Step& s = kSteps[std::clamp(app.ui.tour_step, 0, kStepCount - 1)];
  ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%d/%d  %s", app.ui.tour_step + 1, kStepCount, s.title);
  ImGui::TextWrapped("%s", s.text);
  ImGui::Spacing();
  ImGui::BeginDisabled(app.ui.tour_step == 0);
  if (ImGui::Button("Back")) open_step(app, app.ui.tour_step - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(app.ui.tour_step == 0 ? "Start" : "Show me")) open_step(app, app.ui.tour_step);
  ImGui::SameLine();
  ImGui::BeginDisabled(app.ui.tour_step + 1 >= kStepCount);
  if (ImGui::Button("Next")) open_step(app, app.ui.tour_step + 1);
  ImGui::EndDisabled();
  ImGui::End();
}

}  // namespace attnlab
