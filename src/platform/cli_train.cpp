// cli_train.cpp — attnlab-cli's learning commands (docs/train.md):
//
//   attnlab-cli train CONFIG.json|- [--steps N] [--out MODEL.json] [--log LOG.jsonl] [--quiet]
//   attnlab-cli run MODEL.json [--tokens "a b c"] [--source "1 2 3"] [--example I] [--indent N]
//                              [--ablate L.H[,L.H...] [--mode zero|mean]]   (docs/inspect.md)
//   attnlab-cli grad MODEL.json BATCH.json|- [--double] [--indent N]
//
// Exit codes as for run: 0 success, 2 bad usage or input (one line naming the field), 1 I/O error;
// train also 3: training diverged (the model file, if asked for, holds the last good weights).
#include "cli_train.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <optional>

#include "cli_inspect.h"
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
  if (command == "train" || command == "grad") return true;
  if (command != "run" || argc < 3 || std::string(argv[2]) == "-") return false;
  std::string text;
  return read_text(argv[2], text) && is_model_json(text);
}

int learn_main(int argc, char** argv) {
  const std::string command = argv[1];
  if (command == "train") return train_command(argc, argv);
  if (command == "grad") return grad_command(argc, argv);
  return run_model_command(argc, argv);
}

}  // namespace attn
