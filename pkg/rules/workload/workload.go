package workload

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/pod"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"
)

func replicaSetsOf(c *rule.Pass, d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range c.B.ReplicaSets {
		if kube.ControllerUID(rs.OwnerReferences) == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

func labelString(m map[string]string) string {
	return "{" + kube.SelectorString(m) + "}"
}

func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	return kube.SelectorString(s.MatchLabels)
}

// PodLevel are the rules that explain a pod on its own (layers pod,
// placement and infrastructure): the workload and batch rules require them
// to quote a pod's cause and defer to it instead of competing with it.
var PodLevel = []*rule.Rule{
	pod.OOMKilled, pod.CrashLoop, pod.ImagePull,
	pod.Probe, pod.ConfigError, pod.RuntimeError, pod.Sandbox, pod.ConfigSource, pod.NotOOMKilled, pod.Evicted, pod.Rejected, pod.StuckTerminating,
	pod.InitRunning, pod.LifecycleHook,
	scheduling.Unschedulable,
	node.PodNode,
	storage.PVCPending, storage.VolumeAttachMount,
}

// Needs is what a workload rule reads: its pods, their owners, events and
// logs.
var Needs = []rule.Need{rule.Pods, rule.Owners, rule.Events, rule.Logs}
