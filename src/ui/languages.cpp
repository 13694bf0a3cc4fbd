// The lab's language: choosing one (the bar's menu, the page API, the desktop's --lang), and the CJK
// font that Chinese and Japanese need, taken into the atlas only for the characters on screen.
//
// [SECTION] choosing a language
// [SECTION] the language menu
// [SECTION] the CJK font
#include <algorithm>

#include "app.h"
#include "i18n.h"
#include "tokenizer.h"
#include "widgets.h"

namespace attnlab {

// [SECTION] choosing a language
std::string choose_language(App& app, const std::string& code, std::string_view text) {
  const Language* l = find_language(code);
  if (!l) return "unknown language '" + code + "'";
  if (text.empty() && !l->text && code != "en" && code != "pseudo" && app.load_language) {
    app.load_language(code);  // the shell calls back with the catalogue's text
    return "";
  }
  std::string error;
  if (!set_language(code, text, &error)) return error;
  if (catalog().cjk) {
    // Everything the catalogue says may be drawn: its characters go into the atlas.
    for (const attn::i18n::Message& m : catalog().messages()) want_cjk_text(app, m.text);
  }
  app.fonts_dirty = true;    // the labels' widths change: lay every window out afresh
  app.layout_dirty = true;
  return "";
}

// [SECTION] the language menu
void language_menu(App& app) {
  if (!ImGui::BeginPopup("language")) return;
  keep_popup_on_screen();
  for (const Language& l : languages()) {
    if (l.hidden) continue;
    if (ImGui::MenuItem(l.name, nullptr, language() == l.code)) {
      const std::string err = choose_language(app, l.code);
      if (!err.empty()) report_problem(app, tr("notice.language_failed"), err);
    }
    remember_item(app, (std::string("language:") + l.code).c_str());
  }
  ImGui::EndPopup();
}

// [SECTION] the CJK font
void want_cjk_text(App& app, std::string_view text) {
  bool added = false;
  for (size_t i = 0; i < text.size();) {
    char32_t cp;
    i += (size_t)attn::decode_utf8(text, i, &cp);
    if (cp > 0xFFFF || !is_cjk(cp)) continue;  // ImWchar is 16 bits: beyond the BMP stays a code point
    const auto at = std::lower_bound(app.cjk_chars.begin(), app.cjk_chars.end(), (ImWchar)cp);
    if (at != app.cjk_chars.end() && *at == (ImWchar)cp) continue;
    app.cjk_chars.insert(at, (ImWchar)cp);
    added = true;
  }
  if (!added) return;
  // Consecutive characters as one range; a character the subset lacks is skipped by the atlas and
  // keeps its code point label (drawable_label).
  app.cjk_ranges.clear();
  for (ImWchar c : app.cjk_chars) {
    if (!app.cjk_ranges.empty() && app.cjk_ranges.back() + 1 == c) app.cjk_ranges.back() = c;
    else app.cjk_ranges.insert(app.cjk_ranges.end(), {c, c});
  }
  app.cjk_ranges.push_back(0);
  if (app.cjk_font) {
    app.fonts_dirty = true;
  } else if (!app.cjk_font_asked && app.load_cjk_font) {
    app.cjk_font_asked = true;
    app.load_cjk_font();
  }
}

void set_cjk_font(App& app, const void* ttf, int size) {
  app.cjk_font = ttf;
  app.cjk_font_size = size;
  app.fonts_dirty = true;
}

void merge_cjk_font(App& app, float size_px) {
  if (!app.cjk_font || app.cjk_ranges.empty()) return;
  ImFontConfig cfg;
  cfg.MergeMode = true;
  cfg.FontDataOwnedByAtlas = false;
  cfg.OversampleH = 1;  // ideographs are dense: one sample keeps the atlas small
  ImGui::GetIO().Fonts->AddFontFromMemoryTTF(const_cast<void*>(app.cjk_font), app.cjk_font_size, size_px, &cfg, app.cjk_ranges.data());
}

}  // namespace attnlab
