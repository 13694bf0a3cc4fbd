// model_json.cpp — see model_json.h and docs/train.md.
//
// [SECTION] readers        type-checked accessors (no nlohmann call below can throw)
// [SECTION] train config   the lab's fields through the lab's own parser, then the model and train keys
// [SECTION] log lines
// [SECTION] model files    weights per head, as in the lab's config
// [SECTION] batches and gradients
// [SECTION] run            every layer through the lab's Engine
#include "model_json.h"

#include "learn/measures.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>

#include "config_json.h"
#include "json_reader.h"
#include "json_util.h"
#include "result_json.h"

namespace attn {
namespace {

using json = nlohmann::json;
using learn::ModelSpec;
using learn::Param;
using learn::TrainSetup;

// ---------------------------------------------------------------------------------------------------
// [SECTION] readers
// ---------------------------------------------------------------------------------------------------
using In = JsonReader;  // the accessors every reader of io shares (json_reader.h)

// ---------------------------------------------------------------------------------------------------
// [SECTION] train config
// ---------------------------------------------------------------------------------------------------
constexpr const char* kLabKeys[] = {"d_model", "heads", "d_k", "d_v", "positional", "scale", "temperature", "mask"};

bool is_lab_key(const std::string& k) {
  return std::find_if(std::begin(kLabKeys), std::end(kLabKeys), [&](const char* s) { return k == s; }) != std::end(kLabKeys);
}

// The lab's fields, read by the lab's own parser (one definition of their syntax and limits).
std::string parse_lab_fields(const json& root, ModelSpec& s) {
  json lab = json::object();
  for (auto it = root.begin(); it != root.end(); ++it)
    if (is_lab_key(it.key())) lab[it.key()] = *it;
  // The task's shape unless overridden; d_k and d_v follow d_model / heads when those change (as in the lab).
  const bool shape_given = lab.contains("d_model") || lab.contains("heads");
  if (!lab.contains("d_model")) lab["d_model"] = s.d_model;
  if (!lab.contains("heads")) lab["heads"] = s.heads;
  if (!lab.contains("d_k") && !shape_given) lab["d_k"] = s.d_k;
  if (!lab.contains("d_v") && !shape_given) lab["d_v"] = s.d_v;
  Config c;
  if (std::string e = parse_config(lab.dump(), c); !e.empty()) return e;
  s.d_model = c.d_model, s.heads = c.heads, s.d_k = c.d_k, s.d_v = c.d_v;
  if (root.contains("positional")) s.positional = c.positional;
  if (root.contains("scale")) s.scale_mode = c.scale_mode, s.scale_value = c.scale_value;
  if (root.contains("temperature")) s.temperature = c.temperature;
  if (root.contains("mask")) s.mask = c.mask;
  return "";
}

std::string parse_train_object(const json& v, learn::TrainOptions& t) {
  In in;
  if (!v.is_object()) return "train: expected an object";
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& key = it.key();
    const std::string field = "train." + key;
    const json& x = *it;
    bool ok = true;
    if (key == "steps") ok = in.integer(x, field, 0, learn::TrainLimits::max_steps, t.steps);
    else if (key == "batch") ok = in.integer(x, field, 1, learn::TrainLimits::max_batch, t.batch);
    else if (key == "micro_batch") ok = in.integer(x, field, 1, learn::TrainLimits::max_batch, t.micro_batch);
    else if (key == "eval_every") ok = in.integer(x, field, 1, learn::TrainLimits::max_steps, t.eval_every);
    else if (key == "eval_batch") ok = in.integer(x, field, 1, learn::TrainLimits::max_eval_batch, t.eval_batch);
    else if (key == "lr") ok = in.number(x, field, t.adamw.lr);
    else if (key == "eps") ok = in.number(x, field, t.adamw.eps);
    else if (key == "weight_decay") ok = in.number(x, field, t.adamw.weight_decay);
    else if (key == "clip") ok = in.number(x, field, t.adamw.clip);
    else if (key == "stop_accuracy") ok = in.number(x, field, t.stop_accuracy);
    else if (key == "stop_evaluations") ok = in.integer(x, field, 1, 1000, t.stop_evaluations);
    else if (key == "seed") {
      if (!x.is_number_unsigned()) ok = in.fail(field, "expected a non-negative integer");
      else t.seed = x.get<uint64_t>();
    } else if (key == "betas") {
      if (!x.is_array() || x.size() != 2) ok = in.fail(field, "expected [beta1, beta2]");
      else ok = in.number(x[0], "train.betas[0]", t.adamw.beta1) && in.number(x[1], "train.betas[1]", t.adamw.beta2);
    } else {
      ok = in.fail(field, "unknown key (expected steps, batch, micro_batch, lr, betas, eps, weight_decay, clip, seed, eval_every, eval_batch, stop_accuracy or stop_evaluations)");
    }
    if (!ok) return in.error;
  }
  return "";
}

json train_config_object(const TrainSetup& s) {
  Config c;
  c.d_model = s.spec.d_model, c.heads = s.spec.heads, c.d_k = s.spec.d_k, c.d_v = s.spec.d_v;
  c.positional = s.spec.positional, c.scale_mode = s.spec.scale_mode, c.scale_value = s.spec.scale_value;
  c.temperature = s.spec.temperature, c.mask = s.spec.mask;
  const json lab = json::parse(config_to_json(c));
  json j;
  j["task"] = s.task;
  j["layers"] = s.spec.layers;
  j["vocab"] = s.spec.vocab;
  j["n"] = s.spec.n_ctx;
  if (s.spec.cross) j["source_n"] = s.spec.n_src;
  j["tied"] = s.spec.tied;
  // (written only where they matter, so an attention model's config is as it always was)
  if (s.spec.recurrent()) j["model"] = learn::arch_kind(s.spec.model).name, j["hidden"] = s.spec.hidden;
  if (s.task == "delayed_copy") j["distance"] = s.spec.distance;
  for (const char* k : kLabKeys) j[k] = lab.at(k);
  const learn::TrainOptions& t = s.train;
  j["train"] = {{"steps", t.steps},       {"batch", t.batch}, {"micro_batch", t.micro_batch},
                {"lr", t.adamw.lr},       {"betas", {t.adamw.beta1, t.adamw.beta2}},
                {"eps", t.adamw.eps},     {"weight_decay", t.adamw.weight_decay},
                {"clip", t.adamw.clip},   {"seed", t.seed},
                {"eval_every", t.eval_every}, {"eval_batch", t.eval_batch}};
  if (t.stop_accuracy > 0.0f) j["train"]["stop_accuracy"] = std::round((double)t.stop_accuracy * 1e6) / 1e6, j["train"]["stop_evaluations"] = t.stop_evaluations;
  return j;
}

std::string parse_train_root(const json& root, TrainSetup& out) {
  In in;
  if (!root.is_object()) return "config: expected a JSON object";
  const auto task_it = root.find("task");
  if (task_it == root.end()) return "task: missing (one of: " + learn::task_names() + ")";
  if (!task_it->is_string()) return "task: expected a string (one of: " + learn::task_names() + ")";
  const learn::Task* task = learn::find_task(task_it->get<std::string>());
  if (!task) return "task: unknown task '" + task_it->get<std::string>() + "' (one of: " + learn::task_names() + ")";
  out = learn::default_setup(*task);
  ModelSpec& s = out.spec;
  if (std::string e = parse_lab_fields(root, s); !e.empty()) return e;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    const json& v = *it;
    bool ok = true;
    if (key == "task" || is_lab_key(key)) continue;
    if (key == "layers") ok = in.integer(v, key, 1, learn::ModelLimits::max_layers, s.layers);
    else if (key == "vocab") ok = in.integer(v, key, 2, learn::ModelLimits::max_vocab, s.vocab);
    else if (key == "n") ok = in.integer(v, key, 1, learn::ModelLimits::max_seq, s.n_ctx);
    else if (key == "source_n") ok = in.integer(v, key, 1, learn::ModelLimits::max_seq, s.n_src);
    else if (key == "tied") ok = in.boolean(v, key, s.tied);
    else if (key == "model") {
      std::string name;
      const learn::ArchKind* a = nullptr;
      ok = in.string(v, key, name) &&
           ((a = learn::find_arch(name)) || in.fail(key, "unknown model '" + name + "' (one of: " + learn::arch_names() + ")"));
      if (ok) s.model = a->arch;
    } else if (key == "hidden") ok = in.integer(v, key, 1, learn::ModelLimits::max_hidden, s.hidden);
    else if (key == "distance") {
      ok = std::string(task->name) == "delayed_copy" ? in.integer(v, key, 1, learn::ModelLimits::max_seq - 1, s.distance)
                                                     : in.fail(key, "only the delayed_copy task takes a distance");
    }
    else if (key == "train") {
      if (std::string e = parse_train_object(v, out.train); !e.empty()) return e;
    } else if (key == "cross") {
      ok = in.boolean(v, key, s.cross);
    } else if (key == "$schema" || key == "comment" || key == "name" || key == "description") {
      ok = v.is_string() || in.fail(key, "expected a string");
    } else {
      ok = in.fail(key, "unknown key for train (see docs/train.md)");
    }
    if (!ok) return in.error;
  }
  // translate: the source is as long as the output unless set
  if (s.cross && !root.contains("source_n") && root.contains("n")) s.n_src = task->source_length(s.n_ctx);
  return learn::validate(out);
}

}  // namespace

std::string parse_train_config(std::string_view text, TrainSetup& out) {
  json root;
  if (std::string e = parse_json(text, "config", root); !e.empty()) return e;
  return parse_train_root(root, out);
}

std::string train_config_to_json(const TrainSetup& s, int indent) { return train_config_object(s).dump(indent); }

// ---------------------------------------------------------------------------------------------------
// [SECTION] log lines
// ---------------------------------------------------------------------------------------------------
namespace {
// (layers, heads) rows of a (layers, heads, R) table: each head's best over R, or one relation's value.
ojson head_rows(const std::vector<double>& v, int L, int H, int R = 1, int relation = -1) {
  ojson rows = ojson::array();
  for (int l = 0; l < L; ++l) {
    ojson row = ojson::array();
    for (int h = 0; h < H; ++h) {
      double best = 0.0;
      for (int r = 0; r < R; ++r)
        if (relation < 0 || r == relation) best = std::max(best, v[((size_t)l * H + h) * R + r]);
      row.push_back((float)best);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}
}  // namespace

std::string eval_point_json(const learn::EvalPoint& p, const learn::Trainer& trainer) { return eval_point_json(p, trainer.setup()); }

std::string eval_point_json(const learn::EvalPoint& p, const learn::TrainSetup& setup) {
  const learn::Task& task = *learn::find_task(setup.task);
  const int L = setup.spec.layers, H = setup.spec.heads, R = task.relations;
  ojson j;
  j["step"] = p.step;
  j["loss"] = (float)p.loss;
  j["accuracy"] = (float)p.accuracy;
  if (setup.spec.recurrent()) {  // no attention: no pattern or saturation to report
    j["train_loss"] = (float)p.train_loss;
    j["grad_norm"] = (float)p.grad_norm;
    j["ms"] = std::round(p.ms * 10.0) / 10.0;
    return j.dump();
  }
  j["pattern_score"] = head_rows(p.pattern, L, H, R);
  j["task_pattern_score"] = (float)p.pattern_score;
  if (R > 1) {
    ojson by = ojson::object();
    for (int r = 0; r < R; ++r) by[task.relation_names[r]] = head_rows(p.pattern, L, H, R, r);
    j["pattern_by_relation"] = std::move(by);
  }
  // (absent from points read from a file written before saturation was measured)
  if (p.saturation.size() == (size_t)L * H) j["saturation"] = head_rows(p.saturation, L, H);
  j["train_loss"] = (float)p.train_loss;
  j["grad_norm"] = (float)p.grad_norm;
  j["ms"] = std::round(p.ms * 10.0) / 10.0;
  return j.dump();
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] model files
// ---------------------------------------------------------------------------------------------------
namespace {

// A tensor as JSON: w_q, w_k, w_v per head ([h][d_model][d_k], as the lab's config), others as matrices.
template <class T>
ojson tensor_json(const learn::Tensor& t, const T* data, const ModelSpec& s) {
  const bool per_head = t.kind == Param::w_q || t.kind == Param::w_k || t.kind == Param::w_v;
  std::vector<float> f(data + t.offset, data + t.offset + t.size());
  if (!per_head) return matrix_json(f.data(), t.rows, t.cols, t.cols);
  const int dh = t.cols / s.heads;
  ojson heads = ojson::array();
  for (int h = 0; h < s.heads; ++h) heads.push_back(matrix_json(f.data() + h * dh, t.rows, dh, t.cols));
  return heads;
}

// A recurrent model's tensors sit at the top level under PyTorch's names (weight_ih_l0, …, b_u), the
// biases as plain lists, so that they load into torch.nn.RNN / torch.nn.LSTM by name.
bool is_vector(const learn::Tensor& t) {
  return t.kind == Param::bias_ih || t.kind == Param::bias_hh || t.kind == Param::b_u;
}

template <class T>
ojson weights_json(const ModelSpec& s, const std::vector<learn::Tensor>& tensors, const T* data) {
  ojson w = ojson::object();
  if (s.recurrent()) {
    for (const learn::Tensor& t : tensors) {
      std::vector<float> f(data + t.offset, data + t.offset + t.size());
      w[t.name] = is_vector(t) ? ojson(f) : matrix_json(f.data(), t.rows, t.cols, t.cols);
    }
    return w;
  }
  ojson layers = ojson::array();
  for (int l = 0; l < s.layers; ++l) layers.push_back(ojson::object());
  for (const learn::Tensor& t : tensors) {
    if (t.layer < 0) w[learn::to_string(t.kind)] = tensor_json(t, data, s);
    else layers[(size_t)t.layer][learn::to_string(t.kind)] = tensor_json(t, data, s);
  }
  w["layers"] = std::move(layers);
  return w;
}

bool read_tensor(In& in, const json& v, const learn::Tensor& t, const ModelSpec& s, const std::string& field,
                 std::vector<float>& params) {
  const bool per_head = t.kind == Param::w_q || t.kind == Param::w_k || t.kind == Param::w_v;
  std::vector<float> flat;
  if (is_vector(t)) {
    if (!v.is_array() || (int)v.size() != t.cols) return in.fail(field, "expected a list of " + std::to_string(t.cols) + " numbers");
    for (int c = 0; c < t.cols; ++c)
      if (!in.number(v[(size_t)c], field + "[" + std::to_string(c) + "]", params[t.offset + (size_t)c])) return false;
    return true;
  }
  if (!per_head) {
    if (!in.matrix(v, field, t.rows, t.cols, flat)) return false;
    std::copy(flat.begin(), flat.end(), params.begin() + (long)t.offset);
    return true;
  }
  const int dh = t.cols / s.heads;
  if (!v.is_array() || (int)v.size() != s.heads)
    return in.fail(field, "expected " + std::to_string(s.heads) + " matrices (one per head) of " +
                              std::to_string(t.rows) + "x" + std::to_string(dh));
  for (int h = 0; h < s.heads; ++h) {
    flat.clear();
    if (!in.matrix(v[(size_t)h], field + "[" + std::to_string(h) + "]", t.rows, dh, flat)) return false;
    for (int r = 0; r < t.rows; ++r)
      for (int c = 0; c < dh; ++c) params[t.offset + (size_t)r * t.cols + h * dh + c] = flat[(size_t)r * dh + c];
  }
  return true;
}

}  // namespace

std::string model_to_json(const learn::Trainer& trainer, int indent) {
  const TrainSetup& setup = trainer.setup();
  const ModelSpec& s = setup.spec;
  ojson j;
  j["format"] = "attnlab-model";
  j["version"] = 1;
  j["config"] = ojson::parse(train_config_to_json(setup));
  ojson vocab = ojson::array();
  for (int id = 0; id < s.vocab; ++id) vocab.push_back(trainer.task().token_name(id));
  j["vocabulary"] = std::move(vocab);
  j["step"] = trainer.step();
  if (!trainer.history().empty()) j["metrics"] = ojson::parse(eval_point_json(trainer.history().back(), trainer));
  ojson history = ojson::array();
  for (const learn::EvalPoint& p : trainer.history()) history.push_back(ojson::parse(eval_point_json(p, trainer)));
  j["history"] = std::move(history);
  if (trainer.diverged()) j["diverged"] = trainer.message();
  j["weights"] = weights_json(s, trainer.model().tensors(), trainer.model().params().data());
  return j.dump(indent);
}

bool is_model_json(std::string_view text) {
  const json root = json::parse(text.begin(), text.end(), nullptr, false);
  return root.is_object() && root.contains("format") && root["format"] == "attnlab-model";
}

namespace {
// A (layers, heads) table of numbers in [0, 1] from a log line, into `out` at (l·H + h)·stride + offset.
bool read_table(In& in, const json& v, const std::string& field, int L, int H, std::vector<double>& out, int stride, int offset) {
  if (!v.is_array() || (int)v.size() != L) return in.fail(field, "expected " + std::to_string(L) + " layers");
  for (int l = 0; l < L; ++l) {
    const json& row = v[(size_t)l];
    const std::string f = field + "[" + std::to_string(l) + "]";
    if (!row.is_array() || (int)row.size() != H) return in.fail(f, "expected " + std::to_string(H) + " heads");
    for (int h = 0; h < H; ++h) {
      float x = 0.0f;
      if (!in.number(row[(size_t)h], f + "[" + std::to_string(h) + "]", x)) return false;
      if (x < 0.0f || x > 1.0f) return in.fail(f + "[" + std::to_string(h) + "]", "expected a number in [0, 1]");
      out[((size_t)l * H + h) * stride + offset] = x;
    }
  }
  return true;
}

// The file's evaluations (the log lines `train` printed), each at a step up to the file's, in order.
bool read_history(In& in, const json& v, const TrainSetup& setup, int last_step, std::vector<learn::EvalPoint>& out) {
  if (!v.is_array()) return in.fail("history", "expected an array of evaluations");
  if (v.size() > (size_t)learn::TrainLimits::max_steps + 1) return in.fail("history", "too many evaluations");
  const learn::Task& task = *learn::find_task(setup.task);
  const int L = setup.spec.layers, H = setup.spec.recurrent() ? 0 : setup.spec.heads, R = task.relations;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    const std::string f = "history[" + std::to_string(i) + "]";
    if (!e.is_object()) return in.fail(f, "expected an object (a log line)");
    learn::EvalPoint p;
    const int lo = out.empty() ? 0 : out.back().step + 1;
    if (!e.contains("step")) return in.fail(f + ".step", "missing");
    if (!in.integer(e["step"], f + ".step", lo, last_step, p.step)) return false;
    for (auto [key, dst] : {std::pair{"loss", &p.loss}, {"accuracy", &p.accuracy}, {"train_loss", &p.train_loss},
                            {"grad_norm", &p.grad_norm}, {"ms", &p.ms}, {"task_pattern_score", &p.pattern_score}}) {
      float x = 0.0f;
      if (!e.contains(key)) {
        if (std::string(key) == "loss" || std::string(key) == "accuracy") return in.fail(f + "." + key, "missing");
        continue;
      }
      if (!in.number(e[key], f + "." + key, x)) return false;
      *dst = x;
    }
    p.pattern.assign((size_t)L * H * R, 0.0);
    if (H == 0) {  // a recurrent model's lines have no attention tables
    } else if (R == 1) {
      if (e.contains("pattern_score") && !read_table(in, e["pattern_score"], f + ".pattern_score", L, H, p.pattern, 1, 0))
        return false;
    } else if (e.contains("pattern_by_relation")) {
      const json& by = e["pattern_by_relation"];
      for (int r = 0; r < R; ++r) {
        const std::string name = task.relation_names[r];
        if (!by.is_object() || !by.contains(name)) return in.fail(f + ".pattern_by_relation." + name, "missing");
        if (!read_table(in, by[name], f + ".pattern_by_relation." + name, L, H, p.pattern, R, r)) return false;
      }
    }
    if (H > 0 && e.contains("saturation")) {
      p.saturation.assign((size_t)L * H, 0.0);
      if (!read_table(in, e["saturation"], f + ".saturation", L, H, p.saturation, 1, 0)) return false;
    }
    out.push_back(std::move(p));
  }
  return true;
}
}  // namespace

std::string parse_model(std::string_view text, TrainSetup& setup, std::vector<float>& params, int* step,
                        std::vector<learn::EvalPoint>* history) {
  json root;
  if (std::string e = parse_json(text, "model", root); !e.empty()) return e;
  if (!root.is_object() || !root.contains("format") || root["format"] != "attnlab-model")
    return "format: expected \"attnlab-model\" (a file written by attnlab-cli train --out)";
  if (!root.contains("config")) return "config: missing";
  if (std::string e = parse_train_root(root["config"], setup); !e.empty()) return "config." + e;
  if (!root.contains("weights") || !root["weights"].is_object()) return "weights: expected an object";
  const json& w = root["weights"];
  const ModelSpec& s = setup.spec;
  const std::vector<learn::Tensor> tensors = learn::param_layout(s);
  params.assign(tensors.back().offset + tensors.back().size(), 0.0f);
  In in;
  if (!s.recurrent() && (!w.contains("layers") || !w["layers"].is_array() || (int)w["layers"].size() != s.layers))
    return "weights.layers: expected " + std::to_string(s.layers) + " layers";
  for (const learn::Tensor& t : tensors) {
    // a recurrent model's tensors are all at the top level, by their PyTorch names
    const bool top = t.layer < 0 || s.recurrent();
    const std::string key = s.recurrent() ? t.name : learn::to_string(t.kind);
    const json& holder = top ? w : w["layers"][(size_t)t.layer];
    const std::string field = top ? "weights." + key : "weights.layers[" + std::to_string(t.layer) + "]." + key;
    if (!holder.is_object() || !holder.contains(key)) return field + ": missing";
    if (!read_tensor(in, holder[key], t, s, field, params)) return in.error;
  }
  int file_step = 0;
  if (root.contains("step")) {
    const json& v = root["step"];
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > learn::TrainLimits::max_steps)
      return "step: expected an integer 0.." + std::to_string(learn::TrainLimits::max_steps);
    file_step = (int)v.get<long long>();
  }
  if (step) *step = file_step;
  if (history) {
    history->clear();
    if (root.contains("history") && !read_history(in, root["history"], setup, file_step, *history)) return in.error;
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] batches and gradients
// ---------------------------------------------------------------------------------------------------
std::string parse_batch(std::string_view text, const ModelSpec& s, learn::Batch& b) {
  json root;
  if (std::string e = parse_json(text, "batch", root); !e.empty()) return e;
  if (!root.is_object()) return "batch: expected an object {tokens, targets, source}";
  In in;
  b = learn::Batch{};
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "tokens" && it.key() != "targets" && it.key() != "source" && it.key() != "comment")
      return it.key() + ": unknown key (expected tokens, targets and, for cross-attention, source)";
  if (!root.contains("tokens")) return "tokens: missing";
  if (!root.contains("targets")) return "targets: missing";
  int rows = 0, cols = 0, trows = 0, tcols = 0;
  if (!in.id_rows(root["tokens"], "tokens", 0, s.vocab - 1, rows, cols, b.tokens)) return in.error;
  if (!in.id_rows(root["targets"], "targets", -1, s.vocab - 1, trows, tcols, b.targets)) return in.error;
  if (trows != rows || tcols != cols) return "targets: expected the same shape as tokens (" + std::to_string(rows) + "x" + std::to_string(cols) + ")";
  if (rows > learn::TrainLimits::max_batch) return "tokens: at most " + std::to_string(learn::TrainLimits::max_batch) + " sequences";
  b.size = rows, b.n = cols;
  if (s.cross) {
    if (!root.contains("source")) return "source: missing (a cross-attention model)";
    int srows = 0;
    if (!in.id_rows(root["source"], "source", 0, s.vocab - 1, srows, b.m, b.source)) return in.error;
    if (srows != rows) return "source: expected " + std::to_string(rows) + " rows, one per sequence";
  } else if (root.contains("source")) {
    return "source: only a cross-attention model takes a source sequence";
  }
  return learn::check_batch(s, b);
}

std::string gradients_to_json(const ModelSpec& s, double loss, int targets, const std::vector<double>& grads, int indent) {
  ojson j;
  j["loss"] = loss;
  j["targets"] = targets;
  const std::vector<learn::Tensor> tensors = learn::param_layout(s);
  j["gradients"] = weights_json(s, tensors, grads.data());
  return j.dump(indent);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] run
// ---------------------------------------------------------------------------------------------------
Config layer_config(const learn::Model<float>& model, const std::vector<std::string>& names,
                    const std::vector<std::string>& source_names, int l) {
  const ModelSpec& s = model.spec();
  const std::vector<float>& params = model.params();
  const int D = s.d_model, n = model.n(), m = model.m();
  // Layer l as a lab config: X_l (and the encoded source) as explicit rows, the layer's weights.
  Config c;
  c.target.tokens = names, c.target.use_tokens = true;
  c.target.x = std::vector<float>(model.stream(l).begin(), model.stream(l).begin() + (size_t)n * D), c.target.x_rows = n;
  if (s.cross) {
    c.cross = true;
    c.source.tokens = source_names, c.source.use_tokens = true;
    c.source.x = std::vector<float>(model.source_stream().begin(), model.source_stream().begin() + (size_t)m * D);
    c.source.x_rows = m;
  }
  c.d_model = D, c.heads = s.heads, c.d_k = s.d_k, c.d_v = s.d_v;
  // positions are already in X_l; RoPE acts on Q and K inside the layer
  c.positional = positional_kind(s.positional).rotates_qk ? s.positional : Positional::none;
  c.scale_mode = s.scale_mode, c.scale_value = s.scale_value, c.temperature = s.temperature, c.mask = s.mask;
  const auto per_head = [&](Param kind, int dh) {
    const float* w = params.data() + model.find(kind, l)->offset;
    std::vector<float> out((size_t)s.heads * D * dh);
    for (int h = 0; h < s.heads; ++h)
      for (int r = 0; r < D; ++r)
        for (int k = 0; k < dh; ++k) out[((size_t)h * D + r) * dh + k] = w[(size_t)r * s.heads * dh + h * dh + k];
    return out;
  };
  c.w_q = per_head(Param::w_q, s.d_k), c.w_k = per_head(Param::w_k, s.d_k), c.w_v = per_head(Param::w_v, s.d_v);
  const float* w_o = params.data() + model.find(Param::w_o, l)->offset;
  c.w_o.assign(w_o, w_o + (size_t)s.heads * s.d_v * D);
  return c;
}

namespace {
// What every model's run ends with: logits (n × vocab), predictions, targets (null where none), and
// the loss and accuracy where there are targets.
void add_predictions(ojson& j, const learn::Model<float>& model, const learn::Batch& b, const learn::Task& task, double loss) {
  const int n = b.n, V = model.spec().vocab;
  j["logits"] = matrix_json(model.logits().data(), n, V, V);
  ojson predictions = ojson::array(), targets = ojson::array();
  int correct = 0, counted = 0;
  for (int i = 0; i < n; ++i) {
    const float* z = model.logits().data() + (size_t)i * V;
    const int p = (int)(std::max_element(z, z + V) - z);
    predictions.push_back(task.token_name(p));
    targets.push_back(b.targets[(size_t)i] < 0 ? ojson(nullptr) : ojson(task.token_name(b.targets[(size_t)i])));
    if (b.targets[(size_t)i] >= 0) correct += p == b.targets[(size_t)i], ++counted;
  }
  j["predictions"] = std::move(predictions);
  j["targets"] = std::move(targets);
  if (counted) {
    j["loss"] = (float)loss;
    j["accuracy"] = (float)correct / (float)counted;
  }
}

// A recurrent model has no attention stages to show: its tokens, each layer's hidden states h_t
// (n × hidden), the influence matrix ‖∂z_i/∂x_j‖ (learn/measures.h), then the predictions.
std::string run_recurrent_json(const TrainSetup& setup, learn::Model<float>& model, const learn::Batch& b, double loss,
                               std::string& out, int indent) {
  const ModelSpec& s = setup.spec;
  const learn::Task& task = *learn::find_task(setup.task);
  ojson j;
  j["model"] = {{"task", setup.task}, {"model", learn::arch_kind(s.model).name}, {"layers", s.layers},
                {"hidden", s.hidden}, {"vocab", s.vocab}};
  ojson tokens = ojson::array();
  for (int id : b.tokens) tokens.push_back(task.token_name(id));
  j["tokens"] = std::move(tokens);
  ojson layers = ojson::array();
  for (int l = 0; l < s.layers; ++l) {
    // a batch of one: time-major is row t; the first row is the zero initial state
    const float* h = model.recurrent_states(l).data() + s.hidden;
    layers.push_back({{"layer", l}, {"hidden_states", matrix_json(h, b.n, s.hidden, s.hidden)}});
  }
  j["layers"] = std::move(layers);
  add_predictions(j, model, b, task, loss);  // from this forward, before the influence passes
  const std::vector<double> inf = learn::influence_matrix(model, b);
  const std::vector<float> inf_f(inf.begin(), inf.end());
  j["influence"] = matrix_json(inf_f.data(), b.n, b.n, b.n);
  out = j.dump(indent);
  return "";
}
}  // namespace

std::string run_model_json(const TrainSetup& setup, const std::vector<float>& params, const learn::Example& e,
                           std::string& out, int indent, const learn::AblationSpec* ablation,
                           const learn::HeadMeans<float>* means) {
  const ModelSpec& s = setup.spec;
  const learn::Task& task = *learn::find_task(setup.task);
  learn::Batch b = learn::batch_of(e);
  if (b.targets.empty()) b.targets.assign(e.tokens.size(), -1);
  if (std::string err = learn::check_batch(s, b); !err.empty()) return err;
  learn::Model<float> model(s);
  model.params() = params;
  if (ablation) {
    if (std::string err = learn::check_heads(s, ablation->heads, "--ablate"); !err.empty()) return err;
    if (ablation->mode == learn::AblationMode::mean && (!means || means->n < b.n)) return "--mode: mean needs the held-out means";
  }
  std::optional<learn::AblationHook<float>> hook;
  if (ablation) model.set_hook(&hook.emplace(s, *ablation, means));
  const double loss = model.forward(b);
  model.set_hook(nullptr);
  if (s.recurrent()) return run_recurrent_json(setup, model, b, loss, out, indent);

  std::vector<std::string> names, source_names;
  for (int id : b.tokens) names.push_back(task.token_name(id));
  for (int id : b.source) source_names.push_back(task.token_name(id));
  ojson layers = ojson::array();
  for (int l = 0; l < s.layers; ++l) {
    const Config c = layer_config(model, names, source_names, l);
    const RunOutput r = run_attention(c);
    if (!r.error.empty()) return "layer " + std::to_string(l) + ": " + r.error;
    ojson layer = ojson::parse(result_to_json(r.result, c));
    layer["layer"] = l;
    layers.push_back(std::move(layer));
  }
  ojson j = layers[0];  // the top-level fields: layer 0, exactly the lab's run output
  j["layers"] = layers;
  j["model"] = {{"task", setup.task}, {"layers", s.layers}, {"vocab", s.vocab}, {"tied", s.tied}};
  if (ablation) {
    ojson heads = ojson::array();
    for (const learn::HeadRef& h : ablation->heads) heads.push_back({h.layer, h.head});
    j["ablated"] = {{"heads", std::move(heads)}, {"mode", learn::to_string(ablation->mode)}};
  }
  add_predictions(j, model, b, task, loss);
  out = j.dump(indent);
  return "";
}

}  // namespace attn
