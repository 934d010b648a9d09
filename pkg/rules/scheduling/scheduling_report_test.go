package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
)

const preempt = " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

func TestSchedulingResources(t *testing.T) {
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "request larger than every node",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 Insufficient memory."+preempt, bundletest.ScRequest(corev1.ResourceMemory, "64Gi")), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/InsufficientMemory",
			WantCulprit:  []string{"requests.memory (64Gi)"},
			WantTitle:    []string{"memory 64Gi", "largest node", "8Gi"},
			MinConf:      0.95,
		},
		{
			Name:         "nodes big enough when empty are full",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 Insufficient cpu.", bundletest.ScRequest(corev1.ResourceCPU, "3")), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/InsufficientCpu",
			WantCulprit:  []string{"free cpu on a, b", "requests.cpu (3)"},
			WantText:     []string{"Allocated resources", "were not collected"},
			MinConf:      0.85,
		},
		{
			Name: "own pods on the full node are counted as a lower bound",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 Insufficient cpu.", bundletest.ScRequest(corev1.ResourceCPU, "3")), bundletest.ScNodes(bundletest.ScNode("a")),
				func(b *bundle.Bundle) {
					b.Pods = append(b.Pods, bundletest.Pod("batch-2", func(p *corev1.Pod) {
						p.Spec.NodeName = "a"
						p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
					}))
				}),
			WantCategory: "Unschedulable/InsufficientCpu",
			WantText:     []string{"At least 2 of a's 4 cpu is requested by 1 pod(s) of this workload seen here (batch-2)"},
		},
		{
			Name: "ephemeral storage, several containers",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 Insufficient ephemeral-storage.", bundletest.ScRequest(corev1.ResourceEphemeralStorage, "80Gi"), func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("20Gi")}}})
			}), bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScAlloc(corev1.ResourceEphemeralStorage, "50Gi")))),
			WantCategory: "Unschedulable/InsufficientEphemeralStorage",
			WantCulprit:  []string{"containers[app,sidecar]", "100Gi in total: app 80Gi, sidecar 20Gi"},
		},
		{
			Name:         "extended resource no node advertises",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", bundletest.ScRequest("nvidia.com/gpu", "1")), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/InsufficientExtendedResource",
			WantCulprit:  []string{"no node advertises nvidia.com/gpu"},
			WantText:     []string{"device plugin"},
		},
		{
			Name:         "insufficient resource the pod does not request",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 Insufficient hugepages-2Mi."), bundletest.ScNodes(bundletest.ScNode("a"))),
			WantCategory: "Unschedulable/InsufficientHugepages2Mi",
			WantCulprit:  []string{"requests.hugepages-2Mi"},
		},
		{
			Name:         "nodes could not be read",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 3 Insufficient cpu.", bundletest.ScRequest(corev1.ResourceCPU, "8")), bundletest.ScNodes()),
			WantCategory: "Unschedulable/InsufficientCpu",
			WantTitle:    []string{"could not be read"},
		},
		{
			Name:         "too many pods",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 Too many pods."+preempt), bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScAlloc(corev1.ResourcePods, "17")), bundletest.ScNode("b", bundletest.ScAlloc(corev1.ResourcePods, "17")))),
			WantCategory: "Unschedulable/TooManyPods",
			WantCulprit:  []string{"allocatable pods", "17 on a, b"},
		},
	})
}

func TestSchedulingTaints(t *testing.T) {
	gpu := bundletest.ScTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)
	cp := bundletest.ScTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "taint named by the scheduler and carried by nodes",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 1 Insufficient cpu."+preempt), bundletest.ScNodes(bundletest.ScNode("gpu-1", gpu), bundletest.ScNode("gpu-2", gpu), bundletest.ScNode("w"))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"dedicated=gpu:NoSchedule", "gpu-1, gpu-2", ".spec.tolerations"},
			WantTitle:    []string{"{dedicated: gpu}"},
			WantText:     []string{`"op":"add","path":"/spec/tolerations","value":[{"key":"dedicated"`, "kubectl taint nodes gpu-1 dedicated=gpu:NoSchedule-", "Also blocking: 1 Insufficient cpu"},
		},
		{
			Name: "since 1.34 the message names no taint: the nodes do, control plane aside",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 3 node(s) had untolerated taint(s)."+preempt),
				bundletest.ScNodes(bundletest.ScNode("cp", cp), bundletest.ScNode("gpu-1", gpu), bundletest.ScNode("gpu-2", gpu))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"dedicated=gpu:NoSchedule on node(s) gpu-1, gpu-2"},
		},
		{
			Name: "unnamed taint: the one on the nodes the pod selects wins over a bigger group",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/4 nodes are available: 4 node(s) had untolerated taint(s).", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"pool": "ml"} }),
				bundletest.ScNodes(bundletest.ScNode("x1", bundletest.ScTaint("team", "a", corev1.TaintEffectNoSchedule)), bundletest.ScNode("x2", bundletest.ScTaint("team", "a", corev1.TaintEffectNoSchedule)),
					bundletest.ScNode("x3", bundletest.ScTaint("team", "a", corev1.TaintEffectNoExecute)), bundletest.ScNode("ml-1", gpu, bundletest.ScLabels("pool", "ml")))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"dedicated=gpu:NoSchedule on node(s) ml-1"},
		},
		{
			Name: "a toleration with the wrong value does not tolerate",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint(s).", func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "cpu", Effect: corev1.TaintEffectNoSchedule}}
			}), bundletest.ScNodes(bundletest.ScNode("gpu-1", gpu))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"dedicated=gpu:NoSchedule"},
			WantText:     []string{"Pod tolerations: dedicated=cpu:NoSchedule"},
		},
		{
			Name: "the control-plane taint is context, the memory shortage the culprit",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.", bundletest.ScRequest(corev1.ResourceMemory, "32Gi")),
				bundletest.ScNodes(bundletest.ScNode("cp", cp), bundletest.ScNode("w"))),
			WantCategory: "Unschedulable/InsufficientMemory",
			WantText:     []string{"Also blocking: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
		},
		{
			Name:         "only the control plane: remove its taint on a lab cluster",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }."), bundletest.ScNodes(bundletest.ScNode("cp", cp))),
			WantCategory: "Unschedulable/Taint",
			WantText:     []string{"kubectl taint nodes cp node-role.kubernetes.io/control-plane:NoSchedule-", "by design"},
		},
		{
			Name: "a node-condition taint points at the node",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }."),
				bundletest.ScNodes(bundletest.ScNode("w", bundletest.ScTaint("node.kubernetes.io/unreachable", "", corev1.TaintEffectNoSchedule)))),
			WantCategory: "Unschedulable/Taint",
			WantText:     []string{"kubectl triage node/w", "stopped posting status"},
		},
		{
			Name: "the cordon taint proposes uncordon",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }."),
				bundletest.ScNodes(bundletest.ScNode("w", bundletest.ScTaint("node.kubernetes.io/unschedulable", "", corev1.TaintEffectNoSchedule)))),
			WantCategory: "Unschedulable/Taint",
			WantText:     []string{"kubectl uncordon w"},
		},
		{
			Name:         "taint named but no longer on any node",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."), bundletest.ScNodes(bundletest.ScNode("w"))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"{dedicated: gpu} named by the scheduler"},
		},
		{
			Name:         "untolerated taint(s) and no tainted node known",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint(s)."), bundletest.ScNodes(bundletest.ScNode("w"))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"vs the taints of the nodes"},
		},
		{
			Name:         "pre-1.25 wording",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate."), bundletest.ScNodes(bundletest.ScNode("gpu-1", gpu), bundletest.ScNode("gpu-2", gpu))),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"dedicated=gpu:NoSchedule"},
		},
		{
			Name: "workload toleration patch adds the list to the template",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."), bundletest.ScNodes(bundletest.ScNode("gpu-1", gpu)),
				bundletest.ScDeployment(1)),
			WantCategory: "Unschedulable/Taint",
			WantCulprit:  []string{"deployment/web .spec.template.spec.tolerations"},
			WantText:     []string{`kubectl patch deployment/web -n shop --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}]'`},
		},
	})
}

func TestSchedulingNodeAffinity(t *testing.T) {
	selector := func(kv ...string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{}
			for i := 0; i+1 < len(kv); i += 2 {
				p.Spec.NodeSelector[kv[i]] = kv[i+1]
			}
		}
	}
	affinity := func(terms ...corev1.NodeSelectorTerm) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
	}
	zoneIn := func(zones ...string) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: zones}}}
	}
	msg := "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector." + preempt
	nodes := bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels("disktype", "hdd", "topology.kubernetes.io/zone", "eu-1a")), bundletest.ScNode("b", bundletest.ScLabels("disktype", "hdd", "topology.kubernetes.io/zone", "eu-1b")),
		bundletest.ScNode("c", bundletest.ScLabels("disktype", "nvme", "gpu", "true", "topology.kubernetes.io/zone", "eu-1b")))
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "selector value no node has",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, selector("disktype", "ssd")), nodes),
			WantCategory: "Unschedulable/NodeSelector",
			WantCulprit:  []string{"nodeSelector disktype=ssd: no node matches", "disktype=hdd (2 nodes)", "disktype=nvme (1 node)"},
			WantText:     []string{"kubectl get nodes -L disktype", "kubectl label node a disktype=ssd --overwrite"},
			WantRuledOut: "The pod requests more cpu or memory than any node can allocate",
			MinConf:      0.9,
		},
		{
			Name: "closest node: a Ready node carrying the key beats a broken one without it",
			Bundle: bundletest.PodBundle(bundletest.ScPending(msg, selector("disktype", "ssd")), bundletest.ScNodes(
				bundletest.ScNode("broken", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionUnknown }),
				bundletest.ScNode("worker", bundletest.ScLabels("disktype", "hdd")))),
			WantCategory: "Unschedulable/NodeSelector",
			WantCulprit:  []string{"closest node worker has disktype=hdd"},
		},
		{
			Name:         "selector key no node has",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, selector("disk-type", "ssd")), nodes),
			WantCategory: "Unschedulable/NodeSelector",
			WantCulprit:  []string{"no node has a label disk-type"},
		},
		{
			Name:         "every pair matches some node, no node matches all",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, selector("disktype", "hdd", "gpu", "true")), nodes),
			WantCategory: "Unschedulable/NodeSelector",
			WantCulprit:  []string{"no node has all these labels", "closest"},
		},
		{
			Name:         "required affinity term",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, affinity(zoneIn("eu-1c"))), nodes),
			WantCategory: "Unschedulable/NodeAffinity",
			WantCulprit:  []string{"nodeSelectorTerms[0] topology.kubernetes.io/zone In [eu-1c]", "topology.kubernetes.io/zone=eu-1b (2 nodes)"},
		},
		{
			Name:         "several terms, none satisfiable",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, affinity(zoneIn("eu-1c"), zoneIn("eu-1d"))), nodes),
			WantCategory: "Unschedulable/NodeAffinity",
			WantCulprit:  []string{"node affinity term 0: topology.kubernetes.io/zone In [eu-1c]", "node affinity term 1"},
		},
		{
			Name:         "matchFields on a node that is gone",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, affinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"old-node"}}}})), nodes),
			WantCategory: "Unschedulable/NodeAffinity",
			WantCulprit:  []string{"metadata.name In [old-node]", "node names are a, b, c"},
		},
		{
			Name: "selector narrows to one node that the other reason excludes",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't match Pod's node affinity/selector.", selector("disktype", "nvme"), bundletest.ScRequest(corev1.ResourceMemory, "6Gi")),
				nodes),
			WantCategory: "Unschedulable/InsufficientMemory",
			WantCulprit:  []string{"free memory on c"},
			WantText:     []string{"Also blocking: 2 node(s) didn't match Pod's node affinity/selector — nodeSelector disktype=nvme allows only c"},
		},
		{
			Name:         "nodes unknown",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, selector("disktype", "ssd")), bundletest.ScNodes()),
			WantCategory: "Unschedulable/NodeSelector",
			WantCulprit:  []string{".spec.nodeSelector"},
		},
		{
			Name:         "workload selector fix is a template patch",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(msg, selector("disktype", "ssd")), nodes, bundletest.ScDeployment(2)),
			WantCategory: "Unschedulable/NodeSelector",
			WantText:     []string{`kubectl patch deployment/web -n shop -p '{"spec":{"template":{"spec":{"nodeSelector":{"disktype":"hdd"}}}}}'`},
		},
	})
}

func TestSchedulingPodAffinityAndSpread(t *testing.T) {
	webLabels := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web"} }
	term := func(topology string, kv ...string) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{TopologyKey: topology, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{kv[0]: kv[1]}}}
	}
	anti := func(t corev1.PodAffinityTerm) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
		}
	}
	aff := func(t corev1.PodAffinityTerm) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
		}
	}
	spread := func(c corev1.TopologySpreadConstraint) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{c} }
	}
	zone := "topology.kubernetes.io/zone"
	two := bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels(zone, "eu-1a")), bundletest.ScNode("b", bundletest.ScLabels(zone, "eu-1b")))
	three := int32(3)
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "self anti-affinity with more replicas than nodes",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."+preempt, webLabels, anti(term("kubernetes.io/hostname", "app", "web"))), two, bundletest.ScDeployment(3)),
			WantCategory: "Unschedulable/PodAntiAffinity",
			WantCulprit:  []string{"deployment/web .spec.template.spec.affinity.podAntiAffinity", "3 replicas for 2 domain(s)"},
			WantText:     []string{"kubectl scale deployment/web -n shop --replicas=2"},
			MinConf:      0.9,
		},
		{
			Name:         "anti-affinity against another app",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", webLabels, anti(term(zone, "app", "db"))), two),
			WantCategory: "Unschedulable/PodAntiAffinity",
			WantCulprit:  []string{"pods with app=db per topology.kubernetes.io/zone"},
		},
		{
			Name:         "anti-affinity reason without a term of the pod's own",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."), two),
			WantCategory: "Unschedulable/PodAntiAffinity",
			WantCulprit:  []string{"pod affinity/anti-affinity"},
		},
		{
			Name:         "pod affinity",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod affinity rules.", aff(term(zone, "app", "cache"))), two),
			WantCategory: "Unschedulable/PodAffinity",
			WantCulprit:  []string{".spec.affinity.podAffinity", "app=cache"},
			WantText:     []string{"kubectl get pods -n shop -l 'app=cache' -o wide"},
		},
		{
			Name:         "existing pods' anti-affinity",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.", webLabels), two),
			WantCategory: "Unschedulable/ExistingPodsAntiAffinity",
			WantCulprit:  []string{"app=web"},
		},
		{
			Name:         "the old catch-all is dropped next to the specific reason",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod affinity/anti-affinity, 2 node(s) didn't match pod anti-affinity rules.", webLabels, anti(term(zone, "app", "db"))), two),
			WantCategory: "Unschedulable/PodAntiAffinity",
		},
		{
			Name: "topology spread",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints.", webLabels, bundletest.ScRequest(corev1.ResourceCPU, "2"),
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})), two,
				func(b *bundle.Bundle) {
					b.Pods = append(b.Pods, bundletest.Pod("web-1", webLabels, func(p *corev1.Pod) { p.Spec.NodeName = "a" }), bundletest.Pod("web-2", webLabels, func(p *corev1.Pod) { p.Spec.NodeName = "a" }))
				}),
			WantCategory: "Unschedulable/TopologySpread",
			WantCulprit:  []string{".spec.topologySpreadConstraints[0] (maxSkew 1 on topology.kubernetes.io/zone for app=web"},
			WantText:     []string{"eu-1a: 1 node, 2 pod(s) seen"},
		},
		{
			Name: "topology spread over a label some nodes lack",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label).",
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}})),
				bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels("rack", "r1")), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/TopologySpread",
			WantCulprit:  []string{"nodes without label rack: b"},
		},
		{
			Name: "minDomains above the domains that exist",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.",
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, MinDomains: &three, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}})), two),
			WantCategory: "Unschedulable/TopologySpread",
			WantCulprit:  []string{"minDomains 3", "only 2"},
		},
		{
			Name:         "spread reason without a constraint of the pod's own",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints."), two),
			WantCategory: "Unschedulable/TopologySpread",
			WantCulprit:  []string{"default topology spread"},
		},
		{
			Name: "host port",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.", func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}}
			}), two, bundletest.ScDeployment(3)),
			WantCategory: "Unschedulable/HostPort",
			WantCulprit:  []string{"hostPort 80/TCP (container app)"},
			WantText:     []string{"wants 3 replicas on 2 nodes"},
		},
	})
}
