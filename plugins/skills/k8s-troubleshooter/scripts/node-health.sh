#!/bin/sh
# node-health.sh: health of all nodes, or details of one node.
#
# Usage: node-health.sh          one line per node: Ready, pressure conditions
#                                that are True, cordon, taints; then usage
#        node-health.sh NODE     conditions, taints, capacity vs allocatable,
#                                allocated requests/limits, kubelet lease,
#                                pods that are not Running there, node events
#
# Nodes are cluster-scoped: a namespace-bound read-only identity may be
# refused (Forbidden); that is reported, not fatal for the optional parts.
# Read-only: runs only `kubectl get`, `kubectl describe` and `kubectl top`.
set -eu

usage() {
	echo "usage: node-health.sh [NODE]" >&2
	exit 2
}

node=""
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage ;;
	-*)
		echo "node-health.sh: unknown flag $1" >&2
		usage
		;;
	*)
		[ -z "$node" ] || usage
		node=$1
		shift
		;;
	esac
done
case "$node" in
node/* | nodes/*) node=${node#*/} ;;
esac

if [ -z "$node" ]; then
	echo "== nodes"
	kubectl get nodes -o wide
	echo
	echo "== problems (Ready != True, pressure/NetworkUnavailable = True, cordoned, taints)"
	kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{range .status.conditions[*]}{.type}={.status} {end}{"\t"}{.spec.unschedulable}{"\t"}{range .spec.taints[*]}{.key}:{.effect} {end}{"\n"}{end}' |
		awk -F '\t' '
		{
			ready = "?"; bad = ""
			n = split($2, c, " ")
			for (i = 1; i <= n; i++) {
				split(c[i], kv, "=")
				if (kv[1] == "Ready") ready = kv[2]
				else if (kv[2] == "True") bad = bad " " kv[1]
			}
			cordon = ($3 == "true") ? " cordoned" : ""
			taints = ($4 == "") ? "" : " taints: " $4
			if (ready != "True" || bad != "" || cordon != "" || taints != "") {
				printf "%s  Ready=%s%s%s%s\n", $1, ready, bad, cordon, taints
				shown++
			}
		}
		END { if (!shown) print "(none: every node is Ready, without pressure, cordon or taints)" }'
	echo
	echo "== usage (metrics-server)"
	kubectl top nodes 2>&1 || echo "(kubectl top unavailable: no metrics API)"
	exit 0
fi

echo "== node $node"
kubectl get node "$node" -o wide
echo
echo "== conditions"
kubectl get node "$node" -o jsonpath='{range .status.conditions[*]}{.type}={.status}	{.reason}	since {.lastTransitionTime}	heartbeat {.lastHeartbeatTime}	{.message}{"\n"}{end}'
echo
echo "== scheduling"
kubectl get node "$node" -o jsonpath='unschedulable: {.spec.unschedulable}
taints:
{range .spec.taints[*]}  {.key}={.value}:{.effect} {.timeAdded}{"\n"}{end}labels: {.metadata.labels}
'
echo
echo "== capacity / allocatable"
kubectl get node "$node" -o jsonpath='capacity:    cpu={.status.capacity.cpu} memory={.status.capacity.memory} pods={.status.capacity.pods} ephemeral-storage={.status.capacity.ephemeral-storage}
allocatable: cpu={.status.allocatable.cpu} memory={.status.allocatable.memory} pods={.status.allocatable.pods} ephemeral-storage={.status.allocatable.ephemeral-storage}
kubelet: {.status.nodeInfo.kubeletVersion}  runtime: {.status.nodeInfo.containerRuntimeVersion}  kernel: {.status.nodeInfo.kernelVersion}  os: {.status.nodeInfo.osImage}
'
echo
echo "== allocated (requests and limits of the pods on it)"
kubectl describe node "$node" | awk '/^Allocated resources:/ { on = 1 } /^Events:/ { on = 0 } on { print }'
echo
echo "== usage (metrics-server)"
kubectl top node "$node" 2>&1 || echo "(kubectl top unavailable: no metrics API)"
echo
echo "== kubelet heartbeat (lease renewTime)"
kubectl get lease "$node" -n kube-node-lease -o jsonpath='{.spec.renewTime}{"\n"}' 2>&1 || echo "(lease not readable)"
echo
echo "== pods on $node that are not Running"
kubectl get pods --all-namespaces -o wide --field-selector "spec.nodeName=$node,status.phase!=Running" 2>&1 || echo "(pods not readable across namespaces)"
echo
echo "== events for node $node (oldest first)"
if command -v jq >/dev/null 2>&1; then
	{ kubectl get events --all-namespaces --field-selector "involvedObject.kind=Node,involvedObject.name=$node" -o json ||
		echo '{"items":[],"error":true}'; } | jq -r '
	  if .error then "(events not readable)" else
	  [ .items[]
	    | { t: (.series.lastObservedTime // .lastTimestamp // .eventTime // .firstTimestamp // .metadata.creationTimestamp),
	        n: (.series.count // .count // 1), type, reason,
	        msg: ((.message // "") | gsub("\\s+"; " ")) } ]
	  | sort_by(.t)
	  | if length == 0 then "(none: events expire after about an hour)"
	    else .[] | "\(.t)  \(.type)  \(.reason)  x\(.n)  \(.msg)" end
	  end'
else
	kubectl get events --all-namespaces --field-selector "involvedObject.kind=Node,involvedObject.name=$node" \
		--sort-by=.metadata.creationTimestamp \
		-o custom-columns='LAST:.lastTimestamp,EVENTTIME:.eventTime,COUNT:.count,TYPE:.type,REASON:.reason,MESSAGE:.message' 2>&1 ||
		echo "(events not readable)"
fi
