package storage

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// A node-local provisioner creates the volume on the node the scheduler
// picked for the claim's first pod, which it learns from the claim's
// volume.kubernetes.io/selected-node annotation (the library's
// ProvisionOptions.SelectedNode). Only volumeBindingMode
// WaitForFirstConsumer sets it; under Immediate the provisioner is asked
// before any pod exists and refuses (docs/DESIGN.md, "Provisioning errors
// tied to the claim's spec").
//
// Wordings:
//   - "configuration error, no node was specified": Rancher's
//     local-path-provisioner
//     (https://github.com/rancher/local-path-provisioner/blob/master/provisioner.go)
//     and OpenEBS' hostpath/device Local PV
//     (https://github.com/openebs/dynamic-localpv-provisioner/blob/develop/cmd/provisioner-localpv/app/provisioner.go),
//     both after sig-storage-lib-external-provisioner's SelectedNode.
var noSelectedNodeRe = regexp.MustCompile(`(?i)\bno node (?:was |is )?specified\b`)

// needsSelectedNode: the provisioner's error says it was given no node
// while the claim's class binds at once, so no node could be given.
func needsSelectedNode(msg string, sc *storagev1.StorageClass) bool {
	return sc != nil && bindingMode(sc) == storagev1.VolumeBindingImmediate && noSelectedNodeRe.MatchString(msg)
}

// bindingModeActions: volumeBindingMode is immutable, so the fix is a
// class that waits for the first consumer and the claim recreated on it
// (it is Pending, so it holds no data).
func bindingModeActions(pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass) []report.Action {
	wffc := sc.Name + "-wffc"
	return []report.Action{
		{Kind: report.Immediate,
			Description: fmt.Sprintf("A StorageClass's volumeBindingMode cannot be changed: create a class for provisioner %s with volumeBindingMode WaitForFirstConsumer (or recreate %s with it), then recreate the claim on that class.", sc.Provisioner, sc.Name),
			Commands: []string{
				fmt.Sprintf("kubectl get storageclass %s -o yaml > %s.yaml   # set metadata.name: %s and volumeBindingMode: WaitForFirstConsumer; drop uid, resourceVersion, creationTimestamp", sc.Name, wffc, wffc),
				fmt.Sprintf("kubectl create -f %s.yaml", wffc),
				fmt.Sprintf("kubectl get pvc %s %s -o yaml > %s.yaml   # set spec.storageClassName: %s", pvc.Name, pvcNS(pvc), pvc.Name, wffc),
				fmt.Sprintf("kubectl replace --force -f %s.yaml", pvc.Name),
			},
			Risk: "replace --force deletes and recreates the claim; pods using it must be restarted to pick it up. With WaitForFirstConsumer the claim stays Pending until a pod using it is scheduled (expected)"},
	}
}

// bindingModeFinding turns the provisioner's refusal into the class's
// binding mode: the class, not the driver's health, is what to change.
func bindingModeFinding(f *rule.Finding, pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, prov string, failed *corev1.Event) {
	f.Confidence = rule.Definitive
	f.Hypothesis = fmt.Sprintf("StorageClass %s binds its claims at once (volumeBindingMode Immediate), but its node-local provisioner %s needs the node of the claim's first pod (WaitForFirstConsumer)", sc.Name, prov)
	f.Title = fmt.Sprintf("PVC %s: StorageClass %s has volumeBindingMode Immediate, but its node-local provisioner %s needs a node: %s", pvc.Name, sc.Name, prov, kube.FirstLine(failed.Message))
	f.Summary = fmt.Sprintf("Provisioner %s creates volumes on a node's own disk and must be told which node; StorageClass %s uses volumeBindingMode Immediate, so it is asked before any pod using PVC %s is scheduled and refuses (%d time(s)): %q. It needs a class with WaitForFirstConsumer.", prov, sc.Name, pvc.Name, max(failed.Count, 1), kube.FirstLine(failed.Message))
	f.Mechanism = "With WaitForFirstConsumer the scheduler picks a node for the claim's first pod and writes it into the claim's volume.kubernetes.io/selected-node annotation, which a node-local provisioner (local-path, OpenEBS Local PV hostpath) reads to know where to create the volume; with Immediate the claim is provisioned at once, without that annotation, and every retry fails the same way."
	f.Culprit = fmt.Sprintf("storageclass/%s .volumeBindingMode Immediate (provisioner %s needs WaitForFirstConsumer: %s)", sc.Name, prov, kube.FirstLine(failed.Message))
	f.Actions = bindingModeActions(pvc, sc)
}

// nodeNotFoundRe is a provisioner's refusal of a target node that does
// not exist (the CSI external-provisioner's "failed to get target node:
// node \"x\" not found", as in
// https://github.com/kubernetes-sigs/aws-ebs-csi-driver/issues/1713).
var nodeNotFoundRe = regexp.MustCompile(`node \\?"(?P<node>[^"\\]+)\\?" not found`)

// goneSelectedNode: the claim's selected-node annotation names the node
// the provisioner says does not exist. The scheduler wrote it for a pod
// placed there before the node went away (a scale-down, a replaced VM);
// nothing clears it, so every retry targets the gone node.
func goneSelectedNode(pvc *corev1.PersistentVolumeClaim, msg string) (string, bool) {
	node := pvc.Annotations[annSelectedNode]
	if node == "" {
		return "", false
	}
	m, ok := submatch.Find(nodeNotFoundRe, msg)
	return node, ok && m.Get("node") == node
}

// selectedNodeFinding: the annotation, not the driver, is what to change.
func selectedNodeFinding(f *rule.Finding, pvc *corev1.PersistentVolumeClaim, prov, node string, failed *corev1.Event) {
	f.Category = f.Category.Sub("SelectedNodeGone")
	f.Confidence = rule.Definitive
	f.Hypothesis = fmt.Sprintf("PVC %s's %s annotation names node %s, which no longer exists, so provisioner %s is asked for a volume on it", pvc.Name, annSelectedNode, node, prov)
	f.Title = fmt.Sprintf("PVC %s: its %s annotation names node %s, which is gone: %s", pvc.Name, annSelectedNode, node, kube.FirstLine(failed.Message))
	f.Summary = fmt.Sprintf("The scheduler recorded node %s in PVC %s's %s annotation for the claim's first pod; the node has since been removed, nothing clears the annotation, and provisioner %s keeps failing on it (%d time(s)): %q.", node, pvc.Name, annSelectedNode, prov, max(failed.Count, 1), kube.FirstLine(failed.Message))
	f.Mechanism = "Under WaitForFirstConsumer the scheduler writes the node it picked into the claim's volume.kubernetes.io/selected-node annotation and the provisioner creates the volume in that node's topology. When the node disappears before provisioning succeeds (the cluster autoscaler removed it, a VM was replaced), the provisioner retries against the gone node; the scheduler removes the annotation only when it reschedules the pod, which a StatefulSet's pod stuck on the claim may never be."
	f.Culprit = fmt.Sprintf("%s annotation %s=%s (node %s not found)", pvcRef(pvc), annSelectedNode, node, node)
	f.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Remove the stale annotation so that the scheduler picks a node that exists for the claim's pod (then the provisioner creates the volume there); delete the pending pod if it does not reschedule on its own.",
		Commands:    []string{fmt.Sprintf("kubectl annotate pvc %s %s %s-", pvc.Name, pvcNS(pvc), annSelectedNode), fmt.Sprintf("kubectl get pvc %s %s -o yaml", pvc.Name, pvcNS(pvc))},
		Risk:        "none for a Pending claim: it holds no data yet"}}
}
