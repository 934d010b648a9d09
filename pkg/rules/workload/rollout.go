package workload

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Rollout is the rule workload/rollout.
var Rollout = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/rollout",
		Kinds:    []string{"Deployment"},
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    Needs,
		Doc:      "A Deployment rollout that does not complete, and which revision introduced the fault.",
	},
	Check: checkRollout,
}

// previousRevision is the ReplicaSet with the highest revision below the
// newest one.
func previousRevision(rss []*appsv1.ReplicaSet, newest *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	var best *appsv1.ReplicaSet
	for _, rs := range rss {
		if rs == newest || bundle.Revision(rs) >= bundle.Revision(newest) {
			continue
		}
		if best == nil || bundle.Revision(rs) > bundle.Revision(best) {
			best = rs
		}
	}
	return best
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// checkRollout: a Deployment whose newest revision does not become
// available. It gives the rollout's context (which revision, since when,
// how far it got, what changed from the previous revision) and defers to
// the pods' own cause when there is one.
func checkRollout(c *rule.Pass) []rule.Finding {
	d := kube.TargetOf(c, "Deployment", c.B.Deployments)
	if d == nil {
		return nil
	}
	progressing := deploymentCondition(d, appsv1.DeploymentProgressing)
	available := deploymentCondition(d, appsv1.DeploymentAvailable)
	deadline := progressing != nil && progressing.Status == corev1.ConditionFalse && progressing.Reason == "ProgressDeadlineExceeded"
	unavailable := available != nil && available.Status == corev1.ConditionFalse
	revs := revisionsOf(c, d)
	if !deadline && !unavailable && !revs.newFailing() {
		return nil
	}
	if f, ok := rolloutFinding(c, d, revs, progressing, available, deadline); ok {
		return []rule.Finding{f}
	}
	return nil
}

// revisions is a Deployment's newest and previous ReplicaSets and the pods
// of the newest with their causes, computed once for the gate and the finding.
type revisions struct {
	newest, prev *appsv1.ReplicaSet
	pods         []*corev1.Pod
	causes       map[string]*rule.Finding
}

func revisionsOf(c *rule.Pass, d *appsv1.Deployment) revisions {
	rss := replicaSetsOf(c, d)
	r := revisions{newest: bundle.NewestReplicaSet(rss)}
	if r.newest == nil {
		return r
	}
	r.prev = previousRevision(rss, r.newest)
	r.pods = kube.PodsOf(c, r.newest.UID)
	r.causes = kube.PodCauses(c, r.pods)
	return r
}

// newFailing: pods of the newest revision (a rollout: there is a previous
// one) have a cause of their own. The Deployment's conditions lag its pods
// by a controller round trip, so a new pod can already be in CrashLoopBackOff
// while Available still reads True (seen on the real node); the rollout's
// context is due then too.
func (r revisions) newFailing() bool {
	return r.prev != nil && len(r.causes) > 0
}

func rolloutFinding(c *rule.Pass, d *appsv1.Deployment, revs revisions, progressing, available *appsv1.DeploymentCondition, deadline bool) (rule.Finding, bool) {
	newest := revs.newest
	want := kube.ReplicasOf(d.Spec.Replicas)
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: d.Name}
	var evidence []string
	for _, cond := range []*appsv1.DeploymentCondition{progressing, available} {
		if cond != nil && cond.Status == corev1.ConditionFalse {
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("Condition %s=False (%s) since %s: %s", cond.Type, cond.Reason, kube.Stamp(cond.LastTransitionTime.Time), cond.Message),
				fmt.Sprintf("deployment/%s .status.conditions[%s]", d.Name, cond.Type),
				fmt.Sprintf(`kubectl get deployment %s -n %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, d.Name, d.Namespace, cond.Type)))
		}
	}
	evidence = append(evidence, c.Evidence(
		fmt.Sprintf("Deployment %s: %d desired, %d updated, %d ready, %d available, %d unavailable", d.Name, want, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas),
		fmt.Sprintf("deployment/%s .status", d.Name), fmt.Sprintf("kubectl get deployment %s -n %s", d.Name, d.Namespace)))
	if newest == nil {
		// No ReplicaSet at all: the deployment controller itself has not
		// acted (or could not be read).
		f.Category = rule.Deployment.Sub("Unavailable", "NoReplicaSet")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("Deployment %s has no ReplicaSet", d.Name)
		f.Title = fmt.Sprintf("deployment %s has no ReplicaSet: the deployment controller has not created one", d.Name)
		f.Summary = fmt.Sprintf("Deployment %s is unavailable and no ReplicaSet of it was found: no pod of it can exist.", d.Name)
		f.Mechanism = "The deployment controller creates a ReplicaSet per revision of the pod template; without one there are no pods."
		f.Culprit = "deployment/" + d.Name
		f.Evidence = evidence
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check that the controller manager runs and read the Deployment's events.",
			Commands: []string{fmt.Sprintf("kubectl describe deployment %s -n %s", d.Name, d.Namespace), "kubectl get pods -n kube-system -l component=kube-controller-manager"}}}
		return f, true
	}
	rev := bundle.Revision(newest)
	prev, newPods, causes := revs.prev, revs.pods, revs.causes
	rsWant := kube.ReplicasOf(newest.Spec.Replicas)
	rsLine := fmt.Sprintf("ReplicaSet %s is revision %d, created %s: %d/%d pods, %d ready", newest.Name, rev, kube.Stamp(newest.CreationTimestamp.Time), newest.Status.Replicas, rsWant, newest.Status.ReadyReplicas)
	if prev != nil {
		rsLine += fmt.Sprintf("; ReplicaSet %s (revision %d) runs %d pods, %d ready", prev.Name, bundle.Revision(prev), prev.Status.Replicas, prev.Status.ReadyReplicas)
	}
	evidence = append(evidence, c.Evidence(rsLine, fmt.Sprintf("replicasets of deployment/%s", d.Name), fmt.Sprintf("kubectl rollout history deployment/%s -n %s", d.Name, d.Namespace)))

	inRollout := prev != nil && (deadline || d.Status.UpdatedReplicas < want || prev.Status.Replicas > 0)
	subject := fmt.Sprintf("deployment %s is unavailable (%d/%d available)", d.Name, d.Status.AvailableReplicas, want)
	f.Category = rule.Deployment.Sub("Unavailable")
	if inRollout {
		subject = fmt.Sprintf("rollout of deployment %s to revision %d is stuck", d.Name, rev)
		f.Category = rule.Rollout.Sub("Stuck")
	}

	// What changed from the previous revision: the rollout's trigger.
	var diff templateDiff
	if prev != nil {
		diff = DiffTemplates(&prev.Spec.Template, &newest.Spec.Template)
		if len(diff.Changes) > 0 {
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("Revision %d changed the pod template of revision %d: %s", rev, bundle.Revision(prev), strings.Join(diff.Changes, "; ")),
				fmt.Sprintf("replicaset/%s vs replicaset/%s .spec.template", newest.Name, prev.Name),
				fmt.Sprintf("diff <(kubectl rollout history deployment/%s -n %s --revision=%d) <(kubectl rollout history deployment/%s -n %s --revision=%d)", d.Name, d.Namespace, bundle.Revision(prev), d.Name, d.Namespace, rev)))
		}
	}
	started := newest.CreationTimestamp.Time
	context := fmt.Sprintf("Revision %d (ReplicaSet %s) was rolled out at %s; %d of %d pods are updated, %d ready, %d available.", rev, newest.Name, kube.Since(c, started), d.Status.UpdatedReplicas, want, d.Status.ReadyReplicas, d.Status.AvailableReplicas)
	if progressing != nil && deadline {
		context += fmt.Sprintf(" The rollout hit its progress deadline (%ds) at %s.", progressDeadline(d), kube.Stamp(progressing.LastTransitionTime.Time))
	}
	f.Contributing = append(f.Contributing, context)
	if prev != nil {
		if prev.Status.ReadyReplicas > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Revision %d (ReplicaSet %s) still serves %d ready pod(s): the service is degraded, not down.", bundle.Revision(prev), prev.Name, prev.Status.ReadyReplicas))
		}
		if len(diff.Changes) > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Introduced by revision %d (%s), which changed from revision %d: %s.", rev, kube.Stamp(started), bundle.Revision(prev), strings.Join(diff.Changes, "; ")))
		} else {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Revision %d's pod template does not differ from revision %d in image, command, env, resources, probes or volumes.", rev, bundle.Revision(prev)))
		}
	}

	failedCreate := len(kube.EventsWith(c, newest.UID, "FailedCreate")) > 0 || deploymentCondition(d, appsv1.DeploymentReplicaFailure) != nil
	pod, cause := kube.FirstCause(causes, newPods)
	var notReady, pending []*corev1.Pod
	for _, p := range newPods {
		switch {
		case kube.IsPodReady(p) || p.Status.Phase == corev1.PodSucceeded:
		case p.Spec.NodeName == "" || p.Status.Phase == corev1.PodPending:
			pending = append(pending, p)
		default:
			notReady = append(notReady, p)
		}
	}
	switch {
	case cause != nil:
		// The pod's own finding is the root cause; this one is its context
		// (which revision, what changed, how to roll back).
		f.Category = f.Category.Sub("PodsFailing")
		f.Confidence = rule.Even
		f.Context = true
		f.Hypothesis = fmt.Sprintf("The pods of revision %d fail, so the rollout cannot progress", rev)
		f.Title = fmt.Sprintf("%s: its pods fail (%s: %s)", subject, pod.Name, cause.Title)
		f.Summary = fmt.Sprintf("The pods of revision %d of deployment %s do not become available: pod %s: %s.", rev, d.Name, pod.Name, cause.Title)
		if match := diff.Explains(cause); match != "" {
			// Only the hypotheses table shows this finding when the pod's
			// cause wins: its statement carries the trigger.
			f.Confidence = rule.Fair
			f.Hypothesis = fmt.Sprintf("Revision %d introduced the pods' failure: it changed %s", rev, match)
			f.Contributing = append([]string{fmt.Sprintf("The pod failure matches a change of revision %d (%s): the rollout introduced the fault, and rolling back to revision %d removes it.", rev, match, bundle.Revision(prev))}, f.Contributing...)
		}
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) pods: %s", newest.Name, rev, cause.Culprit)
	case failedCreate:
		f.Category = f.Category.Sub("ReplicasNotCreated")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("ReplicaSet %s cannot create the pods of revision %d", newest.Name, rev)
		f.Title = fmt.Sprintf("%s: ReplicaSet %s cannot create its pods (%d/%d exist)", subject, newest.Name, newest.Status.Replicas, rsWant)
		f.Summary = fmt.Sprintf("Revision %d of deployment %s has %d of %d pods: its ReplicaSet reports FailedCreate.", rev, d.Name, newest.Status.Replicas, rsWant)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) FailedCreate", newest.Name, rev)
	case len(newPods) == 0 && newest.Status.Replicas < rsWant:
		f.Category = f.Category.Sub("NoPods")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("ReplicaSet %s has not created the pods of revision %d", newest.Name, rev)
		f.Title = fmt.Sprintf("%s: ReplicaSet %s has created %d of %d pods and no event says why", subject, newest.Name, newest.Status.Replicas, rsWant)
		f.Summary = fmt.Sprintf("Revision %d of deployment %s has no pods, and neither its ReplicaSet's events nor its conditions report a refusal: the replicaset controller may not be running, or its events have expired.", rev, d.Name)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d)", newest.Name, rev)
	case len(notReady) > 0:
		f.Category = f.Category.Sub("NotReady")
		f.Confidence = rule.Probable
		p := notReady[0]
		state, ev := kube.DescribePod(c, p)
		evidence = append(evidence, ev...)
		f.Hypothesis = fmt.Sprintf("The pods of revision %d run but never become Ready", rev)
		f.Title = fmt.Sprintf("%s: its pods run but never become Ready (%s)", subject, state)
		f.Summary = fmt.Sprintf("%d pod(s) of revision %d of deployment %s are running but not Ready, so the rollout never counts them available: pod %s is %s.", len(notReady), rev, d.Name, p.Name, state)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) readiness", newest.Name, rev)
		if gates, ok := kube.GatedOnly(p); ok {
			// Its containers are Ready: the pod waits for a readiness
			// gate's controller (pod/readiness-gate), never for a probe.
			rolloutGated(&f, p, newest, rev, gates[0])
		} else if probe := diff.find("readinessProbe", "startupProbe"); probe != "" {
			f.Confidence = rule.High
			f.Title += "; revision " + strconv.FormatInt(rev, 10) + " changed " + probe
			f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) %s", newest.Name, rev, probe)
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
				Description: "Point the probe back at an endpoint the new version serves (or make the new version serve the one it probes).",
				Commands: []string{fmt.Sprintf(`kubectl get deployment %s -n %s -o jsonpath='{range .spec.template.spec.containers[*]}{.name}{": "}{.readinessProbe}{"\n"}{end}'`, d.Name, d.Namespace),
					fmt.Sprintf("kubectl describe pod %s -n %s", p.Name, p.Namespace)},
				Risk: "starts a new rollout"})
		} else if len(diff.Changes) > 0 {
			f.Title += "; revision " + strconv.FormatInt(rev, 10) + " changed " + diff.Changes[0]
		}
		if f.Mechanism == "" {
			f.Mechanism = "A pod counts as available only once every container is Ready (its readiness probe passes) for minReadySeconds. While the new pods stay unready, the deployment controller keeps the old ReplicaSet's pods and, after progressDeadlineSeconds, marks the rollout ProgressDeadlineExceeded."
		}
	case len(pending) > 0:
		f.Category = f.Category.Sub("Pending")
		f.Confidence = rule.Moderate
		p := pending[0]
		state, ev := kube.DescribePod(c, p)
		evidence = append(evidence, ev...)
		f.Hypothesis = fmt.Sprintf("The pods of revision %d stay Pending", rev)
		f.Title = fmt.Sprintf("%s: its pods stay Pending (%s)", subject, state)
		f.Summary = fmt.Sprintf("%d pod(s) of revision %d of deployment %s are Pending: pod %s is %s.", len(pending), rev, d.Name, p.Name, state)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) pods Pending", newest.Name, rev)
	default:
		return rule.Finding{}, false
	}
	if f.Mechanism == "" {
		f.Mechanism = "A Deployment replaces its pods by scaling the new revision's ReplicaSet up and the old one down as new pods become available. When the new pods never become available the rollout stops and, after progressDeadlineSeconds, is marked ProgressDeadlineExceeded; the old pods keep running."
	}
	f.Evidence = evidence
	if prev != nil {
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Roll back to revision %d while the change is fixed.", bundle.Revision(prev)),
			Commands:    []string{fmt.Sprintf("kubectl rollout undo deployment/%s -n %s --to-revision=%d", d.Name, d.Namespace, bundle.Revision(prev))},
			Risk:        fmt.Sprintf("reverts every change of revision %d, not only the faulty one", rev)})
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check,
		Description: "Compare the revisions and follow the rollout.",
		Commands: []string{fmt.Sprintf("kubectl rollout history deployment/%s -n %s --revision=%d", d.Name, d.Namespace, rev),
			fmt.Sprintf("kubectl rollout status deployment/%s -n %s", d.Name, d.Namespace),
			fmt.Sprintf("kubectl get pods -n %s -l %s=%s", d.Namespace, appsv1.DefaultDeploymentUniqueLabelKey, newest.Labels[appsv1.DefaultDeploymentUniqueLabelKey])}})
	return f, true
}

func progressDeadline(d *appsv1.Deployment) int32 {
	if d.Spec.ProgressDeadlineSeconds != nil {
		return *d.Spec.ProgressDeadlineSeconds
	}
	return 600
}

// rolloutGated: the new pods run with every container Ready and wait for a
// readiness gate the controller that owns it has not set; the rollout's
// finding names the gate, so it explains the stall itself.
func rolloutGated(f *rule.Finding, p *corev1.Pod, rs *appsv1.ReplicaSet, rev int64, g kube.UnsetGate) {
	f.Category = rule.Rollout.Sub("Stuck", "ReadinessGate")
	f.Strength, f.Confidence = rule.Explained, rule.High
	f.Hypothesis = fmt.Sprintf("The pods of revision %d wait for readiness gate %s, which its controller has not set", rev, g.Type)
	f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) pods' readiness gate %s (condition %s; the controller that owns %s has not set it True)", rs.Name, rev, g.Type, g.Status, g.Owner())
	f.Mechanism = "A pod counts as available only once it is Ready, and a pod with readinessGates is Ready only when each gate's condition is True; the kubelet never sets it, the controller named by its domain does. While the new pods wait for it, the deployment controller keeps the old ReplicaSet's pods and, after progressDeadlineSeconds, marks the rollout ProgressDeadlineExceeded."
	if who := g.GateController(); who != "" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("The gate's domain %s belongs to %s.", g.Owner(), who))
	}
	f.Actions = append(f.Actions, kube.GateActions(p, g)...)
}
