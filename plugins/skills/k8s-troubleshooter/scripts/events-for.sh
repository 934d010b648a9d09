#!/bin/sh
# events-for.sh: the events of one object, oldest first, with absolute times.
#
# Usage: events-for.sh KIND/NAME [-n NAMESPACE] [--warnings]
#   KIND is any form kubectl accepts: pod, po, deploy, deployment.apps, node, pvc …
#   --warnings  only events of type Warning
#
# Works for objects that no longer exist (the kind is then resolved through
# `kubectl api-resources`). Cluster-scoped kinds (Node, PV …) are searched in
# all namespaces. Namespace: -n, else $KUBERNETES_NAMESPACE, else the
# kubeconfig default. Events expire (about an hour by default).
# Read-only: runs only `kubectl get` and `kubectl api-resources`; jq when installed.
set -eu

usage() {
	echo "usage: events-for.sh KIND/NAME [-n NAMESPACE] [--warnings]" >&2
	exit 2
}

ns=""
ref=""
warnings=""
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
	--warnings) warnings=1; shift ;;
	-h | --help) usage ;;
	-*)
		echo "events-for.sh: unknown flag $1" >&2
		usage
		;;
	*)
		[ -z "$ref" ] || usage
		ref=$1
		shift
		;;
	esac
done
case "$ref" in
*/?*) ;;
*) usage ;;
esac
kind=${ref%%/*}
name=${ref#*/}
[ -n "$ns" ] || ns=${KUBERNETES_NAMESPACE:-}

# Resolve the canonical Kind and the scope, from the live object if it exists.
K=""
scope=""
found=""
k=$(echo "${kind%%.*}" | tr '[:upper:]' '[:lower:]')
if [ "$k" = secret ] || [ "$k" = secrets ]; then
	# Events about a Secret are fine; reading the Secret itself is not.
	K=Secret
	scope=namespaced
elif [ -n "$ns" ]; then
	found=$(kubectl get "$kind" "$name" -n "$ns" -o jsonpath='{.kind}{" "}{.metadata.namespace}' 2>/dev/null || true)
else
	found=$(kubectl get "$kind" "$name" -o jsonpath='{.kind}{" "}{.metadata.namespace}' 2>/dev/null || true)
fi
if [ -n "$K" ]; then
	:
elif [ -n "$found" ]; then
	K=${found%% *}
	objns=${found#* }
	if [ -n "$objns" ]; then
		scope=namespaced
		ns=$objns
	else
		scope=cluster
	fi
else
	# Object gone (or not readable): map KIND through the API's resource list.
	# Columns: NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
	line=$(kubectl api-resources --no-headers 2>/dev/null | awk -v k="$k" '
		{ kind = $NF; low = tolower(kind); short = (NF == 5) ? $2 : "" }
		$1 == k || low == k || ("," short ",") ~ ("," k ",") { print kind, $(NF-1); exit }' || true)
	if [ -n "$line" ]; then
		K=${line%% *}
		if [ "${line#* }" = "true" ]; then scope=namespaced; else scope=cluster; fi
	else
		# Unknown to the API: use the word as given, capitalised.
		K=$(echo "$k" | awk '{ print toupper(substr($0, 1, 1)) substr($0, 2) }')
		scope=namespaced
	fi
	echo "(object $ref not found or not readable; searching events by kind $K and name)" >&2
fi

selector="involvedObject.kind=$K,involvedObject.name=$name"
[ -z "$warnings" ] || selector="$selector,type=Warning"

# get_events ARGS…: list the selected events in the right scope.
get_events() {
	if [ "$scope" = cluster ]; then
		kubectl get events --all-namespaces --field-selector "$selector" "$@"
	elif [ -n "$ns" ]; then
		kubectl get events -n "$ns" --field-selector "$selector" "$@"
	else
		kubectl get events --field-selector "$selector" "$@"
	fi
}

if [ "$scope" = cluster ]; then
	echo "== events for $K/$name (cluster-scoped: all namespaces)"
else
	echo "== events for $K/$name in namespace ${ns:-(kubeconfig default)}"
fi

if ! command -v jq >/dev/null 2>&1; then
	get_events --sort-by=.metadata.creationTimestamp \
		-o custom-columns='FIRST:.firstTimestamp,LAST:.lastTimestamp,EVENTTIME:.eventTime,COUNT:.count,TYPE:.type,REASON:.reason,SOURCE:.source.component,MESSAGE:.message'
	exit 0
fi

get_events -o json | jq -r '
  [ .items[]
    | { first: (.firstTimestamp // .eventTime // .metadata.creationTimestamp),
        last: (.series.lastObservedTime // .lastTimestamp // .eventTime // .firstTimestamp // .metadata.creationTimestamp),
        n: (.series.count // .count // 1),
        type, reason,
        src: (.source.component // .reportingComponent // .reportingController // "-"),
        msg: ((.message // "") | gsub("\\s+"; " ")) } ]
  | sort_by(.last)
  | if length == 0 then "(none: events expire after about an hour; see context/events.json)"
    else
      "LAST (UTC)            FIRST                 COUNT  TYPE     REASON  SOURCE  MESSAGE",
      (.[] | "\(.last)  \(.first)  x\(.n)  \(.type)  \(.reason)  \(.src)  \(.msg)")
    end'
