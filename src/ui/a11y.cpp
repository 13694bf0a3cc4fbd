// What a screen reader gets: the lab draws on a canvas, so the page mirrors this text into the DOM
// (an aria-live region and a table; web/app.js). Built from the same engine results the hover card
// explains, in sentences rather than a picture.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app.h"
#include "i18n.h"
#include "explain.h"

namespace attnlab {

namespace {

// A number as a screen reader says it: three significant digits, the language's decimal separator.
std::string spoken(double v) {
  if (!std::isfinite(v)) return v < 0 ? tr("a11y.minus_infinity") : tr("a11y.infinity");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  std::string out = buf;
  if (const std::string& d = catalog().decimal; d != ".")
    if (const size_t dot = out.find('.'); dot != std::string::npos) out.replace(dot, 1, d);
  return out;
}

std::string quoted(const std::vector<std::string>& tokens, int i) {
  return i >= 0 && i < (int)tokens.size() ? "\u201C" + tokens[(size_t)i] + "\u201D" : std::to_string(i);
}

// The cell a reader follows: the one under the pointer (or finger), else the selected one.
CellRef described_cell(const App& app) {
  const attn::Result& r = app.engine.result();
  for (const CellRef& c : {app.ui.hover, app.ui.selected}) {
    if (!c.valid() || c.head >= r.heads) continue;
    const attn::MatView m = view_matrix(r, c.view, c.head);
    if (c.row < m.rows && c.col < m.cols) return c;
  }
  return {};
}

std::string cell_sentence(const App& app, const CellRef& c) {
  const attn::Result& r = app.engine.result();
  const attn::MatView m = view_matrix(r, c.view, c.head);
  const float value = m(c.row, c.col);
  const bool per_head = view_info(c.view).per_head;
  std::string out = per_head ? trf("a11y.view_head", {{"view", view_label(c.view)}, {"h", c.head}}) : std::string(view_label(c.view));
  out += ": ";
  switch (c.view) {
    case View::scores: case View::masked: case View::weights: {
      const attn::ScoreExplanation s = attn::explain_score(r, c.head, c.row, c.col);
      const attn::WeightExplanation w = attn::explain_weight(r, c.head, c.row, c.col);
      out += trf("a11y.score", {{"query", quoted(r.tokens, c.row)}, {"key", quoted(r.source_tokens, c.col)}, {"score", spoken(s.score)},
                                {"dot", spoken(s.dot)}, {"scale", spoken(s.alpha)}});
      out += ' ';
      if (w.fully_masked) out += tr("a11y.all_masked");
      else if (!w.allowed) out += tr("a11y.masked");
      else out += trn("a11y.weight", w.allowed_keys, {{"weight", spoken(w.weight)}, {"score", spoken(w.score)}, {"max", spoken(w.row_max)},
                                                      {"sum", spoken(w.row_sum)}, {"n", w.allowed_keys}});
      break;
    }
    case View::head_out: {
      const attn::OutputExplanation o = attn::explain_output(r, c.head, c.row, c.col);
      out += trf("a11y.output", {{"token", quoted(r.tokens, c.row)}, {"col", c.col}, {"value", spoken(value)}});
      if (!o.terms.empty())
        out += trf("a11y.output.largest", {{"key", quoted(r.source_tokens, o.terms[0].index)}, {"weight", spoken(o.terms[0].a)},
                                            {"value", spoken(o.terms[0].b)}});
      out += ".";
      break;
    }
    default: {
      const bool key_rows = view_info(c.view).rows == Labels::keys;
      const bool w_rows = view_info(c.view).rows == Labels::none;
      out += w_rows ? trf("a11y.cell.row", {{"row", c.row}, {"col", c.col}, {"value", spoken(value)}})
                    : trf("a11y.cell.token", {{"token", quoted(key_rows ? r.source_tokens : r.tokens, c.row)}, {"col", c.col}, {"value", spoken(value)}});
    }
  }
  return out;
}

}  // namespace

std::string a11y_json(const App& app) {
  const attn::Result& r = app.engine.result();
  nlohmann::json j = nlohmann::json::object();
  // What the lab says to everyone (a saved file, a link that could not be used), for a status region.
  j["notice"] = notice_showing(app) ? (app.notice_title.empty() ? app.notice : app.notice_title + ". " + app.notice) : "";
  if (r.n == 0) {
    j["live"] = tr("a11y.no_tokens");
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  const CellRef c = described_cell(app);
  const int head = std::clamp(c.valid() ? c.head : app.ui.head, 0, r.heads - 1);
  j["live"] = c.valid() ? cell_sentence(app, c) : "";
  // The weights row of the query being looked at (the described cell's row, or the picked token).
  const bool attention_view = c.valid() && (c.view == View::scores || c.view == View::masked || c.view == View::weights ||
                                            c.view == View::head_out || c.view == View::q);
  const int query = attention_view ? c.row : app.ui.query >= 0 ? app.ui.query : app.ui.hover_token;
  if (query >= 0 && query < r.n) {
    const attn::MatView a = view_matrix(r, View::weights, head);
    std::string row = trf("a11y.row", {{"query", quoted(r.tokens, query)}, {"h", head}});
    for (int k = 0; k < a.cols && k < 64; ++k) row += (k ? ", " : " ") + quoted(r.source_tokens, k) + " " + spoken(a(query, k));
    if (a.cols > 64) row += trf("a11y.row.more", {{"n", a.cols - 64}});
    j["row"] = row + ".";
  } else {
    j["row"] = "";
  }
  // The focused matrix as a table (the described cell's, else the weights), at most 32 × 32 cells.
  const View v = c.valid() ? c.view : View::weights;
  const attn::MatView m = view_matrix(r, v, head);
  constexpr int kMax = 32;
  const bool key_rows = view_info(v).rows == Labels::keys;
  const bool key_cols = view_info(v).cols == Labels::keys;
  const bool w_rows = view_info(v).rows == Labels::none;
  nlohmann::json t;
  const std::string name = view_info(v).per_head ? trf("a11y.view_head", {{"view", view_label(v)}, {"h", head}}) : std::string(view_label(v));
  t["caption"] = trf(m.rows > kMax || m.cols > kMax ? Key("a11y.caption.first") : Key("a11y.caption"),
                     {{"view", name}, {"rows", m.rows}, {"cols", m.cols}, {"max", kMax}});
  nlohmann::json cols = nlohmann::json::array(), rows = nlohmann::json::array();
  for (int k = 0; k < m.cols && k < kMax; ++k)
    cols.push_back(key_cols && k < (int)r.source_tokens.size() ? r.source_tokens[(size_t)k] : std::to_string(k));
  for (int i = 0; i < m.rows && i < kMax; ++i) {
    nlohmann::json cells = nlohmann::json::array();
    for (int k = 0; k < m.cols && k < kMax; ++k) {
      const bool hidden = (v == View::masked || v == View::weights) && !r.mask.allows(i, k);
      cells.push_back(hidden && v == View::masked ? std::string(tr("a11y.minus_infinity")) : spoken(m(i, k)));
    }
    const std::vector<std::string>& labels = key_rows ? r.source_tokens : r.tokens;
    rows.push_back({{"label", !w_rows && i < (int)labels.size() ? labels[(size_t)i] : std::to_string(i)}, {"cells", cells}});
  }
  t["cols"] = cols;
  t["rows"] = rows;
  t["focus"] = c.valid() ? nlohmann::json::array({c.row, c.col}) : nlohmann::json::array();
  j["table"] = t;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attnlab
