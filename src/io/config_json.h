// config_json.h — the attnlab-cli config schema (docs/cli.md), read and written.
// Shared by attnlab-cli, the page's window.attnlab API and the lab's shareable links.
#pragma once
#include <string>
#include <string_view>

#include "config.h"

namespace attn {

// Parses a config; keys not given keep their defaults (Config{}). Returns "" on success, else one line
// naming the field and what was expected; `out` is then unspecified.
std::string parse_config(std::string_view json_text, Config& out);

// The config as JSON (every key, so the output is a complete, replayable config).
std::string config_to_json(const Config& c, int indent = -1);

}  // namespace attn
