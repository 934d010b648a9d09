package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// PodCauses returns, per pod name, the best validated finding of the
// rules the running rule requires (a workload rule requires the pod-level
// rules) about one of the given
// pods. Each of those rules runs once per investigation.
func PodCauses(c *rule.Pass, pods []*corev1.Pod) map[string]*rule.Finding {
	names := map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
	}
	if len(names) == 0 || c.Rule == nil {
		return nil
	}
	byPod := map[string][]rule.Finding{}
	for _, r := range c.Rule.Requires {
		for _, f := range c.ResultOf(r) {
			if pod := f.SubjectPod(); f.Verdict == report.Validated && names[pod] {
				byPod[pod] = append(byPod[pod], f)
			}
		}
	}
	out := map[string]*rule.Finding{}
	for pod, fs := range byPod {
		out[pod] = rule.Rank(fs)
	}
	return out
}

// FirstCause returns the pod cause of the first pod (by name) that has one.
func FirstCause(causes map[string]*rule.Finding, pods []*corev1.Pod) (*corev1.Pod, *rule.Finding) {
	for _, p := range pods {
		if f := causes[p.Name]; f != nil {
			return p, f
		}
	}
	return nil, nil
}
