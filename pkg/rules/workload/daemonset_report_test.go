package workload_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

func TestDaemonSet(t *testing.T) {
	gpuTaint := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name: "node selector matches no node",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{bundletest.LabeledNode("node-1", map[string]string{"disktype": "hdd"}), bundletest.LabeledNode("node-2", nil)}
			}),
			WantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			WantCulprit:  []string{"nodeSelector {disktype=ssd}"},
			WantTitle:    []string{"disktype=hdd", "no such label", "node-1", "node-2"},
			MinConf:      0.9,
		},
		{
			Name: "selector mismatch on nodes whose names say taint",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{bundletest.LabeledNode("taint-test-1", nil)}
			}),
			WantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
		},
		{
			Name: "selected nodes are tainted",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "gpu"} })}
				b.Nodes = []*corev1.Node{bundletest.LabeledNode("cpu-1", map[string]string{"pool": "cpu"}), bundletest.LabeledNode("gpu-1", map[string]string{"pool": "gpu"}, gpuTaint)}
			}),
			WantCategory: "DaemonSet/NoEligibleNodes/Taint",
			WantCulprit:  []string{"no toleration for dedicated=gpu:NoSchedule"},
		},
		{
			Name: "every node tainted",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(0, 0, 0)}
				b.Nodes = []*corev1.Node{bundletest.LabeledNode("gpu-1", nil, gpuTaint),
					bundletest.LabeledNode("cp-1", nil, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})}
			}),
			WantCategory: "DaemonSet/NoEligibleNodes/Taint",
			WantTitle:    []string{"dedicated=gpu:NoSchedule", "node-role.kubernetes.io/control-plane:NoSchedule"},
		},
		{
			Name: "node selector and no node collected",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = nil
			}),
			WantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			WantText:     []string{"kubectl label node <node> disktype=ssd"},
		},
		{
			Name: "unready pod on one node, a tainted node excluded by design",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(2, 2, 1)}
				b.Nodes = []*corev1.Node{bundletest.Node("node-1", "4"), bundletest.LabeledNode("node-2", nil), bundletest.LabeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					bundletest.OwnedPod("agent-aaaaa", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.RunningUnready),
					bundletest.OwnedPod("agent-bbbbb", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Healthy, func(p *corev1.Pod) { p.Spec.NodeName = "node-2" }),
				}
			}),
			WantCategory: "DaemonSet/Unavailable",
			WantCulprit:  []string{"agent-aaaaa", "node-1"},
			WantTitle:    []string{"1 of 2 nodes"},
			WantText:     []string{"gpu-1 (untolerated taint dedicated=gpu:NoSchedule)"},
		},
		{
			Name: "node without a pod and a FailedCreate",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(1, 0, 0)}
				b.Events = []corev1.Event{bundletest.ObjEvent("DaemonSet", "agent", "Warning", "FailedCreate", `Error creating: pods "agent-" is forbidden: error looking up service account shop/agent: serviceaccount "agent" not found`, 4, time.Minute)}
			}),
			WantCategory: "FailedCreate/ServiceAccount",
			WantRule:     "DaemonSet/Unavailable",
		},
		{
			Name: "crashing daemon pod: the pod cause wins",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(1, 1, 0)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("agent-aaaaa", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Crashing(137, "OOMKilled"))}
			}),
			WantCategory: "OOMKilled",
			WantRule:     "DaemonSet/Unavailable",
		},
		{
			Name: "misscheduled pod on a node it no longer tolerates",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				ds := bundletest.NewDaemonSet(1, 1, 1)
				ds.Status.NumberMisscheduled = 1
				b.DaemonSets = []*appsv1.DaemonSet{ds}
				b.Nodes = []*corev1.Node{bundletest.Node("node-1", "4"), bundletest.LabeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					bundletest.OwnedPod("agent-aaaaa", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Healthy),
					bundletest.OwnedPod("agent-ggggg", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Healthy, func(p *corev1.Pod) { p.Spec.NodeName = "gpu-1" }),
				}
			}),
			WantCategory: "DaemonSet/Misscheduled/Taint",
			WantCulprit:  []string{"agent-ggggg on node gpu-1", "dedicated=gpu:NoSchedule"},
		},
		{
			Name: "healthy daemonset",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(1, 1, 1)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("agent-aaaaa", bundletest.CtrlRef("DaemonSet", "agent"), bundletest.Healthy)}
			}),
			Healthy: true,
		},
	})
}

func TestNodeExclusion(t *testing.T) {
	spec := func(mutate func(*corev1.PodSpec)) *corev1.PodSpec {
		s := &corev1.PodSpec{}
		mutate(s)
		return s
	}
	n := bundletest.LabeledNode("n", map[string]string{"zone": "a", "gen": "5"},
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
		{"untolerated taint", spec(func(*corev1.PodSpec) {}), bundletest.LabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), "untolerated taint dedicated=db:NoExecute"},
		{"tolerated by Equal", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}}
		}), bundletest.LabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), ""},
		{"Equal with another value", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "web"}}
		}), bundletest.LabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
		{"tolerate everything", spec(func(s *corev1.PodSpec) { s.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} }),
			bundletest.LabeledNode("t", nil, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable tolerated with hostNetwork", spec(func(s *corev1.PodSpec) { s.HostNetwork = true }),
			bundletest.LabeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable without hostNetwork", spec(func(*corev1.PodSpec) {}),
			bundletest.LabeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
	}
	for _, tt := range tests {
		got := workload.NodeExclusion(tt.spec, tt.node)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	p := bundletest.Pod("agent-x", func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-9"}}}}}}}}
	})
	if got := workload.DaemonPodNode(p); got != "node-9" {
		t.Errorf("daemon pod node = %q, want node-9 from its affinity", got)
	}
}
