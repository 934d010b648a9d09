package workload_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	noderules "github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
)

// bareReplicaSet is ReplicaSet web-abc with no Deployment, 2 replicas and
// none ready, whose pods are built by mutate.
func bareReplicaSet(mutate ...func(*corev1.Pod)) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		rs := bundletest.NewReplicaSet("web-abc", 1, time.Hour, bundletest.PodTemplate("shop/web:2.4.0"), 2, 0)
		rs.OwnerReferences = nil
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rs.Labels}
		b.ReplicaSets = []*appsv1.ReplicaSet{rs}
		for _, name := range []string{"web-abc-aaaaa", "web-abc-bbbbb"} {
			b.Pods = append(b.Pods, bundletest.OwnedPod(name, bundletest.CtrlRef("ReplicaSet", "web-abc"), mutate...))
		}
	}
}

func TestReplicaSetPods(t *testing.T) {
	missingEnv := func(b *bundle.Bundle) {
		for _, p := range []string{"web-abc-aaaaa", "web-abc-bbbbb"} {
			b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p, Container: "app", Previous: true, Text: "FATAL: KAFKA_BROKERS is not set\n"})
		}
	}
	probeFails := func(b *bundle.Bundle) {
		b.Events = []corev1.Event{bundletest.ObjEvent("Pod", "web-abc-aaaaa", "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, time.Minute)}
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name:         "bare replicaset: the pods' crash is the root cause, the ReplicaSet its context",
			Bundle:       bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.Crashing(1, "Error")), missingEnv),
			WantCategory: "CrashLoop/Exit1/MissingEnv",
			WantCulprit:  []string{"KAFKA_BROKERS"},
			WantRule:     "ReplicaSet/PodsNotReady/PodsFailing",
			WantText: []string{"ReplicaSet context: ReplicaSet web-abc has 0/2 replicas ready (2 created); its pods web-abc-aaaaa, web-abc-bbbbb are not Ready.",
				"ReplicaSet context: No Deployment owns it", "kubectl delete pods -n shop -l app=web,pod-template-hash=abc",
				"kubectl describe replicaset web-abc -n shop"},
		},
		{
			Name: "replicaset of a deployment: the fix goes to the deployment",
			Bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.Crashing(1, "Error")), missingEnv, func(b *bundle.Bundle) {
				b.ReplicaSets[0].OwnerReferences = []metav1.OwnerReference{bundletest.CtrlRef("Deployment", "web")}
				b.Deployments = []*appsv1.Deployment{bundletest.NewDeployment(2)}
			}),
			WantCategory: "CrashLoop/Exit1/MissingEnv",
			WantText:     []string{"ReplicaSet context: It is revision 1 of deployment/web", "kubectl describe deployment web -n shop"},
		},
		{
			Name:         "unready pods no pod rule explains",
			Bundle:       bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.RunningUnready), probeFails),
			WantCategory: "ReplicaSet/PodsNotReady/NotReady",
			WantCulprit:  []string{"replicaset/web-abc pod web-abc-aaaaa"},
			WantTitle:    []string{"0/2 replicas ready", "Readiness probe failed"},
			Isolated:     true,
		},
		{
			Name:         "pending pods",
			Bundle:       bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.PendingNoDecision)),
			WantCategory: "ReplicaSet/PodsNotReady/Pending",
			Isolated:     true,
		},
		{
			Name: "all ready",
			Bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.Healthy), func(b *bundle.Bundle) {
				b.ReplicaSets[0].Status.ReadyReplicas = 2
			}),
			Healthy: true,
		},
		{
			Name: "OOM kill: the limit is raised on the ReplicaSet, whose pods must then be replaced",
			Bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.Crashing(137, "OOMKilled"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}
			})),
			WantCategory: "OOMKilled",
			WantText:     []string{"kubectl set resources replicaset/web-abc -n shop -c app --limits=memory=1Gi", kube.ReplicaSetTemplateRisk},
		},
	})
}

// A ReplicaSet has no rollout to undo: its crash finding proposes none.
func TestReplicaSetTargetProposesNoRolloutUndo(t *testing.T) {
	b := bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.Crashing(1, "Error")), func(b *bundle.Bundle) {
		b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-abc-aaaaa", Container: "app", Previous: true, Text: "FATAL: KAFKA_BROKERS is not set\n"}}
	})
	md := investigate.Investigate(b, investigate.Options{Now: bundletest.Now}).Markdown()
	if strings.Contains(md, "rollout undo") || strings.Contains(md, "rollout restart") {
		t.Errorf("a ReplicaSet target's report proposes a rollout command:\n%s", md)
	}
}

// A bare ReplicaSet does not roll a template change out: the scheduling
// fixes on its template say that its pending pods must be deleted, and
// give the command that does it, instead of "starts a rollout".
func TestReplicaSetTargetSchedulingFixes(t *testing.T) {
	const deletePending = "kubectl delete pods -n shop -l 'app=web,pod-template-hash=abc' --field-selector=status.phase=Pending"
	pending := func(msg string, mutate ...func(*corev1.Pod)) func(*bundle.Bundle) {
		return bareReplicaSet(append([]func(*corev1.Pod){bundletest.Unscheduled(msg, "100m")}, mutate...)...)
	}
	for _, tt := range []struct {
		name   string
		bundle *bundle.Bundle
		want   string // root cause category prefix
		fix    string // a command of the fix that carries the ReplicaSet's risk
	}{
		{
			name:   "request larger than every node",
			bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 Insufficient memory.", bundletest.ScRequest(corev1.ResourceMemory, "64Gi")), bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))),
			want:   "Unschedulable/InsufficientMemory",
			fix:    "kubectl set resources replicaset/web-abc -n shop -c app --requests=memory=",
		},
		{
			name: "untolerated taint",
			bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}."),
				bundletest.ScNodes(bundletest.ScNode("gpu-1", bundletest.ScTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)), bundletest.ScNode("gpu-2", bundletest.ScTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)))),
			want: "Unschedulable/Taint",
			fix:  `"path":"/spec/template/spec/tolerations"`,
		},
		{
			name: "nodeSelector no node carries",
			bundle: bundletest.WorkloadBundle("ReplicaSet", "web-abc", pending("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
				func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "nvme"} }),
				bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels("disktype", "ssd")), bundletest.ScNode("b", bundletest.ScLabels("disktype", "ssd")))),
			want: "Unschedulable/NodeSelector",
			fix:  `kubectl patch replicaset/web-abc -n shop -p '{"spec":{"template":{"spec":{"nodeSelector":{"disktype":"ssd"}}}}}'`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := investigate.Investigate(tt.bundle, investigate.Options{Now: bundletest.Now})
			if !strings.HasPrefix(r.RootCause.Category, tt.want) {
				t.Fatalf("root cause %q, want %q: %s", r.RootCause.Category, tt.want, r.Title)
			}
			found := false
			for _, a := range r.Actions {
				if strings.Contains(a.Risk, "rollout") {
					t.Errorf("action %q says its change starts a rollout: %q", a.Description, a.Risk)
				}
				if slices.ContainsFunc(a.Commands, func(c string) bool { return strings.Contains(c, tt.fix) }) {
					found = true
					if !strings.Contains(a.Risk, kube.ReplicaSetPendingRisk) || !slices.Contains(a.Commands, deletePending) {
						t.Errorf("fix %q: risk %q, commands %q; want the ReplicaSet's risk and %q", a.Description, a.Risk, a.Commands, deletePending)
					}
				}
			}
			if !found {
				t.Errorf("no fix runs %q: %+v", tt.fix, r.Actions)
			}
		})
	}
}

// A pod of a bare ReplicaSet evicted for using more than it requested: the
// request is raised on the ReplicaSet, whose running pods keep the old
// request until they are replaced.
func TestReplicaSetTargetEvictionFix(t *testing.T) {
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi. Container app was using 1200Mi, request is 128Mi, has larger consumption of memory. "
	b := bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(bundletest.NtEvicted(msg)))
	// The eviction is past (the ReplicaSet's finding explains the pods
	// not Ready with it): its own finding carries the fix.
	fs := noderules.PodNode.Check(investigatetest.Pass(b))
	if len(fs) == 0 || !strings.HasPrefix(string(fs[0].Category), "Node/MemoryPressure/Evicted") {
		t.Fatalf("findings %+v, want an eviction", fs)
	}
	found := false
	for _, a := range fs[0].Actions {
		if strings.Contains(a.Risk, "rollout") {
			t.Errorf("action %q says its change starts a rollout: %q", a.Description, a.Risk)
		}
		if slices.Contains(a.Commands, "kubectl set resources replicaset/web-abc -n shop -c app --requests=memory=1200Mi") {
			found = true
			if want := "a larger request needs room on the nodes; " + kube.ReplicaSetTemplateRisk; a.Risk != want {
				t.Errorf("risk %q, want %q", a.Risk, want)
			}
		}
	}
	if !found {
		t.Errorf("no fix raises the request on the ReplicaSet: %+v", fs[0].Actions)
	}
}

// An image that does not exist, set on a bare ReplicaSet: its pods wait for
// the old image until they are deleted.
func TestReplicaSetTargetImageFix(t *testing.T) {
	image := "registry.example.com/shop/web:9.9.9"
	b := bundletest.WorkloadBundle("ReplicaSet", "web-abc", bareReplicaSet(func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}}}}
	}), func(b *bundle.Bundle) {
		for _, p := range b.Pods {
			b.Events = append(b.Events, bundletest.ObjEvent("Pod", p.Name, "Warning", "Failed", `Failed to pull image "`+image+`": rpc error: code = NotFound desc = failed to pull and unpack image "`+image+`": not found`, 3, time.Minute))
		}
	})
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
	if !strings.HasPrefix(r.RootCause.Category, "ImagePull/NotFound") {
		t.Fatalf("root cause %q, want ImagePull/NotFound: %s", r.RootCause.Category, r.Title)
	}
	if len(r.Actions) == 0 || r.Actions[0].Risk != kube.ReplicaSetPendingRisk {
		t.Errorf("actions %+v, want the first to carry %q", r.Actions, kube.ReplicaSetPendingRisk)
	}
}
