#!/bin/sh
# pvc-status.sh: why a PersistentVolumeClaim is (not) usable.
#
# Usage: pvc-status.sh PVC [-n NAMESPACE]
#
# Shows the claim (phase, class, size, access modes, bound volume, selected
# node, provisioner annotations, conditions, finalizers), its StorageClass
# (provisioner, binding mode, expansion) and whether a CSIDriver of that name
# exists, the bound PV (phase, claimRef, reclaim policy, node affinity, CSI
# handle) and its VolumeAttachments, the pods in the namespace that mount the
# claim, and the claim's events.
# StorageClasses, PVs, CSIDrivers and VolumeAttachments are cluster-scoped;
# when they are not readable that part says so and the rest still runs.
# Namespace: -n, else $KUBERNETES_NAMESPACE, else the kubeconfig default.
# Read-only: runs only `kubectl get`.
set -eu

usage() {
	echo "usage: pvc-status.sh PVC [-n NAMESPACE]" >&2
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
		echo "pvc-status.sh: unknown flag $1" >&2
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
pvc/* | persistentvolumeclaim/* | persistentvolumeclaims/*) name=${name#*/} ;;
esac
[ -n "$ns" ] || ns=${KUBERNETES_NAMESPACE:-}
if [ -z "$ns" ]; then
	ns=$(kubectl get persistentvolumeclaim "$name" -o jsonpath='{.metadata.namespace}')
fi

echo "== claim $ns/$name"
kubectl get persistentvolumeclaim "$name" -n "$ns" -o wide
kubectl get persistentvolumeclaim "$name" -n "$ns" -o jsonpath='phase={.status.phase} class={.spec.storageClassName} volume={.spec.volumeName} volumeMode={.spec.volumeMode}
requested={.spec.resources.requests.storage} capacity={.status.capacity.storage} accessModes={.spec.accessModes}
selected-node={.metadata.annotations.volume\.kubernetes\.io/selected-node}
provisioner={.metadata.annotations.volume\.kubernetes\.io/storage-provisioner} (beta annotation: {.metadata.annotations.volume\.beta\.kubernetes\.io/storage-provisioner})
selector={.spec.selector} dataSource={.spec.dataSource}
deleting={.metadata.deletionTimestamp} finalizers={.metadata.finalizers}
{range .status.conditions[*]}condition {.type}={.status} {.reason}: {.message}{"\n"}{end}'

sc=$(kubectl get persistentvolumeclaim "$name" -n "$ns" -o jsonpath='{.spec.storageClassName}')
pv=$(kubectl get persistentvolumeclaim "$name" -n "$ns" -o jsonpath='{.spec.volumeName}')

echo
echo "== storage classes"
kubectl get storageclasses 2>&1 || echo "(storage classes not readable)"
if [ -n "$sc" ]; then
	echo
	echo "== storage class $sc"
	if kubectl get storageclass "$sc" -o jsonpath='provisioner={.provisioner} bindingMode={.volumeBindingMode} reclaimPolicy={.reclaimPolicy} allowVolumeExpansion={.allowVolumeExpansion}
parameters={.parameters}
allowedTopologies={.allowedTopologies}
' 2>&1; then
		provisioner=$(kubectl get storageclass "$sc" -o jsonpath='{.provisioner}')
		if kubectl get csidriver "$provisioner" -o name >/dev/null 2>&1; then
			echo "CSIDriver $provisioner: registered"
		else
			echo "CSIDriver $provisioner: no CSIDriver object (an in-tree or non-CSI provisioner, a driver that is not installed, or not readable)"
		fi
	else
		echo "(StorageClass $sc missing or not readable: a claim naming a missing class stays Pending)"
	fi
else
	echo "(claim has no storageClassName: it binds only to a matching pre-created PV, or got none because no default class existed)"
fi

if [ -n "$pv" ]; then
	echo
	echo "== volume $pv"
	if kubectl get persistentvolume "$pv" -o wide 2>&1; then
		kubectl get persistentvolume "$pv" -o jsonpath='phase={.status.phase} reason={.status.reason} reclaimPolicy={.spec.persistentVolumeReclaimPolicy} capacity={.spec.capacity.storage}
claimRef={.spec.claimRef.namespace}/{.spec.claimRef.name} (uid {.spec.claimRef.uid})
csi driver={.spec.csi.driver} handle={.spec.csi.volumeHandle}
nodeAffinity={.spec.nodeAffinity.required}
'
		echo
		echo "== volume attachments of $pv"
		kubectl get volumeattachments -o jsonpath='{range .items[*]}{.spec.source.persistentVolumeName}{"\t"}{.metadata.name} node={.spec.nodeName} attached={.status.attached} attachError={.status.attachError.message} detachError={.status.detachError.message}{"\n"}{end}' 2>/dev/null |
			awk -F '\t' -v pv="$pv" '$1 == pv { print "  " $2; found = 1 } END { if (!found) print "  (none, or not readable)" }' || true
	else
		echo "(PersistentVolume $pv missing or not readable)"
	fi
fi

echo
echo "== pods in $ns using claim $name"
kubectl get pods -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\t"}{.spec.nodeName}{"\t"}{range .spec.volumes[*]}{.persistentVolumeClaim.claimName} {end}{"\n"}{end}' |
	awk -F '\t' -v c="$name" '
		{ n = split($4, v, " "); for (i = 1; i <= n; i++) if (v[i] == c) { printf "  %s  phase=%s  node=%s\n", $1, $2, ($3 == "" ? "(unscheduled)" : $3); found = 1; break } }
		END { if (!found) print "  (none: with WaitForFirstConsumer, nothing is provisioned until a pod uses the claim)" }'

echo
echo "== events for claim $name (oldest first)"
kubectl get events -n "$ns" --field-selector "involvedObject.kind=PersistentVolumeClaim,involvedObject.name=$name" \
	--sort-by=.metadata.creationTimestamp \
	-o custom-columns='LAST:.lastTimestamp,EVENTTIME:.eventTime,COUNT:.count,TYPE:.type,REASON:.reason,MESSAGE:.message'
