// inspect_json.cpp — the inspection tools' JSON (see inspect_json.h). Numbers are written as floats in
// shortest round-trip form, as every other result of the lab.
#include "inspect_json.h"

#include <cmath>

#include "json_writer.h"

namespace attn {
namespace {

using learn::Example;
using learn::Task;

void number(JsonWriter& w, double v) {
  if (std::isfinite(v)) w.value((float)v);
  else w.raw("null");
}
void integer(JsonWriter& w, int v) { w.value((int64_t)v); }

// (rows, cols) of doubles as a list of rows
void matrix(JsonWriter& w, const double* v, int rows, int cols) {
  w.begin_array();
  for (int r = 0; r < rows; ++r) {
    w.begin_array();
    for (int c = 0; c < cols; ++c) number(w, v[(size_t)r * cols + c]);
    w.end_array();
  }
  w.end_array();
}

// ids as the task's labels; −1 (no target) as null
void labels(JsonWriter& w, const Task& task, const std::vector<int>& ids) {
  w.begin_array();
  for (int id : ids) {
    if (id < 0) w.raw("null");
    else w.value(task.token_name(id));
  }
  w.end_array();
}

void sequences(JsonWriter& w, const Task& task, const Example& e, const char* tokens_key, const char* source_key) {
  w.key(tokens_key);
  labels(w, task, e.tokens);
  if (!e.source.empty()) {
    w.key(source_key);
    labels(w, task, e.source);
  }
}

void metrics(JsonWriter& w, const learn::Metrics& m) {
  w.begin_object();
  w.key("loss"), number(w, m.loss);
  w.key("accuracy"), number(w, m.accuracy);
  w.key("pattern_score"), number(w, m.pattern_score);
  w.end_object();
}

// One JSON object: `body` writes its fields.
template <class Body>
std::string document(int indent, Body body) {
  std::string out;
  {
    JsonWriter w(&out, indent);
    w.begin_object();
    body(w);
    w.end_object();
  }  // (the writer's destructor flushes into out)
  return out;
}

}  // namespace

std::string ablation_json(const Task& task, const learn::AblationSpec& ablation, const learn::Metrics& baseline,
                          const learn::Metrics& ablated, const Example& probe, const learn::ProbeResult& r, int indent) {
  return document(indent, [&](JsonWriter& w) {
    w.key("mode"), w.value(std::string_view(learn::to_string(ablation.mode)));
    w.key("ablated");
    w.begin_array();
    for (const learn::HeadRef& h : ablation.heads) {
      w.begin_array();
      integer(w, h.layer), integer(w, h.head);
      w.end_array();
    }
    w.end_array();
    w.key("baseline"), metrics(w, baseline);
    w.key("loss"), number(w, ablated.loss);
    w.key("accuracy"), number(w, ablated.accuracy);
    w.key("pattern_score"), number(w, ablated.pattern_score);
    // each head's own pattern score (relation 0; per relation for a two-relation task)
    for (int rel = 0; rel < ablated.relations; ++rel) {
      w.key(rel == 0 ? "head_pattern_scores" : (std::string("head_pattern_scores_") + task.relation_names[rel]).c_str());
      w.begin_array();
      for (int l = 0; l < ablated.layers; ++l) {
        w.begin_array();
        for (int h = 0; h < ablated.heads; ++h) number(w, ablated.pattern_at(l, h, rel));
        w.end_array();
      }
      w.end_array();
    }
    w.key("probe");
    w.begin_object();
    sequences(w, task, probe, "tokens", "source");
    w.key("targets");
    labels(w, task, probe.targets.empty() ? std::vector<int>(probe.tokens.size(), -1) : probe.targets);
    w.key("predictions");
    labels(w, task, r.predictions);
    w.key("loss"), number(w, r.loss);
    w.key("attention");
    w.begin_array();
    for (int l = 0; l < r.layers; ++l) {
      w.begin_array();
      for (int h = 0; h < r.heads; ++h) {
        w.begin_array();
        for (int i = 0; i < r.n; ++i) w.row(r.weights[(size_t)l].data() + ((size_t)h * r.n + i) * r.m, r.m);
        w.end_array();
      }
      w.end_array();
    }
    w.end_array();
    w.end_object();
  });
}

std::string ablation_table_json(const learn::AblationTable& t, int indent) {
  return document(indent, [&](JsonWriter& w) {
    w.key("mode"), w.value(std::string_view(learn::to_string(t.mode)));
    w.key("baseline"), metrics(w, t.baseline);
    w.key("heads");
    w.begin_array();
    for (int l = 0; l < t.layers; ++l) {
      w.begin_array();
      for (int h = 0; h < t.heads; ++h) metrics(w, t.each[(size_t)l * t.heads + h]);
      w.end_array();
    }
    w.end_array();
  });
}

std::string patch_json(const Task& task, const Example& clean, const Example& corrupt, const learn::PatchResult& r, int indent) {
  return document(indent, [&](JsonWriter& w) {
    w.key("position"), integer(w, r.position);
    sequences(w, task, clean, "clean_tokens", "clean_source");
    sequences(w, task, corrupt, "corrupt_tokens", "corrupt_source");
    w.key("clean_answer"), w.value(task.token_name(r.clean_answer));
    w.key("corrupt_answer"), w.value(task.token_name(r.corrupt_answer));
    w.key("heads"), matrix(w, r.heads_restored.data(), r.layers, r.heads);
    w.key("residual"), matrix(w, r.residual_restored.data(), r.layers + 1, r.n);
    w.key("clean_logit_diff"), number(w, r.clean_logit_diff);
    w.key("corrupt_logit_diff"), number(w, r.corrupt_logit_diff);
  });
}

std::string attribution_json(const Task& task, const Example& e, const learn::Attribution& a, int indent) {
  return document(indent, [&](JsonWriter& w) {
    sequences(w, task, e, "tokens", "source");
    w.key("positions");
    w.begin_array();
    for (const learn::Attribution::Position& p : a.positions) {
      w.begin_object();
      w.key("position"), integer(w, p.position);
      w.key("target"), integer(w, p.target);
      w.key("target_token"), w.value(task.token_name(p.target));
      w.key("logit"), number(w, p.logit);
      w.key("embedding"), number(w, p.embedding);
      w.key("heads"), matrix(w, p.heads.data(), a.layers, a.heads);
      w.end_object();
    }
    w.end_array();
  });
}

std::string circuits_json(const Task& task, const learn::Circuits& c, const learn::HeadComposition& comp, int indent) {
  return document(indent, [&](JsonWriter& w) {
    w.key("layer"), integer(w, c.layer);
    w.key("head"), integer(w, c.head);
    w.key("tokens");
    w.begin_array();
    for (int id = 0; id < c.vocab; ++id) w.value(task.token_name(id));
    w.end_array();
    w.key("qk"), matrix(w, c.qk.data(), c.vocab, c.vocab);
    w.key("ov"), matrix(w, c.ov.data(), c.vocab, c.vocab);
    w.key("positional_qk");
    if (c.pos_rows) matrix(w, c.positional_qk.data(), c.pos_rows, c.pos_cols);
    else w.raw("null");
    // composition: this head as the reader of the layer before, and as the writer into the layer after
    const auto pairs = [&](const char* key, const std::vector<learn::HeadComposition::Pair>& list) {
      w.key(key);
      w.begin_array();
      for (const learn::HeadComposition::Pair& p : list) {
        w.begin_object();
        w.key("layer"), integer(w, p.layer);
        w.key("head"), integer(w, p.head);
        w.key("q"), number(w, p.q);
        w.key("k"), number(w, p.k);
        w.key("v"), number(w, p.v);
        w.end_object();
      }
      w.end_array();
    };
    w.key("composition");
    w.begin_object();
    pairs("from", comp.from);
    pairs("into", comp.into);
    w.end_object();
  });
}

std::string rollout_json(const Task& task, const Example& e, const learn::Rollout& r, int indent) {
  return document(indent, [&](JsonWriter& w) {
    sequences(w, task, e, "tokens", "source");
    const size_t cells = (size_t)r.n * r.n;
    for (const char* key : {"attention", "rollout"}) {
      const std::vector<double>& v = key[0] == 'a' ? r.attention : r.rollout;
      w.key(key);
      w.begin_array();
      for (int l = 0; l < r.layers; ++l) matrix(w, v.data() + l * cells, r.n, r.n);
      w.end_array();
    }
  });
}

}  // namespace attn
