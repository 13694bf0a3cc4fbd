// inspect_api.cpp — the page API's interventions: attnlab.ablate / patch / attribute / circuits / rollout
// (docs/web-api.md) on the current Learn run's live weights, with the options of `attnlab-cli ablate`,
// `patch`, ... (docs/inspect.md) as the fields of one object, and the CLI's JSON (io/inspect_json.h).
// A bad option comes back as one line naming the field, as the CLI's names it without its "--"
// (corrupt_at for --corrupt-at); nothing of the run changes, whatever the outcome.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inspect_json.h"
#include "learn.h"
#include "learn/inspect.h"

namespace attnlab {

namespace lrn = attn::learn;
using json = nlohmann::json;

namespace {

// The option object, read field by field; every read names its field in its error.
struct Options {
  const json& j;
  bool has(const char* k) const { return j.contains(k) && !j.at(k).is_null(); }
  std::string text(const char* k, std::string& out) const {
    if (!has(k)) return "";
    if (!j.at(k).is_string()) return std::string(k) + ": expected a string";
    out = j.at(k).get<std::string>();
    return "";
  }
  // An integer in [lo, hi]; `what` says what it counts (a position, a token id).
  std::string integer(const char* k, int lo, int hi, const char* what, int& out) const {
    if (!has(k)) return "";
    const json& v = j.at(k);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      return std::string(k) + ": expected " + what + " " + std::to_string(lo) + ".." + std::to_string(hi);
    out = (int)v.get<long long>();
    return "";
  }
  std::string allowed(std::initializer_list<const char*> names) const {
    for (const auto& [key, v] : j.items()) {
      bool known = false;
      for (const char* n : names) known |= key == n;
      if (known) continue;
      std::string list;
      for (const char* n : names) list += std::string(list.empty() ? "" : ", ") + n;
      return key + ": not an option here (it takes " + list + ")";
    }
    return "";
  }
};

// The run's pieces an intervention needs, copied out of the session.
struct Run {
  lrn::TrainSetup setup;
  const lrn::Task* task = nullptr;
  std::vector<float> params;
  int eval_batch = 0;
};

// Example `example` of the held-out set (the run's own: 0..train.eval_batch − 1), with the sequence typed
// into `tokens_field` and, for a cross-attention model, `source_field` over it (either may be null).
std::string example_from(App& app, const Run& run, const Options& o, const char* tokens_field, const char* source_field, lrn::Example& e) {
  int index = 0;
  if (std::string err = o.integer("example", 0, run.eval_batch - 1, "a held-out example", index); !err.empty()) return err;
  if (!learn_state(app).link->read([&](const lrn::Session& s) { e = s.trainer().held_out_example(index); }))
    return "model: the trained weights are on their way from the training worker: try again in a moment";
  const lrn::ModelSpec& s = run.setup.spec;
  std::string tokens, source;
  if (tokens_field)
    if (std::string err = o.text(tokens_field, tokens); !err.empty()) return err;
  if (source_field)
    if (std::string err = o.text(source_field, source); !err.empty()) return err;
  if (!tokens.empty()) {
    e.targets.clear();
    if (std::string err = lrn::ids_from_labels(*run.task, s.vocab, tokens, tokens_field, e.tokens); !err.empty()) return err;
    if ((int)e.tokens.size() > s.n_ctx)
      return std::string(tokens_field) + ": " + std::to_string(e.tokens.size()) + " tokens, the model takes at most " + std::to_string(s.n_ctx);
  }
  if (!source.empty()) {
    if (!s.cross) return std::string(source_field) + ": only a cross-attention model takes a source sequence";
    e.targets.clear();
    if (std::string err = lrn::ids_from_labels(*run.task, s.vocab, source, source_field, e.source); !err.empty()) return err;
    if ((int)e.source.size() > s.n_src)
      return std::string(source_field) + ": a source of " + std::to_string(e.source.size()) + " tokens, the model takes at most " + std::to_string(s.n_src);
  }
  return "";
}

std::string ablate(App& app, const Run& run, const Options& o, std::string& out) {
  if (std::string e = o.allowed({"heads", "mode", "each", "example"}); !e.empty()) return e;
  lrn::AblationSpec spec;
  std::string mode, heads;
  if (std::string e = o.text("mode", mode); !e.empty()) return e;
  if (!mode.empty())
    if (std::string e = lrn::parse_ablation_mode(mode, "mode", spec.mode); !e.empty()) return e;
  if (o.has("each") && !o.j.at("each").is_boolean()) return "each: expected true or false";
  const bool each = o.has("each") && o.j.at("each").get<bool>();
  if (o.has("heads") && o.j.at("heads").is_array()) {  // ["1.0", "0.1"] as well as "1.0,0.1"
    for (const json& h : o.j.at("heads")) {
      if (!h.is_string()) return "heads: expected \"L.H\" strings (\"1.0\") or one string \"1.0,0.1\"";
      heads += (heads.empty() ? "" : ",") + h.get<std::string>();
    }
  } else if (std::string e = o.text("heads", heads); !e.empty()) {
    return e;
  }
  if (each == o.has("heads")) return "heads: give the heads to ablate (heads: \"1.0,0.1\") or each: true, one of the two";
  lrn::Subject<float> s;
  if (std::string e = lrn::open_subject(run.setup, run.params, s); !e.empty()) return e;
  if (each) return out = attn::ablation_table_json(lrn::ablate_each(s, spec.mode)), "";
  if (std::string e = lrn::parse_heads(heads, "heads", spec.heads); !e.empty()) return e;
  if (std::string e = lrn::check_heads(run.setup.spec, spec.heads, "heads"); !e.empty()) return e;
  lrn::Example probe;
  if (std::string e = example_from(app, run, o, nullptr, nullptr, probe); !e.empty()) return e;
  const lrn::Metrics baseline = lrn::ablated_metrics(s, {}), ablated = lrn::ablated_metrics(s, spec);
  out = attn::ablation_json(*run.task, spec, baseline, ablated, probe, lrn::ablated_probe(s, probe, spec));
  return "";
}

std::string patch(App& app, const Run& run, const Options& o, std::string& out) {
  if (std::string e = o.allowed({"clean", "corrupt", "corrupt_at", "with", "tokens", "position", "example"}); !e.empty()) return e;
  const lrn::ModelSpec& s = run.setup.spec;
  if (!s.cross && o.has("tokens")) return "tokens: only a cross-attention model takes it (use clean)";
  // the clean input: the held-out example, or `clean` typed (the source of a cross-attention model,
  // whose decoder input is `tokens`)
  lrn::Example clean;
  if (std::string e = example_from(app, run, o, s.cross ? "tokens" : "clean", s.cross ? "clean" : nullptr, clean); !e.empty()) return e;
  clean.targets.clear();
  lrn::Example corrupt = clean;
  if (o.has("corrupt") == o.has("corrupt_at")) return "corrupt: give the corrupted input (corrupt: \"TOKENS\") or corrupt_at: I, one of the two";
  if (o.has("with") && !o.has("corrupt_at")) return "with: only with corrupt_at";
  if (o.has("corrupt")) {
    std::string text;
    if (std::string e = o.text("corrupt", text); !e.empty()) return e;
    std::vector<int>& ids = s.cross ? corrupt.source : corrupt.tokens;
    if (std::string e = lrn::ids_from_labels(*run.task, s.vocab, text, "corrupt", ids); !e.empty()) return e;
    const size_t want = s.cross ? clean.source.size() : clean.tokens.size();
    if (ids.size() != want)
      return "corrupt: " + std::to_string(ids.size()) + " tokens, the clean input has " + std::to_string(want) + " (they must be as long)";
  } else {
    int at = 0;
    if (std::string e = o.integer("corrupt_at", 0, lrn::ModelLimits::max_seq - 1, "a position", at); !e.empty()) return e;
    std::vector<int> with{-1};
    std::string text;
    if (std::string e = o.text("with", text); !e.empty()) return e;
    if (!text.empty())
      if (std::string e = lrn::ids_from_labels(*run.task, s.vocab, text, "with", with); !e.empty()) return e;
    if (with.size() != 1) return "with: expected one token";
    if (std::string e = lrn::corrupt_one_token(s, clean, at, with[0], corrupt); !e.empty()) return e;
  }
  int position = -1;
  if (std::string e = o.integer("position", 0, lrn::ModelLimits::max_seq - 1, "a position", position); !e.empty()) return e;
  lrn::Model<float> model(s);
  model.params() = run.params;
  lrn::PatchResult r;
  if (std::string e = lrn::patch(model, clean, corrupt, position, r); !e.empty()) return e;
  out = attn::patch_json(*run.task, clean, corrupt, r);
  return "";
}

std::string attribute(App& app, const Run& run, const Options& o, std::string& out) {
  if (std::string e = o.allowed({"tokens", "source", "target", "example"}); !e.empty()) return e;
  lrn::Example e;
  if (std::string err = example_from(app, run, o, "tokens", "source", e); !err.empty()) return err;
  if (run.setup.spec.cross && o.has("tokens") && !o.has("source")) return "source: a cross-attention model needs a source sequence";
  int target = -1;
  if (std::string err = o.integer("target", 0, run.setup.spec.vocab - 1, "a token id", target); !err.empty()) return err;
  lrn::Model<float> model(run.setup.spec);
  model.params() = run.params;
  lrn::Attribution a;
  if (std::string err = lrn::attribute(model, e, target, a); !err.empty()) return err;
  out = attn::attribution_json(*run.task, e, a);
  return "";
}

std::string circuits(App&, const Run& run, const Options& o, std::string& out) {
  if (std::string e = o.allowed({"layer", "head"}); !e.empty()) return e;
  const lrn::ModelSpec& s = run.setup.spec;
  int layer = -1, head = -1;
  if (!o.has("layer")) return "layer: expected a layer 0.." + std::to_string(s.layers - 1);
  if (!o.has("head")) return "head: expected a head 0.." + std::to_string(s.heads - 1);
  if (std::string e = o.integer("layer", 0, s.layers - 1, "a layer", layer); !e.empty()) return e;
  if (std::string e = o.integer("head", 0, s.heads - 1, "a head", head); !e.empty()) return e;
  lrn::Model<float> model(s);
  model.params() = run.params;
  lrn::Circuits c;
  if (std::string e = lrn::circuits(model, layer, head, c); !e.empty()) return e;
  out = attn::circuits_json(*run.task, c, lrn::composition_of(model, layer, head));
  return "";
}

std::string rollout(App& app, const Run& run, const Options& o, std::string& out) {
  if (std::string e = o.allowed({"tokens", "example"}); !e.empty()) return e;
  lrn::Example e;
  if (std::string err = example_from(app, run, o, "tokens", nullptr, e); !err.empty()) return err;
  lrn::Model<float> model(run.setup.spec);
  model.params() = run.params;
  lrn::Rollout r;
  if (std::string err = lrn::rollout(model, e, r); !err.empty()) return err;
  out = attn::rollout_json(*run.task, e, r);
  return "";
}

struct Command {
  const char* name;
  std::string (*run)(App&, const Run&, const Options&, std::string&);
};
const Command kCommands[] = {{"ablate", ablate}, {"patch", patch}, {"attribute", attribute}, {"circuits", circuits}, {"rollout", rollout}};

}  // namespace

std::string learn_inspect_json(App& app, std::string_view command, std::string_view options, std::string& error) {
  error.clear();
  const Command* c = nullptr;
  for (const Command& k : kCommands)
    if (command == k.name) c = &k;
  if (!c) return error = "command: unknown intervention '" + std::string(command) + "'", "";
  const json j = json::parse(options.empty() ? std::string_view("{}") : options, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error = "options: expected an object", "";
  LearnState& L = learn_state(app);
  if (!L.run().started) return error = "model: nothing trained yet (train or open a model first)", "";
  Run run;
  run.setup = L.run().run_setup;
  run.task = L.run().task;
  run.eval_batch = run.setup.train.eval_batch;
  if (run.setup.spec.recurrent())
    return error = "model: the interventions (docs/inspect.md) take an attention model; this one is " +
                   std::string(lrn::arch_kind(run.setup.spec.model).name) + ", with no heads",
           "";
  if (!L.link->read([&](const lrn::Session& s) { run.params = s.trainer().model().params(); }))
    return error = "model: the trained weights are on their way from the training worker: try again in a moment", "";
  std::string out;
  error = c->run(app, run, Options{j}, out);
  return error.empty() ? out : std::string();
}

}  // namespace attnlab
