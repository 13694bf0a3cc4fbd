// cli_inspect.h — attnlab-cli's inspection commands on a trained model file (docs/inspect.md): ablate,
// patch, attribute, circuits, rollout; and the --ablate option of `run MODEL.json`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "learn/inspect.h"

namespace attn {

// True for ablate, patch, attribute, circuits and rollout.
bool is_inspect_command(int argc, char** argv);
// Runs it; returns the exit code: 0, 2 bad usage or input (one line naming the field), 1 I/O.
int inspect_main(int argc, char** argv);

// --ablate HEADS and --mode MODE (nullptr: zero) of `run MODEL.json`: the ablation, and for the mean
// mode the subject whose held-out means it reads (one held-out pass). "" or one line naming the option.
std::string ablation_from_args(const learn::TrainSetup& setup, const std::vector<float>& params, const std::string& heads,
                               const std::optional<std::string>& mode, learn::AblationSpec& out, learn::Subject<float>& subject);

}  // namespace attn
