#!/bin/sh
# pod-summary.sh: one-screen, read-only summary of a pod.
#
# Usage: pod-summary.sh POD [-n NAMESPACE]
#
# Shows the pod's phase, reason, node and owner, its conditions, every init and
# app container's current state, last termination (reason, exit code, signal),
# restart count, resources and probes, then the pod's events, oldest first.
# Namespace: -n, else $KUBERNETES_NAMESPACE, else the kubeconfig default.
# Read-only: runs only `kubectl get`; jq is used when installed.
set -eu

usage() {
	echo "usage: pod-summary.sh POD [-n NAMESPACE]" >&2
	exit 2
}

ns=""
name=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n | --namespace)
		[ $# -ge 2 ] || usage
		ns=$2
		shift 2
		;;
	--namespace=*)
		ns=${1#*=}
		shift
		;;
	-h | --help) usage ;;
	-*)
		echo "pod-summary.sh: unknown flag $1" >&2
		usage
		;;
	*)
		[ -z "$name" ] || usage
		name=$1
		shift
		;;
	esac
done
[ -n "$name" ] || usage
name=${name#pod/}
name=${name#pods/}
[ -n "$ns" ] || ns=${KUBERNETES_NAMESPACE:-}
if [ -z "$ns" ]; then
	ns=$(kubectl get pod "$name" -o jsonpath='{.metadata.namespace}')
fi

echo "== pod $ns/$name"
kubectl get pod "$name" -n "$ns" -o wide
echo
kubectl get pod "$name" -n "$ns" -o jsonpath='phase:     {.status.phase}  reason: {.status.reason}  qos: {.status.qosClass}
message:   {.status.message}
node:      {.spec.nodeName}  podIP: {.status.podIP}  started: {.status.startTime}
owner:     {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}
sa:        {.spec.serviceAccountName}  restartPolicy: {.spec.restartPolicy}  priorityClass: {.spec.priorityClassName}
deleting:  {.metadata.deletionTimestamp}  finalizers: {.metadata.finalizers}
'

echo
echo "== conditions"
kubectl get pod "$name" -n "$ns" -o jsonpath='{range .status.conditions[*]}{.type}={.status}	{.lastTransitionTime}	{.reason} {.message}{"\n"}{end}'

echo
echo "== containers"
if command -v jq >/dev/null 2>&1; then
	kubectl get pod "$name" -n "$ns" -o json | jq -r '
	  def st: if . == null then "-"
	    elif .running then "running since \(.running.startedAt)"
	    elif .waiting then "waiting \(.waiting.reason // "")\(if .waiting.message then ": " + (.waiting.message | gsub("\\s+"; " ")) else "" end)"
	    elif .terminated then "terminated \(.terminated.reason // "") exit=\(.terminated.exitCode)\(if .terminated.signal then " signal=\(.terminated.signal)" else "" end) \(.terminated.startedAt // "") -> \(.terminated.finishedAt // "")\(if .terminated.message then " msg: " + (.terminated.message | gsub("\\s+"; " ") | .[0:300]) else "" end)"
	    else "-" end;
	  . as $p
	  | [ ($p.spec.initContainers // [])[] | {kind: "init", spec: .} ]
	    + [ ($p.spec.containers // [])[] | {kind: "app", spec: .} ]
	  | .[]
	  | .spec.name as $n
	  | (if .kind == "init" then $p.status.initContainerStatuses else $p.status.containerStatuses end // [])
	      as $sts
	  | ([ $sts[] | select(.name == $n) ] | first) as $s
	  | "\(.kind) \($n)  image=\(.spec.image)  ready=\(if $s == null then "-" else ($s.ready | tostring) end)  restarts=\($s.restartCount // 0)",
	    "  now:  \($s.state | st)",
	    "  last: \($s.lastState | if . == null or . == {} then "-" else st end)",
	    "  resources: \(.spec.resources // {} | tojson)",
	    "  probes: startup=\(.spec.startupProbe != null) liveness=\(.spec.livenessProbe != null) readiness=\(.spec.readinessProbe != null)"
	'
else
	kubectl get pod "$name" -n "$ns" -o jsonpath='{range .status.initContainerStatuses[*]}init {.name}  image={.image}  ready={.ready}  restarts={.restartCount}
  now:  running={.state.running.startedAt} waiting={.state.waiting.reason} {.state.waiting.message} terminated={.state.terminated.reason} exit={.state.terminated.exitCode}
  last: {.lastState.terminated.reason} exit={.lastState.terminated.exitCode} signal={.lastState.terminated.signal} {.lastState.terminated.startedAt} -> {.lastState.terminated.finishedAt}
{end}{range .status.containerStatuses[*]}app {.name}  image={.image}  ready={.ready}  restarts={.restartCount}
  now:  running={.state.running.startedAt} waiting={.state.waiting.reason} {.state.waiting.message} terminated={.state.terminated.reason} exit={.state.terminated.exitCode}
  last: {.lastState.terminated.reason} exit={.lastState.terminated.exitCode} signal={.lastState.terminated.signal} {.lastState.terminated.startedAt} -> {.lastState.terminated.finishedAt}
{end}'
	echo
	echo "== resources and probes (spec)"
	kubectl get pod "$name" -n "$ns" -o jsonpath='{range .spec.containers[*]}{.name}: resources={.resources} startup={.startupProbe} liveness={.livenessProbe} readiness={.readinessProbe}{"\n"}{end}'
fi

echo
echo "== events (oldest first)"
if command -v jq >/dev/null 2>&1; then
	kubectl get events -n "$ns" --field-selector "involvedObject.kind=Pod,involvedObject.name=$name" -o json | jq -r '
	  [ .items[]
	    | { t: (.series.lastObservedTime // .lastTimestamp // .eventTime // .firstTimestamp // .metadata.creationTimestamp),
	        n: (.series.count // .count // 1),
	        type, reason,
	        msg: ((.message // "") | gsub("\\s+"; " ")) } ]
	  | sort_by(.t)
	  | if length == 0 then "(none: events expire after about an hour; see context/events.json)"
	    else .[] | "\(.t)  \(.type)  \(.reason)  x\(.n)  \(.msg)" end'
else
	kubectl get events -n "$ns" --field-selector "involvedObject.kind=Pod,involvedObject.name=$name" \
		--sort-by=.metadata.creationTimestamp \
		-o custom-columns='LAST:.lastTimestamp,EVENTTIME:.eventTime,COUNT:.count,TYPE:.type,REASON:.reason,MESSAGE:.message'
fi
