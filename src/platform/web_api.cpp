// web_api.cpp — the page API: one table of page functions (name, arguments, handler) behind the one
// exported C function, attnlab_call. web/app.js wraps it as window.attnlab (docs/web-api.md holds the
// contract); adding a page function is one entry here and its wrapper there — no export list to keep.
//
//   attnlab_call(packed, argc): packed = "name\0arg1\0arg2\0…" (UTF-8, argc arguments). Returns the
//   function's answer (valid until the next call), or null for a name that is not in the table or the
//   wrong number of arguments. Numbers travel as their JavaScript text (String(n)).
#include <emscripten.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app.h"
#include "config_json.h"
#include "export.h"
#include "formula.h"
#include "i18n.h"
#include "learn.h"
#include "presets.h"
#include "result_json.h"
#include "view_state.h"
#include "web_shell.h"

namespace attnlab {
namespace {

// A page function's arguments, each as the C string the page sent.
struct PageArgs {
  const char* const* v;
  std::string_view text(int i) const { return v[i]; }
  std::string str(int i) const { return v[i]; }
  float number(int i) const { return (float)std::strtod(v[i], nullptr); }
  int integer(int i) const { return (int)std::strtol(v[i], nullptr, 10); }
};

using PageHandler = std::string (*)(WebShell&, const PageArgs&);

struct PageFunction {
  const char* name;  // as web/app.js calls it
  int args;          // how many arguments it takes
  PageHandler run;   // its answer: JSON, text, or "" / the error naming the field, as docs/web-api.md says
};

// Counts as input: the next frame is drawn (an idle lab otherwise skips it).
std::string drawn(WebShell& s) {
  s.input.add_wheel(0, 0);
  return "";
}

std::string redraw(WebShell& s) {
  s.force_draw = true;
  web_main_loop(s);
  return "";
}

const PageFunction kPageFunctions[] = {
    // [SECTION] the lab: configs, results and how they are shown
    // A config (attnlab-cli schema) applied: "" or the error naming the field; state is kept on error.
    {"apply", 1, [](WebShell& s, const PageArgs& a) {
       attn::Config c;
       std::string err = attn::parse_config(a.str(0), c);
       if (err.empty()) err = apply_config(s.app, c);
       return err;
     }},
    // The current config in the attnlab-cli schema (mask edits and number edits included).
    {"config", 0, [](WebShell& s, const PageArgs&) { return attn::config_to_json(s.app.engine.config()); }},
    // Exactly what `attnlab-cli run` prints for the current config.
    {"result", 0, [](WebShell& s, const PageArgs&) {
       s.app.engine.compute();
       return attn::result_to_json(s.app.engine.result(), s.app.engine.config());
     }},
    // Where things are drawn (backing-store pixels): matrix views and named controls.
    {"layout", 0, [](WebShell& s, const PageArgs&) { return layout_json(s.app); }},
    // How the lab is shown (src/ui/view_state.h), and setting the keys given ("" or the error naming the key).
    {"view_state", 0, [](WebShell& s, const PageArgs&) { return view_state_to_json(s.app.ui); }},
    {"set_view_state", 1, [](WebShell& s, const PageArgs& a) { return apply_view(s.app, a.str(0)); }},
    // The built-in presets in the Presets menu's order, and applying one by key, file or title.
    {"presets", 0, [](WebShell&, const PageArgs&) { return presets_json(); }},
    {"preset", 1, [](WebShell& s, const PageArgs& a) { return apply_preset(s.app, a.text(0)); }},
    // The formula strip as text, exactly as shown.
    {"formula", 0, [](WebShell& s, const PageArgs&) { return formula_text(s.app.engine.config()); }},
    // One view's matrix as CSV (export.h); "" for an unknown view name.
    {"csv", 1, [](WebShell& s, const PageArgs& a) {
       for (int v = 0; v < (int)View::count; ++v)
         if (a.text(0) == view_key((View)v)) return view_csv(s.app, (View)v);
       return std::string();
     }},
    // What the screen-reader region says now (also pushed to the page after each change).
    {"a11y", 0, [](WebShell& s, const PageArgs&) { return a11y_json(s.app); }},

    // [SECTION] frames and statistics
    // Draws a frame now, whether or not anything changed: the canvas then holds the current picture
    // until this JavaScript task ends (screenshot() reads it right after).
    {"redraw", 0, [](WebShell& s, const PageArgs&) { return redraw(s); }},
    // Draws a frame now and returns every text its widgets drew, line by line.
    {"drawn_text", 0, [](WebShell& s, const PageArgs&) {
       s.app.capture_text = true;
       redraw(s);
       return s.app.drawn_text;
     }},
    // Frame statistics, the input relay's state among them, and starting them afresh.
    {"stats", 0, [](WebShell& s, const PageArgs&) { return stats_json(s.app, s.input.state_json()); }},
    {"reset_stats", 0, [](WebShell& s, const PageArgs&) {
       s.app.stats = {};
       s.app.ui_stats = {};
       return std::string();
     }},

    // [SECTION] input the page routes here instead of through Emscripten's GLFW (glfw_input.h)
    // Wheel notches (+dy = content moves down, GLFW's sign).
    {"wheel", 2, [](WebShell& s, const PageArgs& a) {
       s.input.add_wheel(a.number(0), a.number(1));
       return std::string();
     }},
    // The first finger in CSS pixels: kind 0 start, 1 move, 2 end.
    {"touch", 3, [](WebShell& s, const PageArgs& a) {
       const float k = s.app.dpi_scale;
       s.input.touch(a.integer(0), a.number(1) * k, a.number(2) * k);
       return std::string();
     }},
    // The page's <textarea> over a text box changed: which is "text" or "source". Same effect as typing.
    {"set_text", 2, [](WebShell& s, const PageArgs& a) {
       set_text_box(s.app, a.text(0) == "source", a.str(1));
       return drawn(s);
     }},
    // Presenter mode: on 1/0, contrast 1/0/-1 (keep).
    {"set_presenter", 2, [](WebShell& s, const PageArgs& a) {
       const int on = a.integer(0), contrast = a.integer(1);
       s.app.ui.presenter = on != 0;
       if (contrast >= 0 && (contrast != 0) != s.app.ui.high_contrast) s.app.ui.high_contrast = contrast != 0, s.app.fonts_dirty = true;
       return drawn(s);
     }},
    // The UI scale (0.75–3).
    {"set_ui_scale", 1, [](WebShell& s, const PageArgs& a) {
       set_ui_scale(s.app, a.number(0));
       return drawn(s);
     }},

    // [SECTION] files and messages
    // A file the person picked or dropped on the page (a model, or a config): "" or the error (also on screen).
    {"open_file", 2, [](WebShell& s, const PageArgs& a) { return open_file_text(s.app, a.str(0), a.text(1)); }},
    // The most bytes a file may have (shell_frame.h): the page refuses a larger one before reading it.
    {"max_file_bytes", 0, [](WebShell&, const PageArgs&) { return std::to_string(kMaxFileBytes); }},
    // A message on screen (the notice line), and a problem shown until closed.
    {"notify", 1, [](WebShell& s, const PageArgs& a) {
       notify(s.app, a.str(0));
       s.force_draw = true;  // an idle lab draws it now
       return std::string();
     }},
    {"problem", 2, [](WebShell& s, const PageArgs& a) {
       report_problem(s.app, a.str(0), a.str(1));
       s.force_draw = true;
       return std::string();
     }},

    // [SECTION] Learn mode (docs/web-api.md, docs/train.md)
    // A training config as `attnlab-cli train` reads it: "" or the error naming the field.
    {"train", 1, [](WebShell& s, const PageArgs& a) { return learn_train_json(s.app, a.str(0)); }},
    {"train_status", 0, [](WebShell& s, const PageArgs&) { return learn_status_json(s.app); }},
    {"train_history", 0, [](WebShell& s, const PageArgs&) { return learn_history_json(s.app); }},
    {"stop_training", 0, [](WebShell& s, const PageArgs&) {
       learn_stop(s.app);
       return std::string();
     }},
    // The trained model as a model file ("" when nothing was trained), and opening one.
    {"model", 0, [](WebShell& s, const PageArgs&) { return learn_model_json(s.app); }},
    {"open_model", 1, [](WebShell& s, const PageArgs& a) { return learn_open_model(s.app, a.str(0)); }},
    // The probe: text in the task's tokens, "" for the held-out example. "" or the error.
    {"set_probe", 1, [](WebShell& s, const PageArgs& a) { return learn_set_probe(s.app, a.str(0)); }},
    // The run's training config, for a link that trains it again.
    {"run_config", 0, [](WebShell& s, const PageArgs&) { return learn_run_json(s.app); }},
    // The training worker sent something: draw the next frame even if nothing else changed. While
    // training runs the frames come at training's own pace (learn_wants_frame), which takes it then.
    {"wake", 0, [](WebShell& s, const PageArgs&) {
       if (!learn_busy(s.app)) s.force_draw = true;
       return std::string();
     }},
    // Interventions on the Learn run (docs/inspect.md): ablate | patch | attribute | circuits | rollout
    // with the CLI's options as a JSON object's fields; the CLI's JSON document, or one line naming the
    // field (it never starts with '{'). "view": what the Inspect view shows (learn.h).
    {"inspect", 2, [](WebShell& s, const PageArgs& a) {
       if (a.text(0) == "view") return learn_inspect_view_json(s.app);
       std::string error;
       const std::string out = learn_inspect_json(s.app, a.str(0), a.str(1), error);
       return error.empty() ? out : error;
     }},

    // [SECTION] languages: those offered, the current one, and choosing one (`text` is its catalogue
    // when the page fetched it, "" for one compiled in; "" or why not)
    {"languages", 0, [](WebShell&, const PageArgs&) {
       nlohmann::json out = nlohmann::json::array();
       for (const Language& l : languages())
         out.push_back({{"code", l.code}, {"name", l.name}, {"cjk", l.cjk}, {"menu", !l.hidden}, {"builtin", l.text != nullptr || l.hidden}});
       return out.dump();
     }},
    {"language", 0, [](WebShell&, const PageArgs&) { return std::string(language()); }},
    {"set_language", 2, [](WebShell& s, const PageArgs& a) {
       std::string err = choose_language(s.app, a.str(0), a.text(1));
       s.force_draw = true;
       return err;
     }},
    // The CJK font's bytes at (address, size), memory the page allocated with _malloc and keeps.
    {"set_cjk_font", 2, [](WebShell& s, const PageArgs& a) {
       set_cjk_font(s.app, reinterpret_cast<const void*>(std::strtoul(a.v[0], nullptr, 10)), a.integer(1));
       s.force_draw = true;
       return std::string();
     }},
};

}  // namespace
}  // namespace attnlab

extern "C" EMSCRIPTEN_KEEPALIVE const char* attnlab_call(const char* packed, int argc) {
  using namespace attnlab;
  if (!packed || argc < 0 || argc > 8) return nullptr;
  const std::string_view name = packed;
  const char* args[8];
  const char* at = packed + name.size() + 1;
  for (int i = 0; i < argc; ++i, at += std::char_traits<char>::length(at) + 1) args[i] = at;
  for (const PageFunction& f : kPageFunctions) {
    if (name != f.name) continue;
    if (f.args != argc) return nullptr;
    WebShell& s = web_shell();
    s.reply = f.run(s, PageArgs{args});
    wake_loop();  // whatever it changed is drawn at the next animation frame, however long the loop slept
    return s.reply.c_str();
  }
  return nullptr;
}
