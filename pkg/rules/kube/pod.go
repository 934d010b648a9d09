package kube

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// PodNamed is the collected pod of that name, nil when there is none.
func PodNamed(c *rule.Pass, name string) *corev1.Pod {
	for _, p := range c.B.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// SpecOf is the container or init container of that name, nil when none.
func SpecOf(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	for i := range p.Spec.InitContainers {
		if p.Spec.InitContainers[i].Name == name {
			return &p.Spec.InitContainers[i]
		}
	}
	return nil
}

// PodRun is the Job that controls pod p, "" when none does.
func PodRun(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "Job" {
		return ref.Name
	}
	return ""
}

func PodReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady is the pod's Ready condition: what Services and controllers
// count.
func IsPodReady(p *corev1.Pod) bool {
	cond := PodReadyCondition(p)
	return cond != nil && cond.Status == corev1.ConditionTrue
}

type ContainerStatus struct {
	Status corev1.ContainerStatus
	Init   bool
}

// AllStatuses are p's init and regular containers' statuses, less those of
// native sidecars stopped because the pod finished: the kubelet stops a
// sidecar (an init container with restartPolicy Always) once the regular
// containers have exited, and its exit code then (137, 143, 1) is the
// teardown's, not a failure
// (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/#sidecar-containers-and-pod-lifecycle).
func AllStatuses(p *corev1.Pod) []ContainerStatus {
	var out []ContainerStatus
	for _, s := range p.Status.InitContainerStatuses {
		if bundle.SidecarTornDown(p, s) {
			continue
		}
		out = append(out, ContainerStatus{s, true})
	}
	for _, s := range p.Status.ContainerStatuses {
		out = append(out, ContainerStatus{s, false})
	}
	return out
}

// restartedRecently bounds how long a container may have run since its
// last crash and still be in the crash loop: the kubelet's back-off tops
// out at 5 minutes, so a loop restarts at least that often.
const restartedRecently = 10 * time.Minute

// RestartWindow is how far back a restart still describes the present: a
// container that exited cleanly and was restarted within it is cycling,
// and one that crashed once before it and has run since has recovered.
const RestartWindow = time.Hour

// RecoveredOnce: the container crashed once, longer than RestartWindow
// ago, and has run and been ready since: the fault ended (a first start
// that lost a race with a dependency, a volume fixed in place). A second
// crash makes it a pattern, which stays a fault.
func RecoveredOnce(st corev1.ContainerStatus, now time.Time) bool {
	t := st.LastTerminationState.Terminated
	return t != nil && st.RestartCount <= 1 && st.Ready && st.State.Running != nil &&
		!t.FinishedAt.IsZero() && now.Sub(t.FinishedAt.Time) > RestartWindow
}

// JustRestarted: the container runs again after a termination, started
// within restartedRecently of now: between two crashes of a loop (the
// kubelet restarted it and it has not died again yet), not recovered.
func JustRestarted(st corev1.ContainerStatus, now time.Time) bool {
	r := st.State.Running
	return r != nil && st.RestartCount > 0 && st.LastTerminationState.Terminated != nil && now.Sub(r.StartedAt.Time) < restartedRecently
}

// PodState says in a few words why a pod is not ready, and whether it is
// down: a container waits to start or restart, or the pod is not running
// at all. A running pod that is merely unready is not down.
func PodState(p *corev1.Pod) (string, bool) {
	if IsPodReady(p) {
		return "Running and ready", false
	}
	for _, st := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		last := ""
		if t := st.LastTerminationState.Terminated; t != nil {
			last = fmt.Sprintf(" (last exit code %d)", t.ExitCode)
		}
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			return w.Reason + last, true
		}
	}
	return string(p.Status.Phase) + ", not ready", p.Status.Phase != corev1.PodRunning
}

// ImageTag is the tag of an image reference, its digest aside; "" when it
// has none (the runtime pulls latest).
func ImageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		return image[i+1:]
	}
	return ""
}
