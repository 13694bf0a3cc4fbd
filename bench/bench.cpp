// attnlab-bench — times one multi-head attention forward pass and prints one JSON line per case:
//   {"impl":..., "n":..., "d_model":..., "heads":..., "causal":..., "ms":..., "gflops":...}
// GFLOP/s = (8·n·d_model² + 4·n²·d_model) / time: the four projections and the two attention
// products, single thread, with the heads×n×n weights materialised. Causal cases count the same
// FLOPs, so skipping masked work shows up as a higher effective rate.
//
// impls: "engine" (the fast kernels, best ISA here), "scalar" (the same kernels without SIMD),
// "reference" (the plain loops), and natively "openblas" (cblas_sgemm for every product, one
// thread, the engine's softmax). Each engine line carries the speed-ups over the others measured in
// the same run. A last line times the lab's default-size recompute.
//
//   attnlab-bench [--quick] [--max-n N] [--impl NAME]...
//   attnlab-bench --train [--steps N]
//   attnlab-bench --train-recurrent [--steps N]   (delayed copy: attention, rnn, lstm)
//   attnlab-bench --pass-against-n [--max-n N]    (one forward + backward against n, each architecture)
//
// --train times training instead (the learning engine, docs/train.md): the induction model (2 layers,
// n 32, batch 32, vocab 28, causal, learned positions, AdamW) with 2 and 4 heads and d_model 32 and 64
// (d_k = d_model / heads), one line each:
//   {"impl":"engine-train","isa":...,"layers":2,"d_model":...,"heads":...,"n":32,"batch":32,
//    "steps":...,"ms_per_step":...,"steps_per_s":...}
// bench/train_bench.sh runs it natively, as WebAssembly and with PyTorch side by side.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine.h"
#include "kernels.h"
#include "learn/train.h"

#if ATTNLAB_HAVE_OPENBLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
#endif

namespace {

struct Case {
  int n, d_model, heads;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median of repeated runs; at least 3, more until ~0.25 s were spent (after one warm-up run).
double time_ms(const std::function<void()>& run) {
  run();
  std::vector<double> t;
  const double start = now_ms();
  while (t.size() < 3 || (now_ms() - start < 250.0 && t.size() < 50)) {
    const double t0 = now_ms();
    run();
    t.push_back(now_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void check(const std::string& error) {
  if (error.empty()) return;
  std::fprintf(stderr, "attnlab-bench: %s\n", error.c_str());
  std::exit(1);
}

double gflops(const Case& c, double ms) {
  const double n = c.n, d = c.d_model;
  return (8.0 * n * d * d + 4.0 * n * n * d) / (ms * 1e6);
}

attn::Config make_config(const Case& c, bool causal) {
  attn::Config cfg;
  cfg.d_model = c.d_model, cfg.heads = c.heads, cfg.d_k = cfg.d_v = c.d_model / c.heads;
  cfg.positional = attn::Positional::none;
  cfg.target.text.clear();  // explicit x: no tokenizer, rows labelled t0, t1, ...
  cfg.target.x.resize((size_t)c.n * c.d_model);
  cfg.target.x_rows = c.n;
  uint32_t s = 12345;
  for (float& v : cfg.target.x) {
    s = s * 1664525u + 1013904223u;
    v = (float)((s >> 9) & 0x3FFF) / 8192.0f - 1.0f;
  }
  if (causal) cfg.mask = {{attn::MaskTerm::Kind::causal}};
  return cfg;
}

const attn::KernelSet* kernel_set(const char* name) {
  for (const attn::KernelSet* k : attn::available_kernel_sets())
    if (std::string(k->name) == name) return k;
  return nullptr;
}

// The engine's forward from the projections on (embedding and weight generation are set-up, not timed).
double time_engine(const Case& c, bool causal, const attn::KernelSet* k) {
  attn::Engine e({.keep_scores = false, .row_stats = false});
  e.set_kernels(k);
  check(e.set_config(make_config(c, causal)));
  e.compute();
  return time_ms([&] {
    e.invalidate(attn::Stage::project);
    e.compute();
  });
}

#if ATTNLAB_HAVE_OPENBLAS
// The same forward with cblas_sgemm for every product (full n×n even when causal, as BLAS does).
double time_openblas(const Case& c, bool causal) {
  attn::Engine e({.keep_scores = true, .row_stats = false});
  check(e.set_config(make_config(c, causal)));
  e.compute();
  const attn::Result& r = e.result();
  const int n = c.n, D = c.d_model, H = c.heads, dk = r.d_k, dv = r.d_v, HK = H * dk, HV = H * dv;
  std::vector<float> q((size_t)n * HK), k((size_t)n * HK), v((size_t)n * HV), s((size_t)H * n * n),
      w(s.size()), concat((size_t)n * HV), out((size_t)n * D);
  std::vector<uint8_t> fully((size_t)n);
  const float alpha = 1.0f / std::sqrt((float)dk);
  const attn::KernelSet& K = attn::kernels();
  return time_ms([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, HK, D, 1.0f, r.x.data(), D, r.w_q.data(), HK, 0.0f, q.data(), HK);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, HK, D, 1.0f, r.x.data(), D, r.w_k.data(), HK, 0.0f, k.data(), HK);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, HV, D, 1.0f, r.x.data(), D, r.w_v.data(), HV, 0.0f, v.data(), HV);
    for (int h = 0; h < H; ++h) {
      float* sh = s.data() + (size_t)h * n * n;
      float* wh = w.data() + (size_t)h * n * n;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, dk, alpha, q.data() + h * dk, HK, k.data() + h * dk, HK, 0.0f, sh, n);
      K.softmax_rows({.rows = n, .cols = n, .s = sh, .lds = n, .allowed = r.mask.allowed.data(), .ldm = n, .w = wh, .ldw = n,
                       .fully_masked = fully.data()});
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, dv, n, 1.0f, wh, n, v.data() + h * dv, HV, 0.0f, concat.data() + h * dv, HV);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, D, HV, 1.0f, concat.data(), HV, r.w_o.data(), D, 0.0f, out.data(), D);
  });
}
#endif

void print_line(const char* impl, const char* isa, const Case& c, bool causal, double ms, const std::string& extra = "") {
  std::printf("{\"impl\":\"%s\",\"isa\":\"%s\",\"n\":%d,\"d_model\":%d,\"heads\":%d,\"causal\":%s,\"ms\":%.4f,\"gflops\":%.2f%s}\n",
              impl, isa, c.n, c.d_model, c.heads, causal ? "true" : "false", ms, gflops(c, ms), extra.c_str());
  std::fflush(stdout);
}

std::string ratio(const char* name, double base_ms, double ms) {
  if (!(base_ms > 0) || !(ms > 0)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, ",\"speedup_vs_%s\":%.2f", name, base_ms / ms);
  return buf;
}

// Milliseconds per training step: a warm-up, then at least min_steps steps until ~`budget_ms` passed.
std::pair<double, int> ms_per_step(attn::learn::Trainer& t, int min_steps, double budget_ms) {
  t.run(10);  // warm-up: buffers laid out, caches warm
  int steps = 0;
  const double t0 = now_ms();
  while (steps < min_steps || now_ms() - t0 < budget_ms) steps += t.run(5);
  return {(now_ms() - t0) / steps, steps};
}

// Training steps per second on the induction model.
int bench_training(int min_steps, double budget_ms) {
  for (const auto& [d_model, heads] : {std::pair{32, 2}, {32, 4}, {64, 2}, {64, 4}}) {
    attn::learn::TrainSetup s = attn::learn::default_setup(*attn::learn::find_task("induction"));
    s.spec.d_model = d_model, s.spec.heads = heads, s.spec.d_k = s.spec.d_v = d_model / heads;
    s.train.steps = attn::learn::TrainLimits::max_steps, s.train.eval_every = attn::learn::TrainLimits::max_steps;
    attn::learn::Trainer t;
    check(t.start(s));
    const auto [ms, steps] = ms_per_step(t, min_steps, budget_ms);
    // n: the task's sequences (as PyTorch's); positions_computed: what a step ran of each (its last step's)
    std::printf("{\"impl\":\"engine-train\",\"isa\":\"%s\",\"layers\":%d,\"d_model\":%d,\"heads\":%d,\"n\":%d,"
                "\"positions_computed\":%d,\"batch\":%d,\"micro_batch\":%d,\"steps\":%d,\"ms_per_step\":%.4f,"
                "\"steps_per_s\":%.1f}\n",
                attn::kernels().name, s.spec.layers, s.spec.d_model, s.spec.heads, s.spec.n_ctx, t.positions_computed(),
                s.train.batch, s.train.micro_batch, steps, ms, 1000.0 / ms);
    std::fflush(stdout);
  }
  return 0;
}

// Training steps per second on the delayed copy (vocab 16, n 32, batch 32, d_model 32, hidden 64, the
// task's defaults) for each architecture, with the default micro-batches of 8 and with the whole batch
// in one pass (as the PyTorch peer, bench/torch_recurrent_peer.py, runs it).
int bench_recurrent_training(int min_steps, double budget_ms) {
  for (const attn::learn::ArchKind& kind : attn::learn::arch_kinds())
    for (int micro : {8, 32}) {
      attn::learn::TrainSetup s = attn::learn::default_setup(*attn::learn::find_task("delayed_copy"));
      s.spec.model = kind.arch;
      s.train.micro_batch = micro;
      s.train.steps = attn::learn::TrainLimits::max_steps, s.train.eval_every = attn::learn::TrainLimits::max_steps;
      attn::learn::Trainer t;
      check(t.start(s));
      const auto [ms, steps] = ms_per_step(t, min_steps, budget_ms);
      std::printf("{\"impl\":\"engine-train\",\"isa\":\"%s\",\"task\":\"delayed_copy\",\"model\":\"%s\",\"params\":%zu,"
                  "\"n\":32,\"batch\":32,\"micro_batch\":%d,\"steps\":%d,\"ms_per_step\":%.4f,\"steps_per_s\":%.1f}\n",
                  attn::kernels().name, kind.name, t.model().params().size(), micro, steps, ms, 1000.0 / ms);
      std::fflush(stdout);
    }
  return 0;
}

// One forward and backward pass (batch 8, no optimiser) against the sequence length n, for the three
// architectures at the delayed copy's sizes: what "attention computes every position at once, a
// recurrent layer n dependent steps" costs on one CPU core. Median ms per pass (time_ms).
int bench_pass_against_n(int max_n) {
  for (int n : {8, 16, 32, 64, 128, 256, 512}) {
    if (n > max_n) continue;
    for (const attn::learn::ArchKind& kind : attn::learn::arch_kinds()) {
      attn::learn::TrainSetup s = attn::learn::default_setup(*attn::learn::find_task("delayed_copy"));
      s.spec.model = kind.arch, s.spec.n_ctx = n;
      attn::learn::Model<float> model(s.spec);
      model.init(1);
      attn::Rng rng(2);
      attn::learn::Batch b;
      b.size = 8, b.n = n;
      for (int i = 0; i < 8 * n; ++i) b.tokens.push_back((int)(rng.next_u64() % 16)), b.targets.push_back((int)(rng.next_u64() % 16));
      const double ms = time_ms([&] {
        model.forward(b);
        model.backward();
      });
      std::printf("{\"impl\":\"engine-pass\",\"isa\":\"%s\",\"model\":\"%s\",\"n\":%d,\"batch\":8,\"layers\":1,"
                  "\"sequential_steps_per_layer\":%d,\"ms_per_pass\":%.4f}\n",
                  attn::kernels().name, kind.name, n, kind.gates ? n : 1, ms);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int max_n = 1024;
  bool quick = false;
  std::vector<std::string> only;
  bool train = false, train_recurrent = false, pass_against_n = false;
  int train_steps = 100;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true, max_n = 128;
    else if (!std::strcmp(argv[i], "--max-n") && i + 1 < argc) max_n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--impl") && i + 1 < argc) only.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--train")) train = true;
    else if (!std::strcmp(argv[i], "--train-recurrent")) train_recurrent = true;
    else if (!std::strcmp(argv[i], "--pass-against-n")) pass_against_n = true;
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) train_steps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: attnlab-bench [--quick] [--max-n N] [--impl engine|scalar|reference|openblas]...\n"
                           "       attnlab-bench --train [--steps N]\n"
                           "       attnlab-bench --train-recurrent [--steps N]\n"
                           "       attnlab-bench --pass-against-n [--max-n N]\n");
      return 2;
    }
  }
  if (train) return bench_training(train_steps, quick ? 500.0 : 2000.0);
  if (train_recurrent) return bench_recurrent_training(train_steps, quick ? 500.0 : 2000.0);
  if (pass_against_n) return bench_pass_against_n(std::min(max_n, 512));
  const auto wanted = [&](const char* impl) { return only.empty() || std::find(only.begin(), only.end(), impl) != only.end(); };
#if ATTNLAB_HAVE_OPENBLAS
  openblas_set_num_threads(1);
#endif
  const attn::KernelSet& best = attn::kernels();
  const attn::KernelSet* scalar = kernel_set("scalar");
  const attn::KernelSet* reference = kernel_set("reference");
  const Case cases[] = {{16, 64, 4}, {64, 128, 4}, {128, 256, 8}, {256, 512, 8}, {512, 512, 8}, {1024, 512, 8}};
  for (const Case& c : cases) {
    if (c.n > max_n) continue;
    for (bool causal : {false, true}) {
      double t_openblas = NAN, t_scalar = NAN, t_ref = NAN;
#if ATTNLAB_HAVE_OPENBLAS
      if (wanted("openblas")) print_line("openblas", "openblas", c, causal, t_openblas = time_openblas(c, causal));
#endif
      if (wanted("scalar") && scalar && (!quick || c.n <= 64)) print_line("scalar", "scalar", c, causal, t_scalar = time_engine(c, causal, scalar));
      // The plain loops are slow: run them where they finish in reasonable time.
      if (wanted("reference") && reference && c.n <= 256 && (!quick || c.n <= 64))
        print_line("reference", "reference", c, causal, t_ref = time_engine(c, causal, reference));
      if (wanted("engine")) {
        const double t = time_engine(c, causal, &best);
        print_line("engine", best.name, c, causal, t, ratio("openblas", t_openblas, t) + ratio("scalar", t_scalar, t) + ratio("reference", t_ref, t));
      }
    }
  }
  // What the lab pays per change at its default size: everything from the projections on, and a
  // mask toggle (softmax onwards).
  if (wanted("engine")) {
    const Case ui{32, 64, 4};
    attn::Engine e;
    check(e.set_config(make_config(ui, false)));
    e.compute();
    const double full = time_ms([&] { e.invalidate(attn::Stage::project); e.compute(); });
    const double mask = time_ms([&] { e.invalidate(attn::Stage::softmax); e.compute(); });
    print_line("engine-ui-recompute", best.name, ui, false, full, ",\"mask_toggle_ms\":" + std::to_string(mask));
  }
  return 0;
}
