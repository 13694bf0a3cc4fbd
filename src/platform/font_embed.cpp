// The UI font, embedded into the desktop binary at build time (path chosen by CMake from
// fonts-dejavu-core), so the app runs without the font installed. The web build embeds it with
// --embed-file instead.
#include "font_embed.h"

#ifndef ATTNLAB_FONT_PATH
#error "CMake passes ATTNLAB_FONT_PATH"
#endif
#ifndef ATTNLAB_CJK_FONT_PATH
#error "CMake passes ATTNLAB_CJK_FONT_PATH"
#endif

__asm__(".section .rodata\n"
        ".balign 16\n"
        "attnlab_font_begin:\n"
        ".incbin \"" ATTNLAB_FONT_PATH "\"\n"
        "attnlab_font_end:\n"
        ".previous\n");
// The CJK subset (scripts/cjk_subset.py), embedded the same way.
__asm__(".section .rodata\n"
        ".balign 16\n"
        "attnlab_cjk_font_begin:\n"
        ".incbin \"" ATTNLAB_CJK_FONT_PATH "\"\n"
        "attnlab_cjk_font_end:\n"
        ".previous\n");
extern "C" const unsigned char attnlab_cjk_font_begin[];
extern "C" const unsigned char attnlab_cjk_font_end[];
extern "C" const unsigned char attnlab_font_begin[];
extern "C" const unsigned char attnlab_font_end[];

namespace attnlab {
const unsigned char* embedded_font() { return attnlab_font_begin; }
int embedded_font_size() { return (int)(attnlab_font_end - attnlab_font_begin); }
const unsigned char* embedded_cjk_font() { return attnlab_cjk_font_begin; }
int embedded_cjk_font_size() { return (int)(attnlab_cjk_font_end - attnlab_cjk_font_begin); }
}  // namespace attnlab
