// formula.h — the formula strip's content for a config, as plain data (no ImGui): the strip draws
// it as buttons, tests read it as one string. It must be right in every mode: scaling on, off or
// custom, a temperature other than 1, masks, cross-attention, RoPE, one head or several.
//
//   out = concat(softmax(mask(Q·Kᵀ / √d_k / τ)) · V) · W_O          (per head, then concatenated)
#pragma once
#include <string>
#include <vector>

#include "config.h"
#include "ui_state.h"

namespace attnlab {

struct FormulaPart {
  std::string text;       // exactly as it reads in the formula, spaces included
  View view = View::count;  // the matrix a click brings into view (View::count: plain text)
  std::string tip;        // what the part means, in plain words
};

std::vector<FormulaPart> formula_parts(const attn::Config& c);

// The parts joined: what a learner reads in the strip.
std::string formula_text(const attn::Config& c);

// "1/√d_k = 1/√8 = 0.354", "none (×1)", "custom ×0.25": the scaling in words, one notation everywhere.
std::string scale_words(const attn::Config& c);

}  // namespace attnlab
