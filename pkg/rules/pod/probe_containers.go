package pod

import corev1 "k8s.io/api/core/v1"

// probeContainers are the containers that can carry probes: app containers
// and sidecars (init containers that keep running).
func probeContainers(p *corev1.Pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range p.Spec.InitContainers {
		if rp := p.Spec.InitContainers[i].RestartPolicy; rp != nil && *rp == corev1.ContainerRestartPolicyAlways {
			out = append(out, &p.Spec.InitContainers[i])
		}
	}
	for i := range p.Spec.Containers {
		out = append(out, &p.Spec.Containers[i])
	}
	return out
}
