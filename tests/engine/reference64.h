// reference64.h — an independent float64 forward pass, written from the formulas for the tests.
// It takes only the inputs of a Result (X, Xs, the weights, the mask, the scale) and recomputes
// everything else in double precision, without any engine code.
#pragma once
#include <cmath>
#include <vector>

#include "engine.h"

namespace ref64 {

using Mat = std::vector<std::vector<double>>;

inline Mat zeros(int r, int c) { return Mat((size_t)r, std::vector<double>((size_t)c, 0.0)); }

// rows×cols block of a float buffer with row stride ld starting at column c0
inline Mat take(const std::vector<float>& buf, int rows, int cols, int ld, int c0 = 0) {
  Mat m = zeros(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m[i][j] = buf[(size_t)i * ld + c0 + j];
  return m;
}

inline Mat matmul(const Mat& a, const Mat& b) {
  Mat c = zeros((int)a.size(), (int)b[0].size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t p = 0; p < b.size(); ++p)
      for (size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][p] * b[p][j];
  return c;
}

inline void rope(Mat& m) {
  const int d = (int)m[0].size();
  for (size_t pos = 0; pos < m.size(); ++pos)
    for (int i = 0; 2 * i + 1 < d; ++i) {
      const double th = (double)pos * std::pow(10000.0, -2.0 * i / d);
      const double a = m[pos][2 * i], b = m[pos][2 * i + 1];
      m[pos][2 * i] = a * std::cos(th) - b * std::sin(th);
      m[pos][2 * i + 1] = a * std::sin(th) + b * std::cos(th);
    }
}

struct Forward {
  std::vector<Mat> q, k, v, scores, weights, out;  // per head
  Mat concat, output;
};

inline Forward forward(const attn::Result& r, bool use_rope) {
  Forward f;
  const int H = r.heads, D = r.d_model;
  const Mat X = take(r.x, r.n, D, D), Xs = take(r.x_source, r.m, D, D);
  f.concat = zeros(r.n, H * r.d_v);
  for (int h = 0; h < H; ++h) {
    Mat q = matmul(X, take(r.w_q, D, r.d_k, H * r.d_k, h * r.d_k));
    Mat k = matmul(Xs, take(r.w_k, D, r.d_k, H * r.d_k, h * r.d_k));
    Mat v = matmul(Xs, take(r.w_v, D, r.d_v, H * r.d_v, h * r.d_v));
    if (use_rope) rope(q), rope(k);
    Mat s = zeros(r.n, r.m), w = zeros(r.n, r.m);
    for (int i = 0; i < r.n; ++i) {
      double mx = -INFINITY;
      for (int j = 0; j < r.m; ++j) {
        for (int c = 0; c < r.d_k; ++c) s[i][j] += q[i][c] * k[j][c];
        s[i][j] *= (double)r.alpha;
        if (r.mask.allows(i, j)) mx = std::max(mx, s[i][j]);
      }
      double sum = 0;
      for (int j = 0; j < r.m; ++j)
        if (r.mask.allows(i, j)) sum += (w[i][j] = std::exp(s[i][j] - mx));
      for (int j = 0; j < r.m; ++j) w[i][j] = sum > 0 ? w[i][j] / sum : 0.0;
    }
    Mat o = matmul(w, v);
    for (int i = 0; i < r.n; ++i)
      for (int c = 0; c < r.d_v; ++c) f.concat[i][h * r.d_v + c] = o[i][c];
    f.q.push_back(q), f.k.push_back(k), f.v.push_back(v), f.scores.push_back(s), f.weights.push_back(w), f.out.push_back(o);
  }
  f.output = matmul(f.concat, take(r.w_o, H * r.d_v, D, D));
  return f;
}

// max |a - b| / (1 + |b|) over a float view and a double matrix
inline double max_rel_err(const attn::MatView& a, const Mat& b) {
  double e = 0;
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) e = std::max(e, std::fabs(a(i, j) - b[i][j]) / (1.0 + std::fabs(b[i][j])));
  return e;
}

}  // namespace ref64
