package fault

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/objconv"
)

// Fault types, in the vocabulary of kubernetes-mcp-server where it has one.
const (
	TypeCrashLoop         = "CrashLoop"
	TypePodCrash          = "PodCrash"
	TypeOOMKilled         = "OOMKilled"
	TypeImagePull         = "ImagePull"
	TypeConfigError       = "CreateContainerConfigError"
	TypeUnschedulable     = "Unschedulable"
	TypePodNotReady       = "PodNotReady"
	TypePodFailed         = "PodFailed"
	TypeEvicted           = "Evicted" // the kubelet's event reason too, so both sources agree
	TypeNodeUnhealthy     = "NodeUnhealthy"
	TypeDeploymentFailure = "DeploymentFailure"
	TypeJobFailure        = "JobFailure"
	TypeManual            = "Manual" // the user asked; nothing looked wrong at a glance
)

// Classify gives a first-glance fault type, severity and one-line context for
// an object the user picked. It only reads status; the investigator decides
// the cause.
func Classify(obj *unstructured.Unstructured) (faultType, severity, context string) {
	switch obj.GetKind() {
	case "Pod":
		var pod corev1.Pod
		if objconv.Converter.FromUnstructured(obj.Object, &pod) == nil {
			return classifyPod(&pod)
		}
	case "Deployment":
		var d appsv1.Deployment
		if objconv.Converter.FromUnstructured(obj.Object, &d) == nil {
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
					return TypeDeploymentFailure, severityFor(TypeDeploymentFailure), c.Reason + ": " + c.Message
				}
				if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionFalse {
					return TypeDeploymentFailure, severityFor(TypeDeploymentFailure), c.Reason + ": " + c.Message
				}
			}
		}
	case "Job":
		var j batchv1.Job
		if objconv.Converter.FromUnstructured(obj.Object, &j) == nil {
			for _, c := range j.Status.Conditions {
				if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
					return TypeJobFailure, severityFor(TypeJobFailure), c.Reason + ": " + c.Message
				}
			}
		}
	case "Node":
		var n corev1.Node
		if objconv.Converter.FromUnstructured(obj.Object, &n) == nil {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
					return TypeNodeUnhealthy, severityFor(TypeNodeUnhealthy), fmt.Sprintf("Ready=%s: %s", c.Status, c.Message)
				}
			}
		}
	}
	return TypeManual, severityFor(TypeManual), "triage requested for " + strings.ToLower(obj.GetKind()) + "/" + obj.GetName()
}

func classifyPod(pod *corev1.Pod) (string, string, string) {
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
			return TypeOOMKilled, severityFor(TypeOOMKilled), fmt.Sprintf("container %s terminated: OOMKilled, exit code %d", cs.Name, t.ExitCode)
		}
		if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
			return TypeOOMKilled, severityFor(TypeOOMKilled), fmt.Sprintf("container %s terminated: OOMKilled, exit code %d", cs.Name, t.ExitCode)
		}
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "CrashLoopBackOff":
				ctx := fmt.Sprintf("container %s in CrashLoopBackOff, restart count %d", cs.Name, cs.RestartCount)
				if t := cs.LastTerminationState.Terminated; t != nil {
					ctx += fmt.Sprintf(", last exit code %d (%s)", t.ExitCode, t.Reason)
				}
				return TypeCrashLoop, severityFor(TypeCrashLoop), ctx
			case "ImagePullBackOff", "ErrImagePull", "InvalidImageName":
				return TypeImagePull, severityFor(TypeImagePull), fmt.Sprintf("container %s: %s: %s", cs.Name, w.Reason, w.Message)
			case "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
				return TypeConfigError, severityFor(TypeConfigError), fmt.Sprintf("container %s: %s: %s", cs.Name, w.Reason, w.Message)
			}
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return TypeUnschedulable, severityFor(TypeUnschedulable), c.Reason + ": " + c.Message
		}
	}
	if pod.Status.Phase == corev1.PodFailed && pod.Status.Reason == "Evicted" {
		return TypeEvicted, severityFor(TypeEvicted), "pod evicted: " + pod.Status.Message
	}
	if pod.Status.Phase == corev1.PodFailed {
		return TypePodFailed, severityFor(TypePodFailed), fmt.Sprintf("pod failed: %s %s", pod.Status.Reason, pod.Status.Message)
	}
	for _, cs := range statuses {
		if cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0 {
			return TypePodCrash, severityFor(TypePodCrash), fmt.Sprintf("container %s exited with code %d", cs.Name, cs.State.Terminated.ExitCode)
		}
	}
	if pod.Status.Phase == corev1.PodRunning {
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status != corev1.ConditionTrue {
				return TypePodNotReady, severityFor(TypePodNotReady), "pod is running but not ready: " + c.Message
			}
		}
	}
	return TypeManual, severityFor(TypeManual), "triage requested for pod/" + pod.Name
}
