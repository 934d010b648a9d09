package health

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

var sprintf = fmt.Sprintf

var deploymentReplicas = &Check{
	ID: "deployment/available", Kinds: []string{"Deployment"},
	Doc: "Every desired replica is available, and the Available and Progressing conditions are not False, nor ReplicaFailure True.",
	Run: func(c *rule.Pass) []Result {
		d := kube.TargetOf(c, "Deployment", c.B.Deployments)
		if d == nil {
			return nil
		}
		var out []Result
		want := kube.ReplicasOf(d.Spec.Replicas)
		if d.Status.AvailableReplicas < want {
			out = append(out, fail("Deployment %s has %d/%d replicas available (%d updated, %d unavailable)",
				d.Name, d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas, d.Status.UnavailableReplicas))
		}
		for _, cond := range d.Status.Conditions {
			if cond.Status == corev1.ConditionFalse && (cond.Type == appsv1.DeploymentAvailable || cond.Type == appsv1.DeploymentProgressing) {
				out = append(out, fail("Condition %s=False (%s): %s", cond.Type, cond.Reason, cond.Message))
			}
			if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue {
				out = append(out, fail("Condition ReplicaFailure=True (%s): %s", cond.Reason, cond.Message))
			}
		}
		if len(out) == 0 {
			out = append(out, pass("Deployment %s has %d/%d replicas available and %d updated", d.Name, d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas))
		}
		return out
	},
}

var statefulSetReplicas = &Check{
	ID: "statefulset/ready", Kinds: []string{"StatefulSet"},
	Doc: "Every desired replica is ready; a rolling update in progress is noted.",
	Run: func(c *rule.Pass) []Result {
		sts := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
		if sts == nil {
			return nil
		}
		var out []Result
		want, st := kube.ReplicasOf(sts.Spec.Replicas), sts.Status
		if st.ReadyReplicas < want {
			out = append(out, fail("StatefulSet %s has %d/%d replicas ready (%d created, %d updated)", sts.Name, st.ReadyReplicas, want, st.Replicas, st.UpdatedReplicas))
		} else {
			out = append(out, pass("StatefulSet %s has %d/%d replicas ready", sts.Name, st.ReadyReplicas, want))
		}
		if st.UpdateRevision != "" && st.CurrentRevision != st.UpdateRevision {
			out = append(out, note("StatefulSet %s is rolling from revision %s to %s: %d/%d replicas updated", sts.Name, st.CurrentRevision, st.UpdateRevision, st.UpdatedReplicas, want))
		}
		return out
	},
}

var daemonSetCoverage = &Check{
	ID: "daemonset/scheduled", Kinds: []string{"DaemonSet"},
	Doc: "The DaemonSet wants a pod on at least one node when the cluster has nodes, has one scheduled on each node it wants, each ready, and none misscheduled.",
	Run: func(c *rule.Pass) []Result {
		ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
		if ds == nil {
			return nil
		}
		var out []Result
		st := ds.Status
		if st.DesiredNumberScheduled == 0 && len(c.B.Nodes) > 0 {
			out = append(out, fail("DaemonSet %s wants 0 pods although the cluster has %d node(s): no node qualifies for it", ds.Name, len(c.B.Nodes)))
		}
		if st.CurrentNumberScheduled < st.DesiredNumberScheduled {
			out = append(out, fail("DaemonSet %s has pods on %d of the %d nodes it should run on", ds.Name, st.CurrentNumberScheduled, st.DesiredNumberScheduled))
		}
		if st.NumberUnavailable > 0 || st.NumberReady < st.DesiredNumberScheduled {
			out = append(out, fail("DaemonSet %s has %d/%d pods ready (%d available, %d unavailable)", ds.Name, st.NumberReady, st.DesiredNumberScheduled, st.NumberAvailable, st.NumberUnavailable))
		}
		if st.NumberMisscheduled > 0 {
			out = append(out, fail("DaemonSet %s runs %d pod(s) on nodes it no longer selects (misscheduled)", ds.Name, st.NumberMisscheduled))
		}
		if len(out) == 0 {
			out = append(out, pass("DaemonSet %s has %d/%d pods scheduled and ready", ds.Name, st.NumberReady, st.DesiredNumberScheduled))
		}
		return out
	},
}

// daemonSetNodes looks past the controller's own counts, which leave out
// every node a taint keeps the pods off. Whether such a node is missing
// coverage (a fault) or a deliberate dedication (noted) is read from the
// DaemonSet's own spec (workload.TaintSkipped): its node selection picks
// the node, or it selects every node and already tolerates taints of its
// own choosing. The control plane's, a cordon's and the node-condition
// taints are left out.
var daemonSetNodes = &Check{
	ID: "daemonset/all-nodes", Kinds: []string{"DaemonSet"},
	Doc: "No node the DaemonSet is meant for (its nodeSelector or required node affinity picks it, or it selects every node and tolerates taints of its own) is kept off by a taint the template does not tolerate; nodes kept off by a taint of a DaemonSet on the defaults are noted.",
	Run: func(c *rule.Pass) []Result {
		ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
		if ds == nil {
			return nil
		}
		if kube.CollectionFailed(c, "nodes") || len(c.B.Nodes) == 0 {
			return []Result{unchecked("Not checked: which nodes DaemonSet %s should run on (the nodes could not be listed)", ds.Name)}
		}
		withPod := map[string]bool{}
		for _, p := range kube.PodsOf(c, ds.UID) {
			withPod[workload.DaemonPodNode(p)] = true
		}
		var out []Result
		var tainted []string
		for _, s := range workload.TaintSkipped(ds, c.B.Nodes, withPod) {
			if s.Fault {
				out = append(out, fail("DaemonSet %s does not run on node %s: %s, but the node has taint %s, which the pod template does not tolerate", ds.Name, s.Node.Name, meantBecause(&ds.Spec.Template.Spec), kube.TaintSpec(s.Taint)))
			} else {
				tainted = append(tainted, s.Node.Name+" ("+kube.TaintSpec(s.Taint)+")")
			}
		}
		if len(tainted) > 0 {
			out = append(out, note("DaemonSet %s does not run on %d node(s) whose taints its pod template does not tolerate: %s", ds.Name, len(tainted), kube.NamesUpTo(tainted, 5)))
		}
		if !hasStatus(out, Fail) {
			meant := 0
			for _, n := range c.B.Nodes {
				if taint, selected := workload.TaintExclusion(&ds.Spec.Template.Spec, n); selected && taint == nil {
					meant++
				}
			}
			out = append(out, pass("DaemonSet %s is not kept off any node it is meant for (%d of %d nodes selected and tolerated)", ds.Name, meant, len(c.B.Nodes)))
		}
		return out
	},
}

func meantBecause(s *corev1.PodSpec) string {
	if workload.ExplicitSelection(s) {
		return "its node selection picks the node"
	}
	return "it selects every node and already tolerates taints of its own"
}

var replicaSetReplicas = &Check{
	ID: "replicaset/ready", Kinds: []string{"ReplicaSet"},
	Doc: "Every desired replica is ready, and ReplicaFailure is not True.",
	Run: func(c *rule.Pass) []Result {
		rs := kube.TargetOf(c, "ReplicaSet", c.B.ReplicaSets)
		if rs == nil {
			return nil
		}
		var out []Result
		want := kube.ReplicasOf(rs.Spec.Replicas)
		if rs.Status.ReadyReplicas < want {
			out = append(out, fail("ReplicaSet %s has %d/%d replicas ready (%d created)", rs.Name, rs.Status.ReadyReplicas, want, rs.Status.Replicas))
		}
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
				out = append(out, fail("Condition ReplicaFailure=True (%s): %s", cond.Reason, cond.Message))
			}
		}
		if len(out) == 0 {
			out = append(out, pass("ReplicaSet %s has %d/%d replicas ready", rs.Name, rs.Status.ReadyReplicas, want))
		}
		return out
	},
}

var workloadUpToDate = &Check{
	ID: "workload/up-to-date", Kinds: []string{"Deployment", "StatefulSet", "DaemonSet"},
	Doc: "Every pod runs the workload's current template, or a rolling update is replacing them; pods left on an older template by the spec's own setting (updateStrategy OnDelete, a paused Deployment) fail; a StatefulSet partition, a staged rollout on purpose, is noted.",
	Run: func(c *rule.Pass) []Result {
		h := workload.UpdateStateOf(c)
		switch {
		case h != nil && h.Hold != "":
			return []Result{fail("%s", h.Line())}
		case h == nil || !h.Written:
			return nil // no controller has written the status's update fields
		case h.Updated < h.Want:
			return []Result{note("%s %s has %d of %d pods on the current template (a rolling update, or a StatefulSet partition, holds the rest)", h.Kind, h.Name, h.Updated, h.Want)}
		default:
			return []Result{pass("%s %s runs its current template on every pod (%d of %d updated)", h.Kind, h.Name, h.Updated, h.Want)}
		}
	},
}
