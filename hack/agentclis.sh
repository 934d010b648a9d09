#!/usr/bin/env bash
# Installs the real agent CLIs the end-to-end tests run (claude, codex,
# gemini), pinned in hack/tools/agentclis/package.json and its lock file, into
# a cache outside the repo keyed by that lock file, once. Prints the directory
# holding the three commands on stdout.
#
# npm ci --ignore-scripts: no package's install script runs, except the one
# the pinned claude-code needs and does nothing but copy its native binary
# from the platform package npm already unpacked over the bin/claude.exe
# placeholder (no download). codex and gemini need no install script: codex's
# launcher finds its platform package at run time, gemini is one bundle.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/hack/tools/agentclis"
log() { echo "agentclis: $*" >&2; }

for tool in node npm; do
  command -v "$tool" >/dev/null || { log "$tool is not installed (Debian: apt-get install -y nodejs npm)"; exit 1; }
done

# gemini-cli 0.61 declares node >= 20 (claude and codex run native binaries).
if (( $(node -p 'process.versions.node.split(".")[0]') < 20 )); then
  log "node $(node --version) is older than gemini-cli needs (>= 20); gemini may not start"
fi

KEY="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -c1-16)"
CACHE="${AGENTCLIS_DIR:-$(go env GOCACHE)/../kubectl-triage-agentclis/$KEY}"
mkdir -p "$(dirname "$CACHE")"
CACHE="$(cd "$(dirname "$CACHE")" && pwd -P)/$(basename "$CACHE")"
BIN="$CACHE/node_modules/.bin"

if [[ ! -f "$CACHE/.complete" ]]; then
  log "installing the pinned agent CLIs from npm into $CACHE"
  rm -rf "$CACHE.tmp"
  mkdir -p "$CACHE.tmp"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$CACHE.tmp/"
  (cd "$CACHE.tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  (cd "$CACHE.tmp" && node node_modules/@anthropic-ai/claude-code/install.cjs >&2)
  rm -rf "$CACHE"
  mv "$CACHE.tmp" "$CACHE"
  touch "$CACHE/.complete"
fi
# node_modules/.bin links are relative, so the moved tree still works.
for cli in claude codex gemini; do
  [[ -x "$BIN/$cli" ]] || { log "$BIN/$cli is missing; remove $CACHE and retry"; exit 1; }
done
echo "$BIN"
