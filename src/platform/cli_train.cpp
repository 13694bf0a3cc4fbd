// cli_train.cpp — attnlab-cli's learning commands (docs/train.md):
//
//   attnlab-cli train CONFIG.json|- [--steps N] [--out MODEL.json] [--log LOG.jsonl] [--quiet]
//   attnlab-cli run MODEL.json [--tokens "a b c"] [--source "1 2 3"] [--example I] [--indent N]
//                              [--ablate L.H[,L.H...] [--mode zero|mean]]   (docs/inspect.md)
//   attnlab-cli grad MODEL.json BATCH.json|- [--double] [--indent N]
//   attnlab-cli sweep CONFIG.json|- --distance 1,2,4 [--models attention,rnn,lstm] [--steps N]
//   attnlab-cli gradient-distance MODEL.json|CONFIG.json [--sequences N]
//
// Exit codes as for run: 0 success, 2 bad usage or input (one line naming the field), 1 I/O error;
// train also 3: training diverged (the model file, if asked for, holds the last good weights).
#include "cli_train.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <optional>

#include "cli_inspect.h"
#include "json_util.h"
#include "learn/train.h"
#include "model_json.h"

namespace attn {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "attnlab-cli: %s\n", message.c_str());
  return code;
}

bool read_text(const std::string& path, std::string& out) {
  std::ostringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    ss << f.rdbuf();
  }
  out = ss.str();
  return true;
}

bool parse_count(const char* s, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  out = v;
  return true;
}

std::string example_from_args(const learn::TrainSetup& setup, const std::string& tokens, const std::string& source,
                              long long example, learn::Example& e) {
  const learn::Task& task = *learn::find_task(setup.task);
  e = learn::Example{};
  if (tokens.empty() && !source.empty()) return "--source: only with --tokens (without them, the held-out example's source is used)";
  if (tokens.empty()) {
    // The task's own input: example I of the held-out set this model was evaluated on.
    learn::TrainSetup held = setup;
    held.train.eval_batch = (int)std::min<long long>(example + 1, learn::TrainLimits::max_eval_batch);
    held.train.steps = 0;
    learn::Trainer t;
    if (std::string err = t.start(held); !err.empty()) return err;
    e = t.held_out_example((int)example);
    return "";
  }
  if (std::string err = learn::ids_from_labels(task, setup.spec.vocab, tokens, "--tokens", e.tokens); !err.empty()) return err;
  if (setup.spec.cross) {
    if (source.empty()) return "--source: a cross-attention model needs a source sequence";
    return learn::ids_from_labels(task, setup.spec.vocab, source, "--source", e.source);
  }
  if (!source.empty()) return "--source: only a cross-attention model takes a source sequence";
  return "";
}

namespace {

int train_command(int argc, char** argv) {
  if (argc < 3) return fail(2, "train: missing CONFIG (a file, or - for stdin)");
  std::string out_path, log_path;
  long long steps = -1;
  bool quiet = false;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--steps" && has_value) {
      if (!parse_count(argv[++i], 0, learn::TrainLimits::max_steps, steps))
        return fail(2, "--steps: expected an integer 0.." + std::to_string(learn::TrainLimits::max_steps));
    } else if (a == "--out" && has_value) out_path = argv[++i];
    else if (a == "--log" && has_value) log_path = argv[++i];
    else if (a == "--quiet") quiet = true;
    else return fail(2, "unknown or incomplete option '" + a + "'");
  }
  std::string text;
  if (!read_text(argv[2], text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  learn::TrainSetup setup;
  if (std::string e = parse_train_config(text, setup); !e.empty()) return fail(2, e);
  if (steps >= 0) setup.train.steps = (int)steps;
  learn::Trainer trainer;
  if (std::string e = trainer.start(setup); !e.empty()) return fail(2, e);
  std::ofstream log;
  if (!log_path.empty()) {
    log.open(log_path, std::ios::binary);
    if (!log) return fail(1, log_path + ": cannot write");
  }
  const auto emit = [&](const learn::EvalPoint& p) {
    const std::string line = eval_point_json(p, trainer);
    if (!quiet) std::printf("%s\n", line.c_str()), std::fflush(stdout);
    if (log) log << line << '\n' << std::flush;
  };
  emit(trainer.evaluate());  // step 0: the untrained model
  size_t shown = trainer.history().size();
  while (!trainer.done()) {
    trainer.run(setup.train.eval_every);
    for (; shown < trainer.history().size(); ++shown) emit(trainer.history()[shown]);
  }
  if (!out_path.empty()) {
    std::ofstream f(out_path, std::ios::binary);
    f << model_to_json(trainer) << '\n';
    if (!f.good()) return fail(1, out_path + ": cannot write");
  }
  if (log && !log.good()) return fail(1, log_path + ": cannot write");
  if (trainer.diverged()) return fail(3, trainer.message());
  return 0;
}

// "1,2,4" -> {1, 2, 4}: at most `most` integers in [lo, hi]. false on anything else.
bool parse_int_list(const std::string& text, int lo, int hi, size_t most, std::vector<int>& out) {
  out.clear();
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    long long v = 0;
    if (!parse_count(text.substr(at, comma - at).c_str(), lo, hi, v) || out.size() >= most) return false;
    out.push_back((int)v);
    at = comma + 1;
  }
  return !out.empty();
}

// The same config trained once per (model, distance), each from the same seed and with the same
// steps, batches and optimiser: one JSON line per run with its held-out accuracy at the end.
int sweep_command(int argc, char** argv) {
  if (argc < 3) return fail(2, "sweep: missing CONFIG (a file, or - for stdin)");
  constexpr size_t kMostRuns = 64;
  std::vector<int> distances;
  std::vector<learn::Arch> models = {learn::Arch::attention, learn::Arch::rnn, learn::Arch::lstm};
  long long steps = -1;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--distance" && has_value) {
      if (!parse_int_list(argv[++i], 1, learn::ModelLimits::max_seq - 1, kMostRuns, distances))
        return fail(2, "--distance: expected a comma-separated list of at most " + std::to_string(kMostRuns) +
                           " integers 1.." + std::to_string(learn::ModelLimits::max_seq - 1));
    } else if (a == "--models" && has_value) {
      models.clear();
      const std::string list = argv[++i];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        const learn::ArchKind* k = learn::find_arch(list.substr(at, comma - at));
        if (!k || models.size() >= learn::arch_kinds().size())
          return fail(2, "--models: expected a comma-separated list of " + learn::arch_names() + ", got '" + list + "'");
        models.push_back(k->arch);
        at = comma + 1;
      }
    } else if (a == "--steps" && has_value) {
      if (!parse_count(argv[++i], 0, learn::TrainLimits::max_steps, steps))
        return fail(2, "--steps: expected an integer 0.." + std::to_string(learn::TrainLimits::max_steps));
    } else return fail(2, "unknown or incomplete option '" + a + "' (sweep takes --distance, --models, --steps)");
  }
  if (distances.empty()) return fail(2, "--distance: missing (e.g. --distance 1,2,4,8,16,24)");
  if (distances.size() * models.size() > kMostRuns) return fail(2, "--distance: at most " + std::to_string(kMostRuns) + " runs (distances x models)");
  std::string text;
  if (!read_text(argv[2], text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  learn::TrainSetup base;
  if (std::string e = parse_train_config(text, base); !e.empty()) return fail(2, e);
  if (base.task != "delayed_copy") return fail(2, "--distance: only the delayed_copy task has a distance (the config's task is " + base.task + ")");
  if (steps >= 0) base.train.steps = (int)steps;
  // every run checked before the first one trains
  std::vector<learn::TrainSetup> runs;
  for (learn::Arch m : models)
    for (int d : distances) {
      learn::TrainSetup s = base;
      s.spec.model = m, s.spec.distance = d;
      if (std::string e = learn::validate(s); !e.empty()) return fail(2, std::string(learn::arch_kind(m).name) + ", --distance " + std::to_string(d) + ": " + e);
      runs.push_back(s);
    }
  for (const learn::TrainSetup& s : runs) {
    learn::Trainer trainer;
    if (std::string e = trainer.start(s); !e.empty()) return fail(2, e);
    while (!trainer.done()) trainer.run(s.train.eval_every);
    if (trainer.history().empty() || trainer.history().back().step != trainer.step()) trainer.evaluate();
    const learn::EvalPoint& p = trainer.history().back();
    ojson j;
    j["model"] = learn::arch_kind(s.spec.model).name;
    j["distance"] = s.spec.distance;
    j["params"] = trainer.model().params().size();
    j["steps"] = trainer.step();
    j["accuracy"] = (float)p.accuracy;
    j["loss"] = (float)p.loss;
    j["chance"] = 1.0f / (float)s.spec.vocab;
    j["ms"] = std::round(p.ms * 10.0) / 10.0;
    if (trainer.diverged()) j["diverged"] = trainer.message();
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
  }
  return 0;
}

// Gradient against distance (learn/measures.h) of a model file's weights, or of a config's untrained
// (seeded) weights, over the first --sequences of its held-out set.
int gradient_distance_command(int argc, char** argv) {
  if (argc < 3) return fail(2, "gradient-distance: missing MODEL.json or CONFIG.json (or - for stdin)");
  long long sequences = 64;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sequences" && i + 1 < argc) {
      if (!parse_count(argv[++i], 1, learn::TrainLimits::max_eval_batch, sequences))
        return fail(2, "--sequences: expected an integer 1.." + std::to_string(learn::TrainLimits::max_eval_batch));
    } else return fail(2, "unknown or incomplete option '" + a + "' (gradient-distance takes --sequences)");
  }
  std::string text;
  if (!read_text(argv[2], text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  learn::TrainSetup setup;
  std::vector<float> params;
  int step = 0;
  const bool trained = is_model_json(text);
  if (std::string e = trained ? parse_model(text, setup, params, &step) : parse_train_config(text, setup); !e.empty()) return fail(2, e);
  if (sequences > setup.train.eval_batch) return fail(2, "--sequences: the held-out set has " + std::to_string(setup.train.eval_batch) + " (train.eval_batch)");
  learn::Trainer trainer;
  if (std::string e = trainer.start(setup); !e.empty()) return fail(2, e);
  if (trained) trainer.adopt(params, step);
  const learn::DistanceProfile p = trainer.gradient_by_distance((int)sequences);
  ojson j;
  j["model"] = learn::arch_kind(setup.spec.model).name;
  j["task"] = setup.task;
  j["step"] = trained ? step : 0;
  j["sequences"] = sequences;
  ojson d = ojson::array(), mean = ojson::array(), count = ojson::array();
  for (size_t k = 0; k < p.mean.size(); ++k) d.push_back(k), mean.push_back((float)p.mean[k]), count.push_back(p.count[k]);
  j["distance"] = std::move(d);
  j["mean_grad_norm"] = std::move(mean);
  j["count"] = std::move(count);
  const std::string out = j.dump();
  std::printf("%s\n", out.c_str());
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int run_model_command(int argc, char** argv) {
  std::string text, tokens, source;
  std::optional<std::string> ablate, mode;
  long long example = 0, indent = -1;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--tokens" && has_value) tokens = argv[++i];
    else if (a == "--source" && has_value) source = argv[++i];
    else if (a == "--ablate" && has_value) ablate = argv[++i];
    else if (a == "--mode" && has_value) mode = argv[++i];
    else if (a == "--example" && has_value) {
      if (!parse_count(argv[++i], 0, 1 << 20, example)) return fail(2, "--example: expected an integer >= 0");
    } else if (a == "--indent" && has_value) {
      if (!parse_count(argv[++i], -1, 16, indent)) return fail(2, "--indent: expected an integer -1..16");
    } else return fail(2, "unknown or incomplete option '" + a + "' (a model file takes --tokens, --source, --example, --indent, --ablate, --mode)");
  }
  if (!read_text(argv[2], text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  learn::TrainSetup setup;
  std::vector<float> params;
  if (std::string e = parse_model(text, setup, params); !e.empty()) return fail(2, e);
  learn::Example e;
  if (std::string err = example_from_args(setup, tokens, source, example, e); !err.empty()) return fail(2, err);
  // --ablate: those heads' outputs replaced as `ablate` replaces them (cli_inspect.cpp, docs/inspect.md)
  learn::AblationSpec ablation;
  learn::Subject<float> subject;
  if (ablate) {
    if (std::string err = ablation_from_args(setup, params, *ablate, mode, ablation, subject); !err.empty()) return fail(2, err);
  } else if (mode) {
    return fail(2, "--mode: only with --ablate");
  }
  std::string out;
  if (std::string err = run_model_json(setup, params, e, out, (int)indent, ablate ? &ablation : nullptr, &subject.means); !err.empty())
    return fail(2, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int grad_command(int argc, char** argv) {
  if (argc < 4) return fail(2, "grad: expected MODEL.json BATCH.json");
  bool use_double = false;
  long long indent = -1;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--double") use_double = true;
    else if (a == "--indent" && i + 1 < argc) {
      if (!parse_count(argv[++i], -1, 16, indent)) return fail(2, "--indent: expected an integer -1..16");
    } else return fail(2, "unknown or incomplete option '" + a + "'");
  }
  std::string model_text, batch_text;
  if (!read_text(argv[2], model_text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  if (!read_text(argv[3], batch_text)) return fail(1, std::string(argv[3]) + ": cannot read the file");
  learn::TrainSetup setup;
  std::vector<float> params;
  if (std::string e = parse_model(model_text, setup, params); !e.empty()) return fail(2, e);
  learn::Batch batch;
  if (std::string e = parse_batch(batch_text, setup.spec, batch); !e.empty()) return fail(2, e);
  double loss = 0.0;
  int targets = 0;
  std::vector<double> grads;
  if (use_double) {
    learn::Model<double> model(setup.spec);
    model.params().assign(params.begin(), params.end());
    loss = model.forward(batch);
    model.backward();
    grads = model.grads(), targets = model.targets_counted();
  } else {
    learn::Model<float> model(setup.spec);
    model.params() = params;
    loss = model.forward(batch);
    model.backward();
    grads.assign(model.grads().begin(), model.grads().end()), targets = model.targets_counted();
  }
  const std::string out = gradients_to_json(setup.spec, loss, targets, grads, (int)indent);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

bool is_learn_command(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string command = argv[1];
  if (command == "train" || command == "grad" || command == "sweep" || command == "gradient-distance") return true;
  if (command != "run" || argc < 3 || std::string(argv[2]) == "-") return false;
  std::string text;
  return read_text(argv[2], text) && is_model_json(text);
}

int learn_main(int argc, char** argv) {
  const std::string command = argv[1];
  if (command == "train") return train_command(argc, argv);
  if (command == "grad") return grad_command(argc, argv);
  if (command == "sweep") return sweep_command(argc, argv);
  if (command == "gradient-distance") return gradient_distance_command(argc, argv);
  return run_model_command(argc, argv);
}

}  // namespace attn
