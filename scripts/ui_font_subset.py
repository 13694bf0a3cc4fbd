#!/usr/bin/env python3
"""Builds the lab's UI font: DejaVu Sans (fonts-dejavu-core) cut down with fontTools to the characters
Dear ImGui bakes into its atlas, read from setup_style's glyph ranges in src/ui/style.cpp (the block that
follows the line with `kUiGlyphRanges`). Outlines are kept as they are, so the atlas and every pixel it
draws stay the same (tests/ui: UiFont.TheSubsetBakesTheSameAtlas); hinting and the layout tables go,
as Dear ImGui's rasteriser (stb_truetype) uses neither. About 760 KB becomes about 150 KB, which the web
app's first load no longer carries.
Usage: ui_font_subset.py FONT.ttf STYLE_CPP OUT.ttf"""
import pathlib
import re
import subprocess
import sys

font, style_cpp, out = sys.argv[1:4]
src = pathlib.Path(style_cpp).read_text(encoding="utf-8")
start = src.index("kUiGlyphRanges")
block = src[start:src.index("};", start)]
pairs = re.findall(r"0x([0-9A-Fa-f]+),\s*0x([0-9A-Fa-f]+)", block)
if not pairs:
    sys.exit("ui_font_subset.py: no glyph ranges found after kUiGlyphRanges in " + style_cpp)
unicodes = ",".join(f"U+{lo}-{hi}" for lo, hi in pairs)
subprocess.run([sys.executable, "-m", "fontTools.subset", font, "--unicodes=" + unicodes, "--output-file=" + out,
                "--no-hinting", "--layout-features=", "--name-IDs=*", "--notdef-outline", "--glyph-names"], check=True)
print(f"ui_font_subset.py: {len(pairs)} ranges, {out}: {pathlib.Path(out).stat().st_size} bytes")
