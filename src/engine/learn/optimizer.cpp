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
  double sum = 0.0;
  for (size_t i = 0; i < size; ++i) sum += (double)g[i] * g[i];
  return std::sqrt(sum);
}

double AdamW::step(float* p, float* g, size_t size) {
  const AdamWConfig& c = config_;
  const double norm = global_norm(g, size);
  if (c.clip > 0.0f && norm > c.clip) {
    const float k = (float)(c.clip / (norm + 1e-6));
    for (size_t i = 0; i < size; ++i) g[i] *= k;
  }
  ++t_;
  const float bias1 = 1.0f - (float)std::pow((double)c.beta1, t_);
  const float bias2 = 1.0f - (float)std::pow((double)c.beta2, t_);
  const float decay = 1.0f - c.lr * c.weight_decay;
  const float step = c.lr / bias1, inv_sqrt_bias2 = 1.0f / std::sqrt(bias2);
  for (size_t i = 0; i < size; ++i) {
    m_[i] = c.beta1 * m_[i] + (1.0f - c.beta1) * g[i];
    v_[i] = c.beta2 * v_[i] + (1.0f - c.beta2) * g[i] * g[i];
    // m̂/(√v̂ + eps) = (m/bias1) / (√v/√bias2 + eps)
    p[i] = p[i] * decay - step * m_[i] / (std::sqrt(v_[i]) * inv_sqrt_bias2 + c.eps);
  }
  return norm;
}

}  // namespace attn::learn
