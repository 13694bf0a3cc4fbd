#include "widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "imgui_internal.h"

#include "tokenizer.h"

namespace attnlab {

namespace {
float right_edge() { return ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x; }
float marker_width() { return ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemSpacing.x; }
}  // namespace

void item_width_for(const char* label, float share) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize(label, nullptr, true).x + st.ItemInnerSpacing.x + marker_width();
  ImGui::SetNextItemWidth(std::max(avail / 3.0f, std::min(avail * share, avail - label_w)));
}

const char* combo_width_for(const char* label, float share, std::span<const char* const> values) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float avail = ImGui::GetContentRegionAvail().x;
  const char* hidden = std::strstr(label, "##");
  const float label_w = (hidden == label ? 0.0f : ImGui::CalcTextSize(label, nullptr, true).x + st.ItemInnerSpacing.x) + marker_width();
  float widest = 0.0f;
  for (const char* v : values) widest = std::max(widest, ImGui::CalcTextSize(v, nullptr, true).x);
  const float needed = widest + 2.0f * st.FramePadding.x + ImGui::GetFrameHeight();  // the text and the arrow
  if (needed + label_w > avail && hidden && hidden != label) {
    // The values and the label do not share the line: the label goes above, the combo takes the line.
    ImGui::TextUnformatted(label, hidden);
    ImGui::SetNextItemWidth(std::max(avail / 3.0f, std::min(needed, avail - marker_width())));
    return hidden;
  }
  const float fitted = std::max(avail / 3.0f, std::min(avail * share, avail - label_w));
  ImGui::SetNextItemWidth(std::max(fitted, std::min(needed, avail - label_w)));
  return label;
}

bool checkbox(const char* label, bool* v, bool marker) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float w = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
  if (w + (marker ? marker_width() : 0.0f) <= ImGui::GetContentRegionAvail().x) return ImGui::Checkbox(label, v);
  // The box alone (the same id), then the label wrapped beside it.
  const char* hashes = std::strstr(label, "##");
  const std::string visible = hashes ? std::string(label, hashes) : std::string(label);
  const std::string id = hashes ? std::string(hashes) : "##" + visible;
  ImGui::BeginGroup();
  bool changed = ImGui::Checkbox(id.c_str(), v);
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x - (marker ? marker_width() : 0.0f));
  ImGui::BeginGroup();  // a click on any of the label's lines toggles the box
  text_wrapped_words("%s", visible.c_str());
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemClicked()) *v = !*v, changed = true;  // the label toggles the box, as Checkbox's own does
  ImGui::EndGroup();
  return changed;
}

void same_line_if_fits(const char* label, bool marker) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float w = ImGui::GetFrameHeight() + ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * st.ItemInnerSpacing.x;
  if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + w + (marker ? marker_width() : 0.0f) <= right_edge()) ImGui::SameLine();
}

void help_marker(const char* text) {
  // Beside the last widget where there is room, else on the next line (a long label in a narrow panel).
  if (ImGui::GetItemRectMax().x + marker_width() <= right_edge() + 0.5f) ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    text_wrapped_words("%s", text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

bool token_chip(const std::string& token, int index, bool selected, bool highlighted, bool* hovered, ImU32 tint) {
  ImGui::PushID(index);
  const ImVec4 base = selected ? ImVec4(0.85f, 0.55f, 0.10f, 1.0f)
                      : highlighted ? ImVec4(0.25f, 0.55f, 0.80f, 1.0f)
                                    : ImVec4(0.22f, 0.26f, 0.33f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Button, tint ? ImGui::ColorConvertU32ToFloat4(tint) : base);
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.30f, 0.62f, 0.90f, 1.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_FrameRounding, ImGui::GetFontSize() * 0.6f);
  const bool clicked = ImGui::SmallButton(token.empty() ? " " : token.c_str());
  if (hovered) *hovered = ImGui::IsItemHovered();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);
  ImGui::PopID();
  return clicked;
}

std::string drawable_label(const std::string& token) {
  // The atlas's body font, not ImGui::GetFont(): outside a frame that is the font the last NewFrame set,
  // which a rebuilt atlas (a new UI scale) has freed until the next one. Both fonts have the same glyphs.
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  if (atlas->Fonts.empty()) return token;
  const ImFont* font = atlas->Fonts[0];
  const auto drawable = [&](char32_t cp) { return cp <= 0xFFFF && font->FindGlyphNoFallback((ImWchar)cp) != nullptr; };
  struct Char {
    char32_t cp;
    size_t at, len;
  };
  std::vector<Char> chars;
  bool all_drawable = true;
  for (size_t i = 0; i < token.size();) {
    char32_t cp;
    const size_t len = (size_t)attn::decode_utf8(token, i, &cp);
    chars.push_back({cp, i, len});
    all_drawable = all_drawable && drawable(cp);
    i += len;
  }
  if (all_drawable) return token;
  std::string out;
  for (const Char& c : chars) {
    if (c.cp == 0x200D || (c.cp >= 0xFE00 && c.cp <= 0xFE0F)) continue;  // joiners draw nothing
    if (drawable(c.cp)) {
      out.append(token, c.at, c.len);
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%sU+%04X", out.empty() ? "" : " ", (unsigned)c.cp);
      out += buf;
    }
  }
  return out;
}

ImU32 head_color(int head, float alpha) {
  // Sixteen hues picked to stay apart on a dark background (after Kelly's and Tableau's lists);
  // beyond 16 heads they repeat, a shade darker each round.
  static const ImU32 kColors[16] = {
      IM_COL32(230, 80, 80, 255),   IM_COL32(80, 150, 240, 255),  IM_COL32(120, 200, 80, 255),  IM_COL32(200, 110, 230, 255),
      IM_COL32(245, 170, 50, 255),  IM_COL32(60, 200, 200, 255),  IM_COL32(240, 120, 180, 255), IM_COL32(190, 190, 70, 255),
      IM_COL32(150, 110, 80, 255),  IM_COL32(130, 130, 255, 255), IM_COL32(40, 160, 110, 255),  IM_COL32(255, 150, 120, 255),
      IM_COL32(170, 220, 255, 255), IM_COL32(140, 60, 160, 255),  IM_COL32(210, 230, 140, 255), IM_COL32(170, 170, 170, 255)};
  ImVec4 c = ImGui::ColorConvertU32ToFloat4(kColors[((head % 16) + 16) % 16]);
  const float shade = std::pow(0.75f, (float)(head / 16));
  return ImGui::GetColorU32(ImVec4(c.x * shade, c.y * shade, c.z * shade, alpha));
}

std::string fmt(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

namespace {

// [SECTION] where a line may end (after UAX #14's rules for CJK, in small)
// Marks that close what comes before them: a line never starts with one ("，" "。" "）" ...).
bool closes(char32_t c) {
  static constexpr std::u32string_view kClosing = U"、。，．：；！？）」』】〕〗〙〛〉》…‥・ー々〜"
                                                  U"ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
                                                  U"！），．：；？］｝｠､｡｣ｰ"
                                                  U",.:;!?)]}%'\"”’";  // ” ’ close a quotation in Chinese too
  return kClosing.find(c) != std::u32string_view::npos;
}
// Marks that open what follows them: a line never ends with one ("（" "「" ...).
bool opens(char32_t c) {
  static constexpr std::u32string_view kOpening = U"（「『【〔〖〘〚〈《［｛｟｢([{“‘";  // “ ‘ open one
  return kOpening.find(c) != std::u32string_view::npos;
}

// The code point at byte i and its length in bytes (an invalid byte: U+FFFD, one byte).
char32_t decode(std::string_view s, size_t i, size_t* len) {
  char32_t cp;
  *len = (size_t)attn::decode_utf8(s, i, &cp);
  return cp;
}

}  // namespace

bool is_cjk(char32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x2FFFF);
}

// A line may end at a space (not drawn at either end of a line), at a '\n' (it must), and between two
// characters one of which is CJK, unless the second closes or the first opens. A run of anything else
// ("0.02", "d_k", "1/sqrt(d_model)", an English word) is never broken, except when it alone is wider
// than the whole line: it is then cut where it must be rather than drawn past the window's edge.
std::vector<std::string_view> wrap_lines(std::string_view text, float width, const std::function<float(std::string_view)>& measure) {
  // pass 1: the pieces that cannot be broken, each with the spaces or line breaks before it
  struct Piece {
    size_t begin, end;
    int newlines;  // '\n's between it and the piece before
  };
  std::vector<Piece> pieces;
  bool gap = false;
  int newlines = 0;
  char32_t prev = 0;
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const char32_t c = decode(text, i, &len);
    if (c == ' ' || c == '\n') {
      gap = true, newlines += c == '\n', prev = 0, i += len;
      continue;
    }
    if (pieces.empty() || gap || ((is_cjk(prev) || is_cjk(c)) && !closes(c) && !opens(prev))) pieces.push_back({i, i + len, newlines});
    else pieces.back().end = i + len;
    gap = false, newlines = 0, prev = c, i += len;
  }
  // pass 2: as many pieces on each line as fit (measured as drawn, spaces included)
  std::vector<std::string_view> lines;
  size_t line_begin = std::string_view::npos, line_end = 0;
  const auto flush = [&] {
    if (line_begin != std::string_view::npos) lines.push_back(text.substr(line_begin, line_end - line_begin));
    line_begin = std::string_view::npos;
  };
  for (const Piece& p : pieces) {
    if (p.newlines > 0) {  // the line ends here; "\n\n" leaves an empty line between
      const bool started = line_begin != std::string_view::npos || !lines.empty();
      flush();
      for (int k = started ? 1 : 0; k < p.newlines; ++k) lines.push_back(text.substr(p.begin, 0));
    }
    if (line_begin != std::string_view::npos && measure(text.substr(line_begin, p.end - line_begin)) > width) flush();
    if (line_begin == std::string_view::npos && measure(text.substr(p.begin, p.end - p.begin)) > width) {
      // a piece wider than the line: cut between characters, at least one per line
      size_t at = p.begin;
      while (at < p.end) {
        size_t end = at, len;
        decode(text, end, &len), end += len;
        while (end < p.end) {
          decode(text, end, &len);
          if (measure(text.substr(at, end + len - at)) > width) break;
          end += len;
        }
        if (end < p.end) lines.push_back(text.substr(at, end - at));
        else line_begin = at, line_end = end;
        at = end;
      }
      continue;
    }
    if (line_begin == std::string_view::npos) line_begin = p.begin;
    line_end = p.end;
  }
  flush();
  return lines;
}

namespace {

// The lines of the texts wrapped lately, by text, width and font: a panel drawn again with the same text
// (the help, a plot's title) is not measured again piece by piece in every frame. Each line is kept as
// (first byte, bytes) of its text. Once there are many, those not used in this frame or the last go.
struct WrapCache {
  struct Entry {
    std::string text;
    float width = 0;
    const ImFont* font = nullptr;
    float font_size = 0;
    int glyphs = 0;  // the font's glyph count: a font merged with more glyphs measures text anew
    std::vector<std::pair<size_t, size_t>> lines;
    int used = 0;  // the frame that last used it
  };
  std::unordered_map<size_t, Entry> entries;
  int swept = -1;  // the frame of the last sweep (at most one a frame)
};

const std::vector<std::pair<size_t, size_t>>& wrapped(const std::string& text, float width) {
  static WrapCache cache;
  const ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const int glyphs = font ? font->Glyphs.Size : 0, frame = ImGui::GetFrameCount();
  size_t key = std::hash<std::string>()(text);
  for (const size_t part : {std::hash<float>()(width), std::hash<const void*>()(font), std::hash<float>()(size), (size_t)glyphs})
    key ^= part + 0x9e3779b97f4a7c15ull + (key << 6) + (key >> 2);
  WrapCache::Entry& e = cache.entries[key];
  if (e.used == 0 || e.text != text || e.width != width || e.font != font || e.font_size != size || e.glyphs != glyphs) {
    e = WrapCache::Entry{text, width, font, size, glyphs, {}, 0};
    const auto measure = [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
    for (std::string_view line : wrap_lines(text, width, measure)) e.lines.push_back({(size_t)(line.data() - text.data()), line.size()});
  }
  e.used = frame;
  if (cache.entries.size() > 512 && cache.swept != frame) {
    cache.swept = frame;
    std::erase_if(cache.entries, [&](const auto& kv) { return kv.second.used < frame - 1 && &kv.second != &e; });
  }
  return e.lines;
}

}  // namespace

void text_wrapped_words(const char* format, ...) {
  va_list args, count;
  va_start(args, format);
  va_copy(count, args);
  const int n = std::vsnprintf(nullptr, 0, format, count);
  va_end(count);
  std::string text(n > 0 ? (size_t)n : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  va_end(args);
  // At the position PushTextWrapPos set, else at the window's edge (as TextWrapped); never narrower than
  // 8 em: beside another item with less room left than that, the text starts on the next line instead.
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  const float wrap_pos = std::max(window->DC.TextWrapPos, 0.0f), floor = 8.0f * ImGui::GetFontSize();
  float width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos);
  if (width < floor && window->DC.CursorPos.x > window->Pos.x + window->DC.Indent.x + window->DC.ColumnsOffset.x + 1.0f) {
    ImGui::NewLine();  // undoes the SameLine
    width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos);
  }
  width = std::max(width, floor);
  // Each line as wrap_lines made it: Dear ImGui must not wrap it again (a line wider than the wrap
  // position, a piece longer than the width or the 8 em floor, would be split where it may not be: "0." / "02").
  ImGui::PushTextWrapPos(-1.0f);
  for (const auto& [at, size] : wrapped(text, width)) ImGui::TextUnformatted(text.data() + at, text.data() + at + size);
  ImGui::PopTextWrapPos();
}

void text_wrapped_colored(const ImVec4& color, const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  text_wrapped_words("%s", text);
  ImGui::PopStyleColor();
}

void text_wrapped_disabled(const char* text) { text_wrapped_colored(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), text); }

void keep_popup_on_screen() {
  // Dear ImGui places a popup once, when it opens; a popup that then grows (a section opening inside it)
  // grows to the right and down, off a phone's screen. Moved back from next frame on, never narrower
  // than the screen's edge allows.
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImVec2 at(std::max(0.0f, std::min(w->Pos.x, display.x - w->Size.x)), std::max(0.0f, std::min(w->Pos.y, display.y - w->Size.y)));
  if (at.x != w->Pos.x || at.y != w->Pos.y) ImGui::SetWindowPos(at);
}

}  // namespace attnlab
