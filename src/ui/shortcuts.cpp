// shortcuts.cpp — the keyboard shortcuts: one table, read by handle_shortcuts() and by the Help window.
#include <algorithm>
#include <cstring>
#include <span>

#include "app.h"
#include "app_parts.h"
#include "i18n.h"
#include "imgui.h"
#include "learn.h"
#include "mask.h"
#include "panels.h"

namespace attnlab {

namespace {

void cycle_mask(App& app) {
  // none -> causal -> sliding window (the mask table's default width, causal) -> none
  auto& mask = app.config.mask;
  const bool has_causal = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
  const bool has_window = std::any_of(mask.begin(), mask.end(), [](auto& t) { return t.kind == attn::MaskTerm::Kind::window; });
  mask.clear();
  if (!has_causal && !has_window) {
    mask.push_back({attn::MaskTerm::Kind::causal});
    notify(app, tr("notice.mask_causal"));
  } else if (has_causal) {
    const attn::Result& r = app.engine.result();
    mask.push_back(attn::mask_kind(attn::MaskTerm::Kind::window).make(r.n, r.m));  // the table's default window
    notify(app, trf("notice.mask_window", {{"n", mask.back().window}}));
  } else {
    notify(app, tr("notice.mask_none"));
  }
}

// Shortcuts are typed characters (layout-independent, and Dear ImGui 1.86 names only a few keys) or
// named keys, read only while no text box has the keyboard.
void next_head(App& app) { app.ui.head = (app.ui.head + 1) % std::max(app.engine.result().heads, 1); }
void previous_head(App& app) {
  const int heads = std::max(app.engine.result().heads, 1);
  app.ui.head = (app.ui.head + heads - 1) % heads;
}

// Esc closes what is open on top (Help, then the large view), else lets go of the selected cell and query.
void escape(App& app) {
  if (app.ui.show_help) app.ui.show_help = false;
  else if (app.ui.zoom_view != View::count) app.ui.zoom_view = View::count;
  else app.ui.selected = {}, app.ui.query = -1;
}

constexpr Shortcut kShortcuts[] = {
    {"]", ImGuiKey_PageDown, "shortcut.next_head.keys", "shortcut.next_head", next_head},
    {"[", ImGuiKey_PageUp, "shortcut.previous_head.keys", "shortcut.previous_head", previous_head},
    {"mM", ImGuiKey_COUNT, "shortcut.mask.keys", "shortcut.mask", cycle_mask},
    {"/", ImGuiKey_COUNT, "shortcut.text_box.keys", "shortcut.text_box", [](App& app) { app.ui.focus_text = true; }},
    {"nN", ImGuiKey_COUNT, "shortcut.numbers.keys", "shortcut.numbers", [](App& app) { app.ui.show_numbers = !app.ui.show_numbers; }},
    {"wW", ImGuiKey_COUNT, "shortcut.weights.keys", "shortcut.weights", [](App& app) { app.ui.show_weights = !app.ui.show_weights; }},
    {"tT", ImGuiKey_COUNT, "shortcut.tour.keys", "shortcut.tour", tour_toggle},
    {"hH?", ImGuiKey_COUNT, "shortcut.help.keys", "shortcut.help", [](App& app) { app.ui.show_help = !app.ui.show_help; }},
    {"pP", ImGuiKey_COUNT, "shortcut.presenter.keys", "shortcut.presenter",
     [](App& app) { app.ui.presenter = true, app.ui.fullscreen_request = 1, app.ui.presenter_since = ImGui::GetFrameCount(); }},
    {"lL", ImGuiKey_COUNT, "shortcut.learn.keys", "shortcut.learn", [](App& app) { set_learn_mode(app, !app.ui.learn_mode); }},
    {"", ImGuiKey_Escape, "shortcut.escape.keys", "shortcut.escape", escape},
    // Dear ImGui's own keyboard navigation, listed for the Help window.
    {"", ImGuiKey_COUNT, "shortcut.arrows.keys", "shortcut.arrows", nullptr},
    {"", ImGuiKey_COUNT, "shortcut.tab.keys", "shortcut.tab", nullptr},
};

}  // namespace

void handle_shortcuts(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || app.ui.presenter) return;  // presenter mode has its own keys
  for (const Shortcut& s : kShortcuts)
    if (s.run && s.key != ImGuiKey_COUNT && ImGui::IsKeyPressed(ImGui::GetKeyIndex(s.key))) s.run(app);
  for (ImWchar c : io.InputQueueCharacters)
    for (const Shortcut& s : kShortcuts)
      if (s.run && c < 128 && c != 0 && std::strchr(s.chars, (int)c)) {
        s.run(app);
        break;
      }
}

std::span<const Shortcut> shortcuts() { return kShortcuts; }

}  // namespace attnlab
