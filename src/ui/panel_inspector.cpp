// Inspector: the exact computation behind the selected (or hovered) cell, and, for X/Q/K/V/W cells,
// a drag box to change the number by hand. Also the small hover card drawn next to the mouse.
#include <cstdio>
#include <algorithm>
#include <cmath>

#include "app.h"
#include "i18n.h"
#include "positional.h"
#include "explain.h"
#include "handmade_heads.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

namespace {

const std::string& token(const std::vector<std::string>& t, int i) {
  static const std::string none = "?";
  return i >= 0 && i < (int)t.size() ? t[(size_t)i] : none;
}

// A number as the cards write it: %.*g (the point as decimal separator, as in the CLI's output).
std::string g(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

void term_table(const std::vector<attn::Term>& terms, const char* index_name, const char* a, const char* b,
                const std::vector<std::string>* labels, int max_rows) {
  if (ImGui::BeginTable("terms", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn(index_name);
    ImGui::TableSetupColumn(a);
    ImGui::TableSetupColumn(b);
    ImGui::TableSetupColumn(tr("inspector.product"));
    ImGui::TableHeadersRow();
    for (int t = 0; t < (int)terms.size() && t < max_rows; ++t) {
      const attn::Term& x = terms[(size_t)t];
      ImGui::TableNextColumn();
      if (labels) ImGui::Text("%d %s", x.index, token(*labels, x.index).c_str());
      else ImGui::Text("%d", x.index);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", x.a);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", x.b);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", x.product());
    }
    ImGui::EndTable();
  }
  if ((int)terms.size() > max_rows) {
    const int more = (int)terms.size() - max_rows;
    ImGui::TextDisabled("%s", trn("inspector.smaller_terms", more, {{"n", more}}).c_str());
  }
}

void explain_attention_cell(const App& app, int h, int i, int j, int max_rows) {
  const attn::Result& r = app.engine.result();
  const attn::ScoreExplanation s = attn::explain_score(r, h, i, j);
  const attn::WeightExplanation w = attn::explain_weight(r, h, i, j);
  text_wrapped_words("%s", trf("inspector.query_key", {{"i", i}, {"query", token(app.labels, i)}, {"j", j},
                                                       {"key", token(app.source_labels, j)}, {"h", h}}).c_str());
  text_wrapped_words("score = q\xC2\xB7k \xC3\x97 scale/\xCF\x84 = %.5g \xC3\x97 %.4g = %.5g", s.dot, s.alpha, s.score);
  term_table(s.terms, "c", "q[c]", "k[c]", nullptr, max_rows);
  if (w.fully_masked) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "%s", tr("inspector.all_masked"));
  } else if (!w.allowed) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "%s", tr("inspector.masked"));
  } else {
    ImGui::Text("weight = exp(s \xE2\x88\x92 max) / \xCE\xA3");
    ImGui::Text("       = exp(%.4g \xE2\x88\x92 %.4g) / %.5g", w.score, w.row_max, w.row_sum);
    ImGui::Text("       = %.5g / %.5g = %.5g", w.exp_shifted, w.row_sum, w.weight);
    ImGui::TextDisabled("%s", trn("inspector.allowed_keys", w.allowed_keys, {{"n", w.allowed_keys}}).c_str());
  }
}

void explain_output_cell(const App& app, int h, int i, int c, int max_rows) {
  const attn::Result& r = app.engine.result();
  const attn::OutputExplanation o = attn::explain_output(r, h, i, c);
  ImGui::Text("O[%d][%d] = \xCE\xA3_j a_ij \xC2\xB7 v_j[%d] = %.5g", i, c, c, o.value);
  term_table(o.terms, tr("inspector.key_j"), "a_ij", "v_j", &app.source_labels, max_rows);
}

// The edit on this cell of `t`, if the person changed it by hand.
const attn::Override* edit_of(const attn::Config& c, attn::Target t, int head, int row, int col) {
  for (const attn::Override& o : c.overrides)
    if (o.target == t && o.row == row && o.col == col && (t == attn::Target::x || t == attn::Target::w_o || o.head == head)) return &o;
  return nullptr;
}

void explain_projection_cell(const App& app, attn::Target t, int h, int i, int c, int max_rows) {
  const attn::Result& r = app.engine.result();
  // An edited cell holds the typed number: say so first, not what the formula would have given.
  if (const attn::Override* o = edit_of(app.engine.config(), t, h, i, c)) {
    ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.0f, 1.0f), "%s", trf("inspector.edited", {{"value", g(o->value, 5)}}).c_str());
    ImGui::TextDisabled("%s", tr("inspector.edited.replaces"));
  }
  const attn::ProjectionExplanation p = attn::explain_projection(r, t, h, i, c);
  const bool source = r.cross && (t == attn::Target::k || t == attn::Target::v);
  const char* in = t == attn::Target::w_o ? "concat" : source ? "x_src" : "x";
  ImGui::Text("= \xCE\xA3_r %s[%d][r] \xC2\xB7 W[r][%d] = %.5g", in, i, c, p.sum);
  if (p.rotated && !edit_of(app.engine.config(), t, h, i, c))
    ImGui::TextDisabled("%s", trf("inspector.rotated", {{"i", i}, {"value", g(p.value, 5)}}).c_str());
  term_table(p.terms, "r", in, "W", nullptr, max_rows);
}

void explain_x_cell(const App& app, View v, int i, int col) {
  const attn::Config& c = app.engine.config();
  if (v == View::x)
    if (const attn::Override* o = edit_of(c, attn::Target::x, 0, i, col)) {
      ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.0f, 1.0f), "%s", trf("inspector.edited", {{"value", g(o->value, 5)}}).c_str());
      return;
    }
  const char* emb = c.embedding == attn::Embedding::interpretable ? tr("inspector.embedding.table") : tr("inspector.embedding.hashed");
  const attn::Result& r = app.engine.result();
  const attn::PositionalKind& pk = attn::positional_kind(c.positional);  // what it adds, in its own words
  const char* p_words = pk.p_words ? tr_entry("positional", pk.name, "p_words", pk.p_words) : "";
  const bool has_p = v == View::x && r.positions.size() == (size_t)r.n * r.d_model && i < r.n && col < r.d_model;
  const float x = v == View::x ? r.x_view()(i, col) : r.x_source_view()(i, col);
  const float p = has_p ? r.positions_view()(i, col) : 0.0f;
  if (pk.add && v == View::x_source) {
    text_wrapped_words("%s", trf("inspector.x.source", {{"embedding", emb}, {"p", p_words}, {"i", i}}).c_str());
  } else if (pk.add) {
    ImGui::Text("X = E + P = %.4g + %.4g = %.4g", x - p, p, x);
    text_wrapped_words("%s", trf("inspector.x.e_p", {{"embedding", emb}, {"p", p_words}, {"i", i}, {"col", col}}).c_str());
  } else if (pk.rotates_qk) {
    text_wrapped_words("%s", trf("inspector.x.rotates", {{"embedding", emb}, {"positions", tr_entry("positional", pk.name, "label", pk.label)}}).c_str());
  } else {
    text_wrapped_words("%s", trf("inspector.x.none", {{"embedding", emb}}).c_str());
  }
}

float cell_value(const attn::Result& r, const CellRef& c) { return view_matrix(r, c.view, c.head)(c.row, c.col); }

// Whether a cell still exists in the current result (sizes may have changed since it was picked).
bool in_range(const attn::Result& r, const CellRef& c) {
  if (!c.valid() || c.head >= r.heads) return false;
  const attn::MatView m = view_matrix(r, c.view, c.head);
  return c.row < m.rows && c.col < m.cols;
}

void explain_cell(const App& app, const CellRef& c, int max_rows) {
  const attn::Result& r = app.engine.result();
  switch (c.view) {
    case View::scores: case View::masked: case View::weights: explain_attention_cell(app, c.head, c.row, c.col, max_rows); break;
    case View::head_out: explain_output_cell(app, c.head, c.row, c.col, max_rows); break;
    case View::concat: explain_output_cell(app, c.col / r.d_v, c.row, c.col % r.d_v, max_rows); break;
    case View::q: case View::k: case View::v: explain_projection_cell(app, view_target(c.view), c.head, c.row, c.col, max_rows); break;
    case View::output: explain_projection_cell(app, attn::Target::w_o, 0, c.row, c.col, max_rows); break;
    case View::x: case View::x_source: explain_x_cell(app, c.view, c.row, c.col); break;
    default: {
      const attn::Config& cfg = app.engine.config();
      if (const attn::Override* o = edit_of(cfg, view_target(c.view), c.head, c.row, c.col)) {
        ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.0f, 1.0f), "%s", trf("inspector.edited", {{"value", g(o->value, 5)}}).c_str());
        break;
      }
      bool hand = false;
      for (const attn::HandmadeHead& hh : cfg.handmade) hand = hand || (hh.head == c.head && c.view != View::w_o);
      if (hand) text_wrapped_words("%s", tr("inspector.weight.hand_built"));
      else text_wrapped_words("%s", trf("inspector.weight.random", {{"seed", std::to_string(cfg.seed)}}).c_str());
      break;
    }
  }
}

}  // namespace

void draw_inspector_panel(App& app) {
  ImGui::Begin(pane_window(Pane::inspector));
  const attn::Result& r = app.engine.result();
  CellRef c = in_range(r, app.ui.selected) ? app.ui.selected : app.ui.hover;
  if (!in_range(r, c)) {
    text_wrapped_words("%s", tr("inspector.empty"));
    ImGui::End();
    return;
  }
  const bool is_selected = c == app.ui.selected;
  const bool per_head = view_info(c.view).per_head;
  if (per_head) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(c.head)), "%s", trf("heads.head", {{"h", c.head}}).c_str()), ImGui::SameLine();
  ImGui::Text("%s[%d][%d] = %.6g", view_label(c.view), c.row, c.col, cell_value(r, c));
  // What happened to this cell, in one line: masked, edited, rotated.
  if ((c.view == View::masked || c.view == View::weights || c.view == View::scores) && !r.mask.allows(c.row, c.col))
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "%s", c.view == View::scores ? tr("inspector.masked_next") : tr("inspector.masked_before"));
  if (is_selected) {
    ImGui::SameLine();
    if (ImGui::SmallButton(tr_id("inspector.unselect", "unselect"))) app.ui.selected = {};
    remember_item(app, "inspector_unselect");
  }
  if (view_editable(c.view) && is_selected) {
    const attn::Target t = view_target(c.view);
    const int head = (t == attn::Target::x || t == attn::Target::w_o) ? 0 : c.head;
    auto it = std::find_if(app.config.overrides.begin(), app.config.overrides.end(), [&](const attn::Override& o) {
      return o.target == t && o.head == head && o.row == c.row && o.col == c.col;
    });
    float v = it != app.config.overrides.end() ? it->value : cell_value(r, c);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    if (ImGui::DragFloat(tr_id("inspector.value", "value"), &v, 0.01f, -100.0f, 100.0f, "%.4f", ImGuiSliderFlags_AlwaysClamp)) {
      if (it != app.config.overrides.end()) it->value = v;
      else app.config.overrides.push_back({t, head, c.row, c.col, v});
    }
    remember_item(app, "inspector_value");
    help_marker(tr("inspector.value.help"));
    if (it != app.config.overrides.end()) {
      ImGui::SameLine();
      if (ImGui::SmallButton(tr_id("inspector.reset", "reset"))) app.config.overrides.erase(it);
      remember_item(app, "inspector_reset");
    }
  }
  ImGui::Separator();
  explain_cell(app, c, 6);
  ImGui::End();
}

void draw_hover_card(App& app) {
  const attn::Result& r = app.engine.result();
  const CellRef& c = app.ui.hover;
  if (!in_range(r, c) || !ImGui::IsMousePosValid()) return;
  ImGui::BeginTooltip();
  ImGui::TextDisabled("%s[%d][%d] = %.5g", view_label(c.view), c.row, c.col, cell_value(r, c));
  explain_cell(app, c, 3);
  ImGui::EndTooltip();
}

}  // namespace attnlab
