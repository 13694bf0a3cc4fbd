// attnlab-ui-bench — what one frame of the lab's UI costs natively, without a GPU: Dear ImGui and the
// lab's panels (frame(App&)) plus the engine's recompute, with the heatmap textures filled as the
// shells fill them (the upload itself is the GPU's and is not timed here). The browser's figure is
// tests/e2e/perf.mjs; this one is for a profiler (perf record ./build/attnlab-ui-bench).
//   attnlab-ui-bench [--n 103] [--heads 8] [--d-model 256] [--size 1280x720] [--frames 300] [--static]
// Prints one JSON line with what was measured (tokens, heads, d_model in effect) beside the figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app.h"
#include "imgui.h"
#include "textures.h"

namespace {

// Keeps each texture's pixels, as a GPU would, so that a refill costs its copy.
class MemoryTextures final : public attnlab::TextureBackend {
 public:
  ImTextureID upload(ImTextureID existing, int w, int h, const uint32_t* rgba) override {
    size_t id = existing ? (size_t)(intptr_t)existing : (store_.emplace_back(), store_.size());
    store_[id - 1].assign(rgba, rgba + (size_t)w * h);
    ++uploads;
    return (ImTextureID)(intptr_t)id;
  }
  void release(ImTextureID) override {}
  long uploads = 0;

 private:
  std::vector<std::vector<uint32_t>> store_;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[std::min(v.size() - 1, (size_t)(p * (double)v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  int n = 103, heads = 8, d_model = 256, count = 300;
  float W = 1280, H = 720;
  bool live = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--n") n = std::atoi(v), ++i;
    else if (a == "--heads") heads = std::atoi(v), ++i;
    else if (a == "--d-model") d_model = std::atoi(v), ++i;
    else if (a == "--frames") count = std::atoi(v), ++i;
    else if (a == "--size") std::sscanf(v, "%fx%f", &W, &H), ++i;
    else if (a == "--static") live = false;
    else {
      std::fprintf(stderr, "usage: attnlab-ui-bench [--n N] [--heads H] [--d-model D] [--size WxH] [--frames F] [--static]\n");
      return 2;
    }
  }
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(W, H);
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k + 1;
  attnlab::App app;
  MemoryTextures textures;
  app.textures = &textures;
  std::ifstream in(ATTNLAB_FONT_PATH, std::ios::binary);
  const std::vector<char> font((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  attnlab::setup_style(app, font.data(), (int)font.size(), 1.0f);
  unsigned char* pixels;
  int pw, ph;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &pw, &ph);

  // A real sentence, repeated to n words (perf.mjs uses the same words).
  static const char* words[] = {"the", "cat", "sat", "on", "the", "mat", "and", "slept", "well", "until", "morning"};
  std::string text;
  for (int i = 0; i < n; ++i) text += std::string(i ? " " : "") + words[i % 11];
  attn::Config c = attnlab::default_lab_config();
  c.target.text = text;
  c.heads = heads, c.d_model = d_model, c.d_k = c.d_v = d_model / heads;
  attn::MaskTerm causal;
  causal.kind = attn::MaskTerm::Kind::causal;
  c.mask = {causal};
  app.text = text;
  if (std::string e = attnlab::apply_config(app, c); !e.empty()) {
    std::fprintf(stderr, "attnlab-ui-bench: %s\n", e.c_str());
    return 1;
  }
  app.ui.show_help = true, app.ui.show_weights = true;  // as perf.mjs opens them
  using clock = std::chrono::steady_clock;
  std::vector<double> ui_ms, all_ms;
  long vertices = 0;
  for (int f = 0; f < 30 + count; ++f) {
    const auto t0 = clock::now();
    if (live) {
      attn::Config t = app.engine.config();
      t.temperature = f % 2 ? 0.9f : 1.0f;
      attnlab::apply_config(app, t);
    }
    io.DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    const auto t1 = clock::now();
    attnlab::frame(app);
    ImGui::Render();
    const auto t2 = clock::now();
    if (f >= 30) {
      ui_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
      all_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
      vertices += ImGui::GetDrawData()->TotalVtxCount;
    }
  }
  const attn::Config& e = app.engine.config();
  std::printf("{\"n\": %d, \"heads\": %d, \"d_model\": %d, \"width\": %.0f, \"height\": %.0f, \"mode\": \"%s\", \"frames\": %d, "
              "\"frame_ms_median\": %.2f, \"frame_ms_p95\": %.2f, \"ui_ms_median\": %.2f, \"ui_ms_p95\": %.2f, \"vertices\": %ld, "
              "\"texture_uploads_per_frame\": %.1f}\n",
              (int)app.labels.size(), e.heads, e.d_model, W, H, live ? "live" : "static", count, percentile(all_ms, 0.5), percentile(all_ms, 0.95),
              percentile(ui_ms, 0.5), percentile(ui_ms, 0.95), vertices / std::max(1, count), (double)textures.uploads / (30 + count));
  ImGui::DestroyContext();
  return 0;
}
