#!/usr/bin/env bash
# Builds the test control plane (etcd, kube-apiserver, kubectl) from the Go
# module proxy into a cache outside the repo, once per version. Prints the
# directory holding the binaries on stdout.
#
# The real-node tier (test/realnode) also needs kubelet, kube-scheduler and
# kube-controller-manager at the same version. TESTBIN_NODE=1 builds them,
# TESTBIN_NODE=0 never does; unset, they are built where that tier can run
# (root, with containerd installed), so plain machines skip the long build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KUBE_VERSION="$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$ROOT/hack/tools/kube/go.mod")"
ETCD_VERSION="$(awk '$1=="require" && $2=="go.etcd.io/etcd/server/v3" {print $3}' "$ROOT/hack/tools/etcd/go.mod")"
CACHE="${TESTBIN_DIR:-$(go env GOCACHE)/../kubectl-triage-testbin/${KUBE_VERSION}-etcd${ETCD_VERSION}}"
mkdir -p "$CACHE"
# Tests, CI and parallel worktrees may build the cache at the same time:
# one builds, the others wait for it and find the binaries there.
exec 9>"$CACHE/.lock"
flock 9

log() { echo "testbin: $*" >&2; }

# The checksum database has no entry for k8s.io/kubernetes; the committed
# go.sum of the tools module is what pins it.
export GONOSUMDB=k8s.io/kubernetes
export GOFLAGS=-mod=readonly

build_kube() { # name package
  local out="$CACHE/$1"
  [[ -x "$out" ]] && return 0
  log "building $1 $KUBE_VERSION (a few minutes the first time)"
  local minor major pkg=k8s.io/component-base/version
  major="$(echo "$KUBE_VERSION" | sed -E 's/^v([0-9]+)\..*/\1/')"
  minor="$(echo "$KUBE_VERSION" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')"
  # Without these, /version reports v0.0.0-master and kubectl's semver parsing fails.
  local ldflags="-s -w -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor \
    -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean \
    -X $pkg.buildDate=1970-01-01T00:00:00Z"
  (cd "$ROOT/hack/tools/kube" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$2") && mv "$out.tmp" "$out"
}

build_etcd() {
  local out="$CACHE/etcd"
  [[ -x "$out" ]] && return 0
  log "building etcd $ETCD_VERSION"
  (cd "$ROOT/hack/tools/etcd" && go build -trimpath -ldflags "-s -w" -o "$out.tmp" go.etcd.io/etcd/server/v3) && mv "$out.tmp" "$out"
}

build_etcd
build_kube kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build_kube kubectl k8s.io/kubernetes/cmd/kubectl
node="${TESTBIN_NODE:-auto}"
if [[ "$node" == auto ]]; then
  node=0
  [[ "$(id -u)" == 0 ]] && command -v containerd >/dev/null && node=1
fi
if [[ "$node" == 1 ]]; then
  build_kube kubelet k8s.io/kubernetes/cmd/kubelet
  build_kube kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
  build_kube kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
fi
echo "$CACHE"
