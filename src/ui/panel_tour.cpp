// The guided tour: show and tell. Each step sets the lab up (a config and how to show it), frames the
// matrix to look at with a highlight that stays while the step is open, says what to see, and asks
// the learner to try one thing, ticking it off when they have.
#include <algorithm>
#include <string_view>
#include <vector>

#include "imgui_internal.h"  // BringWindowToDisplayFront

#include "app.h"
#include "i18n.h"
#include "learn.h"
#include "panels.h"
#include "presets.h"
#include "widgets.h"

namespace attnlab {

namespace {

struct Step {
  const char* title;
  const char* text;   // what to see
  const char* try_;   // what to do
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
// The second run of an experiment has started: its grey curves show the other variant's run.
bool compared(const App& a, const char* key) {
  const LearnState* L = learn_of(a);
  const int e = experiment_index(key);
  return L && L->run().started && L->run().tag.experiment == e && L->run().compare.experiment == e && L->run().compare.variant != L->run().tag.variant &&
         !L->run().compare.loss.empty();
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
    {"1. Tokens become vectors",
     "Each token gets a row of numbers: X = E + P, its word's embedding E plus a position vector P (shown beside "
     "X). 'cat' appears twice: the same E, a different P, so the two rows of X differ.",
     "Hover a cell of X: the card splits it into E + P.", View::x,
     R"({"text": "the cat saw the other cat", "d_model": 16, "heads": 2, "positional": "sinusoidal", "view": {"position": true}})",
     [](const App& a) { return a.ui.hover.view == View::x; }},
    {"2. Queries, keys and values",
     "Three weight matrices turn each row of X into a query (what the token looks for), a key (how it can be "
     "found) and a value (what it passes on). Each head has its own three. Here they are random: nothing trained.",
     "Hover a cell of Q: it is a row of X times a column of W_Q. Press W to see the W matrices.", View::q, nullptr,
     [](const App& a) { return a.ui.hover.view == View::q || a.ui.show_weights; }},
    {"3. Scores: every query against every key",
     "S[i][j] = q_i\xC2\xB7k_j / \xE2\x88\x9A" "d_k: how well key j matches what query i looks for. Red is a good "
     "match, blue a bad one, on a fixed \xC2\xB1" "5 colour scale.",
     "Hover a cell of S to see the products that add up to it.", View::scores, nullptr,
     [](const App& a) { return a.ui.hover.view == View::scores; }},
    {"4. Why divide by \xE2\x88\x9A" "d_k",
     "Here d_k = 64 and the scaling is off. A dot product of 64 terms spreads far: the scores run past \xC2\xB1" "30 "
     "(\xCE\x94S, right of A), the fixed colours saturate, and softmax puts nearly all weight on one key per row "
     "(H near 0 bits, max near 1). Learning through such a softmax barely works.",
     "In Controls, set scale to 1/\xE2\x88\x9A" "d_k: S fades by a factor of 8, A spreads out, H rises.", View::scores,
     R"({"text": "the students read the books in the quiet room", "d_model": 64, "heads": 1, "d_k": 64, "d_v": 16, "scale": false})",
     [](const App& a) { return a.engine.config().scale_mode == attn::ScaleMode::inv_sqrt_dk; }, nullptr, nullptr, "Controls"},
    {"5. Temperature",
     "Dividing the scores by \xCF\x84 = 0.25 pulls them four times further apart: nearly one-hot weights. "
     "Temperature and 1/\xE2\x88\x9A" "d_k are the same kind of knob: both multiply the scores before softmax.",
     "Drag temperature in Controls up to 4: the colours of S fade and the weights flatten.", View::weights,
     R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4, "temperature": 0.25})",
     [](const App& a) { return a.engine.config().temperature >= 2.0f; }, nullptr, nullptr, "Controls"},
    {"6. Softmax: scores into weights",
     "Each row of S becomes positive weights that sum to 1: exp(s \xE2\x88\x92 max) / \xCE\xA3. Bigger gaps between "
     "scores give sharper weights.",
     "Hover a weight for the exponentials; click one to hide that pair and watch the row share out its weight.",
     View::weights, R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4})", any_mask},
    {"7. Masks: hiding the future",
     "A causal mask sets every later key's score to \xE2\x88\x92\xE2\x88\x9E (masked S), so its weight is exactly 0: "
     "token i sees only tokens 0..i, as in a text generator. Each row's weights grow to fill the gap.",
     "Press M to step through causal, a sliding window of 3 and no mask.", View::masked,
     R"({"text": "once upon a time a small robot crossed the street", "d_model": 32, "heads": 4, "mask": "causal"})",
     [](const App& a) { return has_mask_kind(a, attn::MaskTerm::Kind::window); }},
    {"8. Masks: padding",
     "Batches pad short sentences with <pad> tokens. A padding mask hides those keys from every query: their "
     "columns of A are exactly 0. Masks combine: a pair must pass every one.",
     "In Controls, add the causal mask too and look at the triangle and the empty columns together.", View::masked,
     R"({"tokens": ["hello", "world", "!", "<pad>", "<pad>", "<pad>"], "d_model": 16, "heads": 2, "mask": {"padding": [3, 4, 5]}})",
     [](const App& a) { return has_mask_kind(a, attn::MaskTerm::Kind::causal); }, nullptr, nullptr, "Controls"},
    {"9. Many heads",
     "Each head has its own W_Q, W_K, W_V, so each finds its own pattern (All heads, right). Their outputs are "
     "put side by side (concat) and W_O mixes them back to d_model numbers.",
     "Press ] and [ to switch heads, or click a thumbnail in All heads.", View::weights,
     R"({"text": "the cat sat on the mat because it was tired", "d_model": 32, "heads": 4})",
     [](const App& a) { return a.ui.head != 0; }, nullptr, nullptr, "All heads"},
    {"10. Self- vs cross-attention",
     "In self-attention Q, K and V all come from the same text. In cross-attention the queries come from X (French "
     "here) and the keys and values from another sequence, X_src (English): K = X_src\xC2\xB7W_K.",
     "Edit the source text in Input: K, V and the columns of S change; Q does not.", View::k,
     R"({"text": "le chat dort sur le tapis", "source": "the cat sleeps on the mat", "d_model": 32, "heads": 4})",
     [](const App& a) { return a.engine.config().source.text != "the cat sleeps on the mat"; }, nullptr, nullptr, "Input"},
    {"11. Without position, order is invisible",
     "With no positional encoding the two 'dog' tokens have identical rows in X, Q, K and V, and so identical rows "
     "and columns in S and A: attention alone cannot tell word order.",
     "Set position to sinusoidal or learned: P appears beside X and the two rows differ.", View::x,
     R"({"text": "the dog chased the dog", "d_model": 16, "heads": 2, "positional": "none", "view": {"position": true}})",
     [](const App& a) { return a.engine.config().positional != attn::Positional::none; }, nullptr, nullptr, "Controls"},
    {"12. RoPE: scores by distance",
     "RoPE adds nothing to X; it turns each query and key by an angle set by its position. With one repeated word "
     "all queries and keys start equal, so a score depends only on the distance j \xE2\x88\x92 i: S is constant along "
     "every diagonal.",
     "Set position to sinusoidal: the diagonals break, because a position added to X mixes with the word.",
     View::scores, R"({"text": "go go go go go go go go go go", "d_model": 32, "heads": 2, "positional": "rope"})",
     [](const App& a) { return a.engine.config().positional == attn::Positional::sinusoidal; }, nullptr, nullptr, "Controls"},
    {"13. A head built by hand",
     "These weights are random, so no pattern here means anything. Head 0 below is built by hand instead: W_Q and "
     "W_K read kind and number from an interpretable embedding, so 'it' (singular) attends to 'cat', not to the "
     "plural 'dogs'. Constructed, not learned.",
     "In All heads, switch head 1 to 'hand-built: same word' and back to random.", View::weights,
     R"({"text": "the cat chased the dogs because it was tired", "embedding": "interpretable", "d_model": 8, "heads": 2, "d_k": 8, "d_v": 4, "seed": 7, "positional": "none", "handmade": [{"head": 0, "kind": "pronoun"}], "view": {"query": 6}})",
     [](const App& a) { return a.engine.config().handmade.size() > 1; }, nullptr, nullptr, "All heads"},
    // The Learn chapter: the same attention, with weights learned from examples.
    {"14. Learning the weights",
     "Every weight so far was random or written by hand. In Learn mode a small model learns its own: it sees "
     "thousands of examples of a task and, at every step, nudges W_Q, W_K, W_V, W_O and the embeddings to lower its "
     "loss. The task here: at each position, output the token just before it.",
     "Press Train (or Space). Watch the loss fall and, under 'Attention on a probe', the sub-diagonal appear: every "
     "token learns to look at the one before it.",
     View::count, nullptr, [](const App& a) { return trained_to(a, "previous_token", 0.9); },
     [](App& app) { learn_task(app, "previous_token"); }, "learn_train", "Curves|Attention on a probe"},
    {"15. Inside a trained model",
     "The trained weights are ordinary numbers. Opened in the lab, they go through the same stages as before: "
     "X, Q, K, S, A, the output. Only now the pattern in A was learned, not drawn at random.",
     "Press 'Open in the lab' and hover a weight in A: its arithmetic, with the trained numbers. (L returns to Learn.)",
     View::weights, nullptr,
     [](const App& a) { return !a.ui.learn_mode && !a.engine.config().w_q.empty() && a.ui.hover.view == View::weights; },
     [](App&) {}, "learn_open", "Attention on a probe"},
    {"16. Two layers: an induction head",
     "Induction: after '\xE2\x80\xA6 c f k \xE2\x80\xA6 c f', guess k. No single head can; two in a row can. A "
     "layer-0 head learns to look at the previous token, so each position also carries the token before it. A "
     "layer-1 head then finds the earlier position whose predecessor is the current token, and copies what it holds.",
     "Press Train; watch layer 1's pattern score (prefix matching) pass 0.5. Then pick '1 layer' under Experiments "
     "and train it: the 2-layer run stays in grey to compare.",
     View::count, nullptr, [](const App& a) { return compared(a, "layers"); },
     [](App& app) { learn_load_experiment(app, experiment_index("layers"), 0); }, "learn_experiment", "Curves|Training"},
    {"17. Why \xE2\x88\x9A" "d_k, measured",
     "The induction task again, with d_k = 128, without and with 1/\xE2\x88\x9A" "d_k. Unscaled scores are about 11 "
     "times larger, so softmax rows go one-hot (the fourth plot counts them) and pass almost no gradient back to "
     "their scores: the run learns at first, then comes apart.",
     "Train 'no scaling', then pick 'with 1/\xE2\x88\x9A" "d_k' under Experiments and train it. Compare the loss "
     "and the saturated rows.",
     View::count, nullptr, [](const App& a) { return compared(a, "scaling"); },
     [](App& app) { learn_load_experiment(app, experiment_index("scaling"), 1); }, "learn_experiment", "Curves|Training"},
    {"18. Remove a head",
     "Which head makes induction work? Test it: take a head out of the trained model and measure. 'Inspect heads' "
     "(beside 'Attention', bottom right) shows the model's heads as a grid; a click removes one and the held-out "
     "accuracy is measured again without it. Nothing is retrained: this is the same model, minus one head.",
     "Train the induction model if it is not trained yet, then click layer 0's heads one at a time (click again to "
     "put one back). What happened to the accuracy, and why would layer 1's heads need that head?",
     View::count, nullptr,
     [](const App& a) { return trained_to(a, "induction", 0.9) && learn_inspect_accuracy_drop(a) > 0.1; },
     [](App& app) {
       LearnState& L = learn_state(app);
       if (!L.run().started || L.run().run_setup.task != "induction") learn_task(app, "induction");
       L.probe_panel = 1;  // Inspect heads
     },
     "learn_view_inspect", "Attention on a probe"},
    {"19. Why did attention replace RNNs?",
     "An RNN reads one token at a time and carries everything in its hidden state, so a token 16 places back reaches "
     "the answer only through 16 updates of that state, and its gradient shrinks on the way. Attention reaches it in "
     "one step. The delayed copy makes the distance the only thing that changes.",
     "Train 'RNN' under Experiments, then 'attention' (the RNN run stays in grey). Then look at 'Gradient vs "
     "distance' and 'Path length' above the probe.",
     View::count, nullptr, [](const App& a) { return compared(a, "recurrence"); },
     [](App& app) { learn_load_experiment(app, experiment_index("recurrence"), 1); }, "learn_experiment", "Curves|Training"},
    {"20. Your turn",
     "In the lab: change the number of heads, d_k or the text; edit a number in Q (click it, then drag in "
     "Inspector); mask pairs by clicking weights. In Learn mode (L): another task or experiment, or your own probe "
     "input. Presets has more set-ups.",
     "Close the tour when you are done (T opens it again).", View::weights, nullptr, nullptr},
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

const char* tour_step_title(int step) { return step >= 0 && step < kStepCount ? kSteps[step].title : ""; }

bool tour_step_done(const App& app) {
  const int k = std::clamp(app.ui.tour_step, 0, kStepCount - 1);
  return (app.ui.tour_ticks >> k & 1u) || (kSteps[k].done && kSteps[k].done(app));
}

void tour_open_step(App& app, int k) { open_step(app, k); }

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
  // Title, then the buttons: always in the same place whatever the step's text (quick clicks on Next
  // land on Next), then what to see and what to try.
  ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", s.title);
  ImGui::SameLine();
  ImGui::TextDisabled("(%d of %d)", k + 1, kStepCount);
  const bool done = tour_step_done(app);
  ImGui::BeginDisabled(k == 0);
  if (ImGui::Button("Back")) open_step(app, k - 1);
  ImGui::EndDisabled();
  remember_item(app, "tour_back");
  ImGui::SameLine();
  if (ImGui::Button("Set up again")) open_step(app, k);
  remember_item(app, "tour_again");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Apply this step's settings again and point at its matrix");
  ImGui::SameLine();
  ImGui::BeginDisabled(k + 1 >= kStepCount);
  if (ImGui::Button(done ? "Next \xE2\x86\x92###next" : "Next###next")) open_step(app, k + 1);
  ImGui::EndDisabled();
  remember_item(app, "tour_next");
  ImGui::Separator();
  ImGui::TextWrapped("%s", s.text);
  ImGui::Spacing();
  ImGui::TextColored(done ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.8f, 0.35f, 1.0f), "%s", done ? "\xE2\x9C\x93 Done:" : "Try:");
  remember_item(app, "tour_tick");
  ImGui::SameLine();
  ImGui::TextWrapped("%s", s.try_);
  ImGui::End();
  // A Learn step frames its widget (drawn this frame, so its rectangle is current) over everything.
  if (!app.ui.focus_item.empty() && open && app.ui.learn_mode) {
    const auto it = app.widget_rects.find(app.ui.focus_item);
    if (it != app.widget_rects.end()) {
      const ImVec4 r = it->second;
      const float pad = 3.0f * app.style_scale;
      ImGui::GetForegroundDrawList()->AddRect(ImVec2(r.x - pad, r.y - pad), ImVec2(r.x + r.z + pad, r.y + r.w + pad),
                                              ImGui::GetColorU32(ImVec4(1.0f, 0.8f, 0.2f, 1.0f)), 4.0f * app.style_scale, 0,
                                              3.0f * app.style_scale);
    }
  }
  if (!open) {
    app.ui.show_tour = false;
    app.ui.tour_moved = false;
    app.ui.focus_item.clear();
    if (app.ui.focus_until < 0.0) app.ui.focus_until = 0.0, app.ui.flash_view = View::count;
  }
}

}  // namespace attnlab
