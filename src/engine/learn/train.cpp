#include "learn/train.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attn::learn {

TrainSetup default_setup(const Task& task) {
  TrainSetup s;
  s.task = task.name;
  task.defaults(s.spec, s.train);
  return s;
}

std::string validate(const TrainSetup& s) {
  const Task* task = find_task(s.task);
  if (!task) return "task: unknown task '" + s.task + "' (one of: " + task_names() + ")";
  if (s.spec.recurrent()) {
    // A recurrent model reads one sequence left to right: only the causal, single-sequence tasks.
    ModelSpec d;
    TrainOptions o;
    task->defaults(d, o);
    const bool causal = std::any_of(d.mask.begin(), d.mask.end(), [](const MaskTerm& t) { return t.kind == MaskTerm::Kind::causal; });
    const std::string model = arch_kind(s.spec.model).name;
    if (d.cross) return "model: task " + s.task + " needs cross-attention (a source sequence); a " + model + " reads one sequence (use model attention)";
    if (!causal) return "model: task " + s.task + " needs to see later tokens (it is bidirectional); a " + model + " reads left to right (use model attention)";
  }
  if (std::string e = validate(s.spec); !e.empty()) return e;
  if (std::string e = validate(s.train); !e.empty()) return e;
  if (std::string e = task->check(s.spec, s.spec.n_ctx); !e.empty()) return e;
  if (s.spec.cross != (task->source_length(s.spec.n_ctx) > 0))
    return std::string("cross: task ") + task->name + (s.spec.cross ? " is not" : " is") + " a cross-attention task";
  if (s.spec.cross && task->source_length(s.spec.n_ctx) > s.spec.n_src)
    return "source_n: the task needs a source of " + std::to_string(task->source_length(s.spec.n_ctx)) + " tokens";
  return "";
}

Batch held_out_batch(const TrainSetup& setup) {
  Rng held_out_rng(hash_string("held-out", setup.train.seed));
  return make_batch(*find_task(setup.task), setup.spec, setup.train.eval_batch, setup.spec.n_ctx, held_out_rng);
}

std::vector<Batch> chunks_of(const Batch& b, int chunk) {
  std::vector<Batch> out;
  chunk = std::max(1, std::min(chunk, b.size));
  for (int first = 0; first < b.size; first += chunk) out.push_back(slice(b, first, std::min(chunk, b.size - first)));
  return out;
}

std::string Trainer::start(const TrainSetup& setup, const KernelSet* kernels) {
  if (std::string e = validate(setup); !e.empty()) return e;
  setup_ = setup;
  task_ = find_task(setup.task);
  model_ = Model<float>(setup.spec);
  eval_model_ = Model<float>(setup.spec);
  probe_model_ = Model<float>(setup.spec);
  for (Model<float>* m : {&model_, &eval_model_, &probe_model_}) m->set_kernels(kernels);
  model_.init(setup.train.seed);
  adamw_.reset(setup.train.adamw, model_.params().size());
  adamw_.set_kernels(kernels);
  // Separate streams for training batches and the held-out set, both from the seed.
  batch_rng_ = Rng(hash_string("batches", setup.train.seed));
  held_out_ = held_out_batch(setup);
  held_out_chunks_ = chunks_of(held_out_, setup.train.micro_batch);
  pending_ = {};
  part_ = 0;
  step_ = 0, diverged_ = converged_ = false, message_.clear(), history_.clear();
  last_train_loss_ = last_grad_norm_ = 0.0;
  t0_ = std::chrono::steady_clock::now();
  return "";
}

int Trainer::parts_per_step() const {
  const TrainOptions& t = setup_.train;
  return (t.batch + t.micro_batch - 1) / t.micro_batch;
}

int Trainer::run(int k) {
  int ran = 0;
  if (pending_.active) continue_evaluation((int)held_out_chunks_.size());  // keeps the history in step order
  while (ran < k && !done()) {
    if (!run_part()) continue;  // a part, or a divergence (then done())
    ++ran;
    if (pending_.active) break;  // deferred: the evaluation that is due comes first
  }
  return ran;
}

bool Trainer::run_part() {
  if (pending_.active) continue_evaluation((int)held_out_chunks_.size());
  if (done()) return false;
  const TrainOptions& t = setup_.train;
  if (part_ == 0) {
    // the batch is drawn into the same buffers every step (the generator's vectors aside)
    batch_ = make_batch(*task_, setup_.spec, t.batch, setup_.spec.n_ctx, batch_rng_);
    // positions after every sequence's last target: left out where nothing earlier sees them (the same
    // numbers, model.h kept_positions), once for the whole step so that its parts share one n
    if (const int kept = model_.kept_positions(batch_); kept < batch_.n) keep_first_positions(batch_, kept);
    batch_targets_ = (int)std::count_if(batch_.targets.begin(), batch_.targets.end(), [](int y) { return y >= 0; });
    step_loss_sum_ = 0.0;
  }
  // part p: sequences [p·micro_batch, +micro_batch) of the batch. loss = Σ_parts (part's mean loss ·
  // its targets) / the batch's targets, and each part's gradient is scaled by the same 1/targets.
  const int parts = parts_per_step(), first = part_ * t.micro_batch;
  const Batch* b = &batch_;
  if (parts > 1) b = &(part_batch_ = slice(batch_, first, std::min(t.micro_batch, t.batch - first)));
  // the weights change only between steps: a later part reuses the first's folded tables, and the
  // folded products' gradients wait for the last part
  const double loss = model_.forward(*b, /*targets_only=*/true, /*same_weights=*/part_ > 0 && !weights_set_);
  weights_set_ = false;
  step_loss_sum_ += loss * model_.targets_counted();
  model_.backward_part(batch_targets_, part_ > 0, /*more=*/part_ + 1 < parts);
  if (++part_ < parts) return false;
  part_ = 0;
  return finish_step();
}

bool Trainer::finish_step() {
  const TrainOptions& t = setup_.train;
  const double loss = batch_targets_ ? step_loss_sum_ / batch_targets_ : 0.0;
  const double norm = global_norm(model_.grads().data(), model_.grads().size());
  if (!std::isfinite(loss) || !std::isfinite(norm)) {
    diverged_ = true;
    message_ = "diverged at step " + std::to_string(step_ + 1) + ": " + (!std::isfinite(loss) ? "the loss" : "the gradient") +
               " is not finite; the weights are those of step " + std::to_string(step_) + " (try a smaller lr or clip)";
    return false;
  }
  backup_ = model_.params();
  adamw_.step(model_.params().data(), model_.grads().data(), model_.params().size(), norm);
  if (!std::all_of(model_.params().begin(), model_.params().end(), [](float p) { return std::isfinite(p); })) {
    model_.params() = backup_;
    diverged_ = true;
    message_ = "diverged at step " + std::to_string(step_ + 1) + ": the update made a weight non-finite; the weights are those of step " +
               std::to_string(step_) + " (try a smaller lr or clip)";
    return false;
  }
  ++step_;
  last_train_loss_ = loss, last_grad_norm_ = norm;
  if (step_ % t.eval_every == 0 || step_ == t.steps) {
    if (defer_) begin_evaluation();
    else evaluate();
  }
  return true;
}

void Trainer::begin_evaluation() {
  eval_model_.params() = model_.params();
  pending_ = {};
  pending_.active = true;
  EvalPoint& p = pending_.point;
  p.step = step_, p.train_loss = last_train_loss_, p.grad_norm = last_grad_norm_;
  p.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
}

bool Trainer::continue_evaluation(int chunks) {
  if (!pending_.active) return false;
  for (; chunks > 0 && pending_.next < held_out_chunks_.size(); --chunks, ++pending_.next) {
    const Batch& c = held_out_chunks_[pending_.next];
    const double loss = eval_model_.forward(c, false, /*same_weights=*/pending_.next > 0);
    pending_.sums.add(*task_, eval_model_, c, loss);
  }
  if (pending_.next < held_out_chunks_.size()) return false;
  const Metrics m = pending_.sums.finish(*task_, setup_.spec.layers, setup_.spec.recurrent() ? 0 : setup_.spec.heads);
  EvalPoint p = pending_.point;
  p.loss = m.loss, p.accuracy = m.accuracy, p.pattern_score = m.pattern_score, p.pattern = m.pattern;
  p.saturation = m.saturation;
  history_.push_back(std::move(p));
  pending_ = {};
  check_converged();
  return true;
}

void Trainer::check_converged() {
  const TrainOptions& t = setup_.train;
  if (t.stop_accuracy <= 0.0f || converged_ || step_ >= t.steps || (int)history_.size() < t.stop_evaluations) return;
  for (size_t i = history_.size() - (size_t)t.stop_evaluations; i < history_.size(); ++i)
    if (history_[i].step == 0 || history_[i].accuracy < (double)t.stop_accuracy) return;
  converged_ = true;
  char pct[16];
  std::snprintf(pct, sizeof pct, "%g%%", 100.0 * (double)t.stop_accuracy);
  message_ = "converged at step " + std::to_string(step_) + ": held-out accuracy at least " + pct + " at " +
             std::to_string(t.stop_evaluations) + (t.stop_evaluations == 1 ? " evaluation" : " evaluations in a row");
}

EvalPoint Trainer::evaluate() {
  if (pending_.active) continue_evaluation((int)held_out_chunks_.size());
  begin_evaluation();
  continue_evaluation((int)held_out_chunks_.size());
  return history_.back();
}

bool Trainer::adopt(const std::vector<float>& params, int step, const std::vector<EvalPoint>& before) {
  if (params.size() != model_.params().size()) return false;
  model_.params() = params;
  adamw_.reset(setup_.train.adamw, params.size());
  step_ = std::clamp(step, 0, setup_.train.steps);
  part_ = 0;
  diverged_ = converged_ = false, message_.clear(), history_.clear(), pending_ = {};
  for (const EvalPoint& p : before)
    if (p.step < step_ && (history_.empty() || p.step > history_.back().step)) history_.push_back(p);
  last_train_loss_ = last_grad_norm_ = 0.0;
  return true;
}

void Trainer::restore(const std::vector<float>& params) {
  if (params.size() == model_.params().size()) model_.params() = params, weights_set_ = true;
}

DistanceProfile Trainer::gradient_by_distance(int sequences) {
  const Batch held = slice(held_out_, 0, std::clamp(sequences, 1, held_out_.size));
  probe_model_.params() = model_.params();
  return learn::gradient_by_distance(probe_model_, held);
}

Example Trainer::held_out_example(int index) const {
  Batch one = slice(held_out_, std::clamp(index, 0, held_out_.size - 1), 1);
  return Example{std::move(one.tokens), std::move(one.targets), std::move(one.source)};
}

Probe Trainer::probe(const Example& e, bool with_gradients, const std::vector<float>* weights) {
  const Batch b = batch_of(e);
  Probe p;
  p.example = e;
  if (!check_batch(setup_.spec, b).empty()) return p;
  probe_model_.params() = weights && weights->size() == model_.params().size() ? *weights : model_.params();
  p.loss = probe_model_.forward(b);
  if (with_gradients) probe_model_.backward();
  const ModelSpec& s = setup_.spec;
  p.n = b.n, p.m = probe_model_.m(), p.layers = s.layers, p.heads = s.recurrent() ? 0 : s.heads;
  if (with_gradients) p.param_grads = probe_model_.grads();
  if (s.recurrent()) {
    // no attention weights: the influence matrix instead (its own passes; the logits are the probe's)
    const std::vector<float> logits = probe_model_.logits();
    if (with_gradients) {
      const std::vector<double> inf = influence_matrix(probe_model_, b);
      p.influence.assign(inf.begin(), inf.end());
    }
    for (int i = 0; i < b.n; ++i) {
      const float* z = logits.data() + (size_t)i * s.vocab;
      p.predictions.push_back((int)(std::max_element(z, z + s.vocab) - z));
    }
    return p;
  }
  for (int l = 0; l < s.layers; ++l) {
    p.weights.push_back(probe_model_.weights(l));
    if (with_gradients) {
      p.weight_grads.push_back(probe_model_.weight_grads(l));
      p.score_grads.push_back(probe_model_.score_grads(l));
    }
  }
  for (int i = 0; i < b.n; ++i) {
    const float* z = probe_model_.logits().data() + (size_t)i * s.vocab;
    p.predictions.push_back((int)(std::max_element(z, z + s.vocab) - z));
  }
  return p;
}

}  // namespace attn::learn
