#!/usr/bin/env bash
# Proves the README's Quick start on a fresh, minimal Debian 12 (bookworm), outside CI.
#
#   scripts/check-fresh.sh [--keep] [--skip-demo] [--root DIR] [--port PORT]
#
# As root, on a Debian/Ubuntu machine with apt:
#   1. builds a minimal bookworm root with debootstrap (--variant=minbase: no git, no node, no cmake,
#      no python3), from this machine's own Debian mirror;
#   2. carries over only what makes the registries answer the same way as here: the CA certificates
#      (for a TLS-intercepting proxy), apt's Acquire:: settings and the npm settings;
#   3. clones this repository's committed HEAD into it (as a user with git would);
#   4. runs the README's two commands in it, as root, with a clean environment:
#        scripts/demo.sh PORT   — until the page and its .wasm are served on 127.0.0.1:PORT
#        scripts/test.sh        — to the end
#      and prints each one's time and result.
# The root is removed afterwards unless --keep. Nothing of the host's PATH, tools or caches leaks in.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=/var/tmp/attnlab-fresh
port=18473
keep=0 skip_demo=0
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1 ;;
    --skip-demo) skip_demo=1 ;;
    --root) root=$2; shift ;;
    --port) port=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "check-fresh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "check-fresh: run as root (debootstrap and chroot need it)" >&2; exit 2; }
command -v apt-get >/dev/null || { echo "check-fresh: needs a Debian/Ubuntu host with apt-get" >&2; exit 2; }
log() { printf '[check-fresh %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

for tool in debootstrap git curl; do
  command -v $tool >/dev/null || { log "installing $tool"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $tool >/dev/null; }
done

# This machine's Debian mirror (deb822 sources or a one-line sources.list), never a hard-coded host.
mirror=$(grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -m1 -E '/debian/?$' || true)
[ -n "$mirror" ] || mirror=$(grep -hs -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
                             awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' | grep -m1 -E '/debian/?$' || true)
[ -n "$mirror" ] || { echo "check-fresh: found no Debian mirror in /etc/apt (needs a .../debian URI)" >&2; exit 2; }

mounts=()
cleanup() {
  # Stop whatever still runs inside the root (a server, Xvfb), then unmount, then remove.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  sleep 1
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [ $keep = 0 ]; then rm -rf --one-file-system "$root"; else log "kept $root"; fi
}
trap cleanup EXIT

# -- 1. a minimal bookworm root --------------------------------------------------------------------
[ -e "$root" ] && { log "removing an old $root"; rm -rf --one-file-system "$root"; }
log "debootstrap bookworm (minbase) from $mirror into $root"
t0=$SECONDS
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; exit 1; }
log "root ready ($((SECONDS - t0)) s, $(du -sh --one-file-system "$root" | cut -f1))"

# -- 2. what makes the registries answer as they do here --------------------------------------------
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
EOF
apt-config dump | grep -E '^Acquire::' > "$root/etc/apt/apt.conf.d/99host-acquire" || true
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
# Until the root installs ca-certificates itself (which rebuilds this bundle from the folder above).
mkdir -p "$root/etc/ssl/certs"
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
for f in /etc/npmrc /usr/etc/npmrc "$HOME/.npmrc"; do
  [ -f "$f" ] || continue
  dest=$root${f/#$HOME//root}
  mkdir -p "$(dirname "$dest")"
  grep -v -E '^\s*nodedir\s*=' "$f" > "$dest"   # nodedir points at this host's Node headers
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

for m in proc sys dev dev/pts; do
  mkdir -p "$root/$m"
  case $m in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount --rbind /sys "$root/sys" ;;
    dev) mount --rbind /dev "$root/dev" ;;
    dev/pts) mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666 2>/dev/null || true ;;
  esac
  mounts+=("$root/$m")
done
mkdir -p "$root/dev/shm" && mount -t tmpfs -o size=2g tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")

# -- 3. the repository, as committed -----------------------------------------------------------------
rev=$(git -C "$here" rev-parse --short HEAD)
git clone -q --no-local "$here" "$root/root/attnlab"
log "cloned $rev into /root/attnlab"

in_root() {  # a clean login-like environment: nothing of the host's PATH or variables
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "cd /root/attnlab && $1"
}

# -- 4. the README's two commands --------------------------------------------------------------------
demo_result=skipped demo_time=0
if [ $skip_demo = 0 ]; then
  log "scripts/demo.sh $port"
  t0=$SECONDS
  in_root "scripts/demo.sh $port" > "$root.demo.log" 2>&1 &
  demo_pid=$!
  demo_result="FAILED (not served)"
  while kill -0 $demo_pid 2>/dev/null && [ $((SECONDS - t0)) -lt 2400 ]; do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/attnlab.wasm" 2>/dev/null &&
       curl -fsS "http://127.0.0.1:$port/" 2>/dev/null | grep -q '<canvas'; then
      demo_result="ok (index.html and attnlab.wasm served)"
      break
    fi
    sleep 2
  done
  demo_time=$((SECONDS - t0))
  kill $demo_pid 2>/dev/null || true
  for p in /proc/[0-9]*; do  # the server itself runs inside the root
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill "${p#/proc/}" 2>/dev/null
  done
  wait $demo_pid 2>/dev/null || true
  log "demo.sh: $demo_result, $demo_time s"
  case $demo_result in ok*) ;; *) tail -30 "$root.demo.log" ;; esac
fi

log "scripts/test.sh"
t0=$SECONDS
test_rc=0
in_root "scripts/test.sh" > "$root.test.log" 2>&1 || test_rc=$?
test_time=$((SECONDS - t0))
grep -E '^=== |^suites:' "$root.test.log" || true
[ $test_rc = 0 ] || tail -60 "$root.test.log"

node_version=$(in_root "node --version" 2>/dev/null || echo none)
echo
echo "fresh Debian 12 ($rev, node $node_version in the root):"
echo "  scripts/demo.sh: $demo_result, $demo_time s"
echo "  scripts/test.sh: $([ $test_rc = 0 ] && echo ok || echo "FAILED (exit $test_rc)"), $test_time s, $(grep -E '^suites:' "$root.test.log" | tail -1)"
echo "  logs: $root.debootstrap.log $root.demo.log $root.test.log"
[ $test_rc = 0 ] && case $demo_result in ok* | skipped) true ;; *) false ;; esac
