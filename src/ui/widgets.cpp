#include "widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
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

void combo_width_for(const char* label, float share, std::span<const char* const> values) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize(label, nullptr, true).x + st.ItemInnerSpacing.x + marker_width();
  float widest = 0.0f;
  for (const char* v : values) widest = std::max(widest, ImGui::CalcTextSize(v, nullptr, true).x);
  const float needed = widest + 2.0f * st.FramePadding.x + ImGui::GetFrameHeight();  // the text and the arrow
  const float fitted = std::max(avail / 3.0f, std::min(avail * share, avail - label_w));
  ImGui::SetNextItemWidth(std::max(fitted, std::min(needed, avail - label_w)));
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
  ImGui::TextUnformatted(visible.c_str());
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
    ImGui::TextUnformatted(text);
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

void text_wrapped_words(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  const float width = std::max(ImGui::CalcWrapWidthForPos(ImGui::GetCursorScreenPos(), 0.0f), 8.0f * ImGui::GetFontSize());
  const float space = ImGui::CalcTextSize(" ").x;
  std::string line;
  float line_w = 0.0f;
  const char* p = buf;
  while (*p) {
    const char* end = p;
    while (*end && *end != ' ') ++end;
    const std::string word(p, end);
    const float w = ImGui::CalcTextSize(word.c_str()).x;
    if (!line.empty() && line_w + space + w > width) {
      ImGui::TextUnformatted(line.c_str());
      line.clear(), line_w = 0.0f;
    }
    if (!line.empty()) line += ' ', line_w += space;
    line += word, line_w += w;
    p = *end ? end + 1 : end;
  }
  if (!line.empty()) ImGui::TextUnformatted(line.c_str());
}

}  // namespace attnlab
