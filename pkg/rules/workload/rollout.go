package workload

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Rollout is the rule workload/rollout.
var Rollout = &rule.Rule{Meta: rule.Meta{ID: "workload/rollout", Kinds: []string{"Deployment"}, Layer: rule.WorkloadLayer, Requires: PodLevel, Needs: Needs,
	Doc: "A Deployment rollout that does not complete, and which revision introduced the fault."}, Check: checkRollout}

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
	if !deadline && !unavailable && !newRevisionFailing(c, d) {
		return nil
	}
	if f, ok := rolloutFinding(c, d, progressing, available, deadline); ok {
		return []rule.Finding{f}
	}
	return nil
}

// newRevisionFailing: pods of the newest revision (a rollout: there is a
// previous one) have a cause of their own. The Deployment's conditions lag
// its pods by a controller round trip, so a new pod can already be in
// CrashLoopBackOff while Available still reads True (seen on the real node);
// the rollout's context is due then too.
func newRevisionFailing(c *rule.Pass, d *appsv1.Deployment) bool {
	rss := replicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
	if newest == nil || previousRevision(rss, newest) == nil {
		return false
	}
	return len(kube.PodCauses(c, kube.PodsOf(c, newest.UID))) > 0
}

func rolloutFinding(c *rule.Pass, d *appsv1.Deployment, progressing, available *appsv1.DeploymentCondition, deadline bool) (rule.Finding, bool) {
	rss := replicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
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
	prev := previousRevision(rss, newest)
	newPods := kube.PodsOf(c, newest.UID)
	causes := kube.PodCauses(c, newPods)
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
		if probe := diff.find("readinessProbe", "startupProbe"); probe != "" {
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
		f.Mechanism = "A pod counts as available only once every container is Ready (its readiness probe passes) for minReadySeconds. While the new pods stay unready, the deployment controller keeps the old ReplicaSet's pods and, after progressDeadlineSeconds, marks the rollout ProgressDeadlineExceeded."
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

// templateDiff is what changed between two pod templates, in words, with
// the identifiers each change touches (env names, images, ConfigMaps) so a
// pod's cause can be matched against it.
type templateDiff struct {
	Changes []string
	terms   [][]string // terms[i] are the identifiers of changes[i]
}

func (d *templateDiff) add(terms []string, format string, a ...any) {
	d.Changes = append(d.Changes, fmt.Sprintf(format, a...))
	d.terms = append(d.terms, terms)
}

// explains returns the changed identifier a pod cause names, if any.
func (d *templateDiff) Explains(cause *rule.Finding) string {
	text := cause.Title + " " + cause.Culprit + " " + cause.Summary
	for i, terms := range d.terms {
		for _, t := range terms {
			if len(t) >= 3 && strings.Contains(text, t) {
				return d.Changes[i]
			}
		}
	}
	return ""
}

// find returns the first change mentioning one of the words.
func (d *templateDiff) find(words ...string) string {
	for _, ch := range d.Changes {
		for _, w := range words {
			if strings.Contains(ch, w) {
				return ch
			}
		}
	}
	return ""
}

type namedContainer struct {
	c    *corev1.Container
	kind string // "container" or "init container"
}

func templateContainers(t *corev1.PodTemplateSpec) (map[string]namedContainer, []string) {
	out := map[string]namedContainer{}
	var order []string
	for i := range t.Spec.InitContainers {
		ctr := &t.Spec.InitContainers[i]
		out[ctr.Name] = namedContainer{ctr, "init container"}
		order = append(order, ctr.Name)
	}
	for i := range t.Spec.Containers {
		ctr := &t.Spec.Containers[i]
		out[ctr.Name] = namedContainer{ctr, "container"}
		order = append(order, ctr.Name)
	}
	return out, order
}

// DiffTemplates lists what a human would check first in a rollout: images,
// command, env, resources, probes, mounts, volumes and the pod's identity.
func DiffTemplates(old, cur *corev1.PodTemplateSpec) templateDiff {
	var d templateDiff
	oldC, oldOrder := templateContainers(old)
	curC, curOrder := templateContainers(cur)
	for _, name := range curOrder {
		nc := curC[name]
		oc, ok := oldC[name]
		if !ok {
			d.add([]string{name, nc.c.Image}, "%s %s added (image %s)", nc.kind, name, nc.c.Image)
			continue
		}
		diffContainer(&d, oc.c, nc.c, nc.kind)
	}
	for _, name := range oldOrder {
		if _, ok := curC[name]; !ok {
			d.add([]string{name}, "%s %s removed", oldC[name].kind, name)
		}
	}
	diffVolumes(&d, old.Spec.Volumes, cur.Spec.Volumes)
	if o, n := old.Spec.ServiceAccountName, cur.Spec.ServiceAccountName; o != n {
		d.add([]string{n}, "serviceAccountName %s → %s", orDefault(o), orDefault(n))
	}
	if !reflect.DeepEqual(old.Spec.NodeSelector, cur.Spec.NodeSelector) {
		d.add(kube.SortedKeys(cur.Spec.NodeSelector), "nodeSelector %s → %s", labelString(old.Spec.NodeSelector), labelString(cur.Spec.NodeSelector))
	}
	if !reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		d.add(nil, "tolerations changed (%d → %d)", len(old.Spec.Tolerations), len(cur.Spec.Tolerations))
	}
	if !reflect.DeepEqual(old.Spec.Affinity, cur.Spec.Affinity) {
		d.add(nil, "affinity changed")
	}
	if !reflect.DeepEqual(old.Spec.SecurityContext, cur.Spec.SecurityContext) {
		d.add([]string{"securityContext"}, "pod securityContext changed")
	}
	if !reflect.DeepEqual(old.Spec.ImagePullSecrets, cur.Spec.ImagePullSecrets) {
		d.add([]string{"imagePullSecrets"}, "imagePullSecrets %s → %s", refNames(old.Spec.ImagePullSecrets), refNames(cur.Spec.ImagePullSecrets))
	}
	return d
}

func diffContainer(d *templateDiff, o, n *corev1.Container, kind string) {
	name := n.Name
	if o.Image != n.Image {
		d.add([]string{n.Image, imageTag(n.Image)}, "%s %s image %s → %s", kind, name, o.Image, n.Image)
	}
	if !reflect.DeepEqual(o.Command, n.Command) {
		d.add(n.Command, "%s %s command %s → %s", kind, name, quoteList(o.Command), quoteList(n.Command))
	}
	if !reflect.DeepEqual(o.Args, n.Args) {
		d.add(n.Args, "%s %s args %s → %s", kind, name, quoteList(o.Args), quoteList(n.Args))
	}
	oldEnv := map[string]corev1.EnvVar{}
	for _, e := range o.Env {
		oldEnv[e.Name] = e
	}
	newEnv := map[string]bool{}
	for _, e := range n.Env {
		newEnv[e.Name] = true
		prev, ok := oldEnv[e.Name]
		switch {
		case !ok:
			d.add([]string{e.Name}, "%s %s env %s added (%s)", kind, name, e.Name, envSource(e))
		case !reflect.DeepEqual(prev, e):
			d.add([]string{e.Name}, "%s %s env %s changed (%s → %s)", kind, name, e.Name, envSource(prev), envSource(e))
		}
	}
	for _, e := range o.Env {
		if !newEnv[e.Name] {
			d.add([]string{e.Name}, "%s %s env %s removed", kind, name, e.Name)
		}
	}
	oldFrom, newFrom := envFromRefs(o.EnvFrom), envFromRefs(n.EnvFrom)
	for _, r := range newFrom {
		if !slices.Contains(oldFrom, r) {
			d.add([]string{refName(r)}, "%s %s envFrom %s added", kind, name, r)
		}
	}
	for _, r := range oldFrom {
		if !slices.Contains(newFrom, r) {
			d.add([]string{refName(r)}, "%s %s envFrom %s removed", kind, name, r)
		}
	}
	for _, part := range []struct {
		label    string
		old, cur corev1.ResourceList
	}{{"requests", o.Resources.Requests, n.Resources.Requests}, {"limits", o.Resources.Limits, n.Resources.Limits}} {
		names := map[string]bool{}
		for k := range part.old {
			names[string(k)] = true
		}
		for k := range part.cur {
			names[string(k)] = true
		}
		for _, res := range kube.SortedKeys(names) {
			oq, had := part.old[corev1.ResourceName(res)]
			nq, has := part.cur[corev1.ResourceName(res)]
			switch {
			case had && has && oq.Cmp(nq) != 0:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s → %s", kind, name, part.label, res, oq.String(), nq.String())
			case had && !has:
				d.add([]string{res}, "%s %s %s.%s %s removed", kind, name, part.label, res, oq.String())
			case !had && has:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s added", kind, name, part.label, res, nq.String())
			}
		}
	}
	for _, pr := range []struct {
		label    string
		old, cur *corev1.Probe
	}{{"livenessProbe", o.LivenessProbe, n.LivenessProbe}, {"readinessProbe", o.ReadinessProbe, n.ReadinessProbe}, {"startupProbe", o.StartupProbe, n.StartupProbe}} {
		if reflect.DeepEqual(pr.old, pr.cur) {
			continue
		}
		ob, nb := describeProbe(pr.old, false), describeProbe(pr.cur, false)
		if ob == nb {
			ob, nb = describeProbe(pr.old, true), describeProbe(pr.cur, true)
		}
		d.add([]string{pr.label}, "%s %s %s %s → %s", kind, name, pr.label, ob, nb)
	}
	oldMounts, newMounts := mountList(o.VolumeMounts), mountList(n.VolumeMounts)
	for _, m := range newMounts {
		if !slices.Contains(oldMounts, m) {
			d.add([]string{m}, "%s %s mounts %s", kind, name, m)
		}
	}
	for _, m := range oldMounts {
		if !slices.Contains(newMounts, m) {
			d.add([]string{m}, "%s %s no longer mounts %s", kind, name, m)
		}
	}
	if !reflect.DeepEqual(o.SecurityContext, n.SecurityContext) {
		d.add([]string{"securityContext"}, "%s %s securityContext changed", kind, name)
	}
}

func diffVolumes(d *templateDiff, old, cur []corev1.Volume) {
	oldV := map[string]string{}
	for _, v := range old {
		oldV[v.Name] = volumeSource(v)
	}
	curV := map[string]bool{}
	for _, v := range cur {
		curV[v.Name] = true
		src := volumeSource(v)
		prev, ok := oldV[v.Name]
		switch {
		case !ok:
			d.add([]string{v.Name, refName(src)}, "volume %s added (%s)", v.Name, src)
		case prev != src:
			d.add([]string{v.Name, refName(src)}, "volume %s now %s (was %s)", v.Name, src, prev)
		}
	}
	for _, v := range old {
		if !curV[v.Name] {
			d.add([]string{v.Name}, "volume %s removed (%s)", v.Name, oldV[v.Name])
		}
	}
}

func volumeSource(v corev1.Volume) string {
	switch {
	case v.ConfigMap != nil:
		return "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return "Secret " + v.Secret.SecretName
	case v.PersistentVolumeClaim != nil:
		return "PVC " + v.PersistentVolumeClaim.ClaimName
	case v.EmptyDir != nil:
		return "emptyDir"
	case v.HostPath != nil:
		return "hostPath " + v.HostPath.Path
	case v.Projected != nil:
		var parts []string
		for _, s := range v.Projected.Sources {
			switch {
			case s.ConfigMap != nil:
				parts = append(parts, "ConfigMap "+s.ConfigMap.Name)
			case s.Secret != nil:
				parts = append(parts, "Secret "+s.Secret.Name)
			case s.ServiceAccountToken != nil:
				parts = append(parts, "token")
			}
		}
		return "projected (" + strings.Join(parts, ", ") + ")"
	}
	return "other source"
}

// refName is the object name in "ConfigMap app-config".
func refName(s string) string {
	if _, name, ok := strings.Cut(s, " "); ok {
		return name
	}
	return ""
}

func envSource(e corev1.EnvVar) string {
	if f := e.ValueFrom; f != nil {
		switch {
		case f.ConfigMapKeyRef != nil:
			return fmt.Sprintf("from ConfigMap %s key %s", f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Key)
		case f.SecretKeyRef != nil:
			return fmt.Sprintf("from Secret %s key %s", f.SecretKeyRef.Name, f.SecretKeyRef.Key)
		case f.FieldRef != nil:
			return "from field " + f.FieldRef.FieldPath
		case f.ResourceFieldRef != nil:
			return "from resource " + f.ResourceFieldRef.Resource
		}
		return "from a reference"
	}
	switch {
	case strings.Contains(e.Value, redact.Mask):
		return "value redacted"
	case e.Value == "":
		return "empty value"
	case len(e.Value) > 40:
		return fmt.Sprintf("%q…", e.Value[:40])
	}
	return strconv.Quote(e.Value)
}

func envFromRefs(list []corev1.EnvFromSource) []string {
	var out []string
	for _, e := range list {
		switch {
		case e.ConfigMapRef != nil:
			out = append(out, "ConfigMap "+e.ConfigMapRef.Name)
		case e.SecretRef != nil:
			out = append(out, "Secret "+e.SecretRef.Name)
		}
	}
	return out
}

func mountList(ms []corev1.VolumeMount) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s at %s", m.Name, m.MountPath))
	}
	return out
}

// describeProbe renders a probe's handler, and with timing its thresholds.
func describeProbe(p *corev1.Probe, timing bool) string {
	if p == nil {
		return "none"
	}
	var s string
	switch {
	case p.HTTPGet != nil:
		s = fmt.Sprintf("httpGet %s port %s", orDefault(p.HTTPGet.Path), p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		s = "tcpSocket port " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		s = "exec " + quoteList(p.Exec.Command)
	case p.GRPC != nil:
		s = fmt.Sprintf("grpc port %d", p.GRPC.Port)
	default:
		s = "no handler"
	}
	if timing {
		s += fmt.Sprintf(" (initialDelaySeconds %d, periodSeconds %d, timeoutSeconds %d, failureThreshold %d)", p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold)
	}
	return s
}

func quoteList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	return "[" + strings.Join(l, " ") + "]"
}

func refNames(refs []corev1.LocalObjectReference) string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return "[" + strings.Join(out, ",") + "]"
}

func orDefault(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}

func imageTag(image string) string {
	if i := strings.LastIndexAny(image, ":@"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[i+1:]
	}
	return image
}
