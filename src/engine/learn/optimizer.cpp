#include "learn/optimizer.h"

#include <cmath>

namespace attn::learn {

std::string validate(const AdamWConfig& c) {
  if (!std::isfinite(c.lr) || c.lr <= 0.0f || c.lr > 10.0f) return "lr: must be a finite number in (0, 10]";
  if (!std::isfinite(c.beta1) || c.beta1 < 0.0f || c.beta1 >= 1.0f) return "betas[0]: must be in [0, 1)";
  if (!std::isfinite(c.beta2) || c.beta2 < 0.0f || c.beta2 >= 1.0f) return "betas[1]: must be in [0, 1)";
  if (!std::isfinite(c.eps) || c.eps <= 0.0f || c.eps > 1.0f) return "eps: must be a finite number in (0, 1]";
  if (!std::isfinite(c.weight_decay) || c.weight_decay < 0.0f || c.weight_decay > 10.0f)
    return "weight_decay: must be a finite number in [0, 10]";
  if (!std::isfinite(c.clip) || c.clip < 0.0f) return "clip: must be a finite number >= 0 (0 = no clipping)";
  return "";
}

void AdamW::reset(const AdamWConfig& config, size_t size) {
  config_ = config;
  m_.assign(size, 0.0f);
  v_.assign(size, 0.0f);
  t_ = 0;
}

double global_norm(const float* g, size_t size) {
  double sum[4] = {0.0, 0.0, 0.0, 0.0};  // four partial sums: independent chains the compiler can vectorise
  size_t i = 0;
  for (; i + 4 <= size; i += 4)
    for (int k = 0; k < 4; ++k) sum[k] += (double)g[i + k] * g[i + k];
  for (; i < size; ++i) sum[0] += (double)g[i] * g[i];
  return std::sqrt((sum[0] + sum[1]) + (sum[2] + sum[3]));
}

double AdamW::step(float* p, float* g, size_t size, double norm) {
  const AdamWConfig& c = config_;
  if (c.clip > 0.0f && norm > c.clip) {
    const float k = (float)(c.clip / (norm + 1e-6));
    for (size_t i = 0; i < size; ++i) g[i] *= k;
  }
  ++t_;
  const float bias1 = 1.0f - (float)std::pow((double)c.beta1, t_);
  const float bias2 = 1.0f - (float)std::pow((double)c.beta2, t_);
  // m̂/(√v̂ + eps) = (m/bias1) / (√v/√bias2 + eps): the kernel's step is lr/bias1, its inv_sqrt_bias2 1/√bias2
  const KernelSet& ks = kernels_ ? *kernels_ : kernels();
  ks.adamw({.p = p, .g = g, .m = m_.data(), .v = v_.data(), .n = size, .beta1 = c.beta1, .beta2 = c.beta2,
            .decay = 1.0f - c.lr * c.weight_decay, .step = c.lr / bias1, .inv_sqrt_bias2 = 1.0f / std::sqrt(bias2), .eps = c.eps});
  return norm;
}

}  // namespace attn::learn
