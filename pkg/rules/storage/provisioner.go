package storage

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// withProvisioner refines "the external provisioner has not answered"
// with the provisioner the collector looked for (its Lease, the workload
// whose container names it): down, it is the cause with its state and
// log; running, what its log says about the claim is; not found, the
// finding says what was searched (docs/DESIGN.md, "Correlations").
func withProvisioner(c *rule.Pass, f rule.Finding, pvc *corev1.PersistentVolumeClaim, prov string) rule.Finding {
	k := kube.ControllerOf(c, bundle.RoleProvisioner, pvcRef(pvc), pvc.Namespace+"/"+pvc.Name)
	if k == nil {
		return f
	}
	if k.Pod == nil {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("No pod runs provisioner %s: %s", prov, k.Actor.SearchedText()),
			"the collector's search for the provisioner", "kubectl get pods -A -o wide | grep -i provisioner"))
		if k.Actor.Complete {
			f.Summary += fmt.Sprintf(" No pod runs it: %s, and none names %s.", k.Actor.SearchedText(), prov)
		}
		return f
	}
	f.Evidence = append(f.Evidence, k.Evidence...)
	f.Strength = rule.Traced
	said := ""
	if k.Line != "" {
		said = fmt.Sprintf("; its log says %q", k.Line)
	}
	image := ""
	if k.Image != "" {
		image = ", image " + k.Image
	}
	switch {
	case k.Down:
		f.Category = rule.PVC.Sub("Pending", "ProvisionerDown")
		f.Hypothesis = fmt.Sprintf("Provisioner %s of PVC %s is down (%s %s)", prov, pvc.Name, k.Ref, k.State)
		f.Title = fmt.Sprintf("PVC %s waits for provisioner %s, whose %s is %s%s", pvc.Name, prov, k.Ref, k.State, said)
	case k.Line != "":
		f.Category = rule.PVC.Sub("Pending", "ProvisionerError")
		f.Confidence = rule.Strong
		f.Hypothesis = fmt.Sprintf("Provisioner %s runs but fails on PVC %s: %s", prov, pvc.Name, k.Line)
		f.Title = fmt.Sprintf("PVC %s waits for provisioner %s: its %s runs but logs %q", pvc.Name, prov, k.Ref, k.Line)
		f.Mechanism = "An external provisioner that fails before it can record an event on the claim (its ProvisioningFailed) leaves only the controller's ExternalProvisioning wait on the claim; its own log says why."
	default:
		f.Summary += fmt.Sprintf(" Its %s is %s and logs nothing about the claim.", k.Ref, k.State)
		return f
	}
	f.Summary = fmt.Sprintf("The persistentvolume controller handed PVC %s to provisioner %s, which %s (%s%s)%s.", pvc.Name, prov, map[bool]string{true: "is down", false: "runs but has not created a volume"}[k.Down], k.Ref, image, said)
	f.Culprit = fmt.Sprintf("provisioner %s (%s%s)%s", prov, k.Ref, image, said)
	if k.Down {
		f.Culprit = fmt.Sprintf("provisioner %s (%s%s) is %s%s", prov, k.Ref, image, k.State, said)
	}
	if d, ok := k.Denied(c); ok {
		f.Culprit += d.Clause()
	}
	if strings.Contains(k.Line, "selfLink was empty") {
		f.Contributing = append(f.Contributing, "The API server no longer fills metadata.selfLink (removed in Kubernetes 1.20, and the RemoveSelfLink=false escape hatch with it in 1.24); a provisioner built on the old external-storage library needs it to reference the claim: the fix is a current release of the provisioner (for NFS, nfs-subdir-external-provisioner), not the claim.")
	}
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: fmt.Sprintf("Fix what provisioner %s's log says (%s): a newer image when it is an old release against this API server, its RBAC or configuration otherwise; the claim is provisioned on its next retry.", prov, k.Ref),
		Commands:    []string{fmt.Sprintf("kubectl logs %s -n %s --tail=50", k.Pod.Name, k.Pod.Namespace), fmt.Sprintf("kubectl get pod %s -n %s -o jsonpath='{.spec.containers[*].image}'", k.Pod.Name, k.Pod.Namespace)}}}, f.Actions...)
	return f
}
