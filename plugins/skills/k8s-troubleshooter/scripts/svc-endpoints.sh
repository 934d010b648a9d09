#!/bin/sh
# svc-endpoints.sh: why a Service does (not) send traffic to pods.
#
# Usage: svc-endpoints.sh SERVICE [-n NAMESPACE]
#
# Shows the Service (type, ports, targetPorts, selector), the pods its
# selector matches with their readiness and declared ports, how many pods each
# selector label matches on its own (finds the label that breaks the match),
# whether named targetPorts are declared by the pods, the EndpointSlices with
# per-endpoint readiness, Ingresses in the namespace that route to it, and
# the Service's events.
# Namespace: -n, else $KUBERNETES_NAMESPACE, else the kubeconfig default.
# Read-only: runs only `kubectl get`.
set -eu

usage() {
	echo "usage: svc-endpoints.sh SERVICE [-n NAMESPACE]" >&2
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
		echo "svc-endpoints.sh: unknown flag $1" >&2
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
case "$name" in
svc/* | service/* | services/*) name=${name#*/} ;;
esac
[ -n "$ns" ] || ns=${KUBERNETES_NAMESPACE:-}
if [ -z "$ns" ]; then
	ns=$(kubectl get service "$name" -o jsonpath='{.metadata.namespace}')
fi

echo "== service $ns/$name"
kubectl get service "$name" -n "$ns" -o wide
kubectl get service "$name" -n "$ns" -o jsonpath='type={.spec.type} clusterIP={.spec.clusterIP} externalName={.spec.externalName} publishNotReadyAddresses={.spec.publishNotReadyAddresses} externalTrafficPolicy={.spec.externalTrafficPolicy}
lb-ingress={.status.loadBalancer.ingress}
ports:
{range .spec.ports[*]}  {.name} {.port}/{.protocol} -> targetPort {.targetPort}{"\n"}{end}'

# The selector map {"a":"b","c":"d"} as a label selector a=b,c=d. Label keys
# and values never contain quotes, commas, colons or braces, so plain text
# substitution is safe.
selector=$(kubectl get service "$name" -n "$ns" -o jsonpath='{.spec.selector}' |
	sed -e 's/^{//' -e 's/}$//' -e 's/"//g' -e 's/:/=/g')

if [ -z "$selector" ]; then
	echo
	echo "(no selector: endpoints are managed outside the Service controller, or type ExternalName has none by design)"
else
	echo
	echo "== pods matching selector $selector"
	matching=$(kubectl get pods -n "$ns" -l "$selector" -o name | wc -l | tr -d ' ')
	echo "$matching pod(s)"
	kubectl get pods -n "$ns" -l "$selector" -o wide
	kubectl get pods -n "$ns" -l "$selector" -o jsonpath='{range .items[*]}{.metadata.name}: phase={.status.phase} ready={.status.conditions[?(@.type=="Ready")].status} deleting={.metadata.deletionTimestamp} ports={range .spec.containers[*]}{range .ports[*]}{.name}:{.containerPort}/{.protocol} {end}{end}{"\n"}{end}'

	echo
	echo "== pods matched by each selector label alone"
	echo "$selector" | tr ',' '\n' | while IFS= read -r pair; do
		count=$(kubectl get pods -n "$ns" -l "$pair" -o name | wc -l | tr -d ' ')
		echo "  $pair: $count pod(s)"
	done

	echo
	echo "== named targetPorts"
	names=$(kubectl get service "$name" -n "$ns" -o jsonpath='{range .spec.ports[*]}{.targetPort}{"\n"}{end}' | grep -v '^[0-9]*$' || true)
	if [ -z "$names" ]; then
		echo "(all targetPorts are numbers: check that the process listens on them)"
	elif [ "$matching" = 0 ]; then
		echo "(no matching pods: nothing to resolve the names $(echo $names) against)"
	else
		declared=$(kubectl get pods -n "$ns" -l "$selector" -o jsonpath='{range .items[*]}{range .spec.containers[*]}{range .ports[*]}{.name}{"\n"}{end}{end}{end}' | sort -u)
		for p in $names; do
			if printf '%s\n' "$declared" | grep -qx "$p"; then
				echo "  targetPort '$p': declared as a containerPort name by the matching pods"
			else
				echo "  targetPort '$p': NOT declared by any matching pod: those pods get no endpoint for this port"
			fi
		done
	fi
fi

echo
echo "== EndpointSlices"
kubectl get endpointslices -n "$ns" -l "kubernetes.io/service-name=$name" -o wide
kubectl get endpointslices -n "$ns" -l "kubernetes.io/service-name=$name" -o jsonpath='{range .items[*]}slice {.metadata.name}  ports: {range .ports[*]}{.name}={.port}/{.protocol} {end}{"\n"}{range .endpoints[*]}  {.addresses[*]}  ready={.conditions.ready} serving={.conditions.serving} terminating={.conditions.terminating}  -> {.targetRef.kind}/{.targetRef.name} node={.nodeName}{"\n"}{end}{end}'

echo
echo "== Ingresses in $ns routing to $name (details: kubectl describe ingress NAME -n $ns)"
kubectl get ingresses -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.spec.ingressClassName}{"\t"}{.spec.rules[*].http.paths[*].backend.service.name} {.spec.defaultBackend.service.name}{"\n"}{end}' 2>/dev/null |
	awk -F '\t' -v svc="$name" '
		{ n = split($3, b, " "); for (i = 1; i <= n; i++) if (b[i] == svc) { print "  ingress " $1 " (class " ($2 == "" ? "-" : $2) ")"; found = 1; break } }
		END { if (!found) print "  (none)" }' || true

echo
echo "== events for service $name (oldest first)"
kubectl get events -n "$ns" --field-selector "involvedObject.kind=Service,involvedObject.name=$name" \
	--sort-by=.metadata.creationTimestamp \
	-o custom-columns='LAST:.lastTimestamp,EVENTTIME:.eventTime,COUNT:.count,TYPE:.type,REASON:.reason,MESSAGE:.message'
