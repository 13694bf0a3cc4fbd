// presets.h — ready-made configs for teaching, from assets/presets/*.json (embedded at build time).
#pragma once
#include <span>
#include <string>

namespace attnlab {

struct Preset {
  std::string file;         // e.g. "causal.json"
  std::string name;         // from the file's "name"
  std::string description;  // from the file's "description"
  std::string json;         // the whole file: a config in the attnlab-cli schema
};

std::span<const Preset> presets();

}  // namespace attnlab
