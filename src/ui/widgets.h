// widgets.h — small pieces shared by panels.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "imgui.h"

namespace attnlab {

// A greyed "(?)" that shows `text` in a tooltip (Dear ImGui's demo idiom).
void help_marker(const char* text);

// [SECTION] room for every language: labels as long as a translation makes them
// The next widget's width: `share` of the line, less where its label (and the "(?)" after it) needs the
// room, never under a third of the line.
void item_width_for(const char* label, float share);
// The next combo's width: item_width_for's, widened (while the line has room) to the widest of `values`
// with the arrow, so that the current value is not cut inside the frame in a longer language. Where the
// label and the widest value do not share the line, the label is drawn on a line of its own above and the
// combo takes the next: returns the label to give the combo (`label`, or its hidden "##id" part then).
[[nodiscard]] const char* combo_width_for(const char* label, float share, std::span<const char* const> values);
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

// [SECTION] wrapping sentences (every language, Chinese too)
// CJK ideographs, kana, Hangul, CJK punctuation and full-width forms: each character a place a line may
// end, and what the CJK font (languages.cpp) is loaded for.
bool is_cjk(char32_t c);
// The lines `text` wraps into at `width` (as views into it; `measure` gives a piece's width in pixels):
// at spaces and '\n's, and between CJK characters (Chinese has no spaces), but never inside a run of Latin
// letters, digits and punctuation ("0.02", "d_k"), never before a closing mark (，。）) nor after an
// opening one (（). Dear ImGui's own wrapping breaks anywhere in CJK text and after a '.', which splits a
// number ("0." / "02").
std::vector<std::string_view> wrap_lines(std::string_view text, float width, const std::function<float(std::string_view)>& measure);
// Text wrapped by wrap_lines, one TextUnformatted per line (the last is the item SameLine follows), at
// PushTextWrapPos's position if one is set, else at the window's edge, and never narrower than 8 em: after
// a SameLine that leaves less, it starts on the next line. Use it for sentences from the catalogue.
void text_wrapped_words(const char* fmt, ...) IM_FMTARGS(1);
void text_wrapped_colored(const ImVec4& color, const char* text);
void text_wrapped_disabled(const char* text);  // in the disabled text colour, as TextDisabled
// Inside a popup (after BeginPopup): keeps it on the screen as it grows (from the next frame).
void keep_popup_on_screen();

// "1.23" style formatting used in cards.
std::string fmt(double v, int digits = 4);

}  // namespace attnlab
