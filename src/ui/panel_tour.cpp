// The guided tour: show and tell. Each step sets the lab up (a config and how to show it), frames the
// matrix to look at with a highlight that stays while the step is open, says what to see, and asks
// the learner to try one thing, ticking it off when they have.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "imgui_internal.h"  // BringWindowToDisplayFront

#include "app.h"
#include "i18n.h"
#include "learn.h"
#include "panels.h"
#include "config_json.h"
#include "presets.h"
#include "view_state.h"
#include "widgets.h"

namespace attnlab {

namespace {

struct Step {
  Key title;          // catalogue keys (i18n.h): tour.<n>.title, .text, .try
  Key text;           // what to see
  Key try_;           // what to do
  View view;          // the matrix to frame
  const char* setup;  // config + "view" applied when the step opens (nullptr: leave the lab as it is)
  bool (*done)(const App&);  // has the learner done the thing? (nullptr: nothing to check)
  // Learn chapter: sets Learn mode up when the step opens (the lab's steps leave Learn mode), and the
  // widget to frame there instead of a matrix.
  void (*learn)(App&) = nullptr;
  const char* item = nullptr;
  // What else the step asks the learner to look at or use: windows the tour must not cover ("|"
  // between names). The framed matrix and widget are kept clear as well.
  const char* look = nullptr;
};

bool any_mask(const App& a) { return !a.engine.config().mask.empty(); }

// [SECTION] the Learn chapter's set-ups and checks
int experiment_index(const char* key) {
  const auto all = experiments();
  for (size_t i = 0; i < all.size(); ++i)
    if (std::string(all[i].key) == key) return (int)i;
  return -1;
}
const LearnState* learn_of(const App& a) { return a.learn.get(); }
bool trained_to(const App& a, const char* task, double accuracy) {
  const LearnState* L = learn_of(a);
  return L && L->run().started && L->run().run_setup.task == task && !L->run().history.empty() &&
         L->run().history.back().accuracy >= accuracy;
}
// The second run of an experiment has ended over the first: its grey curves show the other variant's
// run, and both runs' ends can be read off.
bool compared(const App& a, const char* key) {
  const LearnState* L = learn_of(a);
  const int e = experiment_index(key);
  return L && L->run().started && L->run().done && L->run().tag.experiment == e && L->run().compare.experiment == e &&
         L->run().compare.variant != L->run().tag.variant && !L->run().compare.loss.empty();
}
// A step that asks for an experiment loads its variant and starts it afresh (paused, step 0), so its
// curves do not open on the last step's run; a run of this experiment already there is kept.
void start_experiment(App& app, const char* key, int variant) {
  const int e = experiment_index(key);
  LearnState& L = learn_state(app);
  const bool ours = L.run().started && L.run().tag.experiment == e;
  if (ours && L.experiment == e) return;
  learn_load_experiment(app, e, variant);
  if (!ours) learn_start(app, L.setup, false);
}
void learn_task(App& app, const char* task) {
  LearnState& L = learn_state(app);
  L.setup = learn_defaults(*attn::learn::find_task(task));
  L.experiment = -1;
  L.error.clear();
}
bool has_mask_kind(const App& a, attn::MaskTerm::Kind kind) {
  for (const attn::MaskTerm& t : a.engine.config().mask)
    if (t.kind == kind) return true;
  return false;
}

// Our own words; each step changes one thing so its effect is easy to see.
const Step kSteps[] = {
    {"tour.1.title",
     "tour.1.text",
     "tour.1.try", View::x,
     R"({"text": "the cat saw the other cat", "d_model": 16, "heads": 2, "positional": "sinusoidal", "view": {"position": true}})",
     [](const App& a) { return a.ui.hover.view == View::x; }},
    {"tour.2.title",
     "tour.2.text",
     "tour.2.try", View::q, nullptr,
     [](const App& a) { return a.ui.hover.view == View::q || a.ui.show_weights; }},
    {"tour.3.title",
     "tour.3.text",
     "tour.3.try", View::scores, nullptr,
     [](const App& a) { return a.ui.hover.view == View::scores; }},
    {"tour.4.title",
     "tour.4.text",
     "tour.4.try", View::scores,
     R"({"text": "the students read the books in the quiet room", "d_model": 64, "heads": 1, "d_k": 64, "d_v": 16, "scale": false})",
     [](const App& a) { return a.engine.config().scale_mode == attn::ScaleMode::inv_sqrt_dk; }, nullptr, nullptr, "Controls"},
    {"tour.5.title",
     "tour.5.text",
     "tour.5.try", View::weights,
     R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4, "temperature": 0.25})",
     [](const App& a) { return a.engine.config().temperature >= 2.0f; }, nullptr, nullptr, "Controls"},
    {"tour.6.title",
     "tour.6.text",
     "tour.6.try",
     View::weights, R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4})", any_mask},
    {"tour.7.title",
     "tour.7.text",
     "tour.7.try", View::masked,
     R"({"text": "once upon a time a small robot crossed the street", "d_model": 32, "heads": 4, "mask": "causal"})",
     [](const App& a) { return has_mask_kind(a, attn::MaskTerm::Kind::window); }},
    {"tour.8.title",
     "tour.8.text",
     "tour.8.try", View::masked,
     R"({"tokens": ["hello", "world", "!", "<pad>", "<pad>", "<pad>"], "d_model": 16, "heads": 2, "mask": {"padding": [3, 4, 5]}})",
     [](const App& a) { return has_mask_kind(a, attn::MaskTerm::Kind::causal); }, nullptr, nullptr, "Controls"},
    {"tour.9.title",
     "tour.9.text",
     "tour.9.try", View::weights,
     R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4})",
     [](const App& a) { return a.ui.head != 0; }, nullptr, nullptr, "All heads"},
    {"tour.10.title",
     "tour.10.text",
     "tour.10.try", View::k,
     R"({"text": "le chat dort sur le tapis", "source": "the cat sleeps on the mat", "d_model": 32, "heads": 4})",
     [](const App& a) { return a.engine.config().source.text != "the cat sleeps on the mat"; }, nullptr, nullptr, "Input"},
    {"tour.11.title",
     "tour.11.text",
     "tour.11.try", View::x,
     R"({"text": "the dog chased the dog", "d_model": 16, "heads": 2, "positional": "none", "view": {"position": true}})",
     [](const App& a) { return a.engine.config().positional != attn::Positional::none; }, nullptr, nullptr, "Controls"},
    {"tour.12.title",
     "tour.12.text",
     "tour.12.try",
     View::scores, R"({"text": "go go go go go go go go go go", "d_model": 32, "heads": 2, "positional": "rope"})",
     [](const App& a) { return a.engine.config().positional == attn::Positional::sinusoidal; }, nullptr, nullptr, "Controls"},
    {"tour.13.title",
     "tour.13.text",
     "tour.13.try", View::weights,
     R"({"text": "the cat chased the dogs because it was tired", "embedding": "interpretable", "d_model": 8, "heads": 2, "d_k": 8, "d_v": 4, "seed": 7, "positional": "none", "handmade": [{"head": 0, "kind": "pronoun"}], "view": {"query": 6}})",
     [](const App& a) { return a.engine.config().handmade.size() > 1; }, nullptr, nullptr, "All heads"},
    // The Learn chapter: the same attention, with weights learned from examples.
    {"tour.14.title",
     "tour.14.text",
     "tour.14.try",
     View::count, nullptr, [](const App& a) { return trained_to(a, "previous_token", 0.9); },
     [](App& app) { learn_task(app, "previous_token"); }, "learn_train", "Curves|Attention on a probe"},
    {"tour.15.title",
     "tour.15.text",
     "tour.15.try",
     View::weights, nullptr,
     [](const App& a) { return !a.ui.learn_mode && !a.engine.config().w_q.empty() && a.ui.hover.view == View::weights; },
     [](App&) {}, "learn_open", "Attention on a probe"},
    {"tour.16.title",
     "tour.16.text",
     "tour.16.try",
     View::count, nullptr, [](const App& a) { return compared(a, "layers"); },
     [](App& app) { start_experiment(app, "layers", 0); }, "learn_experiment", "Curves|Training"},
    {"tour.17.title",
     "tour.17.text",
     "tour.17.try",
     View::count, nullptr, [](const App& a) { return compared(a, "scaling"); },
     [](App& app) { start_experiment(app, "scaling", 1); }, "learn_experiment", "Curves|Training"},
    {"tour.18.title",
     "tour.18.text",
     "tour.18.try",
     View::count, nullptr,
     [](const App& a) { return trained_to(a, "induction", 0.9) && learn_inspect_accuracy_drop(a) > 0.1; },
     [](App& app) {
       // The default induction model (its heads are what the step talks about): the run there is kept
       // only if it is one; an induction run with other settings (step 17's d_k 128) is not.
       LearnState& L = learn_state(app);
       const attn::learn::TrainSetup defaults = learn_defaults(*attn::learn::find_task("induction"));
       if (!L.run().started || L.run().run_setup.task != "induction" || !(L.run().run_setup.spec == defaults.spec)) {
         learn_task(app, "induction");
         learn_start(app, L.setup, false);
       }
       L.probe_panel = 1;  // Inspect heads
     },
     "learn_view_inspect", "Attention on a probe"},
    {"tour.19.title",
     "tour.19.text",
     "tour.19.try",
     View::count, nullptr, [](const App& a) { return compared(a, "recurrence"); },
     [](App& app) { start_experiment(app, "recurrence", 1); }, "learn_experiment", "Curves|Training"},
    {"tour.20.title",
     "tour.20.text",
     "tour.20.try", View::weights, nullptr, nullptr},
};
constexpr int kStepCount = (int)(sizeof kSteps / sizeof kSteps[0]);
static_assert(kStepCount <= 32, "UiState::tour_ticks holds one bit per step");

void open_step(App& app, int k) {
  app.ui.tour_step = std::clamp(k, 0, kStepCount - 1);
  const Step& s = kSteps[app.ui.tour_step];
  set_learn_mode(app, s.learn != nullptr);
  if (s.learn) s.learn(app);
  app.ui.focus_item = s.item ? s.item : "";
  app.ui.tour_raise = 2;  // a step may switch modes, whose windows appear in front of the tour
  if (s.setup) {
    const std::string err = apply_setup(app, s.setup);
    if (!err.empty()) notify(app, "Tour step could not be set up: " + err);
  }
  app.ui.note.clear();  // the tour speaks for itself
  app.ui.focus_view = s.view;
  app.ui.flash_view = s.view;
  app.ui.focus_until = -1.0;  // a lasting highlight, until the step changes or the tour closes
}

}  // namespace

int tour_step_count() { return kStepCount; }

const char* tour_step_title(int step) { return step >= 0 && step < kStepCount ? tr(kSteps[step].title) : ""; }

bool tour_step_done(const App& app) {
  const int k = std::clamp(app.ui.tour_step, 0, kStepCount - 1);
  return (app.ui.tour_ticks >> k & 1u) || (kSteps[k].done && kSteps[k].done(app));
}

void tour_open_step(App& app, int k) { open_step(app, k); }

void tour_toggle(App& app) {
  if (app.ui.show_tour) return tour_close(app);
  app.ui.tour_saved_config = attn::config_to_json(app.engine.config());
  app.ui.tour_saved_view = view_state_to_json(app.ui);
  app.ui.tour_saved_origin = app.ui.origin;
  app.ui.show_tour = true;
  int k = std::clamp(app.ui.tour_step, 0, kStepCount - 1);
  if (app.ui.learn_mode && !kSteps[k].learn)  // opened in Learn mode: its chapter, not back to the lab
    for (int j = 0; j < kStepCount; ++j)
      if (kSteps[j].learn) {
        k = j;
        break;
      }
  open_step(app, k);
}

void tour_close(App& app) {
  app.ui.show_tour = false;
  app.ui.tour_moved = false;
  app.ui.focus_item.clear();
  if (app.ui.focus_until < 0.0) app.ui.focus_until = 0.0, app.ui.flash_view = View::count;
  const std::string config = std::exchange(app.ui.tour_saved_config, {}), view = std::exchange(app.ui.tour_saved_view, {});
  if (config.empty() || app.ui.tour_step >= kStepCount - 1) return;  // "Your turn": the lab as the tour left it
  const ModelOrigin origin = app.ui.tour_saved_origin;
  if (apply_setup(app, config).empty()) {
    apply_view(app, view);
    app.ui.origin = origin;
    app.ui.note.clear();
    notify(app, tr("notice.tour_restored"));
  }
}

void draw_tour_window(App& app) {
  const int k = std::clamp(app.ui.tour_step, 0, kStepCount - 1);
  const Step& s = kSteps[k];
  if (s.done && s.done(app)) app.ui.tour_ticks |= 1u << k;  // a tick, once earned, stays
  // Where the tour goes: its own slot in the layout (the lab's or Learn mode's), so it covers nothing
  // a step asks the learner to look at; where the learner dragged it, once they have; over presenter
  // mode, low on the right.
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const WinRect& slot = app.tour_slot;
  if (slot.w > 0.0f && !app.ui.tour_moved) {
    ImGui::SetNextWindowPos(ImVec2(slot.x, slot.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(slot.w, slot.h), ImGuiCond_Always);
  } else if (!app.ui.tour_moved) {
    const float w = ds.x < 900.0f * app.style_scale ? ds.x - 12.0f : std::min(ds.x * 0.34f, 460.0f * app.style_scale);
    ImGui::SetNextWindowSize(ImVec2(w, 0), ImGuiCond_Always);
    ImGui::SetNextWindowPos(ImVec2(ds.x - 6.0f, ds.y - ImGui::GetFrameHeightWithSpacing() - 6.0f), ImGuiCond_Always, ImVec2(1.0f, 1.0f));
  }
  bool open = true;
  if (!ImGui::Begin(tr_id("window.tour", "Tour"), &open, ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  if (app.ui.tour_raise > 0) --app.ui.tour_raise, ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
  if (GImGui->MovingWindow == ImGui::GetCurrentWindow()) app.ui.tour_moved = true;
  // The buttons first: always in the same place whatever the step's title and text (quick clicks and
  // taps on Next land on Next), then the title (wrapped: a long one is never cut at the window's edge),
  // then what to see and what to try.
  const bool done = tour_step_done(app);
  ImGui::BeginDisabled(k == 0);
  if (ImGui::Button(tr_id("tour.back", "back"))) open_step(app, k - 1);
  ImGui::EndDisabled();
  remember_item(app, "tour_back");
  ImGui::SameLine();
  if (ImGui::Button(tr_id("tour.again", "again"))) open_step(app, k);
  remember_item(app, "tour_again");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("tour.again.tip"));
  ImGui::SameLine();
  ImGui::BeginDisabled(k + 1 >= kStepCount);
  if (ImGui::Button(tr_id(done ? Key("tour.next_done") : Key("tour.next"), "next"))) open_step(app, k + 1);
  ImGui::EndDisabled();
  remember_item(app, "tour_next");
  ImGui::Separator();
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_colored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), tr(s.title));
  const std::string of = trf("tour.step_of", {{"k", k + 1}, {"n", kStepCount}});
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(of.c_str()).x <= right) ImGui::SameLine();
  ImGui::TextDisabled("%s", of.c_str());
  ImGui::PopTextWrapPos();
  text_wrapped_words("%s", tr(s.text));
  ImGui::Spacing();
  ImGui::TextColored(done ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.8f, 0.35f, 1.0f), "%s", done ? tr("tour.done") : tr("tour.try"));
  remember_item(app, "tour_tick");
  ImGui::SameLine();
  ImGui::BeginGroup();  // the task's lines line up after the tick, as TextWrapped's did
  text_wrapped_words("%s", tr(s.try_));
  ImGui::EndGroup();
  ImGui::End();
  // A Learn step frames its widget (drawn this frame, so its rectangle is current) over everything.
  if (!app.ui.focus_item.empty() && open && app.ui.learn_mode) {
    // Around what shows of it (clipped to its window): a widget scrolled out of view is not framed
    // over whatever now sits where it was.
    const auto it = app.widget_visible.find(app.ui.focus_item);
    if (it != app.widget_visible.end() && it->second.z > 0.0f && it->second.w > 0.0f) {
      const ImVec4 r = it->second;
      const float pad = 3.0f * app.style_scale;
      ImGui::GetForegroundDrawList()->AddRect(ImVec2(r.x - pad, r.y - pad), ImVec2(r.x + r.z + pad, r.y + r.w + pad),
                                              ImGui::GetColorU32(ImVec4(1.0f, 0.8f, 0.2f, 1.0f)), 4.0f * app.style_scale, 0,
                                              3.0f * app.style_scale);
    }
  }
  if (!open) tour_close(app);
}

}  // namespace attnlab
