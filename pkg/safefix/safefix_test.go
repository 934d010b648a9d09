package safefix

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

func ptr[T any](v T) *T { return &v }

// pod builds a pod of deployment owner (ReplicaSet owner-<hash>).
func pod(name, owner string, lbls map[string]string, serving bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{}}}
	for k, v := range lbls {
		p.Labels[k] = v
	}
	if owner != "" {
		p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "7d9f6c5b8"
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: owner + "-7d9f6c5b8", Controller: ptr(true)}}
	}
	if serving {
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
	} else {
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [app]"}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "CrashLoopBackOff", Message: "back-off 1m20s restarting failed container=app pod=" + name + "_shop(0a1b)"}}}}}
	}
	return p
}

func TestApply(t *testing.T) {
	serving := pod("checkout-7d9f6c5b8-p7w4m", "checkout", map[string]string{"app": "checkout"}, true)
	crashing := pod("orders-5c6d7-xk2lp", "orders", map[string]string{"app": "orders"}, false)
	bare := pod("api", "", map[string]string{"run": "api"}, true)
	pg := pod("postgres-0", "", map[string]string{"app": "postgres-primary"}, true)
	pg.OwnerReferences = []metav1.OwnerReference{{Kind: "StatefulSet", Name: "postgres", Controller: ptr(true)}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: "shop"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "check-out"}}}
	payments := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "payments", Namespace: "shop"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "payments"}}}
	avail := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: "shop", Generation: 3}, Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2))},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}}
	broken := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: "shop", Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2))},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1}}
	bound := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-postgres-0", Namespace: "shop"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pvc-3f1c"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-config", Namespace: "shop"}, Data: map[string]string{"DATABASE_URL": "postgres://orders-db:5432/orders"}}
	ready := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-2"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"}}}}

	b := &bundle.Bundle{
		Target:      fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"},
		Pods:        []*corev1.Pod{bare, crashing},
		Candidates:  []*corev1.Pod{serving, crashing, pg},
		Services:    []*corev1.Service{svc, payments},
		Deployments: []*appsv1.Deployment{avail, broken},
		PVCs:        []*corev1.PersistentVolumeClaim{bound},
		ConfigMaps:  []*corev1.ConfigMap{cm},
		Nodes:       []*corev1.Node{ready},
	}
	imm := func(cmds ...string) report.Action {
		return report.Action{Kind: report.Immediate, Description: "Do it.", Commands: cmds}
	}
	tests := []struct {
		name     string
		action   report.Action
		history  bool
		withheld string // part of the reason; "" = proposed
		kind     report.ActionKind
		desc     string // part of the (replacement) action's description
	}{
		{name: "recreate a serving bare pod", action: imm("kubectl get pod api -n shop -o yaml > api.yaml   # set resources.limits.memory: 128Mi for container app", "kubectl replace --force -f api.yaml"),
			withheld: "pod api is Running and Ready now"},
		{name: "recreate a crash-looping pod", action: imm("kubectl get pod orders-5c6d7-xk2lp -n shop -o yaml > o.yaml", "kubectl replace --force -f o.yaml"), kind: report.Immediate},
		{name: "force-delete a serving pod", action: imm("kubectl delete pod checkout-7d9f6c5b8-p7w4m -n shop --grace-period=0 --force"), withheld: "Running and Ready"},
		{name: "delete only the Pending pods of a selector", action: imm("kubectl delete pods -n shop -l 'app=checkout' --field-selector=status.phase=Pending"), kind: report.Immediate},
		{name: "delete every pod of a selector, one serving", action: imm("kubectl delete pods -n shop -l app=checkout"), withheld: "which -l app=checkout selects"},
		{name: "restart a fully available deployment", action: imm("kubectl rollout restart deployment/checkout -n shop"), withheld: "all 2 replicas updated and available"},
		{name: "restart a deployment with an unavailable replica", action: imm("kubectl rollout restart deployment/orders -n shop"), kind: report.Immediate},
		{name: "delete a bound claim", action: imm("kubectl delete pvc data-postgres-0 -n shop"), withheld: "Bound to volume pvc-3f1c"},
		{name: "delete a Ready node", action: imm("kubectl delete node worker-2"), withheld: "node worker-2 is Ready now"},
		{name: "drain a Ready node is not a deletion of it", action: imm("kubectl cordon worker-2"), kind: report.Immediate},
		{name: "drain a Ready node", action: imm("kubectl drain worker-2 --ignore-daemonsets --delete-emptydir-data"), withheld: "node worker-2 is Ready now; `kubectl drain` would evict every pod from it"},
		{name: "drain a node by node/NAME", action: imm("kubectl drain node/worker-2"), withheld: "node worker-2 is Ready now"},
		{name: "drain a node the bundle does not hold", action: imm("kubectl drain worker-9"), kind: report.Immediate},
		{name: "selector near miss", action: imm("kubectl get pods -n shop --show-labels", `kubectl patch service checkout -n shop --type=merge -p '{"spec":{"selector":{"app":"checkout"}}}'`),
			kind: report.Immediate, desc: "selects: checkout-7d9f6c5b8-p7w4m."},
		{name: "selector pointed at an unrelated app", action: imm("kubectl get pods -n shop --show-labels", `kubectl patch service payments -n shop --type=merge -p '{"spec":{"selector":{"app":"postgres-primary"}}}'`),
			withheld: "pods of postgres", kind: report.Check, desc: "Find the workload this Service is for"},
		{name: "selector matching nothing", action: imm(`kubectl patch service checkout -n shop --type=merge -p '{"spec":{"selector":{"app":"checkout-v2"}}}'`), withheld: "would select no pod", kind: report.Check, desc: "Find the workload"},
		{name: "selector placeholder for the user", action: imm(`kubectl patch service payments -n shop --type=merge -p '{"spec":{"selector":{"app":"<pod label value>"}}}'`), kind: report.Immediate},
		{name: "set selector to an unrelated app", action: imm("kubectl set selector service payments 'app=orders' -n shop"), withheld: "pods of orders", kind: report.Check, desc: "Find the workload"},
		{name: "add a misspelled ConfigMap key", action: imm(`kubectl patch configmap shop-config -n shop -p '{"data":{"DATABSE_URL":"<value>"}}'`),
			withheld: "looks like a misspelling", kind: report.Immediate, desc: "from DATABSE_URL to DATABASE_URL"},
		{name: "add a key spelled differently only by case", action: imm(`kubectl patch configmap shop-config -n shop -p '{"data":{"database_url":"<value>"}}'`), withheld: "misspelling", kind: report.Immediate, desc: "from database_url to DATABASE_URL"},
		{name: "add a new ConfigMap key", action: imm(`kubectl patch configmap shop-config -n shop -p '{"data":{"REDIS_URL":"<value>"}}'`), kind: report.Immediate},
		{name: "history: a limit change is for next time", action: imm("kubectl set resources deployment/orders -n shop -c app --limits=memory=256Mi"), history: true,
			kind: report.LongTerm, desc: "Before it happens again: Do it."},
		{name: "history: no recreation of a failing pod either", action: imm("kubectl get pod orders-5c6d7-xk2lp -n shop -o yaml > o.yaml", "kubectl replace --force -f o.yaml"), history: true,
			withheld: "history"},
		{name: "reads are always proposed", action: imm("kubectl logs api -n shop --previous", "kubectl describe pod api -n shop"), kind: report.Immediate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &report.Report{Ongoing: !tt.history, Severity: fault.SeverityCritical, Actions: []report.Action{tt.action}}
			Apply(r, b, tt.history)
			if tt.withheld != "" {
				if len(r.Withheld) != 1 || !strings.Contains(r.Withheld[0].Reason, tt.withheld) {
					t.Fatalf("withheld %+v, want one whose reason has %q", r.Withheld, tt.withheld)
				}
			} else if len(r.Withheld) != 0 {
				t.Fatalf("withheld %+v, want it proposed", r.Withheld)
			}
			if tt.kind == "" {
				if len(r.Actions) != 0 {
					t.Fatalf("actions %+v, want none", r.Actions)
				}
				return
			}
			if len(r.Actions) != 1 || r.Actions[0].Kind != tt.kind || !strings.Contains(r.Actions[0].Description, tt.desc) {
				t.Fatalf("actions %+v, want one %s action whose description has %q", r.Actions, tt.kind, tt.desc)
			}
			for _, c := range r.Actions[0].Commands {
				for _, k := range parse(c) {
					if tt.withheld != "" && k.writes() {
						t.Errorf("replacement of a withheld action writes: %s", c)
					}
				}
			}
			if tt.history != (r.Severity == fault.SeverityInfo) {
				t.Errorf("severity %s with history %v", r.Severity, tt.history)
			}
		})
	}
}

// TestViolationsLeavesTheReport: the check over a report someone else wrote
// (a golden, an agent's) names what the policy refuses and changes nothing.
func TestViolationsLeavesTheReport(t *testing.T) {
	p := pod("api", "", map[string]string{"run": "api"}, true)
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}, Pods: []*corev1.Pod{p}}
	r := &report.Report{Actions: []report.Action{
		{Kind: report.Immediate, Description: "Recreate it.", Commands: []string{"kubectl delete pod api -n shop"}},
		{Kind: report.Check, Description: "Look.", Commands: []string{"kubectl describe pod api -n shop"}},
	}}
	got := Violations(r, b, false)
	if len(got) != 1 || got[0].Action.Description != "Recreate it." || len(r.Actions) != 2 || len(r.Withheld) != 0 {
		t.Fatalf("violations %+v, report actions %d withheld %d", got, len(r.Actions), len(r.Withheld))
	}
	if got := Violations(r, b, true); len(got) != 2 {
		t.Fatalf("history: violations %+v, want the deletion and the immediate action", got)
	}
}
