#!/usr/bin/env bash
# Fetches the Dear ImGui 1.86 source tree from Debian's *source* package into third_party/imgui
# (ignored by git) and prints its path. Set IMGUI_DIR to use your own copy instead.
# The deb-src line is built from this machine's own apt source; the system's apt config is untouched.
# Pinned: the source package version 1.86+ds-1 is asked for by name, and the tarball must match the
# SHA-256 below (Debian's own .dsc lists it) and declare IMGUI_VERSION_NUM 18600; anything else is
# refused, so a newer suite cannot slip another ImGui under code that relies on 1.86's key API.
set -euo pipefail
version="1.86+ds-1"
sha256="0dace0e8e57d298eb6e93af12dc19420cb96330832f6495c733b90aeeef11f64"  # imgui_1.86+ds.orig.tar.xz
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${IMGUI_DIR:-}" ]; then echo "$IMGUI_DIR"; exit 0; fi
dest="$here/third_party/imgui"
if [ -f "$dest/imgui.cpp" ] && [ -f "$dest/backends/imgui_impl_glfw.cpp" ]; then echo "$dest"; exit 0; fi

work="$here/third_party/.apt"
mkdir -p "$work/lists/partial" "$work/src"
uri="" suite=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  suite=$(awk '/^Suites:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
  read -r uri suite < <(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if($i !~ /^\[/){print $i, $(i+1); exit}}' /etc/apt/sources.list)
fi
[ -n "$uri" ] || { echo "fetch_imgui: cannot find a Debian apt source; set IMGUI_DIR to a Dear ImGui 1.86 tree" >&2; exit 1; }
echo "deb-src [trusted=yes] $uri $suite main" > "$work/sources.list"
opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/lists" -o Acquire::Languages=none -o APT::Sandbox::User=root)
apt-get "${opts[@]}" update -qq >/dev/null
(cd "$work/src" && apt-get "${opts[@]}" source --download-only "imgui=$version" >/dev/null)
tarball="$work/src/imgui_1.86+ds.orig.tar.xz"
echo "$sha256  $tarball" | sha256sum --check --status ||
  { echo "fetch_imgui: $tarball does not have the pinned SHA-256 $sha256" >&2; exit 1; }
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
grep -q '^#define IMGUI_VERSION_NUM *18600$' "$dest.tmp/imgui.h" ||
  { echo "fetch_imgui: the tarball is not Dear ImGui 1.86" >&2; exit 1; }
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "$dest"
