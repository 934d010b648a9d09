#!/usr/bin/env bash
# Builds krew (as kubectl-krew, the name kubectl dispatches `kubectl krew`
# to) and krew-index's manifest validator, validate-krew-manifest, at the
# version pinned in hack/tools/krew/go.mod, from the Go module proxy into a
# cache outside the repo, once per version. Prints the directory holding
# them on stdout.
#
# test/krew runs them on the manifest `make krew-manifest` renders: the
# validator (which installs every platform through `kubectl krew install`,
# so it needs kubectl on PATH too: KUBECTL_TRIAGE_TESTBIN's), and krew's own
# install and uninstall. `make test` passes the directory in
# KUBECTL_TRIAGE_KREW; without it those tests skip. Override the cache with
# KUBECTL_TRIAGE_KREW_CACHE.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(awk '$1=="require" && $2=="sigs.k8s.io/krew" {print $3}' "$ROOT/hack/tools/krew/go.mod")"
CACHE="${KUBECTL_TRIAGE_KREW_CACHE:-$(go env GOCACHE)/../kubectl-triage-krew/$VERSION}"
mkdir -p "$CACHE"
export GOFLAGS=-mod=readonly

build() { # name package
  local out="$CACHE/$1"
  [[ -x "$out" ]] && return 0
  echo "krew: building $1 $VERSION" >&2
  (cd "$ROOT/hack/tools/krew" && go build -trimpath -ldflags "-s -w" -o "$out.tmp" "$2") && mv "$out.tmp" "$out"
}

build kubectl-krew sigs.k8s.io/krew/cmd/krew
build validate-krew-manifest sigs.k8s.io/krew/cmd/validate-krew-manifest
echo "$CACHE"
