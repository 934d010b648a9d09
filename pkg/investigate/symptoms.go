package investigate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

type symptomSet struct {
	lines   []string
	healthy bool
}

// collectSymptoms states what is observably wrong, without explaining it.
func collectSymptoms(c *Context) symptomSet {
	var s symptomSet
	b := c.B
	switch b.Target.Kind {
	case "Deployment":
		for _, d := range b.Deployments {
			if string(d.UID) != b.Target.UID {
				continue
			}
			want := int32(1)
			if d.Spec.Replicas != nil {
				want = *d.Spec.Replicas
			}
			if d.Status.AvailableReplicas < want {
				s.lines = append(s.lines, fmt.Sprintf("Deployment %s has %d/%d replicas available (%d updated, %d unavailable)",
					d.Name, d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas, d.Status.UnavailableReplicas))
			}
			for _, cond := range d.Status.Conditions {
				if cond.Status == corev1.ConditionFalse && (cond.Type == appsv1.DeploymentAvailable || cond.Type == appsv1.DeploymentProgressing) {
					s.lines = append(s.lines, fmt.Sprintf("Condition %s=False (%s): %s", cond.Type, cond.Reason, cond.Message))
				}
				if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue {
					s.lines = append(s.lines, fmt.Sprintf("Condition ReplicaFailure=True (%s): %s", cond.Reason, cond.Message))
				}
			}
		}
	case "Node":
		for _, n := range b.Nodes {
			s.lines = append(s.lines, nodeSymptoms(n)...)
		}
	}
	for _, p := range b.Pods {
		s.lines = append(s.lines, podSymptoms(p, b.Target.Kind != "Pod")...)
	}
	if len(s.lines) == 0 {
		// Kinds without a dedicated reading (CRDs, Services, PVCs, …): what
		// their status conditions and recent warnings say.
		s.lines = append(s.lines, conditionSymptoms(b)...)
		s.lines = append(s.lines, recentWarnings(c)...)
	}
	s.healthy = len(s.lines) == 0
	return s
}

// badConditions are condition types whose False means trouble in most APIs.
var badConditions = map[string]bool{"Ready": true, "Available": true, "Synced": true, "Healthy": true, "Established": true, "Bound": true}

// conditionSymptoms reads status.conditions of any object generically:
// Ready/Available/… False, or a condition reporting an error.
func conditionSymptoms(b *bundle.Bundle) []string {
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
		if (badConditions[typ] && status == "False") || ((typ == "Failed" || typ == "Degraded" || strings.HasSuffix(typ, "Error")) && status == "True") {
			out = append(out, fmt.Sprintf("Condition %s=%s (%s): %s", typ, status, reason, msg))
		}
	}
	if phase, _, _ := unstructured.NestedString(b.Object.Object, "status", "phase"); phase == "Failed" || phase == "Pending" || phase == "Lost" {
		out = append(out, fmt.Sprintf("%s is in phase %s", b.Target.Kind, phase))
	}
	return out
}

// recentWarning is how old a warning may be and still describe today.
const recentWarning = time.Hour

func recentWarnings(c *Context) []string {
	var out []string
	for _, e := range warningEvents(c.B) {
		if c.Now.Sub(bundle.EventTime(&e)) > recentWarning {
			continue
		}
		out = append(out, fmt.Sprintf("Warning %s on %s/%s ×%d: %s", e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, max(e.Count, 1), firstLine(e.Message)))
	}
	return out
}

func podSymptoms(p *corev1.Pod, prefix bool) []string {
	var out []string
	name := ""
	if prefix {
		name = "pod " + p.Name + ": "
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			out = append(out, fmt.Sprintf("%sPod is not scheduled (%s): %s", name, cond.Reason, cond.Message))
		}
	}
	if p.Status.Phase == corev1.PodFailed {
		out = append(out, fmt.Sprintf("%sPod phase Failed (%s): %s", name, p.Status.Reason, p.Status.Message))
	}
	for _, cs := range allStatuses(p) {
		kind := "Container"
		if cs.init {
			kind = "Init container"
		}
		st := cs.status
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" && w.Reason != "ContainerCreating" {
			line := fmt.Sprintf("%s%s %s is waiting: %s", name, kind, st.Name, w.Reason)
			if st.RestartCount > 0 {
				line += fmt.Sprintf(" (%d restarts)", st.RestartCount)
			}
			if w.Message != "" {
				line += ": " + w.Message
			}
			out = append(out, line)
		}
		if t := st.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 {
			out = append(out, fmt.Sprintf("%s%s %s last terminated with exit code %d (%s) at %s",
				name, kind, st.Name, t.ExitCode, t.Reason, t.FinishedAt.UTC().Format(time.RFC3339)))
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			out = append(out, fmt.Sprintf("%s%s %s terminated with exit code %d (%s)", name, kind, st.Name, t.ExitCode, t.Reason))
		}
		if !cs.init && st.State.Running != nil && !st.Ready {
			out = append(out, fmt.Sprintf("%sContainer %s is running but not ready", name, st.Name))
		}
	}
	return out
}

func nodeSymptoms(n *corev1.Node) []string {
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
	return out
}

type containerStatus struct {
	status corev1.ContainerStatus
	init   bool
}

func allStatuses(p *corev1.Pod) []containerStatus {
	var out []containerStatus
	for _, s := range p.Status.InitContainerStatuses {
		out = append(out, containerStatus{s, true})
	}
	for _, s := range p.Status.ContainerStatuses {
		out = append(out, containerStatus{s, false})
	}
	return out
}

func warningEvents(b *bundle.Bundle) []corev1.Event {
	var out []corev1.Event
	for _, e := range b.Events {
		if e.Type == corev1.EventTypeWarning {
			out = append(out, e)
		}
	}
	return out
}

const maxTimeline = 40

// timeline lists dated facts, oldest first: creations, container starts and
// terminations, events with their counts.
func timeline(c *Context) []report.TimelineEntry {
	b := c.B
	var t []report.TimelineEntry
	add := func(at time.Time, format string, a ...any) {
		if !at.IsZero() {
			t = append(t, report.TimelineEntry{Time: at.UTC(), Fact: fmt.Sprintf(format, a...)})
		}
	}
	for _, d := range b.Deployments {
		add(d.CreationTimestamp.Time, "Deployment %s created", d.Name)
		for _, cond := range d.Status.Conditions {
			if cond.Status != corev1.ConditionTrue {
				add(cond.LastTransitionTime.Time, "Deployment %s condition %s=%s (%s)", d.Name, cond.Type, cond.Status, cond.Reason)
			}
		}
	}
	for _, rs := range b.ReplicaSets {
		add(rs.CreationTimestamp.Time, "ReplicaSet %s created (revision %d)", rs.Name, bundle.Revision(rs))
	}
	for _, p := range b.Pods {
		add(p.CreationTimestamp.Time, "Pod %s created", p.Name)
		if p.Status.StartTime != nil {
			add(p.Status.StartTime.Time, "Pod %s started on node %s", p.Name, orDash(p.Spec.NodeName))
		}
		for _, cs := range allStatuses(p) {
			st := cs.status
			if term := st.LastTerminationState.Terminated; term != nil {
				add(term.StartedAt.Time, "Container %s/%s started (previous instance)", p.Name, st.Name)
				add(term.FinishedAt.Time, "Container %s/%s terminated: exit code %d (%s), restart count now %d", p.Name, st.Name, term.ExitCode, term.Reason, st.RestartCount)
			}
			if run := st.State.Running; run != nil {
				add(run.StartedAt.Time, "Container %s/%s running", p.Name, st.Name)
			}
			if term := st.State.Terminated; term != nil {
				add(term.FinishedAt.Time, "Container %s/%s terminated: exit code %d (%s)", p.Name, st.Name, term.ExitCode, term.Reason)
			}
		}
	}
	for i := range b.Events {
		e := &b.Events[i]
		count := e.Count
		if e.Series != nil && e.Series.Count > count {
			count = e.Series.Count
		}
		first, last := bundle.FirstSeen(e), bundle.EventTime(e)
		span := ""
		if count > 1 && last.After(first) {
			span = fmt.Sprintf(" ×%d until %s", count, last.UTC().Format("15:04:05"))
		} else if count > 1 {
			span = fmt.Sprintf(" ×%d", count)
		}
		add(first, "%s %s on %s/%s%s: %s", e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, span, firstLine(e.Message))
	}
	sortTimeline(t)
	if len(t) > maxTimeline {
		t = t[len(t)-maxTimeline:]
	}
	return t
}

func sortTimeline(t []report.TimelineEntry) {
	sort.SliceStable(t, func(i, j int) bool { return t[i].Time.Before(t[j].Time) })
}

// changes compares the newest ReplicaSet's pod template with the previous
// revision's: a rollout that changed the image is a prime suspect.
func changes(c *Context) []report.TimelineEntry {
	rss := c.B.ReplicaSets
	if len(rss) < 2 {
		return nil
	}
	sorted := append([]*appsv1.ReplicaSet(nil), rss...)
	sort.Slice(sorted, func(i, j int) bool { return bundle.Revision(sorted[i]) > bundle.Revision(sorted[j]) })
	newer, older := sorted[0], sorted[1]
	var out []report.TimelineEntry
	oldImages := map[string]string{}
	for _, ctr := range older.Spec.Template.Spec.Containers {
		oldImages[ctr.Name] = ctr.Image
	}
	for _, ctr := range newer.Spec.Template.Spec.Containers {
		if old, ok := oldImages[ctr.Name]; ok && old != ctr.Image {
			out = append(out, report.TimelineEntry{Time: newer.CreationTimestamp.UTC(), Fact: fmt.Sprintf(
				"Change: revision %d set container %s image %s (was %s in revision %d)", bundle.Revision(newer), ctr.Name, ctr.Image, old, bundle.Revision(older))})
		}
	}
	return out
}

// ruledOut lists things that were checked and found healthy.
func ruledOut(c *Context) []string {
	var out []string
	seenNode := map[string]bool{}
	for _, p := range c.B.Pods {
		if n := p.Spec.NodeName; n != "" && !seenNode[n] {
			seenNode[n] = true
			if node := c.B.Node(n); node != nil && len(nodeSymptoms(node)) == 0 {
				out = append(out, fmt.Sprintf("Node %s is Ready, with no memory, disk or PID pressure", n))
			}
		}
	}
	for _, p := range c.B.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		pulled := 0
		for _, cs := range allStatuses(p) {
			if cs.status.State.Running != nil || cs.status.State.Terminated != nil || cs.status.LastTerminationState.Terminated != nil {
				pulled++
			}
		}
		if pulled > 0 && pulled == len(allStatuses(p)) {
			out = append(out, fmt.Sprintf("Image pull: every container image of pod %s was pulled and started", p.Name))
		}
		break
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
