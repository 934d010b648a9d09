package bundle

import (
	"context"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	namespacePage    = 500  // pods per list request of a Namespace target
	maxNamespacePods = 2000 // pods read of a Namespace target, in all
)

// namespacePods reads a Namespace target: every pod's status (paged,
// bounded), and, of the failing ones, one pod per workload — the worst
// first, at most MaxPods — in full, with its owners, so the pod rules can
// explain each workload's failure. The rest is a status-only list
// (NamespacePods) the report counts and ranks from.
func (c *collector) namespacePods(ctx context.Context, ns string) {
	var all []corev1.Pod
	cont := ""
	for len(all) < maxNamespacePods {
		c.count()
		list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: namespacePage, Continue: cont})
		if err != nil {
			c.problem("pods of namespace "+ns, err)
			break
		}
		all = append(all, list.Items...)
		if cont = list.Continue; cont == "" {
			break
		}
	}
	for i := range all {
		c.b.NamespacePods = append(c.b.NamespacePods, statusOnly(&all[i]))
	}
	var failing []*corev1.Pod
	for i := range all {
		if PodFailing(&all[i]) {
			failing = append(failing, &all[i])
		}
	}
	sort.SliceStable(failing, func(i, j int) bool {
		si, sj := PodSeverity(failing[i]), PodSeverity(failing[j])
		if si != sj {
			return si > sj
		}
		return failing[i].Name < failing[j].Name
	})
	seen := map[types.UID]bool{}
	var reps []*corev1.Pod
	for _, p := range failing {
		w := p.UID
		if ref := controllerOf(p.OwnerReferences); ref != nil {
			w = ref.UID
		}
		if seen[w] || len(reps) >= c.opts.MaxPods {
			continue
		}
		seen[w] = true
		reps = append(reps, p)
	}
	for _, p := range reps {
		c.addTyped(p, gvkPod)
	}
	for _, p := range reps {
		c.owners(ctx, ns, p.OwnerReferences)
	}
}

// statusOnly keeps of a pod what says whether and how it fails, and whose
// it is: never its spec (env, command lines).
func statusOnly(p *corev1.Pod) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, Labels: p.Labels,
			OwnerReferences: p.OwnerReferences, CreationTimestamp: p.CreationTimestamp, DeletionTimestamp: p.DeletionTimestamp},
		Spec: corev1.PodSpec{NodeName: p.Spec.NodeName},
		Status: corev1.PodStatus{Phase: p.Status.Phase, Reason: p.Status.Reason, Conditions: p.Status.Conditions,
			ContainerStatuses: p.Status.ContainerStatuses, InitContainerStatuses: p.Status.InitContainerStatuses},
	}
}

// PodFailing: not Ready and not done, or Failed — what a namespace's
// on-call would count as broken.
func PodFailing(p *corev1.Pod) bool {
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return false
	case corev1.PodFailed:
		return true
	}
	return !podHealthy(p)
}

// PodSeverity orders failing pods: a container that keeps dying or cannot
// start outranks one that waits to be scheduled, which outranks one that
// runs unready.
func PodSeverity(p *corev1.Pod) int {
	worst := 0
	statuses := append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if SidecarTornDown(p, cs) {
			continue
		}
		s := 0
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "ContainerCreating" && cs.State.Waiting.Reason != "PodInitializing":
			s = 4 // CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError…
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0:
			s = 4
		case cs.LastTerminationState.Terminated != nil && cs.LastTerminationState.Terminated.Reason == "OOMKilled":
			s = 3
		case cs.State.Running != nil && !cs.Ready:
			s = 1
		}
		worst = max(worst, s)
	}
	switch {
	case p.Status.Phase == corev1.PodFailed:
		worst = max(worst, 3)
	case p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending:
		worst = max(worst, 2)
	}
	return worst
}

// SidecarTornDown: s is a native sidecar's status (an init container
// with restartPolicy Always), terminated in a pod that has finished, and
// it never restarted: the kubelet stopped it because the regular
// containers exited, so its exit code is the teardown's. A sidecar that
// restarted crashed while the pod ran, which stays visible.
func SidecarTornDown(p *corev1.Pod, s corev1.ContainerStatus) bool {
	if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed || s.State.Terminated == nil || s.RestartCount > 0 {
		return false
	}
	for _, c := range p.Spec.InitContainers {
		if c.Name == s.Name {
			return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		}
	}
	return false
}

// WorkloadOf names the workload a pod belongs to from its controller
// reference alone, no request: a ReplicaSet named <deployment>-<hash> of
// the pod's pod-template-hash is its Deployment's; a pod without a
// controller is its own ("pod", name).
func WorkloadOf(p *corev1.Pod) (kind, name string) {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return "pod", p.Name
	}
	if d := DeploymentOf(p); d != "" {
		return "deployment", d
	}
	return strings.ToLower(ref.Kind), ref.Name
}

// DeploymentOf is the Deployment a pod's controlling ReplicaSet was made
// for (the deployment controller names it <deployment>-<pod-template-hash>),
// "" when it is not one.
func DeploymentOf(p *corev1.Pod) string {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return ""
	}
	hash := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if hash == "" {
		return ""
	}
	if d, ok := strings.CutSuffix(ref.Name, "-"+hash); ok && d != "" {
		return d
	}
	return ""
}
