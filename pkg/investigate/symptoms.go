package investigate

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/batch"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/network"
)

type symptomSet struct {
	// lines are what is observably wrong, faults first, then observations.
	lines []string
	// healthy is true when no line is a fault: observations alone (an HPA
	// at its maxReplicas, an Ingress without an address) are not one.
	healthy bool
}

// symptoms accumulates one target's readings.
type symptoms struct {
	faults []string // something is wrong
	notes  []string // worth saying, not a fault on its own
}

func (s *symptoms) fault(format string, a ...any) {
	s.faults = append(s.faults, fmt.Sprintf(format, a...))
}
func (s *symptoms) note(format string, a ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, a...))
}

// kindSymptoms reads the status of each kind that has a dedicated reading.
var kindSymptoms = map[string]func(*rule.Pass, *symptoms){
	"Deployment":              deploymentSymptoms,
	"StatefulSet":             statefulSetSymptoms,
	"DaemonSet":               daemonSetSymptoms,
	"ReplicaSet":              replicaSetSymptoms,
	"Job":                     jobSymptoms,
	"CronJob":                 cronJobSymptoms,
	"Service":                 serviceSymptoms,
	"Ingress":                 ingressSymptoms,
	"HorizontalPodAutoscaler": hpaSymptoms,
	"Node":                    nodeTargetSymptoms,
	"Namespace":               namespaceSymptoms,
}

// collectSymptoms states what is observably wrong, without explaining it.
func collectSymptoms(c *rule.Pass) symptomSet {
	var s symptoms
	b := c.B
	if read := kindSymptoms[b.Target.Kind]; read != nil {
		read(c, &s)
	}
	for _, p := range b.Pods {
		s.faults = append(s.faults, podSymptoms(p, b.Target.Kind != "Pod")...)
	}
	if len(s.faults) == 0 {
		// Kinds without a dedicated reading (CRDs, PVCs, …), or one that
		// shows nothing: what their status conditions and recent warnings
		// say.
		s.faults = append(s.faults, conditionSymptoms(b)...)
		s.faults = append(s.faults, recentWarnings(c)...)
	}
	return symptomSet{lines: append(s.faults, s.notes...), healthy: len(s.faults) == 0}
}

func nodeTargetSymptoms(c *rule.Pass, s *symptoms) {
	for _, n := range c.B.Nodes {
		s.faults = append(s.faults, nodeSymptoms(n)...)
	}
}

func deploymentSymptoms(c *rule.Pass, s *symptoms) {
	d := kube.TargetOf(c, "Deployment", c.B.Deployments)
	if d == nil {
		return
	}
	want := kube.ReplicasOf(d.Spec.Replicas)
	if d.Status.AvailableReplicas < want {
		s.fault("Deployment %s has %d/%d replicas available (%d updated, %d unavailable)",
			d.Name, d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas, d.Status.UnavailableReplicas)
	}
	for _, cond := range d.Status.Conditions {
		if cond.Status == corev1.ConditionFalse && (cond.Type == appsv1.DeploymentAvailable || cond.Type == appsv1.DeploymentProgressing) {
			s.fault("Condition %s=False (%s): %s", cond.Type, cond.Reason, cond.Message)
		}
		if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue {
			s.fault("Condition ReplicaFailure=True (%s): %s", cond.Reason, cond.Message)
		}
	}
}

func statefulSetSymptoms(c *rule.Pass, s *symptoms) {
	sts := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
	if sts == nil {
		return
	}
	want, st := kube.ReplicasOf(sts.Spec.Replicas), sts.Status
	if st.ReadyReplicas < want {
		s.fault("StatefulSet %s has %d/%d replicas ready (%d created, %d updated)", sts.Name, st.ReadyReplicas, want, st.Replicas, st.UpdatedReplicas)
	}
	if st.UpdateRevision != "" && st.CurrentRevision != st.UpdateRevision {
		s.note("StatefulSet %s is rolling from revision %s to %s: %d/%d replicas updated", sts.Name, st.CurrentRevision, st.UpdateRevision, st.UpdatedReplicas, want)
	}
}

func daemonSetSymptoms(c *rule.Pass, s *symptoms) {
	ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
	if ds == nil {
		return
	}
	st := ds.Status
	if st.DesiredNumberScheduled == 0 && len(c.B.Nodes) > 0 {
		s.fault("DaemonSet %s wants 0 pods although the cluster has %d node(s): no node qualifies for it", ds.Name, len(c.B.Nodes))
	}
	if st.CurrentNumberScheduled < st.DesiredNumberScheduled {
		s.fault("DaemonSet %s has pods on %d of the %d nodes it should run on", ds.Name, st.CurrentNumberScheduled, st.DesiredNumberScheduled)
	}
	if st.NumberUnavailable > 0 || st.NumberReady < st.DesiredNumberScheduled {
		s.fault("DaemonSet %s has %d/%d pods ready (%d available, %d unavailable)", ds.Name, st.NumberReady, st.DesiredNumberScheduled, st.NumberAvailable, st.NumberUnavailable)
	}
	if st.NumberMisscheduled > 0 {
		s.fault("DaemonSet %s runs %d pod(s) on nodes it no longer selects (misscheduled)", ds.Name, st.NumberMisscheduled)
	}
}

func replicaSetSymptoms(c *rule.Pass, s *symptoms) {
	rs := kube.TargetOf(c, "ReplicaSet", c.B.ReplicaSets)
	if rs == nil {
		return
	}
	if want := kube.ReplicasOf(rs.Spec.Replicas); rs.Status.ReadyReplicas < want {
		s.fault("ReplicaSet %s has %d/%d replicas ready (%d created)", rs.Name, rs.Status.ReadyReplicas, want, rs.Status.Replicas)
	}
	for _, cond := range rs.Status.Conditions {
		if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
			s.fault("Condition ReplicaFailure=True (%s): %s", cond.Reason, cond.Message)
		}
	}
}

func jobSymptoms(c *rule.Pass, s *symptoms) {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil {
		return
	}
	cond, done := kube.JobFinished(j)
	switch {
	case done && cond.Type == batchv1.JobFailed:
		s.fault("Condition Failed=True (%s) since %s: %s", cond.Reason, kube.Stamp(cond.LastTransitionTime.Time), cond.Message)
	case !done && j.Status.Failed > 0:
		s.fault("Job %s has %d failed pod(s) so far and is still running (backoffLimit %d, %d active)", j.Name, j.Status.Failed, batch.BackoffLimit(j), j.Status.Active)
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend && !done {
		s.note("Job %s is suspended (spec.suspend=true): it starts no pods", j.Name)
	}
}

func cronJobSymptoms(c *rule.Pass, s *symptoms) {
	cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
	if cj == nil {
		return
	}
	suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
	if suspended {
		// A pause may be deliberate: the rule decides when it is a fault.
		s.note("CronJob %s is suspended (spec.suspend=true); its last run was scheduled %s", cj.Name, kube.StampPtr(cj.Status.LastScheduleTime))
	}
	jobs := batch.JobsOf(c, cj) // newest first
	for _, j := range jobs {
		if cond, done := kube.JobFinished(j); done {
			if cond.Type == batchv1.JobFailed {
				s.fault("The last finished run of CronJob %s, job %s, failed (%s): %s", cj.Name, j.Name, cond.Reason, cond.Message)
			}
			break
		}
	}
	sched, err := batch.ParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return // the rule reads the controller's own verdict on the schedule
	}
	if period := sched.Period(c.Now); period > 0 {
		for _, j := range jobs {
			active := slices.ContainsFunc(cj.Status.Active, func(ref corev1.ObjectReference) bool { return ref.Name == j.Name })
			started := j.CreationTimestamp.Time
			if j.Status.StartTime != nil {
				started = j.Status.StartTime.Time
			}
			if active && c.Now.Sub(started) > period {
				s.fault("Job %s of CronJob %s has been running for %s, longer than the %s between its scheduled runs", j.Name, cj.Name, kube.HumanDuration(c.Now.Sub(started)), kube.HumanDuration(period))
			}
		}
	}
	if missed := sched.Missed(batch.LastRun(cj), c.Now); !suspended && missed >= 2 {
		s.fault("CronJob %s has started no run since %s: %s%d scheduled run(s) of %q are missing", cj.Name, kube.Stamp(batch.LastRun(cj)), batch.AtLeast(missed, 1000), missed, cj.Spec.Schedule)
	}
}

func serviceSymptoms(c *rule.Pass, s *symptoms) {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil || !expectsEndpoints(svc) || kube.CollectionFailed(c, "endpointslices") {
		return
	}
	if eps := network.EndpointsOf(c, svc); len(eps.Ready) == 0 {
		s.fault("Service %s has no ready endpoint: %s", svc.Name, eps.Summary())
	}
}

// expectsEndpoints: every Service but an ExternalName (a DNS alias) sends
// traffic to endpoints, found by its selector or, without one, created by
// hand.
func expectsEndpoints(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName
}

func ingressSymptoms(c *rule.Pass, s *symptoms) {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return
	}
	for _, be := range network.BackendsOf(ing) {
		svc := network.ServiceNamed(c, ing.Namespace, be.Service)
		switch {
		case c.B.IsMissing("Service", ing.Namespace, be.Service):
			s.fault("Ingress %s %s routes to service %s, which does not exist", ing.Name, be.Where, be.Service)
		case svc == nil:
		case !network.ServiceHasPort(svc, be.Port):
			s.fault("Ingress %s %s routes to service %s %s, which the Service does not expose (it has %s)", ing.Name, be.Where, be.Service, network.PortText(be.Port), network.ServicePortsText(svc))
		case expectsEndpoints(svc) && !kube.CollectionFailed(c, "endpointslices"):
			if eps := network.EndpointsOf(c, svc); len(eps.Ready) == 0 {
				s.fault("Ingress %s %s routes to service %s, which has no ready endpoint: %s", ing.Name, be.Where, be.Service, eps.Summary())
			}
		}
	}
	if len(ing.Status.LoadBalancer.Ingress) == 0 {
		// Many controllers (and every cluster without one) leave it empty:
		// a hint, not a fault.
		s.note("Ingress %s has no address in status.loadBalancer: no ingress controller has reported serving it", ing.Name)
	}
}

func hpaSymptoms(c *rule.Pass, s *symptoms) {
	h := kube.TargetOf(c, "HorizontalPodAutoscaler", c.B.HPAs)
	if h == nil {
		return
	}
	for _, cond := range h.Status.Conditions {
		line := fmt.Sprintf("Condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message)
		switch {
		case cond.Type == autoscalingv2.ScalingActive && cond.Status == corev1.ConditionFalse && cond.Reason == "ScalingDisabled":
			s.notes = append(s.notes, line+" (its target is scaled to zero: the HPA is paused, not broken)")
		case (cond.Type == autoscalingv2.ScalingActive || cond.Type == autoscalingv2.AbleToScale) && cond.Status == corev1.ConditionFalse:
			s.faults = append(s.faults, line)
		case cond.Type == autoscalingv2.ScalingLimited && cond.Status == corev1.ConditionTrue:
			s.notes = append(s.notes, fmt.Sprintf("%s (a limit the HPA was given, not a fault; %d current, %d desired replicas)", line, h.Status.CurrentReplicas, h.Status.DesiredReplicas))
		}
	}
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

// selfRepairing are the API server's own repair-loop notices: it found an
// allocation out of step and is fixing it itself. Nothing for a human to do,
// so they are not symptoms.
var selfRepairing = map[string]bool{"ClusterIPNotAllocated": true, "PortNotAllocated": true}

func recentWarnings(c *rule.Pass) []string {
	var out []string
	for _, e := range kube.WarningEvents(c.B) {
		if c.Now.Sub(bundle.EventTime(&e)) > kube.RecentWarning || (selfRepairing[e.Reason] && strings.Contains(e.Message, "repairing")) ||
			readySince(c.B, e) {
			continue
		}
		out = append(out, fmt.Sprintf("Warning %s on %s/%s ×%d: %s", e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, max(e.Count, 1), kube.FirstLine(e.Message)))
	}
	return out
}

// readySince reports whether e is about a pod that has been Ready since
// after the event was last seen: a probe that failed while the app was
// starting, then passed, describes the past.
func readySince(b *bundle.Bundle, e corev1.Event) bool {
	if e.InvolvedObject.Kind != "Pod" {
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
		line := name + "Pod phase Failed"
		if p.Status.Reason != "" {
			line += " (" + p.Status.Reason + ")"
		}
		if p.Status.Message != "" {
			line += ": " + p.Status.Message
		}
		out = append(out, line)
	}
	for _, cs := range kube.AllStatuses(p) {
		kind := "Container"
		if cs.Init {
			kind = "Init container"
		}
		st := cs.Status
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
		if t := st.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 && !kube.LostByRuntime(st) {
			out = append(out, fmt.Sprintf("%s%s %s last terminated with exit code %d (%s) at %s",
				name, kind, st.Name, t.ExitCode, t.Reason, t.FinishedAt.UTC().Format(time.RFC3339)))
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			out = append(out, fmt.Sprintf("%s%s %s terminated with exit code %d (%s)", name, kind, st.Name, t.ExitCode, t.Reason))
		}
		if !cs.Init && st.State.Running != nil && !st.Ready {
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
