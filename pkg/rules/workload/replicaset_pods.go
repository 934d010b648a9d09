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

// ReplicaSetPods is the rule workload/replicaset-pods.
var ReplicaSetPods = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/replicaset-pods",
		Kinds:    []string{"ReplicaSet"},
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    Needs,
		Doc:      "A ReplicaSet whose pods are not ready, and why.",
	},
	Check: checkReplicaSetPods,
}

// checkReplicaSetPods: a ReplicaSet triaged directly whose pods are not
// Ready. The pods' own cause is the root cause when a pod rule explains it;
// this finding gives the ReplicaSet's side: how many replicas are ready,
// who owns it, and how a fixed template reaches the pods.
func checkReplicaSetPods(c *rule.Pass) []rule.Finding {
	rs := kube.TargetOf(c, "ReplicaSet", c.B.ReplicaSets)
	if rs == nil {
		return nil
	}
	want := kube.ReplicasOf(rs.Spec.Replicas)
	if want == 0 || rs.Status.ReadyReplicas >= want {
		return nil
	}
	var unready []*corev1.Pod
	for _, p := range kube.PodsOf(c, rs.UID) {
		if !kube.IsPodReady(p) && p.Status.Phase != corev1.PodSucceeded && p.DeletionTimestamp == nil {
			unready = append(unready, p)
		}
	}
	if len(unready) == 0 {
		return nil // no pod to read: the FailedCreate rule speaks for missing ones
	}
	return []rule.Finding{replicaSetFinding(c, rs, want, unready)}
}

func replicaSetFinding(c *rule.Pass, rs *appsv1.ReplicaSet, want int32, unready []*corev1.Pod) rule.Finding {
	f := rule.Finding{Category: rule.ReplicaSet.Sub("PodsNotReady"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: rs.Name}
	f.Evidence = []string{c.Evidence(
		fmt.Sprintf("ReplicaSet %s: %d desired, %d created, %d ready, %d available", rs.Name, want, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas),
		fmt.Sprintf("replicaset/%s .status", rs.Name), fmt.Sprintf("kubectl get replicaset %s -n %s -o wide", rs.Name, rs.Namespace))}
	var names []string
	for _, p := range unready {
		names = append(names, p.Name)
	}
	ready := fmt.Sprintf("%d/%d replicas ready", rs.Status.ReadyReplicas, want)
	f.Hypothesis = fmt.Sprintf("The pods of ReplicaSet %s do not become Ready", rs.Name)
	f.Contributing = append(f.Contributing, fmt.Sprintf("ReplicaSet %s has %s (%d created); its pods %s are not Ready.", rs.Name, ready, rs.Status.Replicas, strings.Join(names, ", ")))
	w := kube.TopOwner(c, "ReplicaSet", rs)
	pods := "-l " + selectorString(rs.Spec.Selector)
	if selectorString(rs.Spec.Selector) == "" { // matchExpressions only: name the pods
		pods = strings.Join(names, " ")
	}
	if w.Kind != "replicaset" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("It is revision %d of %s: fix the pod template there, which rolls out a new ReplicaSet; the %s's controller reverts a change made to this ReplicaSet.", bundle.Revision(rs), w.Ref(), w.Kind))
	} else {
		f.Contributing = append(f.Contributing, "No Deployment owns it: a ReplicaSet creates pods from its template only when it is short of replicas, so a fixed template reaches the running pods only once they are deleted.")
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Once the pod template of ReplicaSet %s is fixed, delete its pods so it recreates them from the new template: a ReplicaSet does not replace running pods when its template changes.", rs.Name),
			Commands:    []string{fmt.Sprintf("kubectl edit replicaset %s -n %s   # .spec.template", rs.Name, rs.Namespace), fmt.Sprintf("kubectl delete pods -n %s %s", rs.Namespace, pods)},
			Risk:        "deleting every pod at once leaves the ReplicaSet without pods until the new ones are Ready; delete them one by one to keep the ready ones serving"})
	}
	pod, cause := kube.FirstCause(kube.PodCauses(c, unready), unready)
	if cause != nil {
		// The pod's own finding is the root cause; this one is its context.
		f.Category = f.Category.Sub("PodsFailing")
		f.Context = true
		f.Confidence = rule.Even
		f.Title = fmt.Sprintf("replicaset %s has %s: pod %s: %s", rs.Name, ready, pod.Name, cause.Title)
		f.Summary = fmt.Sprintf("The pods of ReplicaSet %s do not become Ready: pod %s: %s.", rs.Name, pod.Name, cause.Title)
		f.Culprit = fmt.Sprintf("replicaset/%s pods: %s", rs.Name, cause.Culprit)
		f.Mechanism = cause.Mechanism
	} else {
		p := unready[0]
		state, ev := kube.DescribePod(c, p)
		f.Evidence = append(f.Evidence, ev...)
		f.Confidence = rule.Moderate
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodPending {
			f.Category = f.Category.Sub("Pending")
		} else {
			f.Category = f.Category.Sub("NotReady")
		}
		f.Title = fmt.Sprintf("replicaset %s has %s: pod %s is %s", rs.Name, ready, p.Name, state)
		f.Summary = fmt.Sprintf("%d pod(s) of ReplicaSet %s are not Ready and no rule explains why: pod %s is %s.", len(unready), rs.Name, p.Name, state)
		f.Mechanism = "A ReplicaSet counts a pod ready once every container is Ready (its readiness probe passes); Services send no traffic to the others."
		f.Culprit = fmt.Sprintf("replicaset/%s pod %s (%s)", rs.Name, p.Name, state)
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Read the pods' states and events.",
		Commands: []string{fmt.Sprintf("kubectl get pods -n %s %s -o wide", rs.Namespace, pods), fmt.Sprintf("kubectl describe pod %s -n %s", unready[0].Name, rs.Namespace)}})
	return f
}
