#pragma once
namespace attnlab {
const unsigned char* embedded_font();  // DejaVu Sans TTF bytes
int embedded_font_size();
const unsigned char* embedded_cjk_font();  // the CJK subset (WenQuanYi Micro Hei) TTF bytes
int embedded_cjk_font_size();
}  // namespace attnlab
