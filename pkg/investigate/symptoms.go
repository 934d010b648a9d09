package investigate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/health"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

type symptomSet struct {
	// lines are what is observably wrong, faults first, then observations.
	lines []string
	// healthy is true when no line is a fault: observations alone (an HPA
	// at its maxReplicas, an Ingress without an address) are not one.
	healthy bool
	// reading is the health model's full reading: what passed, what failed
	// and what could not be checked.
	reading health.Reading
}

// collectSymptoms states what is observably wrong, without explaining it:
// the failed checks of the health model, then its observations.
func collectSymptoms(c *rule.Pass) symptomSet {
	r := health.Run(c)
	return symptomSet{lines: append(r.Faults(), r.Notes()...), healthy: r.Healthy(), reading: r}
}

const maxTimeline = 40

// timeline lists dated facts, oldest first: creations, container starts and
// terminations, events with their counts.
func timeline(c *rule.Pass) []report.TimelineEntry {
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
			add(p.Status.StartTime.Time, "Pod %s started on node %s", p.Name, kube.OrDash(p.Spec.NodeName))
		}
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
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
		add(first, "%s %s on %s/%s%s: %s", e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, span, kube.FirstLine(e.Message))
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
func changes(c *rule.Pass) []report.TimelineEntry {
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
func ruledOut(c *rule.Pass) []string {
	var out []string
	seenNode := map[string]bool{}
	for _, p := range c.B.Pods {
		if n := p.Spec.NodeName; n != "" && !seenNode[n] {
			seenNode[n] = true
			if node := c.B.Node(n); node != nil && len(health.NodeSymptoms(node)) == 0 {
				out = append(out, fmt.Sprintf("Node %s is Ready, with no memory, disk or PID pressure", n))
			}
		}
	}
	for _, p := range c.B.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		pulled := 0
		for _, cs := range kube.AllStatuses(p) {
			if cs.Status.State.Running != nil || cs.Status.State.Terminated != nil || cs.Status.LastTerminationState.Terminated != nil {
				pulled++
			}
		}
		if pulled > 0 && pulled == len(kube.AllStatuses(p)) {
			out = append(out, fmt.Sprintf("Image pull: every container image of pod %s was pulled and started", p.Name))
		}
		break
	}
	return out
}
