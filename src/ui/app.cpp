// app.cpp — the lab's state: the config the controls edit, handed to the engine (sync_engine), the
// text boxes and the notice. The rest of App's work lives in files named for it: frame.cpp (the one
// frame function), layout.cpp, style.cpp, shortcuts.cpp, page_json.cpp.
#include "app.h"

#include <algorithm>
#include <utility>

#include "app_parts.h"
#include "i18n.h"
#include "imgui.h"
#include "tokenizer.h"
#include "widgets.h"

namespace attnlab {

attn::Config default_lab_config() {
  attn::Config c;
  c.target.text = "the cat sat on the mat because it was tired";
  c.max_tokens = attn::Limits::max_tokens_ui;
  c.truncate = true;
  return c;
}

void text_edited(App& app, attn::SequenceInput& seq) {
  if (seq.use_tokens) seq.use_tokens = false;  // typing switches explicit tokens back to text
  if (!seq.x.empty()) {
    seq.x.clear(), seq.x_rows = 0;
    notify(app, tr("notice.vectors_dropped"));
  }
}

void set_text_box(App& app, bool source, std::string text) {
  if (source && !app.config.cross) return;
  (source ? app.source : app.text) = std::move(text);
  text_edited(app, source ? app.config.source : app.config.target);
}

void notify(App& app, std::string message) {
  if (app.notice_sticky && notice_showing(app)) return;  // a problem stays until it is closed
  // Long enough to read while also watching a class: 8 s, and more for a longer message (up to 15 s).
  const double seconds = std::clamp(4.0 + 0.08 * (double)message.size(), 8.0, 15.0);
  app.notice = std::move(message);
  app.notice_title.clear();
  app.notice_until = ImGui::GetCurrentContext() ? ImGui::GetTime() + seconds : seconds;
}

namespace {

int count_tokens(const attn::SequenceInput& s, int max_tokens) {
  if (!s.x.empty()) return s.x_rows;
  if (s.use_tokens) return std::min((int)s.tokens.size(), max_tokens);
  return (int)attn::tokenize(s.text, max_tokens).tokens.size();
}

// Keeps hand-made state meaningful when the number of tokens changes: the custom mask grows or
// shrinks (new cells allowed), padding keys and edits that point past the end are dropped (with a
// notice, so nothing disappears silently).
void fit_to_tokens(App& app, attn::Config& c) {
  const int n = count_tokens(c.target, c.max_tokens);
  const int m = c.cross ? count_tokens(c.source, c.max_tokens) : n;
  if (n == 0 || m == 0) return;
  for (attn::MaskTerm& t : c.mask) {
    if (t.kind == attn::MaskTerm::Kind::custom && (t.rows != n || t.cols != m)) {
      std::vector<uint8_t> cells((size_t)n * m, 1);
      for (int i = 0; i < std::min(n, t.rows); ++i)
        for (int j = 0; j < std::min(m, t.cols); ++j) cells[(size_t)i * m + j] = t.cells[(size_t)i * t.cols + j];
      t.rows = n, t.cols = m, t.cells = std::move(cells);
    }
    if (t.kind == attn::MaskTerm::Kind::padding)
      std::erase_if(t.keys, [&](int k) { return k >= m; });
  }
  const int dropped = (int)std::erase_if(c.overrides, [&](const attn::Override& o) {
    const attn::Shape shape = attn::target_shape(c, o.target, n, m);
    return o.head >= c.heads || o.row >= shape.rows || o.col >= shape.cols;
  });
  if (dropped > 0)
    notify(app, trn("notice.edits_dropped", dropped, {{"n", (int)dropped}}));
}

}  // namespace

// Token labels depend on the font (what it can draw), so they are made once ImGui exists: a config
// applied before the first frame (the desktop's --config) gets its labels on that frame.
void refresh_labels(App& app) {
  const attn::Result& r = app.engine.result();
  for (const std::string& t : r.tokens) want_cjk_text(app, t);
  for (const std::string& t : r.source_tokens) want_cjk_text(app, t);
  app.labels.clear(), app.source_labels.clear();
  for (const std::string& t : r.tokens) app.labels.push_back(drawable_label(t));
  for (const std::string& t : r.source_tokens) app.source_labels.push_back(drawable_label(t));
  app.labels_version = app.result_version;
}

void sync_engine(App& app) {
  // The text boxes feed the config unless it carries explicit tokens (set through the API or a link;
  // typing in a box switches that sequence back to text: see panel_input.cpp).
  if (!app.config.target.use_tokens) app.config.target.text = app.text;
  if (app.config.cross && !app.config.source.use_tokens) app.config.source.text = app.source;
  if (app.config == app.engine.config() && !app.engine.needs_compute()) {
    app.error.clear();
    return;
  }
  attn::Config c = app.config;
  fit_to_tokens(app, c);
  const std::string err = app.engine.set_config(c);
  if (!err.empty()) {
    app.error = err;  // keep showing the last good result
    return;
  }
  app.error.clear();
  app.config = c;
  app.engine.compute();
  const attn::Result& r = app.engine.result();
  ++app.result_version;
  if (ImGui::GetCurrentContext()) refresh_labels(app);
  app.recompute_ms = (float)app.engine.last_compute_ms();
  app.ui.head = std::clamp(app.ui.head, 0, r.heads - 1);
  if (app.ui.query >= r.n) app.ui.query = -1;
  // Say what happened to the input when it was read again, not on every later recompute.
  if (app.engine.last_recomputed() & (1u << (int)attn::Stage::embed)) {
    if (r.dropped_tokens > 0)
      notify(app, trf("notice.input_clamped", {{"n", r.n}, {"dropped", r.dropped_tokens}}));
    if (r.invalid_bytes > 0) notify(app, trn("notice.invalid_utf8", r.invalid_bytes, {{"n", r.invalid_bytes}}));
  }
}

namespace {
std::string joined(const attn::SequenceInput& s) {
  if (!s.use_tokens) return s.text;
  std::string out;
  for (size_t i = 0; i < s.tokens.size(); ++i) out += (i ? " " : "") + s.tokens[i];
  return out;
}
}  // namespace

bool sizes_tied(const attn::Config& c) { return c.d_k == std::max(1, c.d_model / std::max(c.heads, 1)) && c.d_v == c.d_k; }

std::string apply_config(App& app, attn::Config c) {
  // The lab shows at most 256 tokens; longer input is clamped (and says so) rather than refused.
  c.max_tokens = std::min(c.max_tokens, attn::Limits::max_tokens_ui);
  c.truncate = true;
  attn::Engine probe;  // validate without touching the live engine
  if (std::string err = probe.set_config(c); !err.empty()) return err;
  app.config = std::move(c);
  app.text = joined(app.config.target);
  app.source = joined(app.config.source);
  app.ui.tie_sizes = sizes_tied(app.config);
  app.ui.origin = {};  // a setup of its own (Open in the lab sets it again after this)
  sync_engine(app);
  return app.error;
}

}  // namespace attnlab
