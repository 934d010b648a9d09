package investigate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

func TestSchedulingVolumesAndNodes(t *testing.T) {
	zone := "topology.kubernetes.io/zone"
	fast := "fast"
	boundClaim := func(b *bundle.Bundle) {
		b.PVCs = []*corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "shop"},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}}
		b.PVs = []*corev1.PersistentVolume{{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{
			Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: zone, Operator: corev1.NodeSelectorOpIn, Values: []string{"eu-1c"}}}}}}}}}}
	}
	pendingClaim := func(class *string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.PVCs = []*corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "shop", UID: "uid-pvc"},
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}}
		}
	}
	nodes := scNodes(scNode("a", scLabels(zone, "eu-1a")), scNode("b", scLabels(zone, "eu-1b")))
	cordon := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	empty := ""
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	runSchedCases(t, []scCase{
		{
			name:         "volume pinned to a zone without nodes",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) had volume node affinity conflict."+preempt, scClaimVolume("data")), nodes, boundClaim),
			wantCategory: "Unschedulable/VolumeNodeAffinity",
			wantCulprit:  []string{"pv/pv-1 .spec.nodeAffinity (topology.kubernetes.io/zone In [eu-1c]) of claim data: no node matches"},
			wantText:     []string{"WaitForFirstConsumer"},
			minConf:      0.9,
		},
		{
			name: "1.33+ wording, a matching node excluded by another reason",
			bundle: podBundle(scPending("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match PersistentVolume's node affinity.", scClaimVolume("data"), scRequest(corev1.ResourceCPU, "3")),
				scNodes(scNode("a", scLabels(zone, "eu-1a")), scNode("b", scLabels(zone, "eu-1b")), scNode("c", scLabels(zone, "eu-1c"))), boundClaim),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantText:     []string{"only c qualify"},
		},
		{
			name:         "volume affinity without the claim's details",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) had volume node affinity conflict.", scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/VolumeNodeAffinity",
			wantCulprit:  []string{"claim(s) data"},
		},
		{
			name: "unbound claim whose class does not exist",
			bundle: podBundle(scPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."+preempt, scClaimVolume("data")), nodes, pendingClaim(&fast),
				func(b *bundle.Bundle) {
					b.Missing = append(b.Missing, bundle.MissingRef{Kind: "StorageClass", Name: "fast", ReferencedBy: "pvc/data"})
					b.Events = append(b.Events, corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "data.1", Namespace: "shop"},
						InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "uid-pvc"},
						Type:           "Warning", Reason: "ProvisioningFailed", Message: `storageclass.storage.k8s.io "fast" not found`, Count: 7, LastTimestamp: ts(-time.Minute)})
				}),
			ruleOnly:     true,
			wantCategory: "Unschedulable/UnboundPVC",
			wantCulprit:  []string{"pvc/data is Pending", "storageClass fast does not exist", `"fast" not found`},
			minConf:      0.9,
		},
		{
			name: "unbound claim with an existing class",
			bundle: podBundle(scPending("0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims.", scClaimVolume("data")), nodes, pendingClaim(&fast),
				func(b *bundle.Bundle) {
					b.StorageClasses = []*storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wait}}
				}),
			ruleOnly:     true,
			wantCategory: "Unschedulable/UnboundPVC",
			wantCulprit:  []string{"provisioner ebs.csi.aws.com, binding WaitForFirstConsumer"},
		},
		{
			name:         "unbound claim without class",
			bundle:       podBundle(scPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", scClaimVolume("data")), nodes, pendingClaim(nil)),
			ruleOnly:     true,
			wantCategory: "Unschedulable/UnboundPVC",
			wantCulprit:  []string{"no storageClassName"},
		},
		{
			name:         "unbound claim with the empty class",
			bundle:       podBundle(scPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", scClaimVolume("data")), nodes, pendingClaim(&empty)),
			ruleOnly:     true,
			wantCategory: "Unschedulable/UnboundPVC",
			wantCulprit:  []string{`storageClassName ""`},
		},
		{
			name:         "unbound claim not collected",
			bundle:       podBundle(scPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/UnboundPVC",
			wantCulprit:  []string{"PersistentVolumeClaim(s) data"},
		},
		{
			name:         "missing claim",
			bundle:       podBundle(scPending(`0/2 nodes are available: persistentvolumeclaim "data" not found.`+preempt, scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/MissingPVC",
			wantCulprit:  []string{"claimName data (no such PersistentVolumeClaim)"},
			minConf:      0.95,
		},
		{
			name:         "all nodes cordoned",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) were unschedulable."+preempt), scNodes(scNode("a", cordon), scNode("b", cordon))),
			wantCategory: "Unschedulable/Cordoned",
			wantCulprit:  []string{"cordoned node(s) a, b"},
			wantText:     []string{"kubectl uncordon a"},
		},
		{
			name:         "cordoned reason but no node cordoned now",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) were unschedulable."), nodes),
			wantCategory: "Unschedulable/Cordoned",
			wantCulprit:  []string{"none is cordoned now"},
		},
		{
			name:         "no persistent volume to bind",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.", scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/NoPersistentVolume",
			wantCulprit:  []string{"claims data"},
		},
		{
			name:         "storage capacity",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) did not have enough free storage.", scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/StorageCapacity",
		},
		{
			name:         "volume limit",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) exceed max volume count.", scClaimVolume("data")), nodes),
			wantCategory: "Unschedulable/VolumeLimit",
		},
		{
			name:         "unknown reason",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match scheduler-enforced node affinity."), nodes),
			wantCategory: "Unschedulable/Other",
			wantCulprit:  []string{"scheduler-enforced"},
		},
		{
			name:         "no message at all",
			bundle:       podBundle(scPending(""), nodes),
			wantCategory: "Unschedulable/Other",
			wantTitle:    []string{"gave no reason"},
		},
		{
			name: "message from the FailedScheduling event when the condition is missing",
			bundle: podBundle(scPending("", func(p *corev1.Pod) { p.Status.Conditions = nil }), nodes, func(b *bundle.Bundle) {
				b.Events = append(b.Events, event(b.Pods[0], "Warning", "FailedScheduling", "0/2 nodes are available: 2 node(s) were unschedulable.", 3))
			}),
			wantCategory: "Unschedulable/Cordoned",
		},
	})
}

func TestSchedulingGatesAndSchedulers(t *testing.T) {
	noCondition := func(p *corev1.Pod) { p.Status.Conditions = nil }
	old := func(p *corev1.Pod) { p.CreationTimestamp = ts(-10 * time.Minute) }
	young := func(p *corev1.Pod) { p.CreationTimestamp = ts(-10 * time.Second) }
	runSchedCases(t, []scCase{
		{
			name: "scheduling gates",
			bundle: podBundle(scPending("Scheduling is blocked due to non-empty scheduling gates", func(p *corev1.Pod) {
				p.Status.Conditions[0].Reason = "SchedulingGated"
				p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "kueue.x-k8s.io/admission"}}
			})),
			wantCategory: "Unschedulable/SchedulingGated",
			wantCulprit:  []string{".spec.schedulingGates (kueue.x-k8s.io/admission)"},
			minConf:      0.95,
		},
		{
			name:         "custom scheduler that never ran",
			bundle:       podBundle(scPending("", noCondition, old, func(p *corev1.Pod) { p.Spec.SchedulerName = "gpu-scheduler" })),
			wantCategory: "Unschedulable/NoScheduler",
			wantCulprit:  []string{".spec.schedulerName (gpu-scheduler)"},
			minConf:      0.75,
		},
		{
			name:         "default scheduler silent",
			bundle:       podBundle(scPending("", noCondition, old)),
			wantCategory: "Unschedulable/NoScheduler",
			wantCulprit:  []string{"kube-scheduler"},
		},
		{
			name:        "a pod created seconds ago is not flagged",
			bundle:      podBundle(scPending("", noCondition, young)),
			wantNoCause: true,
		},
	})
}

// TestSchedulingRanking: with several reasons, a constraint the nodes show
// to be unsatisfiable names the culprit; otherwise the one blocking most
// nodes; every other reason is listed with its node count.
func TestSchedulingRanking(t *testing.T) {
	msg := "0/5 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 node(s) didn't match Pod's node affinity/selector." + preempt
	b := podBundle(scPending(msg, func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"pool": "batch"} }, scRequest(corev1.ResourceMemory, "1Gi")),
		scNodes(scNode("cp", scTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)), scNode("w1"), scNode("w2"), scNode("w3"), scNode("w4")))
	r := Investigate(b, Options{Now: now})
	if r.RootCause.Category != "Unschedulable/NodeSelector" {
		t.Fatalf("category %q, want Unschedulable/NodeSelector (title %q)", r.RootCause.Category, r.Title)
	}
	if !strings.Contains(r.Title, "(and 2 more reason(s))") || !strings.Contains(r.Title, "0/5 nodes fit") {
		t.Errorf("title %q does not count the other reasons", r.Title)
	}
	contributing := strings.Join(r.RootCause.Contributing, "\n")
	for _, want := range []string{"Also blocking: 1 Insufficient memory", "Also blocking: 1 node(s) had untolerated taint"} {
		if !strings.Contains(contributing, want) {
			t.Errorf("contributing lacks %q:\n%s", want, contributing)
		}
	}
	if !strings.Contains(r.Summary, "The scheduler gives 3 reasons") {
		t.Errorf("summary does not list the reasons: %q", r.Summary)
	}
	// A resource shortage is among the reasons: sizing is not ruled out.
	if strings.Contains(strings.Join(r.RuledOut, "\n"), "more cpu or memory than any node") {
		t.Errorf("size ruled out next to a resource shortage: %v", r.RuledOut)
	}
}

// TestSchedulingMergesPods: the same reason on two pods of a deployment is
// one hypothesis.
func TestSchedulingMergesPods(t *testing.T) {
	msg := "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
	sel := func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "ssd"} }
	p1 := pod("web-1", unscheduled(msg, "100m"), sel)
	p2 := pod("web-2", unscheduled(msg, "100m"), sel)
	b := podBundle(p1, scNodes(scNode("a")), scDeployment(2), func(b *bundle.Bundle) { b.Pods = append(b.Pods, p2) })
	r := Investigate(b, Options{Now: now})
	n := 0
	for _, h := range r.Hypotheses {
		if strings.HasPrefix(h.Statement, "The pod cannot be placed") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d scheduling hypotheses, want 1 merged: %+v", n, r.Hypotheses)
	}
	if !strings.Contains(strings.Join(r.RootCause.Contributing, " "), "web-1, web-2") {
		t.Errorf("merged finding does not name both pods: %v", r.RootCause.Contributing)
	}
}

// TestSchedulingMaskedTopologyKey: the bundle's redaction masks fields
// named *Key; the report says so instead of quoting the mask as a label.
func TestSchedulingMaskedTopologyKey(t *testing.T) {
	masked := func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web"}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: "[REDACTED]", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "[REDACTED]", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{}}}
	}
	runSchedCases(t, []scCase{
		{
			name:         "anti-affinity",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", masked), scNodes(scNode("a"), scNode("b")), scDeployment(3)),
			wantCategory: "Unschedulable/PodAntiAffinity",
			wantCulprit:  []string{"per a topologyKey masked in the bundle"},
			wantText:     []string{"masked by the bundle's redaction"},
		},
		{
			name:         "topology spread",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.", masked), scNodes(scNode("a"), scNode("b"))),
			wantCategory: "Unschedulable/TopologySpread",
			wantCulprit:  []string{"maxSkew 1 on a topologyKey masked in the bundle"},
		},
		{
			name:         "the pre-1.22 catch-all alone",
			bundle:       podBundle(scPending("0/2 nodes are available: 2 node(s) didn't match pod affinity/anti-affinity.", masked), scNodes(scNode("a"), scNode("b"))),
			wantCategory: "Unschedulable/PodAffinity",
			wantCulprit:  []string{"pod affinity/anti-affinity"},
		},
		{
			name: "an operator's out-of-service taint",
			bundle: podBundle(scPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/out-of-service: nodeshutdown}."),
				scNodes(scNode("a", scTaint("node.kubernetes.io/out-of-service", "nodeshutdown", corev1.TaintEffectNoExecute)))),
			wantCategory: "Unschedulable/Taint",
			wantText:     []string{"an operator declared the node out of service"},
		},
	})
}
