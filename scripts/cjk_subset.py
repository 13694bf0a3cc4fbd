#!/usr/bin/env python3
"""Builds the lab's CJK font: WenQuanYi Micro Hei (fonts-wqy-microhei) cut down with fontTools to
   - the common characters of Simplified Chinese (Dear ImGui's list of 2500) and of Japanese
     (Dear ImGui's 2999 Joyo and Jinmeiyo kanji), read from the ImGui source the build uses;
   - CJK symbols and punctuation, hiragana, katakana, and the full-width forms;
   - every character of every catalogue in assets/lang (so the UI's own words always draw).
Usage: cjk_subset.py FONT.ttc IMGUI_DRAW_CPP LANG_DIR OUT.ttf  (writes OUT.ttf and OUT.txt, the characters)."""
import pathlib
import re
import subprocess
import sys

font, imgui_draw, lang_dir, out = sys.argv[1:5]
src = pathlib.Path(imgui_draw).read_text(encoding="utf-8")
chars = set()
# ImGui stores each list as offsets accumulated from U+4E00, in the function of that name.
for fn in ("GetGlyphRangesChineseSimplifiedCommon", "GetGlyphRangesJapanese"):
    body = src[src.index("ImFontAtlas::" + fn):]
    table = re.search(r"accumulative_offsets_from_0x4E00\[\]\s*=\s*\{(.*?)\};", body, re.S).group(1)
    cp = 0x4E00
    for off in re.findall(r"\d+", table):
        cp += int(off)
        chars.add(cp)
for lo, hi in ((0x3000, 0x30FF), (0x31F0, 0x31FF), (0xFF00, 0xFFEF)):
    chars.update(range(lo, hi + 1))
for f in sorted(pathlib.Path(lang_dir).glob("*.txt")):
    chars.update(ord(c) for c in f.read_text(encoding="utf-8") if ord(c) >= 0x2E80)
text = "".join(chr(c) for c in sorted(chars))
txt = pathlib.Path(out).with_suffix(".txt")
txt.write_text(text, encoding="utf-8")
subprocess.run([sys.executable, "-m", "fontTools.subset", font, "--font-number=0", "--text-file=" + str(txt),
                "--output-file=" + out, "--no-hinting", "--desubroutinize", "--layout-features=",
                "--name-IDs=*", "--notdef-outline"], check=True)
print(f"cjk_subset.py: {len(chars)} characters asked, {out}: {pathlib.Path(out).stat().st_size} bytes")
