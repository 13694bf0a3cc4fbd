// cli_train.h — attnlab-cli's learning commands (train, grad, and run on a model file), kept apart
// from cli_main.cpp, which only hands them over.
#pragma once

namespace attn {

// True for `train`, `grad`, and `run` on a trained model file (not a lab config).
bool is_learn_command(int argc, char** argv);
// Runs it; returns the exit code (docs/train.md).
int learn_main(int argc, char** argv);

}  // namespace attn
