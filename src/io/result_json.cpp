#include "result_json.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "config_json.h"
#include "json_util.h"
#include "json_writer.h"

namespace attn {

// [SECTION] output limits
int64_t estimate_output_bytes(const Config& c, int n, int m, int indent, bool csv) {
  const int64_t D = c.d_model, H = c.heads, dk = c.d_k, dv = c.d_v, cm = c.cross ? m : 0;
  const int64_t numbers = (n + cm) * D + H * (n * dk + m * dk + m * dv + 2 * (int64_t)n * m + n * dv + n) +
                          n * H * dv + n * D;
  const int64_t config_numbers = (int64_t)(c.target.x.size() + c.source.x.size() + c.w_q.size() + c.w_k.size() +
                                           c.w_v.size() + c.w_o.size());
  // The mask once at the top level, plus each head's copy in JSON (kept for readers of schema 1).
  int64_t mask_cells = (int64_t)n * m * (csv ? 1 : 1 + H);
  for (const MaskTerm& t : c.mask) mask_cells += (int64_t)t.cells.size() + (int64_t)t.keys.size() * 5;
  // Worst case per number: "-1.2345678e-05," (15 bytes), plus, when indented, a newline and the
  // indent of the deepest level (4).
  const int64_t per_number = 15 + (!csv && indent >= 0 ? 1 + 4 * indent : 0);
  const int64_t per_cell = 2 + (!csv && indent >= 0 ? 1 + 4 * indent : 0);
  const int64_t text = 16 * (int64_t)(c.target.text.size() + c.source.text.size()) + 4096;
  return (numbers + config_numbers) * per_number + mask_cells * per_cell + text;
}

std::string check_output(const Config& c, int n, int m, int indent, bool csv) {
  const int64_t bytes = estimate_output_bytes(c, n, m, indent, csv);
  if (bytes <= max_output_bytes) return "";
  return std::string(c.heads > 1 ? "heads" : "text") + ": the output would be up to " + format_bytes(bytes) +
         ", at most " + format_bytes(max_output_bytes) + " (fewer tokens or heads, or the page's view of one cell)";
}

// [SECTION] JSON
namespace {

void matrix(JsonWriter& w, const MatView& v) {
  w.begin_array();
  for (int i = 0; i < v.rows; ++i) w.row(v.data + (size_t)i * v.ld, v.cols);
  w.end_array();
}

void strings(JsonWriter& w, const std::vector<std::string>& s) {
  w.begin_array();
  for (const std::string& x : s) w.value(x);
  w.end_array();
}

void write_result(JsonWriter& w, const Result& r, const Config& c, int indent) {
  w.begin_object();
  w.key("tokens"), strings(w, r.tokens);
  if (r.cross) w.key("source_tokens"), strings(w, r.source_tokens);
  w.key("x"), matrix(w, r.x_view());
  if (r.cross) w.key("x_source"), matrix(w, r.x_source_view());
  const auto allowed = [&w, &r] {  // the mask, shared by every head
    w.begin_array();
    for (int i = 0; i < r.n; ++i) w.row(r.mask.allowed.data() + (size_t)i * r.m, r.m);
    w.end_array();
  };
  w.key("allowed"), allowed();
  w.key("heads");
  w.begin_array();
  for (int h = 0; h < r.heads; ++h) {
    w.begin_object();
    w.key("q"), matrix(w, r.q_head(h));
    w.key("k"), matrix(w, r.k_head(h));
    w.key("v"), matrix(w, r.v_head(h));
    if (!r.scores.empty()) w.key("scores"), matrix(w, r.scores_head(h));
    // The same matrix as the top-level "allowed": written here too because the schema promised it
    // per head before the top-level key existed (docs/cli.md). Streamed, so it costs bytes, not memory.
    w.key("allowed"), allowed();
    w.key("weights"), matrix(w, r.weights_head(h));
    w.key("output"), matrix(w, r.out_head(h));
    w.key("entropy"), w.row(r.entropy.data() + (size_t)h * r.n, r.n);
    w.end_object();
  }
  w.end_array();
  w.key("concat"), matrix(w, r.concat_view());
  w.key("output"), matrix(w, r.output_view());
  w.key("fully_masked_rows");
  w.begin_array();
  for (int i : r.mask.fully_masked_rows) w.value((int64_t)i);
  w.end_array();
  w.key("scale"), w.value(r.alpha);
  w.key("dropped_tokens"), w.value((int64_t)r.dropped_tokens);
  w.key("invalid_bytes"), w.value((int64_t)r.invalid_bytes);
  w.key("config"), w.raw(config_to_json(c, indent));
  w.end_object();
}

}  // namespace

std::string write_result_json(const Result& r, const Config& c, std::FILE* out, int indent) {
  JsonWriter w(out, indent);
  write_result(w, r, c, indent);
  return w.flush();
}

std::string result_to_json(const Result& r, const Config& c, int indent) {
  std::string out;
  {
    JsonWriter w(&out, indent);
    write_result(w, r, c, indent);
  }
  return out;
}

// [SECTION] CSV
std::string write_result_csv(const Result& r, const Config& c, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return dir + ": cannot create the folder (" + ec.message() + ")";
  // Each file is written as it is produced; the first failure (open, write or close) names the file.
  const auto write = [&](const std::string& name, auto&& produce) -> std::string {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path + ": cannot write (" + std::strerror(errno) + ")";
    std::string buf, e;
    produce(buf, [&] {
      if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size() && e.empty()) e = std::strerror(errno);
      buf.clear();
    });
    if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size() && e.empty()) e = std::strerror(errno);
    if (std::fclose(f) != 0 && e.empty()) e = std::strerror(errno);
    return e.empty() ? "" : path + ": cannot write (" + e + ")";
  };
  // Numbers print exactly as in the JSON output (shortest round-trip form), one matrix row per line.
  const auto csv = [&](const MatView& v) {
    return [v](std::string& buf, auto&& spill) {
      char b[32];
      for (int i = 0; i < v.rows; ++i) {
        for (int j = 0; j < v.cols; ++j) {
          if (j) buf += ',';
          buf.append(b, (size_t)JsonWriter::format(v(i, j), b));
        }
        buf += '\n';
        if (buf.size() >= (1u << 16)) spill();
      }
    };
  };
  const auto text = [](std::string s) { return [s = std::move(s)](std::string& buf, auto&&) { buf += s; }; };
  std::string tokens = "index,token\n";
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    std::string quoted = "\"";
    for (char ch : r.tokens[i]) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    tokens += std::to_string(i) + "," + quoted + "\"\n";
  }
  const auto allowed = [&r](std::string& buf, auto&& spill) {
    for (int i = 0; i < r.n; ++i) {
      for (int j = 0; j < r.m; ++j) buf += j ? (r.mask.allows(i, j) ? ",1" : ",0") : (r.mask.allows(i, j) ? "1" : "0");
      buf += '\n';
      if (buf.size() >= (1u << 16)) spill();
    }
  };
  std::string e;
  if (!(e = write("tokens.csv", text(tokens))).empty()) return e;
  if (!(e = write("config.json", text(config_to_json(c, 2)))).empty()) return e;
  if (!(e = write("x.csv", csv(r.x_view()))).empty()) return e;
  if (r.cross && !(e = write("x_source.csv", csv(r.x_source_view()))).empty()) return e;
  if (!(e = write("allowed.csv", allowed)).empty()) return e;
  for (int h = 0; h < r.heads; ++h) {
    const std::string p = "head" + std::to_string(h) + "_";
    if (!(e = write(p + "q.csv", csv(r.q_head(h)))).empty()) return e;
    if (!(e = write(p + "k.csv", csv(r.k_head(h)))).empty()) return e;
    if (!(e = write(p + "v.csv", csv(r.v_head(h)))).empty()) return e;
    if (!r.scores.empty() && !(e = write(p + "scores.csv", csv(r.scores_head(h)))).empty()) return e;
    if (!(e = write(p + "weights.csv", csv(r.weights_head(h)))).empty()) return e;
    if (!(e = write(p + "output.csv", csv(r.out_head(h)))).empty()) return e;
  }
  if (!(e = write("concat.csv", csv(r.concat_view()))).empty()) return e;
  return write("output.csv", csv(r.output_view()));
}

}  // namespace attn
