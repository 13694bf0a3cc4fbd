// widgets.h — small pieces shared by panels.
#pragma once
#include <span>
#include <string>

#include "imgui.h"

namespace attnlab {

// A greyed "(?)" that shows `text` in a tooltip (Dear ImGui's demo idiom).
void help_marker(const char* text);

// [SECTION] room for every language: labels as long as a translation makes them
// The next widget's width: `share` of the line, less where its label (and the "(?)" after it) needs the
// room, never under a third of the line.
void item_width_for(const char* label, float share);
// The next combo's width: item_width_for's, widened (while the line has room) to the widest of `values`
// with the arrow, so that the current value is not cut inside the frame in a longer language.
void combo_width_for(const char* label, float share, std::span<const char* const> values);
// A checkbox whose label wraps beside the box when it is longer than the line ("###id" labels keep their id).
// marker: a help_marker() follows it on the same line, so its room is kept too.
bool checkbox(const char* label, bool* v, bool marker = false);
// SameLine() when a button or checkbox labelled `label` (and its help marker, if `marker`) still fits on
// this line; else it starts the next.
void same_line_if_fits(const char* label, bool marker = false);

// A token as a rounded chip. Returns true when clicked; `hovered` reports the mouse.
bool token_chip(const std::string& token, int index, bool selected, bool highlighted, bool* hovered,
                ImU32 tint = 0);

// `token` with every character the current font cannot draw replaced by its code point (U+732B);
// joiners and variation selectors, which draw nothing, are dropped from such tokens.
std::string drawable_label(const std::string& token);

// A colour per head, distinct for up to 16 heads.
ImU32 head_color(int head, float alpha = 1.0f);

// Text wrapped at spaces only, like ImGui::TextWrapped but never inside a word: Dear ImGui may break
// after a '.', which splits a number ("-0." / "75922") in a narrow card.
void text_wrapped_words(const char* fmt, ...) IM_FMTARGS(1);

// "1.23" style formatting used in cards.
std::string fmt(double v, int digits = 4);

}  // namespace attnlab
