// attnlab-cli — runs a config through the engine and prints every matrix (docs/cli.md).
//
//   attnlab-cli run CONFIG.json|-  [--format json|csv] [--out PATH] [--indent N] [--kernels NAME]
//   attnlab-cli explain CONFIG.json|- --head H --row I --col J [--kernels NAME]
//   attnlab-cli kernels
// Exit codes: 0 success; 2 bad usage or a bad config; 1 a file that cannot be read or written (with
// the OS reason) or memory that runs out. Every failure prints exactly one line on stderr.
//
// [SECTION] helpers     one-line failures, reading a config, options
// [SECTION] commands    one function per command, and the table main() reads
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "cli_inspect.h"
#include "cli_train.h"
#include "config_json.h"
#include "engine.h"
#include "explain.h"
#include "result_json.h"

namespace {

// ---------------------------------------------------------------------------------------------------
// [SECTION] helpers
// ---------------------------------------------------------------------------------------------------

// Leaves with an exit code and one line on stderr. (Not an exception: the WebAssembly build of the
// CLI, run by the tests under node, is compiled without exception catching.)
[[noreturn]] void fail(int code, const std::string& message) {
  std::fprintf(stderr, "attnlab-cli: %s\n", message.c_str());
  std::exit(code);
}

// The whole of a config file (or stdin for "-"), at most Limits::max_config_bytes. Exit 1 with the
// OS reason when it cannot be read (a missing file, a folder, no permission).
std::string read_config(const std::string& path) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) fail(1, path + ": cannot read (" + std::strerror(errno) + ")");
  struct stat st{};
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    if (f != stdin) std::fclose(f);
    fail(1, path + ": cannot read (" + std::strerror(EISDIR) + ")");
  }
  std::string text;
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, got);
    if ((int64_t)text.size() > attn::Limits::max_config_bytes) {
      if (f != stdin) std::fclose(f);
      fail(2, "config: more than " + attn::format_bytes(attn::Limits::max_config_bytes) + " of text");
    }
  }
  const int err = std::ferror(f) ? errno : 0;
  if (f != stdin) std::fclose(f);
  if (err) fail(1, path + ": cannot read (" + std::strerror(err) + ")");
  return text;
}

int parse_int(const std::string& option, const char* s, int lo, int hi) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi)
    fail(2, option + ": expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + s + "'");
  return (int)v;
}

// The command line after the command: CONFIG first, then --name value pairs.
struct Args {
  std::string config_path;
  std::string format = "json", out, kernels;
  int indent = -1, head = -1, row = -1, col = -1;
};

Args parse_args(std::span<char*> argv, std::initializer_list<const char*> allowed) {
  if (argv.empty()) fail(2, "missing CONFIG (a file, or - for stdin)");
  Args a;
  a.config_path = argv[0];
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string o = argv[i];
    bool known = false;
    for (const char* name : allowed) known |= o == name;
    if (!known || i + 1 >= argv.size()) fail(2, "unknown or incomplete option '" + o + "' (see attnlab-cli --help)");
    const char* v = argv[++i];
    if (o == "--format") a.format = v;
    else if (o == "--out") a.out = v;
    else if (o == "--kernels") a.kernels = v;
    else if (o == "--indent") a.indent = parse_int(o, v, -1, attn::max_json_indent);
    else if (o == "--head") a.head = parse_int(o, v, 0, attn::Limits::max_heads - 1);
    else if (o == "--row") a.row = parse_int(o, v, 0, attn::Limits::max_tokens - 1);
    else if (o == "--col") a.col = parse_int(o, v, 0, attn::Limits::max_tokens - 1);
  }
  if (!a.kernels.empty() && !attn::select_kernels(a.kernels))
    fail(2, "--kernels: no kernel set '" + a.kernels + "' (see attnlab-cli kernels)");
  return a;
}

// Reads, parses and validates the config; every limit is checked here, before any work.
attn::Config load_config(const Args& a, attn::Engine& engine) {
  attn::Config config;
  if (std::string e = attn::parse_config(read_config(a.config_path), config); !e.empty()) fail(2, e);
  if (std::string e = engine.set_config(config); !e.empty()) fail(2, e);
  return config;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] commands
// ---------------------------------------------------------------------------------------------------

int run_command(std::span<char*> argv) {
  const Args a = parse_args(argv, {"--format", "--out", "--indent", "--kernels"});
  if (a.format != "json" && a.format != "csv") fail(2, "--format: expected json or csv, got '" + a.format + "'");
  if (a.format == "csv" && a.out.empty()) fail(2, "--format csv needs --out DIR");
  attn::Engine engine;
  const attn::Config config = load_config(a, engine);
  const auto [n, m] = engine.token_counts();
  if (std::string e = attn::check_output(config, n, m, a.indent, a.format == "csv"); !e.empty()) fail(2, e);
  engine.compute();
  const attn::Result& r = engine.result();
  if (a.format == "csv") {
    if (std::string e = attn::write_result_csv(r, config, a.out); !e.empty()) fail(1, e);
    return 0;
  }
  // JSON to stdout, or to the file --out names (removed again if writing it fails).
  std::FILE* out = a.out.empty() ? stdout : std::fopen(a.out.c_str(), "wb");
  if (!out) fail(1, a.out + ": cannot write (" + std::strerror(errno) + ")");
  std::string e = attn::write_result_json(r, config, out, a.indent);
  if (e.empty() && std::fputc('\n', out) == EOF) e = std::strerror(errno);
  if (e.empty() && std::fflush(out) != 0) e = std::strerror(errno);
  if (out != stdout && std::fclose(out) != 0 && e.empty()) e = std::strerror(errno);
  if (!e.empty()) {
    if (out != stdout) std::remove(a.out.c_str());
    fail(1, (a.out.empty() ? std::string("standard output") : a.out) + ": cannot write (" + e + ")");
  }
  return 0;
}

int explain_command(std::span<char*> argv) {
  const Args a = parse_args(argv, {"--head", "--row", "--col", "--kernels"});
  attn::Engine engine;
  load_config(a, engine);
  engine.compute();
  const attn::Result& r = engine.result();
  if (a.head < 0 || a.head >= r.heads) fail(2, "--head: expected 0.." + std::to_string(r.heads - 1));
  if (a.row < 0 || a.row >= r.n) fail(2, "--row: expected 0.." + std::to_string(r.n - 1));
  if (a.col < 0 || a.col >= r.m) fail(2, "--col: expected 0.." + std::to_string(r.m - 1));
  const std::string text = attn::explain_cell_text(r, a.head, a.row, a.col);
  if (std::fputs(text.c_str(), stdout) == EOF || std::fflush(stdout) != 0)
    fail(1, std::string("standard output: cannot write (") + std::strerror(errno) + ")");
  return 0;
}

int kernels_command(std::span<char*> argv) {
  if (!argv.empty()) fail(2, "kernels: takes no arguments");
  for (const attn::KernelSet* k : attn::available_kernel_sets()) std::printf("%s\n", k->name);
  if (std::fflush(stdout) != 0) fail(1, std::string("standard output: cannot write (") + std::strerror(errno) + ")");
  return 0;
}

// One entry per command: main() dispatches on the name and prints the usage lines from here.
struct Command {
  const char* name;
  const char* usage;  // the arguments after the name
  int (*run)(std::span<char*> args);
};
const Command kCommands[] = {
    {"run", "CONFIG.json|- [--format json|csv] [--out PATH] [--indent N] [--kernels NAME]", run_command},
    {"explain", "CONFIG.json|- --head H --row I --col J [--kernels NAME]", explain_command},
    {"kernels", "", kernels_command},
};

// The learning commands (cli_train.cpp, docs/train.md) and the inspection commands (cli_inspect.cpp,
// docs/inspect.md): main() hands them over before the table.
const Command kLearnCommands[] = {
    {"train", "CONFIG.json|- [--steps N] [--out MODEL.json] [--log LOG.jsonl]   (docs/train.md)", nullptr},
    {"run", "MODEL.json [--tokens \"a b\"] [--source \"1 2\"]", nullptr},
    {"grad", "MODEL.json BATCH.json|- [--double]", nullptr},
    {"sweep", "CONFIG.json|- --distance 1,2,4,8,16 [--models attention,rnn,lstm] [--steps N]", nullptr},
    {"gradient-distance", "MODEL.json|CONFIG.json [--sequences N]", nullptr},
    {"run", "MODEL.json --ablate L.H[,L.H...] [--mode zero|mean]   (docs/inspect.md)", nullptr},
    {"ablate", "MODEL.json --heads L.H[,L.H...] | --each [--mode zero|mean]", nullptr},
    {"patch", "MODEL.json [--clean \"a b\"] --corrupt \"a c\" | --corrupt-at I [--position I]", nullptr},
    {"attribute", "MODEL.json [--tokens \"a b\"] [--target ID]", nullptr},
    {"circuits", "MODEL.json --layer L --head H", nullptr},
    {"rollout", "MODEL.json [--tokens \"a b\"]", nullptr},
};

std::string usage() {
  std::string u;
  for (const Command& c : kCommands) u += std::string(u.empty() ? "usage: " : "       ") + "attnlab-cli " + c.name + " " + c.usage + "\n";
  for (const Command& c : kLearnCommands) u += std::string("       attnlab-cli ") + c.name + " " + c.usage + "\n";
  return u + "Runs multi-head attention on CONFIG (see docs/cli.md) and prints every intermediate matrix.\n";
}

std::string command_names() {
  std::string s;
  for (const Command& c : kCommands) s += std::string(s.empty() ? "" : ", ") + c.name;
  return s + ", train, grad, sweep, gradient-distance, ablate, patch, attribute, circuits, rollout";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  try {
    if (argc < 2) fail(2, "missing command (" + command_names() + "; see attnlab-cli --help)");
    if (attn::is_learn_command(argc, argv)) return attn::learn_main(argc, argv);  // train, grad, run MODEL.json
    if (attn::is_inspect_command(argc, argv)) return attn::inspect_main(argc, argv);  // ablate, patch, ... (docs/inspect.md)
    for (const Command& c : kCommands)
      if (!std::strcmp(argv[1], c.name)) return c.run(std::span<char*>(argv + 2, (size_t)(argc - 2)));
    fail(2, std::string("unknown command '") + argv[1] + "' (expected " + command_names() + "; see attnlab-cli --help)");
  } catch (const std::bad_alloc&) {  // natively; the WebAssembly build aborts instead
    std::fprintf(stderr, "attnlab-cli: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-cli: internal error: %s\n", e.what());
    return 1;
  }
}
