// inspect_json.h — the JSON of the inspection tools (learn/inspect.h; docs/inspect.md), written through
// JsonWriter. One function per result, shared by `attnlab-cli ablate|patch|attribute|circuits|rollout`
// and, later, the page API, so both give the same document. Token ids are written as the task's labels
// where a sequence is shown, and as ids where the schema asks for ids (attribution targets).
#pragma once
#include <string>

#include "learn/inspect.h"

namespace attn {

// {"mode", "ablated": [[layer, head]...], "baseline": {metrics}, "loss", "accuracy", "pattern_score",
//  "head_pattern_scores": (layers, heads), "probe": {tokens, [source], targets, predictions, loss,
//  attention: (layers, heads, n, m)}}       metrics = {"loss", "accuracy", "pattern_score"}
std::string ablation_json(const learn::Task& task, const learn::AblationSpec& ablation, const learn::Metrics& baseline,
                          const learn::Metrics& ablated, const learn::Example& probe, const learn::ProbeResult& result,
                          int indent = -1);
// {"mode", "baseline": {metrics}, "heads": (layers, heads) of {metrics}}
std::string ablation_table_json(const learn::AblationTable& table, int indent = -1);
// {"position", "clean_tokens", "corrupt_tokens", [clean_source, corrupt_source], "clean_answer",
//  "corrupt_answer", "heads": (layers, heads), "residual": (layers + 1, n), "clean_logit_diff",
//  "corrupt_logit_diff"}
std::string patch_json(const learn::Task& task, const learn::Example& clean, const learn::Example& corrupt,
                       const learn::PatchResult& r, int indent = -1);
// {"tokens", "positions": [{"position", "target", "target_token", "logit", "embedding", "heads": (layers, heads)}]}
std::string attribution_json(const learn::Task& task, const learn::Example& e, const learn::Attribution& a, int indent = -1);
// {"layer", "head", "tokens": the vocabulary's labels, "qk": (vocab, vocab), "ov": (vocab, vocab),
//  "positional_qk": (n, m) or null, "composition": {"from": [{layer, head, q, k, v}] the heads of the layer
//  before (writers into this head), "into": [...] the heads of the layer after (readers of this head)}}
std::string circuits_json(const learn::Task& task, const learn::Circuits& c, const learn::HeadComposition& comp, int indent = -1);
// {"tokens", "attention": (layers, n, n) mean over heads, "rollout": (layers, n, n)}
std::string rollout_json(const learn::Task& task, const learn::Example& e, const learn::Rollout& r, int indent = -1);

}  // namespace attn
