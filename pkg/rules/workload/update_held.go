package workload

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// UpdateHeld is the rule workload/update-held.
var UpdateHeld = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/update-held",
		Kinds:    []string{"DaemonSet", "StatefulSet", "Deployment"},
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    Needs,
		Doc:      "Pods run an older template than the workload's spec and its controller will not replace them: updateStrategy OnDelete or a paused Deployment.",
	},
	Check: checkUpdateHeld,
}

// Holds: why a workload's controller leaves pods on an older template.
const (
	heldOnDelete = "OnDelete"
	heldPaused   = "Paused"
)

// Held is where a workload's pods stand against its current template:
// how many run it and, when the spec's own setting keeps the others on an
// older one, that setting (Hold).
type Held struct {
	Kind, Name string
	Hold       string // heldOnDelete or heldPaused; "" when nothing holds the update
	Updated    int32  // pods on the current template
	Want       int32
	Setting    string // the spec field that holds the update, as kubectl shows it
	Why        string // what the setting makes the controller do
	// Written: a controller has written the status's update fields
	// (observedGeneration, a StatefulSet's updateRevision).
	Written bool

	template *corev1.PodSpec
	pods     []*corev1.Pod
}

// UpdateStateOf reads the target workload's status against its template
// (the health model's workload/up-to-date check and this rule share it);
// nil for another kind or a target not collected.
func UpdateStateOf(c *rule.Pass) *Held {
	switch c.B.Target.Kind {
	case "DaemonSet":
		ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
		if ds == nil {
			return nil
		}
		h := &Held{template: &ds.Spec.Template.Spec, pods: kube.PodsOf(c, ds.UID), Kind: "DaemonSet", Name: ds.Name,
			Updated: ds.Status.UpdatedNumberScheduled, Want: ds.Status.DesiredNumberScheduled, Written: ds.Status.ObservedGeneration > 0}
		if ds.Status.ObservedGeneration >= ds.Generation && h.Updated < h.Want && ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
			h.Hold, h.Setting = heldOnDelete, "spec.updateStrategy.type: OnDelete"
			h.Why = "with updateStrategy OnDelete the DaemonSet controller creates a pod from the new template only when an old pod is deleted; a template change alone replaces nothing"
		}
		return h
	case "StatefulSet":
		s := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
		if s == nil {
			return nil
		}
		st := s.Status
		h := &Held{template: &s.Spec.Template.Spec, pods: kube.PodsOf(c, s.UID), Kind: "StatefulSet", Name: s.Name,
			Updated: st.UpdatedReplicas, Want: kube.ReplicasOf(s.Spec.Replicas), Written: st.UpdateRevision != ""}
		if h.Written && st.CurrentRevision == st.UpdateRevision {
			h.Updated = h.Want // the rollout finished: every pod is on the one revision
		}
		// A partition holds the lower ordinals on purpose (a staged
		// rollout, a canary): the health model notes it, it is no fault.
		if st.ObservedGeneration >= s.Generation && h.Written && st.CurrentRevision != st.UpdateRevision && st.UpdatedReplicas < h.Want &&
			s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
			h.Hold, h.Setting = heldOnDelete, "spec.updateStrategy.type: OnDelete"
			h.Why = "with updateStrategy OnDelete the StatefulSet controller recreates a pod from the update revision only when the pod is deleted"
		}
		return h
	case "Deployment":
		d := kube.TargetOf(c, "Deployment", c.B.Deployments)
		if d == nil {
			return nil
		}
		h := &Held{template: &d.Spec.Template.Spec, Kind: "Deployment", Name: d.Name,
			Updated: d.Status.UpdatedReplicas, Want: kube.ReplicasOf(d.Spec.Replicas), Written: d.Status.ObservedGeneration > 0}
		for _, p := range c.B.Pods {
			if p.Namespace == d.Namespace && bundle.DeploymentOf(p) == d.Name {
				h.pods = append(h.pods, p)
			}
		}
		if d.Spec.Paused && h.Updated < h.Want {
			h.Hold, h.Setting = heldPaused, "spec.paused: true"
			h.Why = "a paused Deployment makes no new ReplicaSet and scales none: a template change waits until it is resumed"
		}
		return h
	}
	return nil
}

// UpdateHeldOf is the target's update state when the spec holds it: nil
// when every pod is on the current template, the controller has not yet
// observed the spec, or a rolling update is under way.
func UpdateHeldOf(c *rule.Pass) *Held {
	if h := UpdateStateOf(c); h != nil && h.Hold != "" {
		return h
	}
	return nil
}

// Line is the health model's reading of a held update.
func (h *Held) Line() string {
	return fmt.Sprintf("%s %s runs its current template on %d of %d pods and will not replace the others: %s", h.Kind, h.Name, h.Updated, h.Want, h.Setting)
}

func checkUpdateHeld(c *rule.Pass) []rule.Finding {
	h := UpdateHeldOf(c)
	if h == nil {
		return nil
	}
	ns := c.B.Target.Namespace
	kind := strings.ToLower(h.Kind)
	old := h.stalePods()
	f := rule.Finding{Category: rule.Category(h.Kind).Sub("UpdateHeld", h.Hold), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: h.Name, Confidence: rule.High}
	if h.Kind == "Deployment" {
		f.Category = rule.Rollout.Sub(heldPaused)
	}
	changed := ""
	if len(old) > 0 {
		changed = fmt.Sprintf(" (pod %s runs %s)", old[0].name, strings.Join(old[0].stale, ", "))
	}
	f.Title = fmt.Sprintf("%s %s runs an older template on %d of %d pods%s and will not replace them: %s", kind, h.Name, h.Want-h.Updated, h.Want, changed, h.Setting)
	f.Hypothesis = fmt.Sprintf("The template change of %s %s is held by %s", kind, h.Name, h.Setting)
	f.Summary = fmt.Sprintf("%s %s was changed, but only %d of its %d pods run the current template: %s.", h.Kind, h.Name, h.Updated, h.Want, h.Why)
	f.Mechanism = h.Why + "."
	f.Culprit = fmt.Sprintf("%s/%s %s", kind, h.Name, h.Setting)
	f.Evidence = []string{c.Evidence(fmt.Sprintf("%s %s: %d of %d pods updated; %s", h.Kind, h.Name, h.Updated, h.Want, h.Setting),
		fmt.Sprintf("%s/%s .spec and .status", kind, h.Name), fmt.Sprintf("kubectl get %s %s -n %s -o yaml", kind, h.Name, ns))}
	for i, o := range old {
		if i == 3 {
			break
		}
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s runs %s", o.name, strings.Join(o.stale, ", ")),
			fmt.Sprintf("pod/%s .spec.containers", o.name), fmt.Sprintf("kubectl get pods -n %s -L controller-revision-hash,pod-template-generation", ns)))
	}
	f.Actions = heldActions(h, ns, old)
	return []rule.Finding{f}
}

// heldActions: the way the setting itself offers (delete a pod, resume),
// and changing the setting when it was not meant.
func heldActions(h *Held, ns string, old []heldPod) []report.Action {
	kind := strings.ToLower(h.Kind)
	switch h.Hold {
	case heldOnDelete:
		var cmds []string
		if len(old) > 0 { // the first; the others after it is Ready
			cmds = append(cmds, fmt.Sprintf("kubectl delete pod %s -n %s", old[0].name, ns))
		}
		cmds = append(cmds, fmt.Sprintf("kubectl get pods -n %s -L controller-revision-hash", ns))
		return []report.Action{
			{Kind: report.Immediate, Description: "Delete the old pods one at a time, waiting for each replacement to be Ready: the controller recreates each from the current template.",
				Commands: cmds, Risk: "each deleted pod is down until its replacement is Ready"},
			{Kind: report.LongTerm, Description: fmt.Sprintf("If template changes should roll out on their own, set the %s's updateStrategy to RollingUpdate (in its chart or manifest).", kind),
				Commands: []string{fmt.Sprintf(`kubectl patch %s %s -n %s -p '{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}'`, kind, h.Name, ns)},
				Risk:     "the controller then replaces every old pod, one after another"},
		}
	default:
		return []report.Action{{Kind: report.Immediate, Description: "Resume the Deployment if the pause was not meant to last: the rollout then proceeds.",
			Commands: []string{fmt.Sprintf("kubectl rollout resume deployment/%s -n %s", h.Name, ns), fmt.Sprintf("kubectl rollout status deployment/%s -n %s", h.Name, ns)},
			Risk:     "the new template replaces the running pods"}}
	}
}

type heldPod struct {
	name  string
	stale []string
}

// stalePods are the workload's pods whose images differ from its
// template.
func (h *Held) stalePods() []heldPod {
	var out []heldPod
	for _, p := range h.pods {
		if stale := podImagesNotIn(p, h.template); len(stale) > 0 {
			out = append(out, heldPod{p.Name, stale})
		}
	}
	return out
}
