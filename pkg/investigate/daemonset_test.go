package investigate

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

func TestDaemonSet(t *testing.T) {
	gpuTaint := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	runWorkloadCases(t, []workloadCase{
		{
			name: "node selector matches no node",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{labeledNode("node-1", map[string]string{"disktype": "hdd"}), labeledNode("node-2", nil)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			wantCulprit:  []string{"nodeSelector {disktype=ssd}"},
			wantTitle:    []string{"disktype=hdd", "no such label", "node-1", "node-2"},
			minConf:      0.9,
		},
		{
			name: "selector mismatch on nodes whose names say taint",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{labeledNode("taint-test-1", nil)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
		},
		{
			name: "selected nodes are tainted",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "gpu"} })}
				b.Nodes = []*corev1.Node{labeledNode("cpu-1", map[string]string{"pool": "cpu"}), labeledNode("gpu-1", map[string]string{"pool": "gpu"}, gpuTaint)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/Taint",
			wantCulprit:  []string{"no toleration for dedicated=gpu:NoSchedule"},
		},
		{
			name: "every node tainted",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(0, 0, 0)}
				b.Nodes = []*corev1.Node{labeledNode("gpu-1", nil, gpuTaint),
					labeledNode("cp-1", nil, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/Taint",
			wantTitle:    []string{"dedicated=gpu:NoSchedule", "node-role.kubernetes.io/control-plane:NoSchedule"},
		},
		{
			name: "node selector and no node collected",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = nil
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			wantText:     []string{"kubectl label node <node> disktype=ssd"},
		},
		{
			name: "unready pod on one node, a tainted node excluded by design",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(2, 2, 1)}
				b.Nodes = []*corev1.Node{node("node-1", "4"), labeledNode("node-2", nil), labeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					ownedPod("agent-aaaaa", ctrlRef("DaemonSet", "agent"), runningUnready),
					ownedPod("agent-bbbbb", ctrlRef("DaemonSet", "agent"), healthy, func(p *corev1.Pod) { p.Spec.NodeName = "node-2" }),
				}
			}),
			wantCategory: "DaemonSet/Unavailable",
			wantCulprit:  []string{"agent-aaaaa", "node-1"},
			wantTitle:    []string{"1 of 2 nodes"},
			wantText:     []string{"gpu-1 (untolerated taint dedicated=gpu:NoSchedule)"},
		},
		{
			name: "node without a pod and a FailedCreate",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(1, 0, 0)}
				b.Events = []corev1.Event{objEvent("DaemonSet", "agent", "Warning", "FailedCreate", `Error creating: pods "agent-" is forbidden: error looking up service account shop/agent: serviceaccount "agent" not found`, 4, time.Minute)}
			}),
			wantCategory: "FailedCreate/ServiceAccount",
			wantRule:     "DaemonSet/Unavailable",
		},
		{
			name: "crashing daemon pod: the pod cause wins",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(1, 1, 0)}
				b.Pods = []*corev1.Pod{ownedPod("agent-aaaaa", ctrlRef("DaemonSet", "agent"), crashing(137, "OOMKilled"))}
			}),
			wantCategory: "OOMKilled",
			wantRule:     "DaemonSet/Unavailable",
		},
		{
			name: "misscheduled pod on a node it no longer tolerates",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				ds := newDaemonSet(1, 1, 1)
				ds.Status.NumberMisscheduled = 1
				b.DaemonSets = []*appsv1.DaemonSet{ds}
				b.Nodes = []*corev1.Node{node("node-1", "4"), labeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					ownedPod("agent-aaaaa", ctrlRef("DaemonSet", "agent"), healthy),
					ownedPod("agent-ggggg", ctrlRef("DaemonSet", "agent"), healthy, func(p *corev1.Pod) { p.Spec.NodeName = "gpu-1" }),
				}
			}),
			wantCategory: "DaemonSet/Misscheduled/Taint",
			wantCulprit:  []string{"agent-ggggg on node gpu-1", "dedicated=gpu:NoSchedule"},
		},
		{
			name: "healthy daemonset",
			bundle: workloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(1, 1, 1)}
				b.Pods = []*corev1.Pod{ownedPod("agent-aaaaa", ctrlRef("DaemonSet", "agent"), healthy)}
			}),
			healthy: true,
		},
	})
}

func TestNodeExclusion(t *testing.T) {
	spec := func(mutate func(*corev1.PodSpec)) *corev1.PodSpec {
		s := &corev1.PodSpec{}
		mutate(s)
		return s
	}
	n := labeledNode("n", map[string]string{"zone": "a", "gen": "5"},
		corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule})
	affinity := func(reqs ...corev1.NodeSelectorRequirement) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}}}
		}
	}
	tests := []struct {
		name string
		spec *corev1.PodSpec
		node *corev1.Node
		want string
	}{
		{"cordoned node is tolerated by default", spec(func(*corev1.PodSpec) {}), n, ""},
		{"selector matches", spec(func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"zone": "a"} }), n, ""},
		{"selector mismatch", spec(func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"zone": "b"} }), n, "nodeSelector zone=b does not match (zone=a)"},
		{"affinity In", spec(affinity(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}})), n, ""},
		{"affinity NotIn", spec(affinity(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}})), n, "required node affinity"},
		{"affinity Exists", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpExists})), n, ""},
		{"affinity DoesNotExist", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpDoesNotExist})), n, "required node affinity"},
		{"affinity Gt", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}})), n, ""},
		{"affinity Lt", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}})), n, "required node affinity"},
		{"untolerated taint", spec(func(*corev1.PodSpec) {}), labeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), "untolerated taint dedicated=db:NoExecute"},
		{"tolerated by Equal", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}}
		}), labeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), ""},
		{"Equal with another value", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "web"}}
		}), labeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
		{"tolerate everything", spec(func(s *corev1.PodSpec) { s.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} }),
			labeledNode("t", nil, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable tolerated with hostNetwork", spec(func(s *corev1.PodSpec) { s.HostNetwork = true }),
			labeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable without hostNetwork", spec(func(*corev1.PodSpec) {}),
			labeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
	}
	for _, tt := range tests {
		got := workload.NodeExclusion(tt.spec, tt.node)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	p := pod("agent-x", func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-9"}}}}}}}}
	})
	if got := workload.DaemonPodNode(p); got != "node-9" {
		t.Errorf("daemon pod node = %q, want node-9 from its affinity", got)
	}
}
