#!/bin/sh
# rollout-diff.sh: what changed between two revisions of a Deployment.
#
# Usage: rollout-diff.sh DEPLOYMENT [-n NAMESPACE] [--from REV] [--to REV]
#   default: --to = newest revision, --from = the revision before it
#
# Prints the Deployment's rollout status and conditions, its revision history
# (from the ReplicaSets it owns: revision, name, replicas, creation time,
# change-cause), then a unified diff of the pod templates of the two
# revisions, without the pod-template-hash label.
# Namespace: -n, else $KUBERNETES_NAMESPACE, else the kubeconfig default.
# Read-only: runs only `kubectl get`; jq is used when installed. Temporary
# files go to a private directory under ${TMPDIR:-/tmp} and are removed.
set -eu

usage() {
	echo "usage: rollout-diff.sh DEPLOYMENT [-n NAMESPACE] [--from REV] [--to REV]" >&2
	exit 2
}

ns=""
name=""
from=""
to=""
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
	--from)
		[ $# -ge 2 ] || usage
		from=$2
		shift 2
		;;
	--to)
		[ $# -ge 2 ] || usage
		to=$2
		shift 2
		;;
	-h | --help) usage ;;
	-*)
		echo "rollout-diff.sh: unknown flag $1" >&2
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
for r in "$from" "$to"; do
	case "$r" in
	*[!0-9]*)
		echo "rollout-diff.sh: revisions are numbers, got '$r'" >&2
		exit 2
		;;
	esac
done
case "$name" in
deployment/* | deployments/* | deploy/* | deployment.apps/* | deployments.apps/*) name=${name#*/} ;;
esac
[ -n "$ns" ] || ns=${KUBERNETES_NAMESPACE:-}
if [ -z "$ns" ]; then
	ns=$(kubectl get deployment "$name" -o jsonpath='{.metadata.namespace}')
fi

echo "== deployment $ns/$name"
kubectl get deployment "$name" -n "$ns" -o wide
kubectl get deployment "$name" -n "$ns" -o jsonpath='generation={.metadata.generation} observed={.status.observedGeneration} paused={.spec.paused} strategy={.spec.strategy.type} maxSurge={.spec.strategy.rollingUpdate.maxSurge} maxUnavailable={.spec.strategy.rollingUpdate.maxUnavailable} progressDeadline={.spec.progressDeadlineSeconds}s
replicas: want={.spec.replicas} updated={.status.updatedReplicas} ready={.status.readyReplicas} available={.status.availableReplicas} unavailable={.status.unavailableReplicas}
{range .status.conditions[*]}{.type}={.status} {.reason} ({.lastUpdateTime}): {.message}{"\n"}{end}'

uid=$(kubectl get deployment "$name" -n "$ns" -o jsonpath='{.metadata.uid}')

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rollout-diff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM

# One line per ReplicaSet owned by this Deployment:
# revision <TAB> name <TAB> desired <TAB> ready <TAB> created <TAB> change-cause
kubectl get replicasets -n "$ns" -o jsonpath='{range .items[*]}{.metadata.annotations.deployment\.kubernetes\.io/revision}{"\t"}{.metadata.name}{"\t"}{.spec.replicas}{"\t"}{.status.readyReplicas}{"\t"}{.metadata.creationTimestamp}{"\t"}{.metadata.annotations.kubernetes\.io/change-cause}{"\t"}{.metadata.ownerReferences[*].uid}{"\n"}{end}' |
	awk -F '\t' -v uid="$uid" 'index($7, uid) > 0 { r = ($1 == "") ? 0 : $1; print r "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }' |
	sort -n -k1,1 >"$tmp/history"

echo
echo "== revisions (from the ReplicaSets; oldest first)"
if [ ! -s "$tmp/history" ]; then
	echo "(no ReplicaSets owned by this Deployment)"
	exit 0
fi
awk -F '\t' 'BEGIN { printf "%-8s %-45s %-8s %-6s %-21s %s\n", "REV", "REPLICASET", "DESIRED", "READY", "CREATED", "CHANGE-CAUSE" }
	{ printf "%-8s %-45s %-8s %-6s %-21s %s\n", $1, $2, $3, ($4 == "" ? 0 : $4), $5, $6 }' "$tmp/history"

[ -n "$to" ] || to=$(tail -n 1 "$tmp/history" | cut -f 1)
if [ -z "$from" ]; then
	from=$(awk -F '\t' -v to="$to" '$1 + 0 < to + 0 { r = $1 } END { print r }' "$tmp/history")
fi
if [ -z "$from" ]; then
	echo
	echo "(revision $to has no earlier revision left to compare with: revisionHistoryLimit or a first rollout)"
	exit 0
fi
rs_from=$(awk -F '\t' -v r="$from" '$1 == r { print $2; exit }' "$tmp/history")
rs_to=$(awk -F '\t' -v r="$to" '$1 == r { print $2; exit }' "$tmp/history")
if [ -z "$rs_from" ] || [ -z "$rs_to" ]; then
	echo "rollout-diff.sh: revision $from or $to not found among the ReplicaSets" >&2
	exit 1
fi

# template RS OUT: the ReplicaSet's pod template, normalised for diffing.
template() {
	if command -v jq >/dev/null 2>&1; then
		kubectl get replicaset "$1" -n "$ns" -o json |
			jq -S '.spec.template | del(.metadata.labels["pod-template-hash"]) | del(.metadata.creationTimestamp)' >"$2"
	else
		# YAML: keep the block under "  template:" inside "spec:", drop the hash label.
		kubectl get replicaset "$1" -n "$ns" -o yaml |
			awk '/^spec:/ { inspec = 1; next }
			     inspec && /^[^ ]/ { inspec = 0 }
			     inspec && /^  template:/ { intpl = 1; next }
			     intpl && /^  [^ ]/ { intpl = 0 }
			     intpl { print }' |
			sed -e '/pod-template-hash:/d' -e '/creationTimestamp: null/d' >"$2"
	fi
}

template "$rs_from" "$tmp/revision-$from.$rs_from"
template "$rs_to" "$tmp/revision-$to.$rs_to"

echo
echo "== pod template diff: revision $from ($rs_from) -> revision $to ($rs_to)"
cd "$tmp"
if cmp -s "revision-$from.$rs_from" "revision-$to.$rs_to"; then
	echo "(identical pod templates: the rollout changed nothing in the pod spec)"
elif command -v diff >/dev/null 2>&1; then
	diff -u "revision-$from.$rs_from" "revision-$to.$rs_to" || true
else
	echo "--- revision $from"
	cat "revision-$from.$rs_from"
	echo "+++ revision $to"
	cat "revision-$to.$rs_to"
fi
