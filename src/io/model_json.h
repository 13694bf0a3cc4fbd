// model_json.h — the learning engine's JSON (docs/train.md): training configs, trained model files,
// explicit batches, evaluation log lines and gradients. Shared by attnlab-cli train/run/grad and the
// lab's Learn mode (its Download model, Open model..., #train= links and trainHistory()).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "engine.h"
#include "learn/inspect.h"
#include "learn/train.h"

namespace attn {

// A training config: {"task": NAME, lab fields (d_model, heads, d_k, d_v, positional, scale,
// temperature, mask), layers, vocab, n, source_n, tied, "train": {...}}. Keys not given keep the task's
// defaults. "" on success, else one line naming the field.
std::string parse_train_config(std::string_view json_text, learn::TrainSetup& out);
// The complete config (every key), replayable with `attnlab-cli train`.
std::string train_config_to_json(const learn::TrainSetup& s, int indent = -1);

// One evaluation as one JSON line: step, loss, accuracy, pattern_score (per layer, per head), ...
std::string eval_point_json(const learn::EvalPoint& p, const learn::Trainer& trainer);
std::string eval_point_json(const learn::EvalPoint& p, const learn::TrainSetup& setup);  // the same, from the run's setup

// A trained model: format tag, config, vocabulary, weights (w_q/w_k/w_v per head as in the lab's
// config), the last evaluation, and every evaluation of the run ("history", as the log lines).
std::string model_to_json(const learn::Trainer& trainer, int indent = -1);
// True when the text looks like a model file (has "format": "attnlab-model").
bool is_model_json(std::string_view json_text);
// Reads a model file back: the setup and the flat parameter vector (model.h's layout); checks every
// shape and number. "" on success, else one line naming the field.
std::string parse_model(std::string_view json_text, learn::TrainSetup& setup, std::vector<float>& params,
                        int* step = nullptr,  // the file's "step" (0 when absent)
                        std::vector<learn::EvalPoint>* history = nullptr);  // its "history" (empty when absent)

// An explicit batch: {"tokens": [[ids]], "targets": [[ids, -1 = none]], "source": [[ids]]}.
std::string parse_batch(std::string_view json_text, const learn::ModelSpec& spec, learn::Batch& out);

// {"loss": L, "targets": count, "gradients": {same layout as the model file's weights}}
std::string gradients_to_json(const learn::ModelSpec& spec, double loss, int targets, const std::vector<double>& grads,
                              int indent = -1);

// Layer `layer` of a model that has just run one example (a batch of 1) as a lab config: the residual
// stream X_layer (and the encoded source) as explicit rows, that layer's W_Q, W_K, W_V per head and W_O,
// the model's scale, temperature, mask and RoPE. The lab's Engine then computes exactly that layer.
Config layer_config(const learn::Model<float>& model, const std::vector<std::string>& names,
                    const std::vector<std::string>& source_names, int layer);

// Every stage of every layer of a trained model on one example, computed by the lab's Engine (one
// engine): the top-level fields are layer 0's, exactly as `attnlab-cli run` prints for a config; "layers"
// holds every layer in the same form; then logits, predictions and accuracy. "" or an error.
// With `ablation` (its heads checked here; `means` for the mean mode, learn/inspect.h), those heads'
// outputs are replaced in the model's forward pass: every later layer's input stream, the logits and the
// predictions are the ablated model's, and "ablated" lists the heads and the mode. Each layer's stages are
// the lab's on that layer's input, so an ablated head's own attention and output are shown as computed.
std::string run_model_json(const learn::TrainSetup& setup, const std::vector<float>& params,
                           const learn::Example& example, std::string& out, int indent = -1,
                           const learn::AblationSpec* ablation = nullptr, const learn::HeadMeans<float>* means = nullptr);

}  // namespace attn
