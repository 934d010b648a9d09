package storage

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// silentResizer: a claim the expand controller handed to an external
// resizer (ExternalExpanding) that has recorded nothing since, explained
// by the resizer the collector looked for: its log (a list it is refused,
// an error), its state, or a search that found none (docs/DESIGN.md,
// "Correlations").
func silentResizer(c *rule.Pass, pvc *corev1.PersistentVolumeClaim, want, have string) (rule.Finding, bool) {
	k := kube.ControllerOf(c, bundle.RoleResizer, pvcRef(pvc), pvc.Namespace+"/"+pvc.Name)
	if k == nil {
		return rule.Finding{}, false
	}
	driver := k.Actor.Name
	f := rule.Finding{Category: rule.PVC.Sub("Resize", "NoResizer"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: pvc.Name, Confidence: rule.Likely}
	f.Evidence = []string{c.Evidence(fmt.Sprintf("Claim %s requests %s but has %s (volume %s)", pvc.Name, want, have, pvc.Spec.VolumeName),
		fmt.Sprintf("persistentvolumeclaim/%s .spec.resources.requests.storage vs .status.capacity", pvc.Name),
		fmt.Sprintf(`kubectl get pvc %s -n %s -o jsonpath='{.spec.resources.requests.storage} {.status.capacity.storage}'`, pvc.Name, pvc.Namespace))}
	for _, e := range kube.EventsWith(c, pvc.UID, "ExternalExpanding") {
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, e))
	}
	f.Mechanism = "For a CSI volume the expand controller only hands the claim to the driver's external resizer (event ExternalExpanding) and waits; the csi-resizer sidecar must pick it up, expand the volume and record Resizing or VolumeResizeFailed."
	f.Hypothesis = fmt.Sprintf("The external resizer of driver %s does not act on claim %s", driver, pvc.Name)
	if k.Pod == nil {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("No pod runs the csi-resizer of %s: %s", driver, k.Actor.SearchedText()), "the collector's search for the resizer", "kubectl get pods -A -o wide | grep -i resizer"))
		f.Title = fmt.Sprintf("claim %s cannot grow from %s to %s: no external resizer of driver %s answers", pvc.Name, have, want, driver)
		f.Summary = fmt.Sprintf("Claim %s was handed to the external resizer of %s, which has recorded nothing; no pod running its csi-resizer was found (%s).", pvc.Name, driver, k.Actor.SearchedText())
		f.Culprit = fmt.Sprintf("the csi-resizer sidecar of driver %s (not found) for %s", driver, pvcRef(pvc))
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check that the driver's controller runs a csi-resizer sidecar and that the driver supports expansion.",
			Commands: []string{"kubectl get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}: {.spec.containers[*].image}{\"\\n\"}{end}' | grep csi-resizer"}}}
		return f, true
	}
	f.Evidence = append(f.Evidence, k.Evidence...)
	f.Strength = rule.Traced
	said := ""
	if k.Line != "" {
		said = fmt.Sprintf("; its log says %q", k.Line)
	}
	f.Category = rule.PVC.Sub("Resize", "ResizerFailing")
	f.Confidence = rule.Strong
	f.Title = fmt.Sprintf("claim %s cannot grow from %s to %s: the csi-resizer of driver %s (%s) is %s%s", pvc.Name, have, want, driver, k.Ref, k.State, said)
	f.Summary = fmt.Sprintf("Claim %s was handed to the external resizer of %s, %s (image %s), which is %s%s.", pvc.Name, driver, k.Ref, k.Image, k.State, said)
	f.Culprit = fmt.Sprintf("csi-resizer of %s (%s, image %s)%s", driver, k.Ref, k.Image, said)
	fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Fix what the csi-resizer's log says; it then expands claim %s on its own.", pvc.Name),
		Commands: []string{fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", k.Pod.Name, k.Pod.Namespace, kube.ValueOr(k.Actor.Container, "csi-resizer"))}}
	if d, ok := k.Denied(c); ok {
		f.Culprit += d.Clause()
		f.Contributing = append(f.Contributing, "The external-resizer's informers must list and watch what its release reads (pods since v1.0, to find where a volume is in use): RBAC written for an older release leaves its caches unsynced and every claim unprocessed. Apply the ClusterRole shipped with the resizer's release.")
		fix.Description = fmt.Sprintf("Grant ServiceAccount %s/%s get, list and watch on %s (the ClusterRole of the csi-resizer's release), then restart it.", d.Namespace, d.Account, d.List())
		fix.Commands = append(fix.Commands, d.Checks()...)
	}
	f.Actions = []report.Action{fix}
	return f, true
}
