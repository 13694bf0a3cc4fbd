// cli_train.h — attnlab-cli's learning commands (train, grad, and run on a model file), kept apart
// from cli_main.cpp, which only hands them over.
#pragma once
#include <string>

#include "learn/train.h"

namespace attn {

// True for `train`, `grad`, and `run` on a trained model file (not a lab config).
bool is_learn_command(int argc, char** argv);
// Runs it; returns the exit code (docs/train.md).
int learn_main(int argc, char** argv);

// Shared with the inspection commands (cli_inspect.cpp):
// one line "attnlab-cli: MESSAGE" on stderr; returns `code`
int fail(int code, const std::string& message);
// a file's text, or stdin's for "-"; false when it cannot be read
bool read_text(const std::string& path, std::string& out);
// an integer lo..hi, the whole string
bool parse_count(const char* s, long long lo, long long hi, long long& out);
// The example a command runs on: --tokens (and --source, cross-attention) as the task's labels, or
// when tokens is empty example I of the model's held-out set. "" or one line naming the option.
std::string example_from_args(const learn::TrainSetup& setup, const std::string& tokens, const std::string& source,
                              long long example, learn::Example& e);

}  // namespace attn
