package health

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

var now = time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

// runningPod is pod web (app=web, version=v2), Ready, container app
// serving port 8080 named http.
func runningPod(mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: map[string]string{"app": "web", "version": "v2"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:2",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-2 * time.Hour)},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ago(2 * time.Hour)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(2 * time.Hour)}}}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func podBundle(p *corev1.Pod, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: p.Namespace, APIVersion: "v1"}, Pods: []*corev1.Pod{p}}
	b.Cluster.ServicesListed, b.Cluster.NetworkPoliciesListed = "shop", "shop"
	b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: p.Name, Container: "app", Text: "2026-12-01T14:59:00Z level=info msg=\"serving\"\n"}}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func service(name string, sel map[string]string, target intstr.IntOrString) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", CreationTimestamp: ago(time.Hour)},
		Spec: corev1.ServiceSpec{Selector: sel, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: target}}}}
}

func policy(name string, types []networkingv1.PolicyType, mutate ...func(*networkingv1.NetworkPolicy)) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, PolicyTypes: types}}
	for _, m := range mutate {
		m(np)
	}
	return np
}

func TestChecks(t *testing.T) {
	errLog := ""
	for i := 0; i < 4; i++ {
		errLog += "2026-12-01T14:5" + string(rune('5'+i)) + ":00Z level=error msg=\"publish failed\" error=\"dial tcp 10.0.0.9:5672: connect: connection refused\"\n"
	}
	port53 := intstr.FromInt32(53)
	udp := corev1.ProtocolUDP
	tests := []struct {
		name      string
		b         *bundle.Bundle
		fail      string // a failed line must contain it ("" = nothing fails)
		pass      string // a passed line must contain it
		unchecked string
	}{
		{name: "running, ready, quiet log", b: podBundle(runningPod()), pass: "Pod web: scheduled and Ready"},
		{name: "error burst in a running container's log", b: podBundle(runningPod(), func(b *bundle.Bundle) { b.Logs[0].Text = errLog }),
			fail: "logged 4 error-level records"},
		{name: "one error line is noise", b: podBundle(runningPod(), func(b *bundle.Bundle) { b.Logs[0].Text = "2026-12-01T14:59:00Z level=error msg=\"x\"\n" }),
			pass: "No running container logs a burst of errors"},
		{name: "errors older than the window are the past", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Logs[0].Text = strings.ReplaceAll(errLog, "2026-12-01T14:5", "2026-12-01T13:5") + "2026-12-01T14:59:00Z level=info msg=ok\n"
		}), pass: "No running container logs a burst of errors"},
		{name: "current log not read", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Logs[0] = bundle.ContainerLog{Pod: "web", Container: "app", Error: "forbidden"}
		}),
			unchecked: "error bursts in the current logs of web/app"},
		{name: "exit 0 and restarted", b: podBundle(runningPod(func(p *corev1.Pod) {
			p.Status.ContainerStatuses[0].RestartCount = 5
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: ago(3 * time.Minute)}
		})), fail: "exited with code 0 (Completed)"},
		{name: "stuck in ContainerCreating", b: podBundle(runningPod(func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = nil
			p.Status.ContainerStatuses[0].Ready = false
			p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
		})), fail: "waiting in ContainerCreating for 2h"},
		{name: "Service of another version", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Services = []*corev1.Service{service("web", map[string]string{"app": "web", "version": "v1"}, intstr.FromString("http"))}
		}), fail: "No Service selects pod web, but Service web is meant for it: its selector app=web,version=v1 shares the pod's labels except version=v1 (the pod has version=v2)"},
		{name: "Service of an unrelated app is not meant for it", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Services = []*corev1.Service{service("db", map[string]string{"app": "db"}, intstr.FromInt32(5432))}
		}), pass: "Pod web: scheduled and Ready"},
		{name: "Service names a port the pod does not declare", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Services = []*corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("web"))}
		}), fail: `forwards to targetPort "web", which no container of the pod declares`},
		{name: "Service selects the pod", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Services = []*corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("http"))}
		}), pass: "Service web selects pod web"},
		{name: "Services not listed: nothing claimed", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Cluster.ServicesListed = ""
			b.Services = []*corev1.Service{service("web", map[string]string{"app": "web", "version": "v1"}, intstr.FromString("http"))}
		}), pass: "Pod web: scheduled and Ready"},
		{name: "deny-all ingress behind a Service", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Services = []*corev1.Service{service("web", map[string]string{"app": "web"}, intstr.FromString("http"))}
			b.NetworkPolicies = []*networkingv1.NetworkPolicy{policy("deny-all", []networkingv1.PolicyType{networkingv1.PolicyTypeIngress})}
		}), fail: "NetworkPolicy deny-all selects pod web and no ingress rule admits port 8080/TCP, which Service web forwards to"},
		{name: "deny-all ingress without a Service is a sound default", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.NetworkPolicies = []*networkingv1.NetworkPolicy{policy("deny-all", []networkingv1.PolicyType{networkingv1.PolicyTypeIngress})}
		}), pass: "The NetworkPolicies that select the pods admit"},
		{name: "egress without DNS", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.NetworkPolicies = []*networkingv1.NetworkPolicy{policy("egress-db", []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, func(np *networkingv1.NetworkPolicy) {
				np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr(intstr.FromInt32(5432))}}}}
			})}
		}), fail: "no egress rule admits DNS (UDP 53)"},
		{name: "egress with DNS", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.NetworkPolicies = []*networkingv1.NetworkPolicy{policy("egress-dns", []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, func(np *networkingv1.NetworkPolicy) {
				np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &port53}}}}
			})}
		}), pass: "admit"},
		{name: "policies not listed: not checked", b: podBundle(runningPod(), func(b *bundle.Bundle) {
			b.Cluster.NetworkPoliciesListed = ""
			b.Problems = []bundle.Problem{{What: "network policies of shop", Error: "forbidden"}}
		}), unchecked: "the NetworkPolicies that select the pods"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run(rule.NewPass(tt.b, now, nil))
			faults := strings.Join(r.Faults(), "\n")
			switch {
			case tt.fail == "" && faults != "":
				t.Errorf("unexpected fault(s):\n%s", faults)
			case tt.fail != "" && !strings.Contains(faults, tt.fail):
				t.Errorf("no fault %q in:\n%s", tt.fail, faults)
			}
			if tt.pass != "" && !strings.Contains(strings.Join(r.Passed(), "\n"), tt.pass) {
				t.Errorf("no passed check %q in:\n%s", tt.pass, strings.Join(r.Passed(), "\n"))
			}
			if tt.unchecked != "" && !strings.Contains(strings.Join(r.Unchecked(), "\n"), tt.unchecked) {
				t.Errorf("no unchecked %q in:\n%s", tt.unchecked, strings.Join(r.Unchecked(), "\n"))
			}
			if tt.unchecked != "" && r.Confidence() >= rule.Strong {
				t.Errorf("confidence %v with a check not read", r.Confidence())
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDaemonSetNodes(t *testing.T) {
	node := func(name string, lbls map[string]string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}, Spec: corev1.NodeSpec{Taints: taints}}
	}
	gpu := corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}
	cp := corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}
	ds := func(sel map[string]string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"},
			Spec:   appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: sel}}},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1}}
	}
	b := func(d *appsv1.DaemonSet, nodes ...*corev1.Node) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "DaemonSet", Name: "agent", Namespace: "kube-system", APIVersion: "apps/v1"},
			DaemonSets: []*appsv1.DaemonSet{d}, Nodes: nodes}
	}
	for _, tt := range []struct {
		name       string
		b          *bundle.Bundle
		fail, note string
	}{
		{"explicitly selected node kept off by a taint", b(ds(map[string]string{"pool": "gpu"}), node("gpu-1", map[string]string{"pool": "gpu"}, gpu), node("gpu-2", map[string]string{"pool": "gpu"})),
			"does not run on node gpu-1: its node selection picks the node, but the node has taint nvidia.com/gpu=present:NoSchedule", ""},
		{"all-nodes DaemonSet kept off a dedicated node: noted", b(ds(nil), node("gpu-1", nil, gpu), node("a", nil)), "", "does not run on 1 node(s) whose taints"},
		{"control plane left out", b(ds(nil), node("cp", nil, cp), node("a", nil)), "", ""},
		// kubernetes/kubernetes#72017: fluentd tolerates the control plane,
		// not the dedicated Elasticsearch nodes.
		{"all-nodes DaemonSet that tolerates taints of its own, kept off a dedicated node", b(tolerating(ds(nil), cp), node("cp", nil, cp), node("es-1", nil, corev1.Taint{Key: "dedicated", Value: "elasticsearch", Effect: corev1.TaintEffectNoSchedule}), node("a", nil)),
			"does not run on node es-1: it selects every node and already tolerates taints of its own, but the node has taint dedicated=elasticsearch:NoSchedule", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run(rule.NewPass(tt.b, now, nil))
			faults, notes := strings.Join(r.Faults(), "\n"), strings.Join(r.Notes(), "\n")
			if (tt.fail == "") != (faults == "") || !strings.Contains(faults, tt.fail) {
				t.Errorf("faults = %q, want %q", faults, tt.fail)
			}
			if (tt.note == "") != (notes == "") || !strings.Contains(notes, tt.note) {
				t.Errorf("notes = %q, want %q", notes, tt.note)
			}
		})
	}
}

func tolerating(d *appsv1.DaemonSet, t corev1.Taint) *appsv1.DaemonSet {
	d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists, Effect: t.Effect})
	return d
}

func TestServiceType(t *testing.T) {
	lb := service("edge", nil, intstr.FromInt32(8080))
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	lb.CreationTimestamp = ago(40 * time.Minute)
	young := lb.DeepCopy()
	young.CreationTimestamp = ago(time.Minute)
	ext := service("stripe", nil, intstr.FromInt32(443))
	ext.Spec.Type, ext.Spec.ExternalName = corev1.ServiceTypeExternalName, "api.stripe.com"
	addressed := lb.DeepCopy()
	addressed.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.168.99.220"}}
	node := func(name string, excluded bool) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
		if excluded {
			n.Labels[corev1.LabelNodeExcludeBalancers] = ""
		}
		return n
	}
	controlPlanes := []*corev1.Node{node("cp-1", true), node("cp-2", true)}
	for _, tt := range []struct {
		name  string
		svc   *corev1.Service
		nodes []*corev1.Node
		want  []Status
	}{
		{"LoadBalancer without an address", lb, nil, []Status{Fail}},
		{"LoadBalancer just created", young, nil, []Status{Note}},
		{"ExternalName is not resolved", ext, nil, []Status{Unchecked}},
		// https://github.com/metallb/metallb/issues/2274: kubeadm's
		// control-plane nodes only, every one excluded.
		{"address, every node excluded from load balancers", addressed, controlPlanes, []Status{Pass, Fail}},
		{"address, a worker carries it", addressed, append(controlPlanes, node("w-1", false)), []Status{Pass, Pass}},
		{"address, nodes not read", addressed, nil, []Status{Pass, Unchecked}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: tt.svc.Name, Namespace: "shop", APIVersion: "v1"}, Services: []*corev1.Service{tt.svc}, Nodes: tt.nodes}
			b.Cluster.NodesListed = len(tt.nodes) > 0
			got := serviceType.Run(rule.NewPass(b, now, nil))
			var statuses []Status
			for _, r := range got {
				statuses = append(statuses, r.Status)
			}
			if !slices.Equal(statuses, tt.want) {
				t.Fatalf("got %+v, want %v", got, tt.want)
			}
		})
	}
}

// TestCatalogueDeclared: every check has an ID, a Doc and applies to
// something, and IDs are unique: the model is declared in one place.
func TestCatalogueDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Catalogue {
		if k.ID == "" || k.Doc == "" || k.Run == nil || (len(k.Kinds) == 0 && !k.Pods && !k.Fallback) {
			t.Errorf("check %+v is incomplete", k.ID)
		}
		if seen[k.ID] {
			t.Errorf("check %s declared twice", k.ID)
		}
		seen[k.ID] = true
	}
}

// TestIngressTLS: a TLS secret's existence is its metadata read (seen:
// pass, not found: fail); without that read it is unchecked unless the
// controller's event names it absent (a fault).
func TestIngressTLS(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "grafana", Namespace: "shop", UID: "i1"},
		Spec: networkingv1.IngressSpec{TLS: []networkingv1.IngressTLS{{Hosts: []string{"grafana.example.com"}, SecretName: "grafana-tls"}, {Hosts: []string{"default.example.com"}}}}}
	absent := corev1.Event{Type: corev1.EventTypeWarning, Reason: "Sync", Message: `error getting secrets for Ingress: secret "grafana-tls" does not exist`,
		InvolvedObject: corev1.ObjectReference{Kind: "Ingress", Namespace: "shop", Name: "grafana", UID: "i1"}, LastTimestamp: ago(time.Minute)}
	for _, tt := range []struct {
		name    string
		events  []corev1.Event
		seen    []string
		missing []bundle.MissingRef
		want    Status
	}{
		{"not read, no controller event", nil, nil, nil, Unchecked},
		{"not read, controller reports it absent", []corev1.Event{absent}, nil, nil, Fail},
		{"read: exists", nil, []string{"shop/grafana-tls"}, nil, Pass},
		{"read: not found", nil, nil, []bundle.MissingRef{{Kind: "Secret", Namespace: "shop", Name: "grafana-tls"}}, Fail},
		{"another namespace's is no proof", nil, []string{"prod/grafana-tls"}, nil, Unchecked},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "grafana", Namespace: "shop", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing}, Events: tt.events,
				Cluster: bundle.ClusterInfo{SecretsSeen: tt.seen}, Missing: tt.missing}
			got := ingressTLS.Run(rule.NewPass(b, now, nil))
			if len(got) != 1 || got[0].Status != tt.want || !strings.Contains(got[0].Line, "grafana-tls") {
				t.Fatalf("got %+v, want one %s naming grafana-tls", got, tt.want)
			}
		})
	}
}
