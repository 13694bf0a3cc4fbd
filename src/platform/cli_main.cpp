// attnlab-cli — runs a config through the engine and prints every matrix (docs/cli.md).
//
//   attnlab-cli run CONFIG.json|-  [--format json|csv] [--out DIR] [--indent N] [--kernels NAME]
//   attnlab-cli explain CONFIG.json|- --head H --row I --col J
//   attnlab-cli kernels
// Exit codes: 0 success, 2 bad usage or bad config (one line on stderr naming the field), 1 I/O error.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli_train.h"
#include "config_json.h"
#include "engine.h"
#include "explain.h"
#include "result_json.h"

namespace {

constexpr const char* kUsage =
    "usage: attnlab-cli run CONFIG.json|- [--format json|csv] [--out DIR] [--indent N] [--kernels NAME]\n"
    "       attnlab-cli explain CONFIG.json|- --head H --row I --col J\n"
    "       attnlab-cli kernels\n"
    "       attnlab-cli train CONFIG.json|- [--steps N] [--out MODEL.json] [--log LOG.jsonl]   (docs/train.md)\n"
    "       attnlab-cli run MODEL.json [--tokens \"a b\"] [--source \"1 2\"]\n"
    "       attnlab-cli grad MODEL.json BATCH.json|- [--double]\n"
    "Runs multi-head attention on CONFIG (see docs/cli.md) and prints every intermediate matrix.\n";

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "attnlab-cli: %s\n", message.c_str());
  return code;
}

bool read_all(const std::string& path, std::string& out) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    out = ss.str();
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool parse_int(const char* s, int& out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < -1000000 || v > 1000000) return false;
  out = (int)v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (attn::is_learn_command(argc, argv)) return attn::learn_main(argc, argv);  // train, grad, run MODEL.json
  if (command == "kernels") {
    for (const attn::KernelSet* k : attn::available_kernel_sets()) std::printf("%s\n", k->name);
    return 0;
  }
  if (command != "run" && command != "explain") return fail(2, "unknown command '" + command + "'\n" + kUsage);
  if (argc < 3) return fail(2, "missing CONFIG (a file, or - for stdin)");

  std::string format = "json", out_dir, kernels;
  int indent = -1, head = -1, row = -1, col = -1;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--format" && has_value) format = argv[++i];
    else if (a == "--out" && has_value) out_dir = argv[++i];
    else if (a == "--kernels" && has_value) kernels = argv[++i];
    else if (a == "--indent" && has_value) { if (!parse_int(argv[++i], indent)) return fail(2, "--indent: expected an integer"); }
    else if (a == "--head" && has_value) { if (!parse_int(argv[++i], head)) return fail(2, "--head: expected an integer"); }
    else if (a == "--row" && has_value) { if (!parse_int(argv[++i], row)) return fail(2, "--row: expected an integer"); }
    else if (a == "--col" && has_value) { if (!parse_int(argv[++i], col)) return fail(2, "--col: expected an integer"); }
    else return fail(2, "unknown or incomplete option '" + a + "'");
  }
  if (format != "json" && format != "csv") return fail(2, "--format: expected json or csv, got '" + format + "'");
  if (format == "csv" && out_dir.empty()) return fail(2, "--format csv needs --out DIR");
  if (!kernels.empty() && !attn::select_kernels(kernels)) return fail(2, "--kernels: no kernel set '" + kernels + "' (see attnlab-cli kernels)");

  std::string text;
  if (!read_all(argv[2], text)) return fail(1, std::string(argv[2]) + ": cannot read the file");
  attn::Config config;
  if (std::string e = attn::parse_config(text, config); !e.empty()) return fail(2, e);
  attn::Engine engine;
  if (std::string e = engine.set_config(config); !e.empty()) return fail(2, e);
  engine.compute();
  const attn::Result& r = engine.result();

  if (command == "explain") {
    if (head < 0 || head >= r.heads) return fail(2, "--head: expected 0.." + std::to_string(r.heads - 1));
    if (row < 0 || row >= r.n) return fail(2, "--row: expected 0.." + std::to_string(r.n - 1));
    if (col < 0 || col >= r.m) return fail(2, "--col: expected 0.." + std::to_string(r.m - 1));
    std::fputs(attn::explain_cell_text(r, head, row, col).c_str(), stdout);
    return 0;
  }
  if (format == "csv") {
    if (std::string e = attn::write_result_csv(r, config, out_dir); !e.empty()) return fail(1, e);
    return 0;
  }
  const std::string json = attn::result_to_json(r, config, indent);
  std::fwrite(json.data(), 1, json.size(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
