package kube

import corev1 "k8s.io/api/core/v1"

// LostByRuntime reports whether a container's one restart was the
// runtime's doing, not the application's: containerd reports a container
// whose state it lost (the node rebooted, the runtime restarted) as
// terminated with reason Unknown, exit code 255. Restarted once that way
// and serving again, the container has no fault to explain.
func LostByRuntime(st corev1.ContainerStatus) bool {
	t := st.LastTerminationState.Terminated
	return t != nil && t.Reason == "Unknown" && st.RestartCount == 1 && st.Ready && st.State.Running != nil
}
