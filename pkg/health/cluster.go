package health

import (
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
)

var hpaScaling = &Check{
	ID: "hpa/scaling", Kinds: []string{"HorizontalPodAutoscaler"},
	Doc: "ScalingActive and AbleToScale are not False (a target scaled to zero is noted as paused); ScalingLimited is noted.",
	Run: func(c *rule.Pass) []Result {
		h := kube.TargetOf(c, "HorizontalPodAutoscaler", c.B.HPAs)
		if h == nil {
			return nil
		}
		var out []Result
		for _, cond := range h.Status.Conditions {
			line := fmt.Sprintf("Condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message)
			switch {
			case cond.Type == autoscalingv2.ScalingActive && cond.Status == corev1.ConditionFalse && cond.Reason == "ScalingDisabled":
				out = append(out, note("%s (its target is scaled to zero: the HPA is paused, not broken)", line))
			case (cond.Type == autoscalingv2.ScalingActive || cond.Type == autoscalingv2.AbleToScale) && cond.Status == corev1.ConditionFalse:
				out = append(out, fail("%s", line))
			case cond.Type == autoscalingv2.ScalingLimited && cond.Status == corev1.ConditionTrue:
				out = append(out, note("%s (a limit the HPA was given, not a fault; %d current, %d desired replicas)", line, h.Status.CurrentReplicas, h.Status.DesiredReplicas))
			}
		}
		if !hasStatus(out, Fail) {
			if len(h.Status.Conditions) == 0 {
				out = append(out, unchecked("Not checked: whether HorizontalPodAutoscaler %s can scale (it reports no conditions yet)", h.Name))
			} else {
				out = append(out, pass("HorizontalPodAutoscaler %s reads its metrics and can scale (%d current, %d desired replicas)", h.Name, h.Status.CurrentReplicas, h.Status.DesiredReplicas))
			}
		}
		return out
	},
}

// heartbeatStale is how long a node may go without renewing its Ready
// condition before its status no longer describes the present (the node
// controller marks it Unknown after 40 s by default; a status older than
// this means the reading itself is stale).
const heartbeatStale = 5 * time.Minute

var nodeTarget = &Check{
	ID: "node/conditions", Kinds: []string{"Node"},
	Doc: "Ready is True and recently renewed; no pressure or other problem condition is True; the node is not cordoned, nor tainted by a controller for a state (uninitialized, shut down, being removed).",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		for _, n := range c.B.Nodes {
			lines := NodeSymptoms(n)
			for _, l := range lines {
				out = append(out, fail("%s", l))
			}
			if ready := kube.NodeCondition(n, corev1.NodeReady); ready != nil && ready.Status == corev1.ConditionTrue &&
				!ready.LastHeartbeatTime.IsZero() && c.Now.Sub(ready.LastHeartbeatTime.Time) > heartbeatStale {
				out = append(out, fail("Node %s last renewed its Ready condition %s ago: its kubelet has stopped reporting", n.Name, kube.HumanDuration(c.Now.Sub(ready.LastHeartbeatTime.Time))))
			}
			if len(lines) == 0 && !hasStatus(out, Fail) {
				out = append(out, pass("Node %s is Ready, schedulable, with no memory, disk or PID pressure", n.Name))
			}
		}
		return out
	},
}

// NodeSymptoms are a node's problem conditions and its cordon.
func NodeSymptoms(n *corev1.Node) []string {
	var out []string
	for _, cond := range n.Status.Conditions {
		bad := (cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue) ||
			(cond.Type != corev1.NodeReady && cond.Status == corev1.ConditionTrue)
		if bad {
			out = append(out, fmt.Sprintf("Node condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message))
		}
	}
	if n.Spec.Unschedulable {
		out = append(out, "Node is cordoned (spec.unschedulable=true)")
	}
	for _, t := range kube.BlockingTaints(n) {
		out = append(out, fmt.Sprintf("Node carries %s: pods that do not tolerate it are not scheduled there", kube.TaintWhy(t)))
	}
	return out
}

var namespacePods = &Check{
	ID: "namespace/pods", Kinds: []string{"Namespace"},
	Doc: "The namespace is Active and none of its pods is failing.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		if ns := kube.NamespaceTarget(c); ns != nil && ns.Status.Phase == corev1.NamespaceTerminating {
			out = append(out, fail("Namespace %s is Terminating since %s", ns.Name, kube.StampPtr(ns.DeletionTimestamp)))
		}
		groups := FailingWorkloads(c)
		if len(groups) == 0 {
			if !hasStatus(out, Fail) {
				out = append(out, pass("None of the %d pods in namespace %s is failing", len(c.B.NamespacePods), c.B.Target.Name))
			}
			return out
		}
		failing := 0
		for _, g := range groups {
			failing += len(g.Pods)
		}
		return append([]Result{fail("%d of %d pods in namespace %s are failing, in %d workload(s): %s", failing, len(c.B.NamespacePods), c.B.Target.Name, len(groups), strings.Join(GroupNames(groups, 5), ", "))}, out...)
	},
}

// WorkloadGroup is one workload's failing pods in a namespace.
type WorkloadGroup struct {
	Name     string // "deployment checkout", or "pod api" for a bare pod
	Pods     []*corev1.Pod
	Severity int
}

// FailingWorkloads groups the namespace's failing pods by workload, in the
// order the pods were listed.
func FailingWorkloads(c *rule.Pass) []*WorkloadGroup {
	byName := map[string]*WorkloadGroup{}
	var out []*WorkloadGroup
	for _, p := range c.B.NamespacePods {
		if !bundle.PodFailing(p) {
			continue
		}
		kind, wname := bundle.WorkloadOf(p)
		name := kind + " " + wname
		g := byName[name]
		if g == nil {
			g = &WorkloadGroup{Name: name}
			byName[name] = g
			out = append(out, g)
		}
		g.Pods = append(g.Pods, p)
		g.Severity = max(g.Severity, bundle.PodSeverity(p))
	}
	return out
}

// GroupNames names up to n groups with their pod counts.
func GroupNames(gs []*WorkloadGroup, n int) []string {
	var out []string
	for i, g := range gs {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(gs)-n))
			break
		}
		out = append(out, fmt.Sprintf("%s (%d pod(s))", g.Name, len(g.Pods)))
	}
	return out
}

var claimBound = &Check{
	ID: "pvc/bound", Kinds: []string{"PersistentVolumeClaim"},
	Doc: "The claim is Bound to a volume, and a claim grown beyond its capacity is not failing to expand (VolumeResizeFailed, an allocatedResourceStatuses Failed/Infeasible); a resize in progress is noted.",
	Run: func(c *rule.Pass) []Result {
		pvc := kube.TargetOf(c, "PersistentVolumeClaim", c.B.PVCs)
		if pvc == nil {
			return nil
		}
		var out []Result
		for _, cond := range pvc.Status.Conditions {
			if cond.Status == corev1.ConditionTrue && (cond.Type == corev1.PersistentVolumeClaimResizing || cond.Type == corev1.PersistentVolumeClaimFileSystemResizePending) {
				out = append(out, note("Claim %s condition %s=True: %s", pvc.Name, cond.Type, cond.Message))
			}
		}
		if want, have, growing := storage.Growing(pvc); growing && pvc.Status.Phase == corev1.ClaimBound {
			if events, status := storage.ResizeFailing(c, pvc); len(events) > 0 || status != "" {
				why := status
				if len(events) > 0 {
					why = events[len(events)-1].Reason + ": " + kube.FirstLine(events[len(events)-1].Message)
				}
				out = append(out, fail("Claim %s requests %s but its volume still has %s, and the expansion fails (%s)", pvc.Name, want, have, why))
			}
		}
		if pvc.Status.Phase == corev1.ClaimBound {
			return append(out, pass("Claim %s is Bound to volume %s", pvc.Name, pvc.Spec.VolumeName))
		}
		return out // a Pending or Lost claim is read by the status fallback
	},
}

// badConditions are condition types whose False means trouble in most APIs.
var badConditions = map[string]bool{"Ready": true, "Available": true, "Synced": true, "Healthy": true, "Established": true, "Bound": true}

var statusConditions = &Check{
	ID: "object/conditions", Fallback: true,
	Doc: "For any kind: no Ready/Available/Synced/Healthy/Established/Bound condition is False, no Failed/Degraded/*Error condition is True, and the phase is not Failed, Pending or Lost.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		for _, l := range conditionSymptoms(c.B, warmingPodTarget(c)) {
			out = append(out, fail("%s", l))
		}
		return out
	},
}

// conditionSymptoms reads status.conditions of any object generically:
// Ready/Available/… False, or a condition reporting an error.
// A pod whose only unready containers are warming up (warmingUp) is not
// ready by design: its Ready and ContainersReady False say nothing more.
func conditionSymptoms(b *bundle.Bundle, warming bool) []string {
	if b.Object == nil {
		return nil
	}
	conds, _, _ := unstructured.NestedSlice(b.Object.Object, "status", "conditions")
	var out []string
	for _, raw := range conds {
		cond, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := cond["type"].(string)
		status, _ := cond["status"].(string)
		reason, _ := cond["reason"].(string)
		msg, _ := cond["message"].(string)
		if warming && status == "False" && (typ == string(corev1.PodReady) || typ == string(corev1.ContainersReady)) {
			continue
		}
		if (badConditions[typ] && status == "False") || ((typ == "Failed" || typ == "Degraded" || strings.HasSuffix(typ, "Error")) && status == "True") {
			out = append(out, fmt.Sprintf("Condition %s=%s (%s): %s", typ, status, reason, msg))
		}
	}
	if phase, _, _ := unstructured.NestedString(b.Object.Object, "status", "phase"); phase == "Failed" || phase == "Pending" || phase == "Lost" {
		out = append(out, fmt.Sprintf("%s is in phase %s", b.Target.Kind, phase))
	}
	return out
}

// warmingPodTarget: the target is a pod whose every running container
// that is not ready is warming up, and no other container is waiting or
// terminated.
func warmingPodTarget(c *rule.Pass) bool {
	p := kube.TargetOf(c, "Pod", c.B.Pods)
	if p == nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	warm := warmingUp(c, p)
	if len(warm) == 0 {
		return false
	}
	for _, st := range p.Status.ContainerStatuses {
		if !st.Ready && !isWarming(warm, st.Name) {
			return false
		}
	}
	return true
}

var recentWarnings = &Check{
	ID: "object/warnings", Fallback: true,
	Doc: "For any kind: no warning event of the last hour that still describes the present (a probe that failed before the pod became Ready does not); a warning declared harmless (benignWarnings) is noted.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		for _, e := range kube.WarningEvents(c.B) {
			if c.Now.Sub(bundle.EventTime(&e)) > kube.RecentWarning || ReadySince(c.B, e) {
				continue
			}
			line := fmt.Sprintf("Warning %s on %s/%s ×%d: %s", e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, max(e.Count, 1), kube.FirstLine(e.Message))
			if why := Harmless(c.B, e); why != "" {
				out = append(out, note("%s (harmless: %s)", line, why))
				continue
			}
			out = append(out, fail("%s", line))
		}
		return out
	},
}

// ReadySince reports whether e is about a pod that has been Ready since
// after the event was last seen: a probe that failed while the app was
// starting, then passed, describes the past. Likewise an HPA computing
// again (ScalingActive True) and a node Ready again since the warning.
func ReadySince(b *bundle.Bundle, e corev1.Event) bool {
	at := bundle.EventTime(&e)
	switch e.InvolvedObject.Kind {
	case "Pod":
	case "HorizontalPodAutoscaler":
		// Metric failures before the HPA could compute again (ScalingActive
		// True since) are history: a rollout's metrics gap.
		for _, h := range b.HPAs {
			if h.Name != e.InvolvedObject.Name || h.Namespace != e.InvolvedObject.Namespace {
				continue
			}
			for _, cond := range h.Status.Conditions {
				if cond.Type == autoscalingv2.ScalingActive {
					return cond.Status == corev1.ConditionTrue && cond.LastTransitionTime.Time.After(at)
				}
			}
		}
		return false
	case "Node":
		// A kubelet's start-up warnings (InvalidDiskCapacity before the
		// image filesystem is measured, Rebooted) from before the node
		// turned Ready, Ready since, are history.
		for _, n := range b.Nodes {
			if n.Name != e.InvolvedObject.Name {
				continue
			}
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady {
					return cond.Status == corev1.ConditionTrue && cond.LastTransitionTime.Time.After(at)
				}
			}
		}
		return false
	default:
		return false
	}
	for _, p := range b.Pods {
		if p.Name != e.InvolvedObject.Name || p.Namespace != e.InvolvedObject.Namespace {
			continue
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady {
				return cond.Status == corev1.ConditionTrue && cond.LastTransitionTime.Time.After(bundle.EventTime(&e))
			}
		}
	}
	return false
}
