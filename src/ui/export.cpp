#include "export.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "app.h"
#include "i18n.h"
#include "config_json.h"
#include "json_util.h"
#include "positional.h"
#include "result_json.h"

namespace attnlab {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// Which token sequence labels a view's rows (nullptr: indices).
const std::vector<std::string>* row_tokens(const App& app, View v) {
  const attn::Result& r = app.engine.result();
  switch (view_info(v).rows) {
    case Labels::queries: return &r.tokens;
    case Labels::keys: return &r.source_tokens;
    default: return nullptr;
  }
}

}  // namespace

std::string view_csv(const App& app, View v) {
  const attn::Result& r = app.engine.result();
  const attn::MatView m = view_matrix(r, v, app.ui.head);
  const std::vector<std::string>* rows = row_tokens(app, v);
  const bool key_cols = view_info(v).cols == Labels::keys;
  std::string out = "\"\"";
  for (int j = 0; j < m.cols; ++j) out += "," + (key_cols ? quoted(r.source_tokens[(size_t)j]) : std::to_string(j));
  out += '\n';
  for (int i = 0; i < m.rows; ++i) {
    out += rows && i < (int)rows->size() ? quoted((*rows)[(size_t)i]) : std::to_string(i);
    for (int j = 0; j < m.cols; ++j) {
      out += ',';
      if (v == View::masked && !r.mask.allows(i, j)) out += "-inf";
      else out += attn::ojson(m(i, j)).dump();  // shortest round-trip form, as attnlab-cli prints
    }
    out += '\n';
  }
  return out;
}

std::string export_file_name(const App& app, View v, const char* extension) {
  std::string name = "attention-lab";
  if (v != View::count) {
    name += std::string("_") + view_key(v);
    if (view_info(v).per_head) name += "_head" + std::to_string(app.ui.head);
  }
  return name + "." + extension;
}

// [SECTION] PNGs: asked for now, taken once the picture is on screen
void request_png(App& app, View v) {
  if (!app.save_png) return;
  app.png = PngRequest{.pending = true, .view = v, .name = export_file_name(app, v, "png")};
}

bool png_request_pending(const App& app) { return app.png.pending; }

void step_png_request(App& app) {
  PngRequest& r = app.png;
  if (!r.pending) return;
  ++r.frames;
  const auto finish = [&](ImVec4 block) {  // block: x, y, w, h (w = 0: the whole lab); a 4 px margin round a block
    const PngRequest done = std::exchange(r, PngRequest{});
    if (done.enlarged_at > 0) app.ui.zoom_view = done.zoom_before;
    if (block.z > 0.0f) block = ImVec4(block.x - 4.0f, block.y - 4.0f, block.z + 8.0f, block.w + 8.0f);
    app.save_png(done.name, block);
  };
  // Two frames: the menu that asked has closed, and the pointer has left whatever it hovered.
  if (r.frames < 2) return;
  if (r.view == View::count) return finish(ImVec4(0, 0, 0, 0));
  const int v = (int)r.view;
  if (r.enlarged_at > 0) {  // shown large: once the Enlarge window has been laid out and drawn
    if (app.ui.zoom_view == r.view && app.zoom_block_whole && r.frames >= r.enlarged_at + 3) return finish(app.zoom_block_rect);
    if (r.frames >= r.enlarged_at + 20 || app.ui.zoom_view != r.view) {  // closed meanwhile, or never whole
      const PngRequest failed = std::exchange(r, PngRequest{});
      if (app.ui.zoom_view == failed.view) app.ui.zoom_view = failed.zoom_before;
      report_problem(app, trf("notice.png_not_saved.title", {{"name", failed.name}}), tr("notice.png_not_saved.detail"));
    }
    return;
  }
  if (app.view_rects[v].drawn && app.block_whole[v]) return finish(app.block_rects[v]);
  if (r.scrolled_at == 0) {  // partly off screen: scroll it into view, as a formula button does
    app.ui.focus_view = r.view;
    r.scrolled_at = r.frames;
  } else if (r.frames >= r.scrolled_at + 2) {  // taller than its window, or not in this layout: show it large
    r.zoom_before = app.ui.zoom_view;
    app.ui.zoom_view = r.view;
    r.enlarged_at = r.frames;
  }
}

void export_view_items(App& app, View v) {
  const bool can_download = (bool)app.download, can_png = (bool)app.save_png;
  if (ImGui::MenuItem(tr_id("export.view_png", "view_png"), nullptr, false, can_png)) request_png(app, v);
  remember_item(app, "view_menu:png");
  if (ImGui::MenuItem(tr_id("export.view_csv", "view_csv"), nullptr, false, can_download))
    app.download(export_file_name(app, v, "csv"), "text/csv", view_csv(app, v));
  remember_item(app, "view_menu:csv");
  if (ImGui::MenuItem(tr_id("export.show_large", "show_large"))) app.ui.zoom_view = v;
  remember_item(app, "view_menu:large");
}

void export_menu_items(App& app) {
  const bool can_download = (bool)app.download, can_png = (bool)app.save_png;
  if (!can_download && !can_png) ImGui::TextDisabled("%s", tr("export.cannot_save"));
  if (ImGui::MenuItem(tr_id("export.lab_png", "lab_png"), nullptr, false, can_png)) request_png(app, View::count);
  remember_item(app, "export:png");
  if (ImGui::MenuItem(tr_id("export.result_json", "result_json"), nullptr, false, can_download))
    app.download("attention-lab_result.json", "application/json", attn::result_to_json(app.engine.result(), app.engine.config(), 2));
  remember_item(app, "export:json");
  if (ImGui::MenuItem(tr_id("export.config_json", "config_json"), nullptr, false, can_download))
    app.download("attention-lab_config.json", "application/json", attn::config_to_json(app.engine.config(), 2));
  remember_item(app, "export:config");
  // One view or one matrix: sections that open in place (a click), listing the views. Not submenus:
  // Dear ImGui 1.86's BeginMenu inside a popup neither opens on hover nor stays open on a click.
  const auto section = [&](const char* label, const char* id, int which, bool enabled) {
    ImGui::BeginDisabled(!enabled);
    const bool open = app.ui.export_section == which;
    char text[96];
    std::snprintf(text, sizeof text, "%s %s###%s", open ? "\xE2\x96\xBE" : "\xE2\x96\xB8", label, id);  // ▾ ▸
    if (ImGui::Selectable(text, open, ImGuiSelectableFlags_DontClosePopups)) app.ui.export_section = open ? 0 : which;
    remember_item(app, id);
    ImGui::EndDisabled();
    return open && enabled;
  };
  if (section(tr("export.one_png"), "export:view_png", 1, can_png)) {
    ImGui::Indent();
    for (int k = 0; k < (int)View::count; ++k) {
      if (!app.view_rects[k].drawn_last) continue;  // on screen last frame (this one draws the matrices after the menus)
      if (ImGui::MenuItem(view_label_id((View)k))) request_png(app, (View)k);
      remember_item(app, (std::string("export:view_png:") + view_key((View)k)).c_str());
    }
    ImGui::Unindent();
  }
  if (section(tr("export.one_csv"), "export:view_csv", 2, can_download)) {
    ImGui::Indent();
    for (int k = 0; k < (int)View::count; ++k) {
      const View v = (View)k;
      if ((v == View::x_source && !app.engine.result().cross) || (v == View::position && !attn::positional_kind(app.engine.config().positional).add))
        continue;
      if (ImGui::MenuItem(view_label_id(v))) app.download(export_file_name(app, v, "csv"), "text/csv", view_csv(app, v));
      remember_item(app, (std::string("export:view_csv:") + view_key(v)).c_str());
    }
    ImGui::Unindent();
  }
}

}  // namespace attnlab
