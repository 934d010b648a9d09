package scheduling_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
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
	nodes := bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels(zone, "eu-1a")), bundletest.ScNode("b", bundletest.ScLabels(zone, "eu-1b")))
	cordon := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	empty := ""
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "volume pinned to a zone without nodes",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) had volume node affinity conflict."+preempt, bundletest.ScClaimVolume("data")), nodes, boundClaim),
			WantCategory: "Unschedulable/VolumeNodeAffinity",
			WantCulprit:  []string{"pv/pv-1 .spec.nodeAffinity (topology.kubernetes.io/zone In [eu-1c]) of claim data: no node matches"},
			WantText:     []string{"WaitForFirstConsumer"},
			MinConf:      0.9,
		},
		{
			Name: "1.33+ wording, a matching node excluded by another reason",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match PersistentVolume's node affinity.", bundletest.ScClaimVolume("data"), bundletest.ScRequest(corev1.ResourceCPU, "3")),
				bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels(zone, "eu-1a")), bundletest.ScNode("b", bundletest.ScLabels(zone, "eu-1b")), bundletest.ScNode("c", bundletest.ScLabels(zone, "eu-1c"))), boundClaim),
			WantCategory: "Unschedulable/InsufficientCpu",
			WantText:     []string{"only c qualify"},
		},
		{
			Name:         "volume affinity without the claim's details",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) had volume node affinity conflict.", bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/VolumeNodeAffinity",
			WantCulprit:  []string{"claim(s) data"},
		},
		{
			Name: "unbound claim whose class does not exist",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."+preempt, bundletest.ScClaimVolume("data")), nodes, pendingClaim(&fast),
				func(b *bundle.Bundle) {
					b.Missing = append(b.Missing, bundle.MissingRef{Kind: "StorageClass", Name: "fast", ReferencedBy: "pvc/data"})
					b.Events = append(b.Events, corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "data.1", Namespace: "shop"},
						InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: "data", Namespace: "shop", UID: "uid-pvc"},
						Type:           "Warning", Reason: "ProvisioningFailed", Message: `storageclass.storage.k8s.io "fast" not found`, Count: 7, LastTimestamp: bundletest.TS(-time.Minute)})
				}),
			RuleOnly:     true,
			WantCategory: "Unschedulable/UnboundPVC",
			WantCulprit:  []string{"pvc/data is Pending", "storageClass fast does not exist", `"fast" not found`},
			MinConf:      0.9,
		},
		{
			Name: "unbound claim with an existing class",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims.", bundletest.ScClaimVolume("data")), nodes, pendingClaim(&fast),
				func(b *bundle.Bundle) {
					b.StorageClasses = []*storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wait}}
				}),
			RuleOnly:     true,
			WantCategory: "Unschedulable/UnboundPVC",
			WantCulprit:  []string{"provisioner ebs.csi.aws.com, binding WaitForFirstConsumer"},
		},
		{
			Name:         "unbound claim without class",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", bundletest.ScClaimVolume("data")), nodes, pendingClaim(nil)),
			RuleOnly:     true,
			WantCategory: "Unschedulable/UnboundPVC",
			WantCulprit:  []string{"no storageClassName"},
		},
		{
			Name:         "unbound claim with the empty class",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", bundletest.ScClaimVolume("data")), nodes, pendingClaim(&empty)),
			RuleOnly:     true,
			WantCategory: "Unschedulable/UnboundPVC",
			WantCulprit:  []string{`storageClassName ""`},
		},
		{
			Name:         "unbound claim not collected",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/UnboundPVC",
			WantCulprit:  []string{"PersistentVolumeClaim(s) data"},
		},
		{
			Name:         "missing claim",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(`0/2 nodes are available: persistentvolumeclaim "data" not found.`+preempt, bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/MissingPVC",
			WantCulprit:  []string{"claimName data (no such PersistentVolumeClaim)"},
			MinConf:      0.95,
		},
		{
			Name:         "all nodes cordoned",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) were unschedulable."+preempt), bundletest.ScNodes(bundletest.ScNode("a", cordon), bundletest.ScNode("b", cordon))),
			WantCategory: "Unschedulable/Cordoned",
			WantCulprit:  []string{"cordoned node(s) a, b"},
			WantText:     []string{"kubectl uncordon a"},
		},
		{
			Name:         "cordoned reason but no node cordoned now",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) were unschedulable."), nodes),
			WantCategory: "Unschedulable/Cordoned",
			WantCulprit:  []string{"none is cordoned now"},
		},
		{
			Name:         "no persistent volume to bind",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.", bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/NoPersistentVolume",
			WantCulprit:  []string{"claims data"},
		},
		{
			Name:         "storage capacity",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) did not have enough free storage.", bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/StorageCapacity",
		},
		{
			Name:         "volume limit",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) exceed max volume count.", bundletest.ScClaimVolume("data")), nodes),
			WantCategory: "Unschedulable/VolumeLimit",
		},
		{
			Name:         "unknown reason",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match scheduler-enforced node affinity."), nodes),
			WantCategory: "Unschedulable/Other",
			WantCulprit:  []string{"scheduler-enforced"},
		},
		{
			Name:         "no message at all",
			Bundle:       bundletest.PodBundle(bundletest.ScPending(""), nodes),
			WantCategory: "Unschedulable/Other",
			WantTitle:    []string{"gave no reason"},
		},
		{
			Name: "message from the FailedScheduling event when the condition is missing",
			Bundle: bundletest.PodBundle(bundletest.ScPending("", func(p *corev1.Pod) { p.Status.Conditions = nil }), nodes, func(b *bundle.Bundle) {
				b.Events = append(b.Events, bundletest.Event(b.Pods[0], "Warning", "FailedScheduling", "0/2 nodes are available: 2 node(s) were unschedulable.", 3))
			}),
			WantCategory: "Unschedulable/Cordoned",
		},
	})
}

func TestSchedulingGatesAndSchedulers(t *testing.T) {
	noCondition := func(p *corev1.Pod) { p.Status.Conditions = nil }
	old := func(p *corev1.Pod) { p.CreationTimestamp = bundletest.TS(-10 * time.Minute) }
	young := func(p *corev1.Pod) { p.CreationTimestamp = bundletest.TS(-10 * time.Second) }
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name: "scheduling gates",
			Bundle: bundletest.PodBundle(bundletest.ScPending("Scheduling is blocked due to non-empty scheduling gates", func(p *corev1.Pod) {
				p.Status.Conditions[0].Reason = "SchedulingGated"
				p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "kueue.x-k8s.io/admission"}}
			})),
			WantCategory: "Unschedulable/SchedulingGated",
			WantCulprit:  []string{".spec.schedulingGates (kueue.x-k8s.io/admission)"},
			MinConf:      0.95,
		},
		{
			Name:         "custom scheduler that never ran",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("", noCondition, old, func(p *corev1.Pod) { p.Spec.SchedulerName = "gpu-scheduler" })),
			WantCategory: "Unschedulable/NoScheduler",
			WantCulprit:  []string{".spec.schedulerName (gpu-scheduler)"},
			MinConf:      0.75,
		},
		{
			Name:         "default scheduler silent",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("", noCondition, old)),
			WantCategory: "Unschedulable/NoScheduler",
			WantCulprit:  []string{"kube-scheduler"},
		},
		{
			Name:        "a pod created seconds ago is not flagged",
			Bundle:      bundletest.PodBundle(bundletest.ScPending("", noCondition, young)),
			WantNoCause: true,
		},
	})
}

// TestSchedulingRanking: with several reasons, a constraint the nodes show
// to be unsatisfiable names the culprit; otherwise the one blocking most
// nodes; every other reason is listed with its node count.
func TestSchedulingRanking(t *testing.T) {
	msg := "0/5 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 node(s) didn't match Pod's node affinity/selector." + preempt
	b := bundletest.PodBundle(bundletest.ScPending(msg, func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"pool": "batch"} }, bundletest.ScRequest(corev1.ResourceMemory, "1Gi")),
		bundletest.ScNodes(bundletest.ScNode("cp", bundletest.ScTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)), bundletest.ScNode("w1"), bundletest.ScNode("w2"), bundletest.ScNode("w3"), bundletest.ScNode("w4")))
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
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
	p1 := bundletest.Pod("web-1", bundletest.Unscheduled(msg, "100m"), sel)
	p2 := bundletest.Pod("web-2", bundletest.Unscheduled(msg, "100m"), sel)
	b := bundletest.PodBundle(p1, bundletest.ScNodes(bundletest.ScNode("a")), bundletest.ScDeployment(2), func(b *bundle.Bundle) { b.Pods = append(b.Pods, p2) })
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
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
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name:         "anti-affinity",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", masked), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b")), bundletest.ScDeployment(3)),
			WantCategory: "Unschedulable/PodAntiAffinity",
			WantCulprit:  []string{"per a topologyKey masked in the bundle"},
			WantText:     []string{"masked by the bundle's redaction"},
		},
		{
			Name:         "topology spread",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.", masked), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/TopologySpread",
			WantCulprit:  []string{"maxSkew 1 on a topologyKey masked in the bundle"},
		},
		{
			Name:         "the pre-1.22 catch-all alone",
			Bundle:       bundletest.PodBundle(bundletest.ScPending("0/2 nodes are available: 2 node(s) didn't match pod affinity/anti-affinity.", masked), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			WantCategory: "Unschedulable/PodAffinity",
			WantCulprit:  []string{"pod affinity/anti-affinity"},
		},
		{
			Name: "an operator's out-of-service taint",
			Bundle: bundletest.PodBundle(bundletest.ScPending("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/out-of-service: nodeshutdown}."),
				bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScTaint("node.kubernetes.io/out-of-service", "nodeshutdown", corev1.TaintEffectNoExecute)))),
			WantCategory: "Unschedulable/Taint",
			WantText:     []string{"an operator declared the node out of service"},
		},
	})
}
