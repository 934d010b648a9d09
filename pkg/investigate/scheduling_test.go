package investigate

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
)

// Builders of the scheduling tests (prefix sc: the package's test files share
// one namespace).

func scPending(msg string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return pod("batch", append([]func(*corev1.Pod){unscheduled(msg, "100m")}, mutate...)...)
}

func scNode(name string, mutate ...func(*corev1.Node)) *corev1.Node {
	n := node(name, "4")
	n.Labels = map[string]string{"kubernetes.io/hostname": name}
	n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("110")
	for _, m := range mutate {
		m(n)
	}
	return n
}

func scLabels(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func scTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func scAlloc(res corev1.ResourceName, q string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Allocatable[res] = resource.MustParse(q) }
}

func scNodes(nodes ...*corev1.Node) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Nodes = nodes }
}

func scRequest(res corev1.ResourceName, q string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests[res] = resource.MustParse(q) }
}

func scClaimVolume(claim string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

// scDeployment wraps pods in a Deployment with replicas, as the collector
// would for a deployment target.
func scDeployment(replicas int32) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{Spec: b.Pods[0].Spec}}}
		b.Deployments = []*appsv1.Deployment{d}
		b.Target = fault.Resource{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "shop", UID: "uid-web"}
	}
}

type scCase struct {
	name         string
	bundle       *bundle.Bundle
	wantCategory string
	wantCulprit  []string
	wantTitle    []string
	wantText     []string // anywhere in the rendered report
	minConf      rule.Confidence
	wantNoCause  bool // no validated finding at all
	wantRuledOut string
	// ruleOnly checks the scheduling rule's own finding instead of the
	// report's root cause: for causes another area explains deeper (a
	// Pending claim's class).
	ruleOnly bool
}

// schedFinding runs the scheduling rule alone and returns its validated
// finding.
func schedFinding(t *testing.T, b *bundle.Bundle) rule.Finding {
	t.Helper()
	c := testPass(b)
	for _, f := range scheduling.Unschedulable.Check(c) {
		if f.Verdict == report.Validated {
			return f
		}
	}
	t.Fatalf("the scheduling rule validated nothing")
	return rule.Finding{}
}

func runSchedCases(t *testing.T, cases []scCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ruleOnly {
				f := schedFinding(t, tt.bundle)
				if !strings.HasPrefix(string(f.Category), tt.wantCategory) {
					t.Errorf("category = %q, want prefix %q (title %q)", f.Category, tt.wantCategory, f.Title)
				}
				for _, s := range tt.wantCulprit {
					if !strings.Contains(f.Culprit, s) {
						t.Errorf("culprit %q lacks %q", f.Culprit, s)
					}
				}
				if f.Confidence < tt.minConf || len(f.Evidence) == 0 || len(f.Actions) == 0 {
					t.Errorf("finding too weak: confidence %.2f, %d evidence, %d actions", f.Confidence, len(f.Evidence), len(f.Actions))
				}
				return
			}
			r := Investigate(tt.bundle, Options{IncidentID: "test", Agent: "builtin", Now: now})
			md := r.Markdown()
			if err := report.Validate(md); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			if tt.wantNoCause {
				if strings.HasPrefix(r.RootCause.Category, "Unschedulable") || strings.HasPrefix(r.RootCause.Category, "Node") {
					t.Fatalf("want no scheduling/node root cause, got %q: %s", r.RootCause.Category, r.Title)
				}
				return
			}
			checkRootCause(t, r, rootCauseWant{tt.wantCategory, tt.wantCulprit, tt.wantTitle, float64(tt.minConf)}, "")
			for _, s := range tt.wantText {
				if !strings.Contains(md, s) {
					t.Errorf("report lacks %q:\n%s", s, md)
				}
			}
			if tt.wantRuledOut != "" && !strings.Contains(strings.Join(r.RuledOut, "\n"), tt.wantRuledOut) {
				t.Errorf("ruled out %v lacks %q", r.RuledOut, tt.wantRuledOut)
			}
		})
	}
}

const preempt = " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

func TestSchedulingResources(t *testing.T) {
	runSchedCases(t, []scCase{
		{
			name:         "request larger than every node",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 Insufficient memory."+preempt, scRequest(corev1.ResourceMemory, "64Gi")), scNodes(scNode("a"), scNode("b"))),
			wantCategory: "Unschedulable/InsufficientMemory",
			wantCulprit:  []string{"requests.memory (64Gi)"},
			wantTitle:    []string{"memory 64Gi", "largest node", "8Gi"},
			minConf:      0.95,
		},
		{
			name:         "nodes big enough when empty are full",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 Insufficient cpu.", scRequest(corev1.ResourceCPU, "3")), scNodes(scNode("a"), scNode("b"))),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantCulprit:  []string{"free cpu on a, b", "requests.cpu (3)"},
			wantText:     []string{"Allocated resources", "were not collected"},
			minConf:      0.85,
		},
		{
			name: "own pods on the full node are counted as a lower bound",
			bundle: podBundle(scPending("0/1 nodes are available: 1 Insufficient cpu.", scRequest(corev1.ResourceCPU, "3")), scNodes(scNode("a")),
				func(b *bundle.Bundle) {
					b.Pods = append(b.Pods, pod("batch-2", func(p *corev1.Pod) {
						p.Spec.NodeName = "a"
						p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
					}))
				}),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantText:     []string{"At least 2 of a's 4 cpu is requested by 1 pod(s) of this workload seen here (batch-2)"},
		},
		{
			name: "ephemeral storage, several containers",
			bundle: podBundle(scPending("0/1 nodes are available: 1 Insufficient ephemeral-storage.", scRequest(corev1.ResourceEphemeralStorage, "80Gi"), func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("20Gi")}}})
			}), scNodes(scNode("a", scAlloc(corev1.ResourceEphemeralStorage, "50Gi")))),
			wantCategory: "Unschedulable/InsufficientEphemeralStorage",
			wantCulprit:  []string{"containers[app,sidecar]", "100Gi in total: app 80Gi, sidecar 20Gi"},
		},
		{
			name:         "extended resource no node advertises",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", scRequest("nvidia.com/gpu", "1")), scNodes(scNode("a"), scNode("b"))),
			wantCategory: "Unschedulable/InsufficientExtendedResource",
			wantCulprit:  []string{"no node advertises nvidia.com/gpu"},
			wantText:     []string{"device plugin"},
		},
		{
			name:         "insufficient resource the pod does not request",
			bundle:       podBundle(scPending("0/1 nodes are available: 1 Insufficient hugepages-2Mi."), scNodes(scNode("a"))),
			wantCategory: "Unschedulable/InsufficientHugepages2Mi",
			wantCulprit:  []string{"requests.hugepages-2Mi"},
		},
		{
			name:         "nodes could not be read",
			bundle:       podBundle(scPending("0/3 nodes are available: 3 Insufficient cpu.", scRequest(corev1.ResourceCPU, "8")), scNodes()),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantTitle:    []string{"could not be read"},
		},
		{
			name:         "too many pods",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 Too many pods."+preempt), scNodes(scNode("a", scAlloc(corev1.ResourcePods, "17")), scNode("b", scAlloc(corev1.ResourcePods, "17")))),
			wantCategory: "Unschedulable/TooManyPods",
			wantCulprit:  []string{"allocatable pods", "17 on a, b"},
		},
	})
}

func TestSchedulingTaints(t *testing.T) {
	gpu := scTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)
	cp := scTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)
	runSchedCases(t, []scCase{
		{
			name:         "taint named by the scheduler and carried by nodes",
			bundle:       podBundle(scPending("0/3 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 1 Insufficient cpu."+preempt), scNodes(scNode("gpu-1", gpu), scNode("gpu-2", gpu), scNode("w"))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"dedicated=gpu:NoSchedule", "gpu-1, gpu-2", ".spec.tolerations"},
			wantTitle:    []string{"{dedicated: gpu}"},
			wantText:     []string{`"op":"add","path":"/spec/tolerations","value":[{"key":"dedicated"`, "kubectl taint nodes gpu-1 dedicated=gpu:NoSchedule-", "Also blocking: 1 Insufficient cpu"},
		},
		{
			name: "since 1.34 the message names no taint: the nodes do, control plane aside",
			bundle: podBundle(scPending("0/3 nodes are available: 3 node(s) had untolerated taint(s)."+preempt),
				scNodes(scNode("cp", cp), scNode("gpu-1", gpu), scNode("gpu-2", gpu))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"dedicated=gpu:NoSchedule on node(s) gpu-1, gpu-2"},
		},
		{
			name: "unnamed taint: the one on the nodes the pod selects wins over a bigger group",
			bundle: podBundle(scPending("0/4 nodes are available: 4 node(s) had untolerated taint(s).", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"pool": "ml"} }),
				scNodes(scNode("x1", scTaint("team", "a", corev1.TaintEffectNoSchedule)), scNode("x2", scTaint("team", "a", corev1.TaintEffectNoSchedule)),
					scNode("x3", scTaint("team", "a", corev1.TaintEffectNoExecute)), scNode("ml-1", gpu, scLabels("pool", "ml")))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"dedicated=gpu:NoSchedule on node(s) ml-1"},
		},
		{
			name: "a toleration with the wrong value does not tolerate",
			bundle: podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint(s).", func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "cpu", Effect: corev1.TaintEffectNoSchedule}}
			}), scNodes(scNode("gpu-1", gpu))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"dedicated=gpu:NoSchedule"},
			wantText:     []string{"Pod tolerations: dedicated=cpu:NoSchedule"},
		},
		{
			name: "the control-plane taint is context, the memory shortage the culprit",
			bundle: podBundle(scPending("0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.", scRequest(corev1.ResourceMemory, "32Gi")),
				scNodes(scNode("cp", cp), scNode("w"))),
			wantCategory: "Unschedulable/InsufficientMemory",
			wantText:     []string{"Also blocking: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
		},
		{
			name:         "only the control plane: remove its taint on a lab cluster",
			bundle:       podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }."), scNodes(scNode("cp", cp))),
			wantCategory: "Unschedulable/Taint",
			wantText:     []string{"kubectl taint nodes cp node-role.kubernetes.io/control-plane:NoSchedule-", "by design"},
		},
		{
			name: "a node-condition taint points at the node",
			bundle: podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }."),
				scNodes(scNode("w", scTaint("node.kubernetes.io/unreachable", "", corev1.TaintEffectNoSchedule)))),
			wantCategory: "Unschedulable/Taint",
			wantText:     []string{"kubectl triage node/w", "stopped posting status"},
		},
		{
			name: "the cordon taint proposes uncordon",
			bundle: podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }."),
				scNodes(scNode("w", scTaint("node.kubernetes.io/unschedulable", "", corev1.TaintEffectNoSchedule)))),
			wantCategory: "Unschedulable/Taint",
			wantText:     []string{"kubectl uncordon w"},
		},
		{
			name:         "taint named but no longer on any node",
			bundle:       podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."), scNodes(scNode("w"))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"{dedicated: gpu} named by the scheduler"},
		},
		{
			name:         "untolerated taint(s) and no tainted node known",
			bundle:       podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint(s)."), scNodes(scNode("w"))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"vs the taints of the nodes"},
		},
		{
			name:         "pre-1.25 wording",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate."), scNodes(scNode("gpu-1", gpu), scNode("gpu-2", gpu))),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"dedicated=gpu:NoSchedule"},
		},
		{
			name: "workload toleration patch adds the list to the template",
			bundle: podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."), scNodes(scNode("gpu-1", gpu)),
				scDeployment(1)),
			wantCategory: "Unschedulable/Taint",
			wantCulprit:  []string{"deployment/web .spec.template.spec.tolerations"},
			wantText:     []string{`kubectl patch deployment/web -n shop --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}]'`},
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
	nodes := scNodes(scNode("a", scLabels("disktype", "hdd", "topology.kubernetes.io/zone", "eu-1a")), scNode("b", scLabels("disktype", "hdd", "topology.kubernetes.io/zone", "eu-1b")),
		scNode("c", scLabels("disktype", "nvme", "gpu", "true", "topology.kubernetes.io/zone", "eu-1b")))
	runSchedCases(t, []scCase{
		{
			name:         "selector value no node has",
			bundle:       podBundle(scPending(msg, selector("disktype", "ssd")), nodes),
			wantCategory: "Unschedulable/NodeSelector",
			wantCulprit:  []string{"nodeSelector disktype=ssd: no node matches", "disktype=hdd (2 nodes)", "disktype=nvme (1 node)"},
			wantText:     []string{"kubectl get nodes -L disktype", "kubectl label node a disktype=ssd --overwrite"},
			wantRuledOut: "The pod requests more cpu or memory than any node can allocate",
			minConf:      0.9,
		},
		{
			name: "closest node: a Ready node carrying the key beats a broken one without it",
			bundle: podBundle(scPending(msg, selector("disktype", "ssd")), scNodes(
				scNode("broken", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionUnknown }),
				scNode("worker", scLabels("disktype", "hdd")))),
			wantCategory: "Unschedulable/NodeSelector",
			wantCulprit:  []string{"closest node worker has disktype=hdd"},
		},
		{
			name:         "selector key no node has",
			bundle:       podBundle(scPending(msg, selector("disk-type", "ssd")), nodes),
			wantCategory: "Unschedulable/NodeSelector",
			wantCulprit:  []string{"no node has a label disk-type"},
		},
		{
			name:         "every pair matches some node, no node matches all",
			bundle:       podBundle(scPending(msg, selector("disktype", "hdd", "gpu", "true")), nodes),
			wantCategory: "Unschedulable/NodeSelector",
			wantCulprit:  []string{"no node has all these labels", "closest"},
		},
		{
			name:         "required affinity term",
			bundle:       podBundle(scPending(msg, affinity(zoneIn("eu-1c"))), nodes),
			wantCategory: "Unschedulable/NodeAffinity",
			wantCulprit:  []string{"nodeSelectorTerms[0] topology.kubernetes.io/zone In [eu-1c]", "topology.kubernetes.io/zone=eu-1b (2 nodes)"},
		},
		{
			name:         "several terms, none satisfiable",
			bundle:       podBundle(scPending(msg, affinity(zoneIn("eu-1c"), zoneIn("eu-1d"))), nodes),
			wantCategory: "Unschedulable/NodeAffinity",
			wantCulprit:  []string{"node affinity term 0: topology.kubernetes.io/zone In [eu-1c]", "node affinity term 1"},
		},
		{
			name:         "matchFields on a node that is gone",
			bundle:       podBundle(scPending(msg, affinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"old-node"}}}})), nodes),
			wantCategory: "Unschedulable/NodeAffinity",
			wantCulprit:  []string{"metadata.name In [old-node]", "node names are a, b, c"},
		},
		{
			name: "selector narrows to one node that the other reason excludes",
			bundle: podBundle(scPending("0/3 nodes are available: 1 Insufficient memory, 2 node(s) didn't match Pod's node affinity/selector.", selector("disktype", "nvme"), scRequest(corev1.ResourceMemory, "6Gi")),
				nodes),
			wantCategory: "Unschedulable/InsufficientMemory",
			wantCulprit:  []string{"free memory on c"},
			wantText:     []string{"Also blocking: 2 node(s) didn't match Pod's node affinity/selector — nodeSelector disktype=nvme allows only c"},
		},
		{
			name:         "nodes unknown",
			bundle:       podBundle(scPending(msg, selector("disktype", "ssd")), scNodes()),
			wantCategory: "Unschedulable/NodeSelector",
			wantCulprit:  []string{".spec.nodeSelector"},
		},
		{
			name:         "workload selector fix is a template patch",
			bundle:       podBundle(scPending(msg, selector("disktype", "ssd")), nodes, scDeployment(2)),
			wantCategory: "Unschedulable/NodeSelector",
			wantText:     []string{`kubectl patch deployment/web -n shop -p '{"spec":{"template":{"spec":{"nodeSelector":{"disktype":"hdd"}}}}}'`},
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
	two := scNodes(scNode("a", scLabels(zone, "eu-1a")), scNode("b", scLabels(zone, "eu-1b")))
	three := int32(3)
	runSchedCases(t, []scCase{
		{
			name:         "self anti-affinity with more replicas than nodes",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."+preempt, webLabels, anti(term("kubernetes.io/hostname", "app", "web"))), two, scDeployment(3)),
			wantCategory: "Unschedulable/PodAntiAffinity",
			wantCulprit:  []string{"deployment/web .spec.template.spec.affinity.podAntiAffinity", "3 replicas for 2 domain(s)"},
			wantText:     []string{"kubectl scale deployment/web -n shop --replicas=2"},
			minConf:      0.9,
		},
		{
			name:         "anti-affinity against another app",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", webLabels, anti(term(zone, "app", "db"))), two),
			wantCategory: "Unschedulable/PodAntiAffinity",
			wantCulprit:  []string{"pods with app=db per topology.kubernetes.io/zone"},
		},
		{
			name:         "anti-affinity reason without a term of the pod's own",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."), two),
			wantCategory: "Unschedulable/PodAntiAffinity",
			wantCulprit:  []string{"pod affinity/anti-affinity"},
		},
		{
			name:         "pod affinity",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod affinity rules.", aff(term(zone, "app", "cache"))), two),
			wantCategory: "Unschedulable/PodAffinity",
			wantCulprit:  []string{".spec.affinity.podAffinity", "app=cache"},
			wantText:     []string{"kubectl get pods -n shop -l 'app=cache' -o wide"},
		},
		{
			name:         "existing pods' anti-affinity",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.", webLabels), two),
			wantCategory: "Unschedulable/ExistingPodsAntiAffinity",
			wantCulprit:  []string{"app=web"},
		},
		{
			name:         "the old catch-all is dropped next to the specific reason",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod affinity/anti-affinity, 2 node(s) didn't match pod anti-affinity rules.", webLabels, anti(term(zone, "app", "db"))), two),
			wantCategory: "Unschedulable/PodAntiAffinity",
		},
		{
			name: "topology spread",
			bundle: podBundle(scPending("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints.", webLabels, scRequest(corev1.ResourceCPU, "2"),
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})), two,
				func(b *bundle.Bundle) {
					b.Pods = append(b.Pods, pod("web-1", webLabels, func(p *corev1.Pod) { p.Spec.NodeName = "a" }), pod("web-2", webLabels, func(p *corev1.Pod) { p.Spec.NodeName = "a" }))
				}),
			wantCategory: "Unschedulable/TopologySpread",
			wantCulprit:  []string{".spec.topologySpreadConstraints[0] (maxSkew 1 on topology.kubernetes.io/zone for app=web"},
			wantText:     []string{"eu-1a: 1 node, 2 pod(s) seen"},
		},
		{
			name: "topology spread over a label some nodes lack",
			bundle: podBundle(scPending("0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label).",
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "rack", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}})),
				scNodes(scNode("a", scLabels("rack", "r1")), scNode("b"))),
			wantCategory: "Unschedulable/TopologySpread",
			wantCulprit:  []string{"nodes without label rack: b"},
		},
		{
			name: "minDomains above the domains that exist",
			bundle: podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.",
				spread(corev1.TopologySpreadConstraint{MaxSkew: 1, MinDomains: &three, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}})), two),
			wantCategory: "Unschedulable/TopologySpread",
			wantCulprit:  []string{"minDomains 3", "only 2"},
		},
		{
			name:         "spread reason without a constraint of the pod's own",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints."), two),
			wantCategory: "Unschedulable/TopologySpread",
			wantCulprit:  []string{"default topology spread"},
		},
		{
			name: "host port",
			bundle: podBundle(scPending("0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.", func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}}
			}), two, scDeployment(3)),
			wantCategory: "Unschedulable/HostPort",
			wantCulprit:  []string{"hostPort 80/TCP (container app)"},
			wantText:     []string{"wants 3 replicas on 2 nodes"},
		},
	})
}
