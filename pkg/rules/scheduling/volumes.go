package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// podClaims lists the claims the pod mounts, generic ephemeral volumes
// included (their claim is named <pod>-<volume>).
func claimsOfPod(p *corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, p.Name+"-"+v.Name)
		}
	}
	return out
}

func (e *schedContext) missingPVC(part schedReason, m submatch.Match) schedCause {
	claim := m.Get("claim")
	return schedCause{
		Definitive: true, Confidence: rule.Definitive,
		Text:    fmt.Sprintf("%s — the pod mounts claim %s, which does not exist in namespace %s", part.Text, claim, e.p.Namespace),
		Culprit: fmt.Sprintf("%s persistentVolumeClaim.claimName %s (no such PersistentVolumeClaim)", e.spec("volumes[*]"), claim),
		Evidence: []string{e.c.Evidence(fmt.Sprintf("Pod mounts PersistentVolumeClaim %s", claim), kube.PodRef(e.p)+" .spec.volumes",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.volumes}'", e.p.Name, kube.NSFlag(e.p)))},
		Actions: []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Create PersistentVolumeClaim %s, or point the volume at the claim that holds the data.", claim),
				Commands: []string{fmt.Sprintf("kubectl get pvc %s", kube.NSFlag(e.p))}},
		},
	}
}

func (e *schedContext) unboundPVC(part schedReason, _ submatch.Match) schedCause {
	b := e.c.B
	cause := schedCause{Definitive: true, Confidence: rule.High}
	var unbound []string
	for _, name := range claimsOfPod(e.p) {
		pvc := storage.ClaimNamed(e.c, e.p.Namespace, name)
		if pvc == nil {
			if b.IsMissing("PersistentVolumeClaim", e.p.Namespace, name) {
				unbound = append(unbound, fmt.Sprintf("pvc %s does not exist", name))
			}
			continue
		}
		if pvc.Status.Phase == corev1.ClaimBound {
			continue
		}
		desc, ev := e.claimState(pvc)
		unbound = append(unbound, desc)
		cause.Evidence = append(cause.Evidence, ev...)
	}
	claims := strings.Join(claimsOfPod(e.p), ", ")
	if len(unbound) == 0 {
		cause.Text = fmt.Sprintf("%s (claims %s)", part.Text, claims)
		cause.Culprit = fmt.Sprintf("PersistentVolumeClaim(s) %s of %s", claims, kube.PodRef(e.p))
		cause.Confidence = rule.Probable
	} else {
		cause.Text = fmt.Sprintf("%s — %s", part.Text, strings.Join(unbound, "; "))
		cause.Culprit = strings.Join(unbound, "; ")
		cause.Confidence = rule.Strong
	}
	cause.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Make the claim bindable: an existing StorageClass with a running provisioner, or a PersistentVolume matching its class, size and access modes.",
		Commands:    []string{fmt.Sprintf("kubectl describe pvc %s", kube.NSFlag(e.p)), "kubectl get storageclass", "kubectl get pv"}}}
	return cause
}

// claimState describes why a claim is not bound, from the claim, its class
// and its events.
func (e *schedContext) claimState(pvc *corev1.PersistentVolumeClaim) (string, []string) {
	b := e.c.B
	phase := string(pvc.Status.Phase)
	if phase == "" {
		phase = "Pending"
	}
	desc := fmt.Sprintf("pvc/%s is %s", pvc.Name, phase)
	fact := fmt.Sprintf("PersistentVolumeClaim %s is %s", pvc.Name, phase)
	switch {
	case pvc.Spec.StorageClassName == nil:
		desc += " with no storageClassName (and no default StorageClass applied)"
	case *pvc.Spec.StorageClassName == "":
		desc += ` with storageClassName "" (only a pre-created PV without class can bind it)`
	default:
		class := *pvc.Spec.StorageClassName
		fact += ", storageClass " + class
		switch sc := storage.StorageClassNamed(e.c, class); {
		case sc != nil:
			mode := "Immediate"
			if sc.VolumeBindingMode != nil {
				mode = string(*sc.VolumeBindingMode)
			}
			desc += fmt.Sprintf(" (storageClass %s, provisioner %s, binding %s)", class, sc.Provisioner, mode)
		case b.IsMissing("StorageClass", "", class):
			desc += fmt.Sprintf(" (storageClass %s does not exist)", class)
		default:
			desc += fmt.Sprintf(" (storageClass %s)", class)
		}
	}
	ev := []string{e.c.Evidence(fact, "pvc/"+pvc.Name+" .status.phase", fmt.Sprintf("kubectl get pvc %s %s", pvc.Name, kube.NSFlag(e.p)))}
	if w := lastWarningAbout(b, "PersistentVolumeClaim", pvc.Namespace, pvc.Name); w != nil {
		desc += ": " + kube.FirstLine(w.Message)
		ev = append(ev, e.c.Evidence(fmt.Sprintf("Event %s ×%d on pvc/%s: %s", w.Reason, max(w.Count, 1), pvc.Name, w.Message),
			"event on pvc/"+pvc.Name, fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s", kube.NSFlag(e.p), pvc.Name)))
	}
	return desc, ev
}

func lastWarningAbout(b *bundle.Bundle, kind, ns, name string) *corev1.Event {
	var last *corev1.Event
	for i := range b.Events {
		ev := &b.Events[i]
		if ev.Type == corev1.EventTypeWarning && ev.InvolvedObject.Kind == kind && ev.InvolvedObject.Name == name && ev.InvolvedObject.Namespace == ns {
			last = ev
		}
	}
	return last
}

func (e *schedContext) volumeNodeAffinity(part schedReason, _ submatch.Match) schedCause {
	b := e.c.B
	cause := schedCause{Confidence: rule.Probable}
	for _, name := range claimsOfPod(e.p) {
		pvc := storage.ClaimNamed(e.c, e.p.Namespace, name)
		if pvc == nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv := storage.VolumeNamed(e.c, pvc.Spec.VolumeName)
		if pv == nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		var termDesc []string
		var ok []*corev1.Node
		for _, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
			reqs := SelectorTermReqs(t)
			termDesc = append(termDesc, nodeReqsString(reqs))
			ok = append(ok, NodesMatching(b.Nodes, reqs)...)
		}
		ok = uniqueNodes(ok)
		affinity := strings.Join(termDesc, " or ")
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("PersistentVolume %s (claim %s) requires nodes with %s", pv.Name, name, affinity),
			"pv/"+pv.Name+" .spec.nodeAffinity", fmt.Sprintf("kubectl get pv %s -o jsonpath='{.spec.nodeAffinity}'", pv.Name)))
		where := fmt.Sprintf("pv/%s .spec.nodeAffinity (%s) of claim %s", pv.Name, affinity, name)
		if len(ok) == 0 {
			cause.Definitive, cause.Confidence = true, rule.Strong
			cause.Text = fmt.Sprintf("%s — pv/%s (claim %s) can only be used on nodes with %s, and no node has that", withCount(part), pv.Name, name, affinity)
			cause.Culprit = where + ": no node matches"
			cause.Actions = []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Bring back a node where pv/%s can attach (a node group in that zone, or the node of a local volume).", pv.Name),
					Commands: []string{"kubectl get nodes -L topology.kubernetes.io/zone", fmt.Sprintf("kubectl get pv %s -o jsonpath='{.spec.nodeAffinity}'", pv.Name)}},
				{Kind: report.Immediate, Description: fmt.Sprintf("Or, if the data can be recreated, delete claim %s so that a new volume is provisioned where the pod can run.", name),
					Commands: []string{fmt.Sprintf("kubectl delete pvc %s %s", name, kube.NSFlag(e.p))},
					Risk:     "destroys the data of the volume if its reclaim policy is Delete"},
				{Kind: report.LongTerm, Description: "Use volumeBindingMode WaitForFirstConsumer in the StorageClass, so volumes are created where the pod is scheduled.",
					Commands: []string{"kubectl get storageclass -o custom-columns=NAME:.metadata.name,BINDING:.volumeBindingMode"}},
			}
			return cause
		}
		cause.Confidence = rule.High
		cause.Text = fmt.Sprintf("%s — pv/%s (claim %s) can only be used on nodes with %s: only %s qualify, and the other reasons rule them out", withCount(part), pv.Name, name, affinity, kube.NamesUpTo(namesOfNodes(ok), 3))
		cause.Culprit = fmt.Sprintf("%s: only %s qualify", where, kube.NamesUpTo(namesOfNodes(ok), 3))
		cause.Narrowing = true
		cause.Actions = []report.Action{{Kind: report.Check, Description: fmt.Sprintf("See why %s cannot take the pod.", kube.NamesUpTo(namesOfNodes(ok), 3)),
			Commands: []string{fmt.Sprintf("kubectl describe node %s", ok[0].Name)}}}
		return cause
	}
	claims := strings.Join(claimsOfPod(e.p), ", ")
	cause.Text = fmt.Sprintf("%s (claims %s)", withCount(part), claims)
	cause.Culprit = fmt.Sprintf("node affinity of the PersistentVolume(s) bound to claim(s) %s", claims)
	cause.Actions = []report.Action{{Kind: report.Check, Description: "Compare the node affinity of the claims' volumes with the nodes' labels.",
		Commands: []string{fmt.Sprintf("kubectl get pvc %s -o custom-columns=NAME:.metadata.name,VOLUME:.spec.volumeName", kube.NSFlag(e.p)),
			"kubectl get pv -o custom-columns=NAME:.metadata.name,AFFINITY:.spec.nodeAffinity.required", "kubectl get nodes -L topology.kubernetes.io/zone"}}}
	return cause
}
