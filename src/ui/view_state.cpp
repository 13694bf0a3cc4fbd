#include "view_state.h"

#include "app.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_reader.h"

namespace attnlab {

using nlohmann::json;

std::string view_state_to_json(const UiState& ui) {
  json ranges = json::object();
  for (int v = 0; v < (int)View::count; ++v) ranges[view_key((View)v)] = ui.fixed_range[v];
  json j = {{"head", ui.head},
            {"numbers", ui.show_numbers},
            {"weight_matrices", ui.show_weights},
            {"row_stats", ui.row_stats},
            {"position", ui.show_position},
            {"all_heads_lines", ui.lines_all_heads},
            {"query", ui.query},
            {"ui_scale", ui.ui_scale},
            {"zoom", ui.zoom_view == View::count ? "" : view_key(ui.zoom_view)},
            {"ranges", ranges}};
  return j.dump();
}

namespace {
View view_from_key(const std::string& k) {
  for (int v = 0; v < (int)View::count; ++v)
    if (k == view_key((View)v)) return (View)v;
  return View::count;
}
}  // namespace

std::string apply_view_state(UiState& ui, const std::string& text) {
  json j;
  if (std::string e = attn::parse_json(text, "view", j); !e.empty()) return e;
  if (!j.is_object()) return "view: expected a JSON object";
  UiState next = ui;  // all or nothing
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = *it;
    const std::string f = "view." + k;
    if (k == "head" || k == "query") {
      if (!v.is_number_integer() || v.get<long long>() < -1 || v.get<long long>() > 4096) return f + ": expected an integer";
      (k == "head" ? next.head : next.query) = std::max(k == "head" ? 0 : -1, v.get<int>());
    } else if (k == "numbers" || k == "weight_matrices" || k == "row_stats" || k == "all_heads_lines" || k == "position") {
      if (!v.is_boolean()) return f + ": expected true or false";
      bool& b = k == "numbers" ? next.show_numbers : k == "weight_matrices" ? next.show_weights
                : k == "row_stats" ? next.row_stats : k == "position" ? next.show_position : next.lines_all_heads;
      b = v.get<bool>();
    } else if (k == "ui_scale") {
      if (!v.is_number() || !(v.get<double>() >= 0.75 && v.get<double>() <= 3.0)) return f + ": expected a number from 0.75 to 3";
      next.ui_scale = next.ui_scale_edit = v.get<float>();
    } else if (k == "zoom") {
      if (!v.is_string()) return f + ": expected a view name or \"\"";
      const std::string s = v.get<std::string>();
      next.zoom_view = s.empty() ? View::count : view_from_key(s);
      if (!s.empty() && next.zoom_view == View::count) return f + ": unknown view \"" + s + "\"";
    } else if (k == "ranges") {
      if (!v.is_object()) return f + ": expected {view: range}";
      for (auto r = v.begin(); r != v.end(); ++r) {
        const View view = view_from_key(r.key());
        if (view == View::count) return f + "." + r.key() + ": unknown view";
        if (!r->is_number() || !std::isfinite(r->get<double>()) || r->get<double>() < 0 || r->get<double>() > 1e6)
          return f + "." + r.key() + ": expected a number >= 0 (0: fit to the data)";
        next.fixed_range[(int)view] = r->get<float>();
      }
    } else {
      return f + ": unknown key";
    }
  }
  ui = next;
  return "";
}

std::string apply_view(App& app, const std::string& json) {
  const float scale = app.ui.ui_scale;
  std::string err = apply_view_state(app.ui, json);
  if (app.ui.ui_scale != scale) app.fonts_dirty = true;  // the shell rebuilds fonts for the new scale
  app.layout_dirty = true;
  return err;
}

}  // namespace attnlab
