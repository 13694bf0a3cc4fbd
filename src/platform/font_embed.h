#pragma once
namespace attnlab {
const unsigned char* embedded_font();  // DejaVu Sans TTF bytes
int embedded_font_size();
}  // namespace attnlab
