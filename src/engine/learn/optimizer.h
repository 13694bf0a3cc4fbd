// optimizer.h — AdamW (Loshchilov & Hutter), with optional gradient clipping by global norm, over one
// flat parameter vector. The same update as torch.optim.AdamW (decoupled weight decay, bias-corrected
// moments, eps added to √v̂), so a run can be compared step by step with PyTorch.
#pragma once
#include <string>
#include <vector>

#include "kernels.h"

namespace attn::learn {

struct AdamWConfig {
  float lr = 1e-2f;
  float beta1 = 0.9f, beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;  // decoupled: p ← p − lr·λ·p, applied to every parameter
  float clip = 0.0f;          // clip the gradient to this global L2 norm; 0 = no clipping
  bool operator==(const AdamWConfig&) const = default;
};

// "" when usable, else one line naming the field (lr > 0 and finite, betas in [0, 1), ...).
std::string validate(const AdamWConfig& c);

// The global L2 norm of a gradient, summed in double.
double global_norm(const float* g, size_t size);

class AdamW {
 public:
  AdamW() = default;
  AdamW(const AdamWConfig& config, size_t size) { reset(config, size); }
  void reset(const AdamWConfig& config, size_t size);

  // One step, t ← t + 1:
  //   g ← g · min(1, clip / (‖g‖ + 1e-6))           if clip > 0 (as torch.nn.utils.clip_grad_norm_)
  //   p ← p − lr·λ·p
  //   m ← β1·m + (1 − β1)·g          v ← β2·v + (1 − β2)·g²
  //   p ← p − lr · (m / (1 − β1ᵗ)) / (√(v / (1 − β2ᵗ)) + eps)
  // Returns ‖g‖ before clipping. The gradient is clipped in place.
  double step(float* params, float* grads, size_t size) { return step(params, grads, size, global_norm(grads, size)); }
  // The same with ‖g‖ (global_norm) already known: the trainer checks it for divergence first.
  double step(float* params, float* grads, size_t size, double norm);
  // The kernels that run the update (nullptr, the default: the fastest for this CPU).
  void set_kernels(const KernelSet* k) { kernels_ = k; }

  int steps() const { return t_; }
  const std::vector<float>& first_moment() const { return m_; }
  const std::vector<float>& second_moment() const { return v_; }
  const AdamWConfig& config() const { return config_; }

 private:
  AdamWConfig config_;
  std::vector<float> m_, v_;
  int t_ = 0;
  const KernelSet* kernels_ = nullptr;
};

}  // namespace attn::learn
