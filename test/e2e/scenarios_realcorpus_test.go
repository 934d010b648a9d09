package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() {
	register(realCorpusScenarios...)
	// The known misses are not part of the corpus: the builtin investigator
	// gets them wrong today. KUBECTL_TRIAGE_REAL_MISSES=1 registers them, to
	// watch a fix turn them green before they are captured.
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(realCorpusMisses...)
	}
}

// Scenarios whose log lines and messages are taken from public bug reports
// (the source field cites each), not written from the rules' own phrasing.

// rcCrashPod creates a bare pod "name" crash-looping with exit code and the
// previous instance's log, as the kubelet leaves it.
func rcCrashPod(t *testing.T, c *testcluster.Cluster, ns, name string, code int32, log string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Status = crashStatus("app", code, "Error", 6)
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", true, log)
	c.SetLogs(ns, name, "app", false, "")
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 27, First: time.Now().Add(-25 * time.Minute), FieldPath: "spec.containers{app}",
		Message: fmt.Sprintf("Back-off restarting failed container app in pod %s_%s(%s)", name, ns, p.UID)})
	return p
}

func rcImage(image string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].Image = image
		}
	}
}

func rcNonRoot(uid int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(uid), RunAsNonRoot: ptr(true)}
	}
}

func rcPort(port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}
	}
}

// rcPVCMount mounts a bound PVC "claim" at path.
func rcPVCMount(claim, path string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: path})
	}
}

// rcReadyStatus is a pod serving and Ready, restarted restarts times; with
// last, the previous instance ended that way at that time.
func rcReadyStatus(image string, restarts int32, last *corev1.ContainerStateTerminated) corev1.PodStatus {
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(60)}
	}
	st := corev1.ContainerStatus{Name: "app", Image: image, ImageID: image + "@sha256:03", ContainerID: "containerd://h1",
		Ready: true, Started: ptr(true), RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(3 * 24 * 60)}}}
	if last != nil {
		st.LastTerminationState = corev1.ContainerState{Terminated: last}
	}
	return corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.31", StartTime: ptr(minutesAgo(4 * 24 * 60)),
		Conditions:        []corev1.PodCondition{cond(corev1.PodScheduled), cond(corev1.PodInitialized), cond(corev1.ContainersReady), cond(corev1.PodReady)},
		ContainerStatuses: []corev1.ContainerStatus{st}}
}

func rcHTTPProbe(path string, port int) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt(port), Scheme: corev1.URISchemeHTTP}},
		PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
}

// rcWaiting is a pod whose only container waits with reason and message.
func rcWaiting(image, reason, message string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.22", StartTime: ptr(minutesAgo(20)),
		Conditions: notReadyConditions(),
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}},
	}
}

// rcEvent records a kubelet event about the pod's container app.
func rcEvent(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, typ, reason, msg string, count int32) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: p, Type: typ, Reason: reason, Message: msg, Count: count,
		First: time.Now().Add(-20 * time.Minute), FieldPath: "spec.containers{app}"})
}

// rcHealthyPod creates a serving, Ready pod with the current log.
func rcHealthyPod(t *testing.T, c *testcluster.Cluster, ns, name, image, log string, mutate ...func(*corev1.Pod)) {
	t.Helper()
	c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.Containers[0].Image = image
		p.Status = rcReadyStatus(image, 0, nil)
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", false, log)
}

// realCorpusScenarios are new scenarios from real material, to be captured
// (make capture-scenarios) and then removed from here.
var realCorpusScenarios = []scenario{}

// realCorpusMisses are scenarios from real material whose expectation (what
// the material shows) the builtin investigator does not meet yet.
var realCorpusMisses = []scenario{}
