#!/usr/bin/env bash
# `make smoke`: the release archive for this machine, installed the way krew
# lays a plugin out, run through the real kubectl's plugin dispatch against a
# throwaway control plane (test/testcluster).
#
#   KREW_ROOT/receipts/triage.yaml   the manifest installed, plus its source
#   KREW_ROOT/store/triage/VERSION/{kubectl-triage,LICENSE,kubectl_complete-triage}
#   KREW_ROOT/bin/kubectl-triage -> KREW_ROOT/store/triage/VERSION/kubectl-triage
#
# as krew 0.4 makes it: the link is absolute, and only the manifest's `bin`
# is linked, never the completion helper (krew issue #812). Completion is
# then enabled, and the plugin uninstalled, with the commands the README and
# the manifest's caveats give users. With KREW set to a krew binary
# (kubectl-krew), krew itself installs and uninstalls (`$KREW install
# --manifest=… --archive=…`), and the same layout checks hold it to this.
#
# Environment: VERSION (default v0.0.0-smoke), COMMIT, GO, KREW, KEEP=1 keeps
# the temp dir. Prints PASS/FAIL per check; exits non-zero if any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
GO="${GO:-go}"
VERSION="${VERSION:-v0.0.0-smoke}"
COMMIT="${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
export GO VERSION COMMIT

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-triage-smoke.XXXXXX")"
TC_PID=""
failures=0
checks=0

cleanup() {
  local rc=$?
  if [[ -n "$TC_PID" ]] && kill -0 "$TC_PID" 2>/dev/null; then
    kill -TERM "$TC_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$TC_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$TC_PID" 2>/dev/null || true
    wait "$TC_PID" 2>/dev/null || true
  fi
  if [[ "${KEEP:-}" == 1 ]]; then
    echo "smoke: kept $WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() { echo "smoke: $*" >&2; }
pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }

# expect NAME WANT_EXIT GREP_PATTERN -- CMD...: runs CMD, checks its exit code
# and that stdout+stderr match GREP_PATTERN (extended regexp; empty = any).
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out="$WORK/out.$checks" rc=0
  "$@" >"$out" 2>&1 || rc=$?
  if [[ "$rc" != "$want" ]]; then
    fail "$name: exit $rc, want $want ($*)"
    sed 's/^/    /' "$out" | tail -n 20
    return
  fi
  if [[ -n "$pattern" ]] && ! grep -Eq -- "$pattern" "$out"; then
    fail "$name: output does not match /$pattern/ ($*)"
    sed 's/^/    /' "$out" | tail -n 20
    return
  fi
  pass "$name"
}

t_start=$SECONDS
HOST_OS="$(GOOS= GOARCH= "$GO" env GOHOSTOS)"
HOST_ARCH="$(GOOS= GOARCH= "$GO" env GOHOSTARCH)"
ARCHIVE="kubectl-triage_${VERSION}_${HOST_OS}_${HOST_ARCH}.tar.gz"
[[ "$HOST_OS" != windows ]] || { echo "FAIL: smoke runs on Linux and macOS"; exit 1; }

# 1. The archive and its manifest, as a release would make them: the
#    manifest is DIST/triage.yaml (krew wants it named after the plugin).
DIST="$WORK/dist"
MANIFEST="$DIST/triage.yaml"
log "building $ARCHIVE"
make -s --no-print-directory krew-manifest VERSION="$VERSION" COMMIT="$COMMIT" PLATFORMS=host \
  DIST_DIR="$DIST" >&2
[[ -f "$DIST/$ARCHIVE" ]] && pass "make dist + krew-manifest: $ARCHIVE" || { fail "no $DIST/$ARCHIVE"; exit 1; }
[[ -f "$MANIFEST" ]] && pass "make krew-manifest: dist/triage.yaml" || { fail "no $MANIFEST"; exit 1; }

# 2. The krew layout: krew itself where there is one, else made by hand.
KREW_ROOT="$WORK/krew"
export KREW_ROOT KREW_NO_UPGRADE_CHECK=1
STORE="$KREW_ROOT/store/triage/$VERSION"
if [[ -n "${KREW:-}" ]]; then
  expect "krew install --manifest=triage.yaml --archive=$ARCHIVE" 0 "" -- \
    "$KREW" install --manifest="$MANIFEST" --archive="$DIST/$ARCHIVE"
else
  echo "SKIP: krew install (no krew binary here; set KREW=/path/to/kubectl-krew): laid out by hand as krew 0.4 does"
  mkdir -p "$STORE" "$KREW_ROOT/bin" "$KREW_ROOT/receipts" "$KREW_ROOT/index/default"
  tar -xzf "$DIST/$ARCHIVE" -C "$STORE"
  { cat "$MANIFEST"; printf 'status:\n  source:\n    name: detached\n'; } >"$KREW_ROOT/receipts/triage.yaml"
  ln -s "$STORE/kubectl-triage" "$KREW_ROOT/bin/kubectl-triage"
fi
for f in kubectl-triage LICENSE kubectl_complete-triage; do
  [[ -f "$STORE/$f" ]] || fail "archive lacks $f"
done
[[ -f "$KREW_ROOT/receipts/triage.yaml" ]] && pass "krew receipt receipts/triage.yaml" || fail "no receipts/triage.yaml"
link="$(readlink "$KREW_ROOT/bin/kubectl-triage" || true)"
[[ "$link" == "$STORE/kubectl-triage" ]] && pass "bin/kubectl-triage is an absolute link to the store" ||
  fail "bin/kubectl-triage links to '$link', want $STORE/kubectl-triage"
[[ ! -e "$KREW_ROOT/bin/kubectl_complete-triage" && ! -L "$KREW_ROOT/bin/kubectl_complete-triage" ]] &&
  pass "no link for the completion helper (krew links only bin)" || fail "bin/kubectl_complete-triage exists after install"
export PATH="$KREW_ROOT/bin:$PATH"
[[ "$(command -v kubectl-triage)" == "$KREW_ROOT/bin/kubectl-triage" ]] &&
  pass "kubectl-triage on PATH from KREW_ROOT/bin" || fail "kubectl-triage resolves to $(command -v kubectl-triage || echo nothing)"

# 3. The control plane; its kubectl is the real one under test.
log "building the test control plane binaries (cached after the first run)"
KUBECTL_TRIAGE_TESTBIN="$(./hack/testbin.sh)"
export KUBECTL_TRIAGE_TESTBIN
"$GO" build -o "$WORK/testcluster" ./test/testcluster/cmd/testcluster
TC_DIR="$WORK/cluster"
"$WORK/testcluster" up --dir "$TC_DIR" >"$WORK/cluster.env" 2>"$WORK/cluster.log" &
TC_PID=$!
for _ in $(seq 1 600); do
  grep -q '^export KUBECACHEDIR=' "$WORK/cluster.env" 2>/dev/null && break
  kill -0 "$TC_PID" 2>/dev/null || break
  sleep 0.2
done
if ! grep -q '^export KUBECACHEDIR=' "$WORK/cluster.env"; then
  fail "test control plane did not start"
  sed 's/^/    /' "$WORK/cluster.log" | tail -n 30
  exit 1
fi
# shellcheck disable=SC1091
. "$WORK/cluster.env" # KUBECONFIG (read-only triage user), KUBECTL, KUBECACHEDIR
export KUBECONFIG KUBECACHEDIR
ADMIN="$TC_DIR/admin.kubeconfig"
pass "test control plane up ($("$KUBECTL" version --client -o yaml | awk '/gitVersion/ {print $2; exit}'))"
export WORKSPACE_ROOT="$WORK/incidents" XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config"
# The developer's settings stay out (a Slack webhook, an MCP endpoint, a paid agent).
unset AGENT_CLI AGENT_MODEL AGENT_TIMEOUT AGENT_ALLOWED_TOOLS AGENT_SYSTEM_PROMPT_FILE AGENT_RUNTIME_COMMAND \
  K8S_CLUSTER_MCP_ENDPOINT K8S_CLUSTER_MCP_TOKEN SUBSCRIBE_MODE SLACK_WEBHOOK_URL MIN_SEVERITY LOG_LEVEL KUBECTL_TRIAGE_CONFIG

# 4. Plugin dispatch through the real kubectl.
expect "kubectl plugin list finds kubectl-triage" 0 "$KREW_ROOT/bin/kubectl-triage" -- \
  sh -c '"$0" plugin list 2>&1; true' "$KUBECTL"
expect "kubectl triage version" 0 "kubectl-triage $VERSION \\(commit $COMMIT, " -- "$KUBECTL" triage version
expect "kubectl triage version -o json" 0 "\"version\": \"$VERSION\"" -- "$KUBECTL" triage version -o json
expect "kubectl triage --help" 0 "kubectl triage" -- "$KUBECTL" triage --help
expect "kubectl triage nosuch exits 1" 1 "nosuch" -- "$KUBECTL" triage nosuch

# 5. Shell completion: kubectl runs kubectl_complete-triage (kubectl >= 1.26),
#    which krew does not put on PATH: nothing until the README's copy step.
#    The cluster-backed candidates are checked once there is a pod (6).
expect "kubectl __complete tri (plugin name)" 0 "^triage" -- "$KUBECTL" __complete tri
if "$KUBECTL" __complete triage "" 2>/dev/null | grep -q '^version'; then
  fail "kubectl completes triage's subcommands before the helper is copied: the layout is not krew's"
else
  pass "no plugin completion before the README's copy step"
fi
cp "${KREW_ROOT:-$HOME/.krew}"/store/triage/*/kubectl_complete-triage "${KREW_ROOT:-$HOME/.krew}/bin/" # README
expect "kubectl __complete triage (completion helper)" 0 "^version" -- "$KUBECTL" __complete triage ""
expect "kubectl triage completion bash" 0 "__start_kubectl-triage" -- "$KUBECTL" triage completion bash

# 6. A real triage of a crash-looping pod.
NS=smoke
k() { "$KUBECTL" --kubeconfig "$ADMIN" "$@"; }
k create namespace "$NS" >/dev/null
k -n "$NS" create serviceaccount default >/dev/null 2>&1 || true
k -n "$NS" apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: crashloop, labels: {app: smoke}}
spec:
  nodeName: fake-node
  containers: [{name: app, image: busybox:1.36, command: ["sh", "-c", "exit 1"]}]
EOF
ago() { date -u -d "@$(($(date +%s) - $1))" +%FT%TZ 2>/dev/null || date -u -r "$(($(date +%s) - $1))" +%FT%TZ; }
T0=$(ago 1800) T1=$(ago 120) T2=$(ago 60)
k -n "$NS" patch pod crashloop --subresource=status --type=merge -p '{"status":{
  "phase":"Running","hostIP":"127.0.0.1","podIP":"10.244.0.11","startTime":"'"$T0"'",
  "conditions":[
    {"type":"Initialized","status":"True","lastTransitionTime":"'"$T0"'"},
    {"type":"Ready","status":"False","reason":"ContainersNotReady","message":"containers with unready status: [app]","lastTransitionTime":"'"$T0"'"},
    {"type":"ContainersReady","status":"False","reason":"ContainersNotReady","message":"containers with unready status: [app]","lastTransitionTime":"'"$T0"'"},
    {"type":"PodScheduled","status":"True","lastTransitionTime":"'"$T0"'"}],
  "containerStatuses":[{"name":"app","image":"docker.io/library/busybox:1.36","imageID":"","containerID":"containerd://c1",
    "ready":false,"started":false,"restartCount":5,
    "state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 2m40s restarting failed container=app pod=crashloop_'"$NS"'(uid)"}},
    "lastState":{"terminated":{"exitCode":1,"reason":"Error","startedAt":"'"$T1"'","finishedAt":"'"$T2"'","containerID":"containerd://c1"}}}]}}' >/dev/null
pass "crash-looping pod $NS/crashloop created"

# kubectl triage <TAB>, as a shell asks kubectl: pod names and types from
# the cluster, through KREW_ROOT/bin/kubectl_complete-triage.
expect "kubectl triage <TAB> offers the pod" 0 $'^crashloop\t' -- "$KUBECTL" __complete triage -n "$NS" ""
expect "kubectl triage <TAB> offers resource types" 0 $'^deployments\t' -- "$KUBECTL" __complete triage -n "$NS" ""
expect "kubectl triage pod/<TAB> offers pod/NAME" 0 '^pod/crashloop$' -- "$KUBECTL" __complete triage -n "$NS" pod/

expect "kubectl triage pod/crashloop exits 0" 0 "" -- "$KUBECTL" triage pod/crashloop -n "$NS" -q
report="$WORK/out.$((checks - 1))"
for want in '^# Triage: Pod/crashloop' '^## Root cause' 'exit code 1' 'CrashLoopBackOff'; do
  if grep -Eq -- "$want" "$report"; then pass "report: /$want/"; else fail "report lacks /$want/"; fi
done
expect "report kept in the workspace" 0 "" -- sh -c 'ls "$0"/*/output/investigation.md' "$WORKSPACE_ROOT"

# The incident commands, as the README shows them.
ID=$(ls "$WORKSPACE_ROOT" | grep -E '^[0-9a-f]{8}-[0-9a-f]{4}-' | head -1)
PREFIX=${ID:0:8}
expect "kubectl triage list" 0 'Pod/crashloop -n smoke' -- "$KUBECTL" triage list
expect "kubectl triage show <prefix>" 0 '^# Triage: Pod/crashloop' -- "$KUBECTL" triage show "$PREFIX"
expect "kubectl triage status <prefix>" 0 'resolved' -- "$KUBECTL" triage status "$PREFIX"
expect "kubectl triage gc --older-than 0s --dry-run" 0 "^would remove $ID" -- "$KUBECTL" triage gc --older-than 0s --dry-run
expect "kubectl triage completion bash" 0 'kubectl-triage' -- "$KUBECTL" triage completion bash

# Watch mode from the cluster: the crash-looping pod exists already.
expect "kubectl triage watch --include-existing --max-incidents 1" 0 'resolved +smoke/Pod/crashloop +CrashLoop' -- \
  "$KUBECTL" triage watch -n "$NS" --include-existing --max-incidents 1

# 7. Uninstall: krew removes its link, store and receipt, and leaves the
#    copied completion helper behind; the README's rm removes it.
if [[ -n "${KREW:-}" ]]; then
  expect "krew uninstall triage" 0 "" -- "$KREW" uninstall triage
else
  rm -f "$KREW_ROOT/bin/kubectl-triage" "$KREW_ROOT/receipts/triage.yaml"
  rm -rf "$KREW_ROOT/store/triage"
fi
[[ ! -e "$KREW_ROOT/bin/kubectl-triage" && ! -e "$KREW_ROOT/store/triage" ]] &&
  pass "uninstall removed the plugin" || fail "uninstall left bin/kubectl-triage or store/triage"
[[ -f "$KREW_ROOT/bin/kubectl_complete-triage" ]] &&
  pass "uninstall leaves the copied kubectl_complete-triage (as the README says)" ||
  fail "kubectl_complete-triage is gone after uninstall: the README's note is wrong"
rm "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-triage" # README
expect "kubectl plugin list no longer finds triage" 0 "" -- \
  sh -c '! "$0" plugin list 2>&1 | grep -qF "$1/kubectl"' "$KUBECTL" "$KREW_ROOT/bin"

echo "smoke: $((checks - failures))/$checks checks passed in $((SECONDS - t_start))s" >&2
if ((failures > 0)); then
  echo "FAIL: smoke ($failures of $checks checks failed)"
  exit 1
fi
echo "PASS: smoke"
