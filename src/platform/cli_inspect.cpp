// cli_inspect.cpp — attnlab-cli's inspection commands on a trained model file (docs/inspect.md):
//
//   attnlab-cli ablate MODEL.json [--heads L.H[,L.H...]] [--mode zero|mean] [--each] [--example I] [--indent N]
//   attnlab-cli patch MODEL.json [--clean "TOKENS"] (--corrupt "TOKENS" | --corrupt-at I [--with TOKEN])
//                                [--tokens "TOKENS"] [--position I] [--example I] [--indent N]
//   attnlab-cli attribute MODEL.json [--tokens "TOKENS"] [--source "TOKENS"] [--target ID] [--example I] [--indent N]
//   attnlab-cli circuits MODEL.json --layer L --head H [--indent N]
//   attnlab-cli rollout MODEL.json [--tokens "TOKENS"] [--example I] [--indent N]
//
// Without --tokens / --clean a command takes example I (default 0) of the model's held-out set. For a
// cross-attention model, patch's --clean and --corrupt are source sequences and --tokens the decoder
// input both runs share. Exit codes as for run: 0, 2 bad usage or input (one line naming the field), 1 I/O.
#include "cli_inspect.h"

#include <cstdio>
#include <map>

#include "cli_train.h"
#include "inspect_json.h"
#include "model_json.h"

namespace attn {
namespace {

using learn::Example;

// The options after MODEL.json: each allowed name takes a value, except the flags.
struct Options {
  std::map<std::string, std::string> values;
  bool has(const std::string& k) const { return values.count(k) > 0; }
  std::string get(const std::string& k) const { return has(k) ? values.at(k) : std::string(); }
};
std::string parse_options(int argc, char** argv, std::initializer_list<const char*> allowed,
                          std::initializer_list<const char*> flags, Options& out) {
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    bool is_flag = false, known = false;
    for (const char* f : flags) is_flag |= a == f;
    for (const char* o : allowed) known |= a == o;
    if (is_flag) {
      out.values[a] = "1";
      continue;
    }
    if (!known || i + 1 >= argc) {
      std::string names;
      for (const char* o : allowed) names += std::string(names.empty() ? "" : ", ") + o;
      for (const char* f : flags) names += std::string(", ") + f;
      return "unknown or incomplete option '" + a + "' (" + argv[1] + " takes " + names + ")";
    }
    if (out.has(a)) return a + ": given twice";
    out.values[a] = argv[++i];
  }
  return "";
}

// --indent and --example, as run takes them
std::string common(const Options& o, int& indent, long long& example) {
  long long v = -1;
  if (o.has("--indent") && !parse_count(o.get("--indent").c_str(), -1, 16, v)) return "--indent: expected an integer -1..16";
  indent = (int)v;
  example = 0;
  if (o.has("--example") && !parse_count(o.get("--example").c_str(), 0, learn::TrainLimits::max_eval_batch - 1, example))
    return "--example: expected an integer 0.." + std::to_string(learn::TrainLimits::max_eval_batch - 1);
  return "";
}

struct Loaded {
  learn::TrainSetup setup;
  std::vector<float> params;
  const learn::Task* task = nullptr;
};
// 1: the file cannot be read; 2: it is not a valid model file.
int load(const char* path, Loaded& out, std::string& error) {
  std::string text;
  if (!read_text(path, text)) return error = std::string(path) + ": cannot read the file", 1;
  if (std::string e = parse_model(text, out.setup, out.params); !e.empty()) return error = e, 2;
  if (out.setup.spec.recurrent())
    return error = "model: the interventions (docs/inspect.md) take an attention model; this one is " +
                   std::string(learn::arch_kind(out.setup.spec.model).name) + ", with no heads", 2;
  out.task = learn::find_task(out.setup.task);
  return 0;
}

int print(const std::string& json) {
  std::fwrite(json.data(), 1, json.size(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

// A typed-in sequence must fit the model: its length named by the option it came from.
std::string check_length(const learn::ModelSpec& s, const Example& e, const char* tokens_field, const char* source_field) {
  if ((int)e.tokens.size() > s.n_ctx)
    return std::string(tokens_field) + ": " + std::to_string(e.tokens.size()) + " tokens, the model takes at most " + std::to_string(s.n_ctx);
  if (s.cross && (int)e.source.size() > s.n_src)
    return std::string(source_field) + ": a source of " + std::to_string(e.source.size()) + " tokens, the model takes at most " +
           std::to_string(s.n_src);
  return "";
}

// The engine's messages name its fields (position, clean, corrupt, corrupt_at, with): as options here.
std::string as_option(const std::string& e) {
  return "--" + (e.rfind("corrupt_at", 0) == 0 ? "corrupt-at" + e.substr(10) : e);
}

// ---------------------------------------------------------------------------------------------------
int ablate_command(int argc, char** argv, const Loaded& m) {
  Options o;
  if (std::string e = parse_options(argc, argv, {"--heads", "--mode", "--example", "--indent"}, {"--each"}, o); !e.empty()) return fail(2, e);
  int indent;
  long long example;
  if (std::string e = common(o, indent, example); !e.empty()) return fail(2, e);
  learn::AblationMode mode = learn::AblationMode::zero;
  if (o.has("--mode"))
    if (std::string e = learn::parse_ablation_mode(o.get("--mode"), "--mode", mode); !e.empty()) return fail(2, e);
  const bool each = o.has("--each");
  if (each == o.has("--heads")) return fail(2, "--heads: give the heads to ablate (--heads 1.0,0.1) or --each, one of the two");
  learn::Subject<float> s;
  if (std::string e = learn::open_subject(m.setup, m.params, s); !e.empty()) return fail(2, e);
  if (each) return print(ablation_table_json(learn::ablate_each(s, mode), indent));
  learn::AblationSpec spec;
  spec.mode = mode;
  if (std::string e = learn::parse_heads(o.get("--heads"), "--heads", spec.heads); !e.empty()) return fail(2, e);
  if (std::string e = learn::check_heads(m.setup.spec, spec.heads, "--heads"); !e.empty()) return fail(2, e);
  Example probe;
  if (std::string e = example_from_args(m.setup, "", "", example, probe); !e.empty()) return fail(2, e);
  const learn::Metrics baseline = learn::ablated_metrics(s, {});
  const learn::Metrics ablated = learn::ablated_metrics(s, spec);
  const learn::ProbeResult r = learn::ablated_probe(s, probe, spec);
  return print(ablation_json(*m.task, spec, baseline, ablated, probe, r, indent));
}

int patch_command(int argc, char** argv, const Loaded& m) {
  Options o;
  if (std::string e = parse_options(argc, argv, {"--clean", "--corrupt", "--corrupt-at", "--with", "--tokens", "--position", "--example", "--indent"}, {}, o);
      !e.empty())
    return fail(2, e);
  int indent;
  long long example;
  if (std::string e = common(o, indent, example); !e.empty()) return fail(2, e);
  const learn::ModelSpec& s = m.setup.spec;
  const learn::Task& task = *m.task;
  const bool cross = s.cross;
  if (!cross && o.has("--tokens")) return fail(2, "--tokens: only a cross-attention model takes it (use --clean)");
  // the clean example: the held-out one, with --clean (the tokens, or the source) and --tokens (cross) over it
  Example clean;
  if (std::string e = example_from_args(m.setup, "", "", example, clean); !e.empty()) return fail(2, e);
  clean.targets.clear();
  if (o.has("--clean"))
    if (std::string e = learn::ids_from_labels(task, s.vocab, o.get("--clean"), "--clean", cross ? clean.source : clean.tokens); !e.empty())
      return fail(2, e);
  if (o.has("--tokens"))
    if (std::string e = learn::ids_from_labels(task, s.vocab, o.get("--tokens"), "--tokens", clean.tokens); !e.empty()) return fail(2, e);
  if (std::string e = check_length(s, clean, cross ? "--tokens" : "--clean", "--clean"); !e.empty()) return fail(2, e);
  // the corrupted one: typed in, or one token of the clean one changed
  Example corrupt = clean;
  if (o.has("--corrupt") == o.has("--corrupt-at")) return fail(2, "--corrupt: give the corrupted input (--corrupt \"TOKENS\") or --corrupt-at I, one of the two");
  if (o.has("--with") && !o.has("--corrupt-at")) return fail(2, "--with: only with --corrupt-at");
  if (o.has("--corrupt")) {
    if (std::string e = learn::ids_from_labels(task, s.vocab, o.get("--corrupt"), "--corrupt", cross ? corrupt.source : corrupt.tokens); !e.empty())
      return fail(2, e);
    const size_t a = cross ? clean.source.size() : clean.tokens.size(), b = cross ? corrupt.source.size() : corrupt.tokens.size();
    if (a != b) return fail(2, "--corrupt: " + std::to_string(b) + " tokens, the clean input has " + std::to_string(a) + " (they must be as long)");
  } else {
    long long at = 0;
    if (!parse_count(o.get("--corrupt-at").c_str(), 0, learn::ModelLimits::max_seq - 1, at))
      return fail(2, "--corrupt-at: expected a position 0.." + std::to_string(learn::ModelLimits::max_seq - 1));
    std::vector<int> with{-1};
    if (o.has("--with"))
      if (std::string e = learn::ids_from_labels(task, s.vocab, o.get("--with"), "--with", with); !e.empty()) return fail(2, e);
    if (with.size() != 1) return fail(2, "--with: expected one token");
    if (std::string e = learn::corrupt_one_token(s, clean, (int)at, with[0], corrupt); !e.empty()) return fail(2, as_option(e));
  }
  long long position = -1;
  if (o.has("--position") && !parse_count(o.get("--position").c_str(), 0, learn::ModelLimits::max_seq - 1, position))
    return fail(2, "--position: expected a position 0.." + std::to_string(learn::ModelLimits::max_seq - 1));
  learn::Model<float> model(s);
  model.params() = m.params;
  learn::PatchResult r;
  if (std::string e = learn::patch(model, clean, corrupt, (int)position, r); !e.empty()) return fail(2, as_option(e));
  return print(patch_json(task, clean, corrupt, r, indent));
}

// The one example attribute and rollout take: --tokens (--source), or held-out example I.
int one_example(const Options& o, const Loaded& m, Example& e, int& indent) {
  long long example;
  if (std::string err = common(o, indent, example); !err.empty()) return fail(2, err);
  if (std::string err = example_from_args(m.setup, o.get("--tokens"), o.get("--source"), example, e); !err.empty()) return fail(2, err);
  if (o.has("--tokens"))
    if (std::string err = check_length(m.setup.spec, e, "--tokens", "--source"); !err.empty()) return fail(2, err);
  return 0;
}

int attribute_command(int argc, char** argv, const Loaded& m) {
  Options o;
  if (std::string e = parse_options(argc, argv, {"--tokens", "--source", "--target", "--example", "--indent"}, {}, o); !e.empty()) return fail(2, e);
  Example e;
  int indent;
  if (int rc = one_example(o, m, e, indent)) return rc;
  long long target = -1;
  if (o.has("--target") && !parse_count(o.get("--target").c_str(), 0, m.setup.spec.vocab - 1, target))
    return fail(2, "--target: expected a token id 0.." + std::to_string(m.setup.spec.vocab - 1));
  learn::Model<float> model(m.setup.spec);
  model.params() = m.params;
  learn::Attribution a;
  if (std::string err = learn::attribute(model, e, (int)target, a); !err.empty()) return fail(2, err);
  return print(attribution_json(*m.task, e, a, indent));
}

int circuits_command(int argc, char** argv, const Loaded& m) {
  Options o;
  if (std::string e = parse_options(argc, argv, {"--layer", "--head", "--indent"}, {}, o); !e.empty()) return fail(2, e);
  int indent;
  long long example, layer = -1, head = -1;
  if (std::string e = common(o, indent, example); !e.empty()) return fail(2, e);
  const learn::ModelSpec& s = m.setup.spec;
  if (!o.has("--layer") || !parse_count(o.get("--layer").c_str(), 0, s.layers - 1, layer))
    return fail(2, "--layer: expected a layer 0.." + std::to_string(s.layers - 1));
  if (!o.has("--head") || !parse_count(o.get("--head").c_str(), 0, s.heads - 1, head))
    return fail(2, "--head: expected a head 0.." + std::to_string(s.heads - 1));
  learn::Model<float> model(s);
  model.params() = m.params;
  learn::Circuits c;
  if (std::string e = learn::circuits(model, (int)layer, (int)head, c); !e.empty()) return fail(2, e);
  return print(circuits_json(*m.task, c, learn::composition_of(model, (int)layer, (int)head), indent));
}

int rollout_command(int argc, char** argv, const Loaded& m) {
  Options o;
  if (std::string e = parse_options(argc, argv, {"--tokens", "--example", "--indent"}, {}, o); !e.empty()) return fail(2, e);
  Example e;
  int indent;
  if (int rc = one_example(o, m, e, indent)) return rc;
  learn::Model<float> model(m.setup.spec);
  model.params() = m.params;
  learn::Rollout r;
  if (std::string err = learn::rollout(model, e, r); !err.empty()) return fail(2, err);
  return print(rollout_json(*m.task, e, r, indent));
}

struct Command {
  const char* name;
  int (*run)(int argc, char** argv, const Loaded& model);
};
const Command kInspectCommands[] = {
    {"ablate", ablate_command},   {"patch", patch_command},     {"attribute", attribute_command},
    {"circuits", circuits_command}, {"rollout", rollout_command},
};

}  // namespace

bool is_inspect_command(int argc, char** argv) {
  if (argc < 2) return false;
  for (const Command& c : kInspectCommands)
    if (std::string(argv[1]) == c.name) return true;
  return false;
}

int inspect_main(int argc, char** argv) {
  if (argc < 3) return fail(2, std::string(argv[1]) + ": missing MODEL.json (a model file from attnlab-cli train --out)");
  Loaded m;
  std::string error;
  if (int rc = load(argv[2], m, error)) return fail(rc, error);
  for (const Command& c : kInspectCommands)
    if (std::string(argv[1]) == c.name) return c.run(argc, argv, m);
  return fail(2, std::string("unknown command '") + argv[1] + "'");
}

std::string ablation_from_args(const learn::TrainSetup& setup, const std::vector<float>& params, const std::string& heads,
                               const std::optional<std::string>& mode, learn::AblationSpec& out, learn::Subject<float>& subject) {
  out = learn::AblationSpec{};
  if (mode)
    if (std::string e = learn::parse_ablation_mode(*mode, "--mode", out.mode); !e.empty()) return e;
  if (std::string e = learn::parse_heads(heads, "--ablate", out.heads); !e.empty()) return e;
  if (std::string e = learn::check_heads(setup.spec, out.heads, "--ablate"); !e.empty()) return e;
  if (out.mode == learn::AblationMode::mean) {
    if (std::string e = learn::open_subject(setup, params, subject); !e.empty()) return e;
    learn::prepare_held_out(subject);
  }
  return "";
}

}  // namespace attn
