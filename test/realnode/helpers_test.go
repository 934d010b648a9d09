package realnode

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func ptr[T any](v T) *T { return &v }

// container runs script with busybox's sh; the image is only on the node.
func container(name, script string) corev1.Container {
	c := corev1.Container{Name: name, Image: BusyboxImage, ImagePullPolicy: corev1.PullNever}
	if script != "" {
		c.Command = []string{"sh", "-c", script}
	}
	return c
}

// shellPod is a pod with one container "app" running script. Pods use the
// node's network (the node's CNI is loopback only) and mount no
// service-account token: neither is what the faults are about.
func shellPod(name, script string) func(ns string) *corev1.Pod {
	return func(ns string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
			Spec: corev1.PodSpec{
				HostNetwork:                   true,
				AutomountServiceAccountToken:  ptr(false),
				TerminationGracePeriodSeconds: ptr(int64(1)),
				Containers:                    []corev1.Container{container("app", script)},
			},
		}
	}
}

func podSetup(build func(ns string) *corev1.Pod) func(context.Context, *testing.T, kubernetes.Interface, string) string {
	return func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
		return createPod(ctx, t, cs, build(ns))
	}
}

func createPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, p *corev1.Pod) string {
	t.Helper()
	_, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	mustCreate(t, p, err)
	return "pod/" + p.Name
}

func mustCreate(t *testing.T, _ any, err error) {
	t.Helper()
	if err := ignoreExists(err); err != nil {
		t.Fatalf("create: %v", err)
	}
}

func deployment(name string, replicas int32, spec corev1.PodSpec) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}
}

// Moments common to several faults.
var (
	crashMoments = []moment{
		{"first failure", anyTerminated("app")},
		{"back-off", waitingReason("app", "CrashLoopBackOff")},
		// Dead again after a restart, before the kubelet flips the status
		// back to CrashLoopBackOff: the older instance and its log are
		// already garbage-collected.
		{"between restarts", terminatedAfterRestart("app")},
		{"after restarts", restarts("app", 3)},
	}
	configErrorMoments = []moment{
		{"first sync", waitingReason("app", "CreateContainerConfigError")},
		{"repeated", eventCount("Failed", 3)},
	}
	pullMoments = []moment{
		{"ErrImagePull", waitingReason("app", "ErrImagePull")},
		{"ImagePullBackOff", waitingReason("app", "ImagePullBackOff")},
	}
	unschedulableMoments = []moment{
		{"first attempt", eventCount("FailedScheduling", 1)},
		{"pending a while", podAge(20)},
	}
)

func statuses(pods []corev1.Pod, init bool) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, p := range pods {
		if init {
			out = append(out, p.Status.InitContainerStatuses...)
		} else {
			out = append(out, p.Status.ContainerStatuses...)
		}
	}
	return out
}

func containerIs(init bool, name string, ok func(corev1.ContainerStatus) bool) func([]corev1.Pod, []corev1.Event) bool {
	return func(pods []corev1.Pod, _ []corev1.Event) bool {
		for _, cs := range statuses(pods, init) {
			if cs.Name == name && ok(cs) {
				return true
			}
		}
		return false
	}
}

// anyTerminated: the container has ended at least once.
func anyTerminated(name string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil
	})
}

func terminatedAfterRestart(name string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Terminated != nil && cs.RestartCount >= 1
	})
}

func lastTerminated(name, reason string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool {
		for _, t := range []*corev1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
			if t != nil && t.Reason == reason {
				return true
			}
		}
		return false
	})
}

func anyTerminatedOrWaiting(name string, reasons ...string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool {
		for _, r := range reasons {
			if (cs.State.Waiting != nil && cs.State.Waiting.Reason == r) ||
				(cs.State.Terminated != nil && cs.State.Terminated.Reason == r) ||
				(cs.LastTerminationState.Terminated != nil && cs.LastTerminationState.Terminated.Reason == r) {
				return true
			}
		}
		return false
	})
}

func waitingReason(name, reason string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Waiting != nil && cs.State.Waiting.Reason == reason
	})
}

func restarts(name string, n int32) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(false, name, func(cs corev1.ContainerStatus) bool { return cs.RestartCount >= n })
}

func initTerminated(name string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(true, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil
	})
}

func initWaiting(name, reason string) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(true, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Waiting != nil && cs.State.Waiting.Reason == reason
	})
}

// initRunningFor: init container name has been running secs seconds (on
// a loaded machine the kubelet can take longer than that to start it: a pod
// still PodInitializing shows no waiting yet).
func initRunningFor(name string, secs int) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(true, name, func(cs corev1.ContainerStatus) bool {
		return cs.State.Running != nil && time.Since(cs.State.Running.StartedAt.Time) >= time.Duration(secs)*time.Second
	})
}

func initRestarts(name string, n int32) func([]corev1.Pod, []corev1.Event) bool {
	return containerIs(true, name, func(cs corev1.ContainerStatus) bool { return cs.RestartCount >= n })
}

// eventCount: events with this reason in the namespace add up to n.
func eventCount(reason string, n int32) func([]corev1.Pod, []corev1.Event) bool {
	return func(_ []corev1.Pod, events []corev1.Event) bool {
		var total int32
		for _, e := range events {
			if e.Reason == reason {
				c := e.Count
				if e.Series != nil {
					c = max(c, e.Series.Count)
				}
				total += max(c, 1)
			}
		}
		return total >= n
	}
}

func podsFailed(n int) func([]corev1.Pod, []corev1.Event) bool {
	return func(pods []corev1.Pod, _ []corev1.Event) bool {
		failed := 0
		for _, p := range pods {
			if p.Status.Phase == corev1.PodFailed {
				failed++
			}
		}
		return failed >= n
	}
}

// podAge: the oldest pod is at least secs old.
func podAge(secs int) func([]corev1.Pod, []corev1.Event) bool {
	return func(pods []corev1.Pod, _ []corev1.Event) bool {
		for _, p := range pods {
			if time.Since(p.CreationTimestamp.Time) >= time.Duration(secs)*time.Second {
				return true
			}
		}
		return false
	}
}

// waitAvailable waits until a Deployment's first revision is available.
func waitAvailable(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	if err := poll(ctx, 2*time.Minute, func() bool {
		got, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && got.Status.AvailableReplicas >= 1
	}); err != nil {
		t.Fatalf("deployment %s never became available: %v", name, err)
	}
}

// readyPods: at least n pods are Ready.
func readyPods(n int) func([]corev1.Pod, []corev1.Event) bool {
	return func(pods []corev1.Pod, _ []corev1.Event) bool {
		ready := 0
		for _, p := range pods {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= n
	}
}
