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
  std::string view;         // its "view" object (view_state.h): how the lab should show it; "" if none
};

std::span<const Preset> presets();

struct App;
// Applies a setup: a config in the attnlab-cli schema whose optional "view" object (view_state.h) says
// how to show it; the view starts from the defaults. Returns "" or why not (then nothing changes).
std::string apply_setup(App& app, const std::string& json);

// Applies a preset: its config, its view settings (colour ranges etc., from the defaults), and its
// explanation on screen. Returns "" or why not (then nothing changes).
std::string apply_preset(App& app, const Preset& p);

}  // namespace attnlab
