// view_state.h — what the person is looking at (selected head, colour ranges, numbers, the large view),
// as JSON: kept in shared links next to the config, and set by presets and the tour, so a link or a
// preset shows the same picture, not just the same numbers.
//
//   {"head": 1, "numbers": true, "weight_matrices": false, "row_stats": true, "position": false,
//    "all_heads_lines": true,
//    "query": -1, "ui_scale": 1, "zoom": "weights", "ranges": {"scores": 5, "q": 0}}     (every key optional)
#pragma once
#include <string>

#include "ui_state.h"

namespace attnlab {

std::string view_state_to_json(const UiState& ui);

// Applies the keys present; unknown keys and wrong types are refused with a message naming the key,
// and then nothing changes. Returns "" on success.
std::string apply_view_state(UiState& ui, const std::string& json);

struct App;
// The same on the lab: also asks for new fonts when "ui_scale" changed, and for a fresh layout.
std::string apply_view(App& app, const std::string& json);

}  // namespace attnlab
