#include "result_json.h"

#include <filesystem>
#include <fstream>

#include "config_json.h"
#include "json_util.h"

namespace attn {
namespace {

ojson view_json(const MatView& v) { return matrix_json(v.data, v.rows, v.cols, v.ld); }

ojson allowed_json(const MaskMatrix& m) {
  ojson rows = ojson::array();
  for (int i = 0; i < m.n; ++i) {
    ojson row = ojson::array();
    for (int j = 0; j < m.m; ++j) row.push_back(m.allows(i, j) ? 1 : 0);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string result_to_json(const Result& r, const Config& c, int indent) {
  ojson j;
  j["tokens"] = r.tokens;
  if (r.cross) j["source_tokens"] = r.source_tokens;
  j["x"] = view_json(r.x_view());
  if (r.cross) j["x_source"] = view_json(r.x_source_view());
  ojson heads = ojson::array();
  for (int h = 0; h < r.heads; ++h) {
    ojson head;
    head["q"] = view_json(r.q_head(h));
    head["k"] = view_json(r.k_head(h));
    head["v"] = view_json(r.v_head(h));
    head["scores"] = view_json(r.scores_head(h));
    head["allowed"] = allowed_json(r.mask);
    head["weights"] = view_json(r.weights_head(h));
    head["output"] = view_json(r.out_head(h));
    head["entropy"] = std::vector<float>(r.entropy.begin() + (size_t)h * r.n, r.entropy.begin() + (size_t)(h + 1) * r.n);
    heads.push_back(std::move(head));
  }
  j["heads"] = std::move(heads);
  j["concat"] = view_json(r.concat_view());
  j["output"] = view_json(r.output_view());
  j["fully_masked_rows"] = r.mask.fully_masked_rows;
  j["scale"] = r.alpha;
  j["dropped_tokens"] = r.dropped_tokens;
  j["invalid_bytes"] = r.invalid_bytes;
  j["config"] = ojson::parse(config_to_json(c));
  return j.dump(indent);
}

std::string write_result_csv(const Result& r, const Config& c, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return dir + ": cannot create the folder (" + ec.message() + ")";
  const auto write = [&](const std::string& name, const std::string& text) -> std::string {
    std::ofstream f(std::filesystem::path(dir) / name, std::ios::binary);
    f << text;
    return f.good() ? "" : dir + "/" + name + ": cannot write";
  };
  // Numbers print exactly as in the JSON output (shortest round-trip form): each row is dumped as a
  // JSON list and its brackets dropped.
  const auto csv = [](const MatView& v) {
    std::string out;
    for (int i = 0; i < v.rows; ++i) {
      const std::string row = matrix_json(v.data + (size_t)i * v.ld, 1, v.cols, v.cols).dump();
      out.append(row, 2, row.size() - 4);
      out += '\n';
    }
    return out;
  };
  std::string tokens = "index,token\n";
  for (size_t i = 0; i < r.tokens.size(); ++i) {
    std::string t = r.tokens[i], quoted = "\"";
    for (char ch : t) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    tokens += std::to_string(i) + "," + quoted + "\"\n";
  }
  std::vector<float> allowed(r.mask.allowed.begin(), r.mask.allowed.end());
  std::string e;
  if (!(e = write("tokens.csv", tokens)).empty()) return e;
  if (!(e = write("config.json", config_to_json(c, 2))).empty()) return e;
  if (!(e = write("x.csv", csv(r.x_view()))).empty()) return e;
  if (!(e = write("allowed.csv", csv({allowed.data(), r.n, r.m, r.m}))).empty()) return e;
  for (int h = 0; h < r.heads; ++h) {
    const std::string p = "head" + std::to_string(h) + "_";
    if (!(e = write(p + "q.csv", csv(r.q_head(h)))).empty()) return e;
    if (!(e = write(p + "k.csv", csv(r.k_head(h)))).empty()) return e;
    if (!(e = write(p + "v.csv", csv(r.v_head(h)))).empty()) return e;
    if (!(e = write(p + "scores.csv", csv(r.scores_head(h)))).empty()) return e;
    if (!(e = write(p + "weights.csv", csv(r.weights_head(h)))).empty()) return e;
    if (!(e = write(p + "output.csv", csv(r.out_head(h)))).empty()) return e;
  }
  if (!(e = write("concat.csv", csv(r.concat_view()))).empty()) return e;
  return write("output.csv", csv(r.output_view()));
}

}  // namespace attn
