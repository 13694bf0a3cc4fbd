// presets.h — ready-made configs for teaching, from assets/presets/*.json (embedded at build time).
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace attnlab {

struct Preset {
  std::string file;         // e.g. "causal.json"
  std::string name;         // from the file's "name"
  std::string description;  // from the file's "description"
  std::string json;         // the whole file: a config in the attnlab-cli schema
  std::string view;         // its "view" object (view_state.h): how the lab should show it; "" if none
};

std::span<const Preset> presets();

// A preset by its short name ("causal", "no_scaling": the file name without its number and .json),
// its file name ("02_causal.json", "02_causal") or its title; nullptr if none.
const Preset* find_preset(std::string_view key);
std::string preset_key(const Preset& p);  // the short name
// Its name and explanation as the lab shows them: the catalogue's preset.<key>.name and .description
// (i18n.h), else the file's English (which attnlab.presets() returns, in every language).
const char* preset_name(const Preset& p);
const char* preset_description(const Preset& p);
std::string presets_json();                // [{key, file, name, description, view}] in menu order

struct App;
// Applies a setup: a config in the attnlab-cli schema whose optional "view" object (view_state.h) says
// how to show it; the view starts from the defaults. A "name" and "description" (as presets have) go
// on screen as the note. Returns "" or why not (then nothing changes).
std::string apply_setup(App& app, const std::string& json);

// Applies a preset: its config, its view settings (colour ranges etc., from the defaults), and its
// explanation on screen. Returns "" or why not (then nothing changes).
std::string apply_preset(App& app, const Preset& p);
// By key (find_preset); an unknown key is refused naming the presets there are.
std::string apply_preset(App& app, std::string_view key);

}  // namespace attnlab
