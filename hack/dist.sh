#!/usr/bin/env bash
# Release archives for krew and GitHub releases: `make dist VERSION=vX.Y.Z`.
#
# For each PLATFORM (GOOS/GOARCH) it builds a stripped, reproducible
# kubectl-triage and packs it with LICENSE and the kubectl_complete-triage
# completion helper (plugins/completion/, the .bat one on Windows) into
# DIST_DIR/kubectl-triage_VERSION_OS_ARCH.tar.gz (.zip on Windows), then
# writes DIST_DIR/SHA256SUMS. Two runs on the same commit with the same Go
# toolchain give byte-identical archives: -trimpath, -buildvcs=false, an
# empty build ID, CGO_ENABLED=0, fixed GOAMD64/GOARM64, and archives written
# by hack/krewmanifest with sorted entries, one timestamp
# (SOURCE_DATE_EPOCH, else the commit time), uid/gid 0, no owner
# names and a gzip header without name or time. Only Go is needed (no GNU
# tar, zip or sha256sum), so it behaves the same on Linux and macOS.
#
# Environment (the Makefile passes them):
#   VERSION    v-prefixed semver, required (krew requires it)
#   COMMIT     embedded commit (default: git rev-parse --short HEAD)
#   DIST_DIR   output directory (default: dist)
#   PLATFORMS  space-separated GOOS/GOARCH list, or "host"
#              (default: linux, darwin and windows on amd64 and arm64)
#   SOURCE_DATE_EPOCH  archive timestamps (default: the commit time)
#   TAGS       Go build tags (default none: the krew build, whose only
#              stores are azblob:// and file://; store_all links s3:// and
#              gs:// too, as the container image does)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

GO="${GO:-go}"
PKG=github.com/kubectl-triage/kubectl-triage
# The kubectl_complete-triage helpers shipped in every archive.
COMPLETION_DIR=plugins/completion
VERSION="${VERSION:?VERSION is required, e.g. make dist VERSION=v0.1.0}"
COMMIT="${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
DIST_DIR="${DIST_DIR:-dist}"
PLATFORMS="${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
TAGS="${TAGS:-}"

log() { echo "dist: $*" >&2; }
die() { echo "dist: error: $*" >&2; exit 1; }

semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
[[ "$VERSION" =~ $semver ]] || die "VERSION=$VERSION is not v-prefixed semver (vX.Y.Z)"

if [[ -z "${SOURCE_DATE_EPOCH:-}" ]]; then
  SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || true)"
  [[ -n "$SOURCE_DATE_EPOCH" ]] || SOURCE_DATE_EPOCH=315532800 # 1980-01-01, no git
fi
[[ "$SOURCE_DATE_EPOCH" =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH is not a number"

# Host tools are built for the host whatever GOOS/GOARCH say.
HOST_OS="$(GOOS= GOARCH= "$GO" env GOHOSTOS)"
HOST_ARCH="$(GOOS= GOARCH= "$GO" env GOHOSTARCH)"
[[ "$PLATFORMS" == host ]] && PLATFORMS="$HOST_OS/$HOST_ARCH"

STAGE="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-triage-dist.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

[[ -n "${PLATFORMS// /}" ]] || die "PLATFORMS is empty"
for platform in $PLATFORMS; do
  [[ "$platform" =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "bad platform $platform (want GOOS/GOARCH)"
done
mkdir -p "$DIST_DIR"
DIST_DIR="$(cd "$DIST_DIR" && pwd)"
OUT="$STAGE/out"
mkdir -p "$OUT"
GOOS= GOARCH= "$GO" build -o "$STAGE/krewmanifest" ./hack/krewmanifest

LDFLAGS="-s -w -buildid= -X $PKG/pkg/version.Version=$VERSION -X $PKG/pkg/version.Commit=$COMMIT"
archives=()
for platform in $PLATFORMS; do
  os="${platform%/*}" arch="${platform#*/}"
  dir="$STAGE/${os}_${arch}"
  mkdir -p "$dir"
  exe="" ext=tar.gz completion=kubectl_complete-triage
  if [[ "$os" == windows ]]; then
    exe=.exe ext=zip completion=kubectl_complete-triage.bat
  fi
  t0=$SECONDS
  # GOFLAGS, GOAMD64 and GOARM64 are pinned so the caller's environment
  # cannot change the bytes.
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOAMD64=v1 GOARM64=v8.0 GOFLAGS=-mod=readonly \
    "$GO" build -trimpath -buildvcs=false -tags "$TAGS" -ldflags "$LDFLAGS" -o "$dir/kubectl-triage$exe" ./cmd/kubectl-triage
  cp LICENSE "$dir/LICENSE"
  if [[ "$os" == windows ]]; then
    # kubectl finds it with exec.LookPath, which tries PATHEXT (.bat) on
    # Windows; cmd.exe wants CRLF line endings.
    while IFS= read -r line || [[ -n "$line" ]]; do
      printf '%s\r\n' "${line%$'\r'}"
    done <"$COMPLETION_DIR/$completion" >"$dir/$completion"
  else
    cp "$COMPLETION_DIR/$completion" "$dir/$completion"
  fi
  chmod 0755 "$dir/kubectl-triage$exe" "$dir/$completion"
  chmod 0644 "$dir/LICENSE"
  archive="$OUT/kubectl-triage_${VERSION}_${os}_${arch}.$ext"
  "$STAGE/krewmanifest" archive -o "$archive" -mtime "$SOURCE_DATE_EPOCH" \
    "$dir/kubectl-triage$exe" "$dir/LICENSE" "$dir/$completion"
  archives+=("$archive")
  log "$(basename "$archive") ($((SECONDS - t0))s)"
done

"$STAGE/krewmanifest" sums -o "$OUT/SHA256SUMS" "${archives[@]}"
# Only a complete run replaces what DIST_DIR held, and the directory then
# holds exactly this run's output.
rm -f "$DIST_DIR"/kubectl-triage_*.tar.gz "$DIST_DIR"/kubectl-triage_*.zip "$DIST_DIR/SHA256SUMS"
mv "$OUT"/* "$DIST_DIR"/
log "wrote ${#archives[@]} archives and SHA256SUMS to $DIST_DIR (version $VERSION, commit $COMMIT, mtime @$SOURCE_DATE_EPOCH)"
