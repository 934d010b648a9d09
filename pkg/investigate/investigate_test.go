package investigate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/registry"
)

var now = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

func ts(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(d)) }

func pod(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), CreationTimestamp: ts(-30 * time.Minute)},
		Spec: corev1.PodSpec{
			NodeName:      "node-1",
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/shop/api:1.4.2",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-30 * time.Minute)}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func crashing(code int32, reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: "app", Image: p.Spec.Containers[0].Image, RestartCount: 5,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: ts(-2 * time.Minute), FinishedAt: ts(-time.Minute)}},
		}}
	}
}

func waiting(reason, msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: "app", Image: p.Spec.Containers[0].Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}},
		}}
	}
}

func unscheduled(msg string, cpu string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg, LastTransitionTime: ts(-20 * time.Minute)}}}
	}
}

func healthy(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, Started: boolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-29 * time.Minute)}}}}
}

func boolPtr(b bool) *bool { return &b }

func node(name, cpu string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("8Gi")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

func event(p *corev1.Pod, typ, reason, msg string, count int32) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: p.Name + "." + strings.ToLower(reason), Namespace: p.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: p.UID},
		Type:           typ, Reason: reason, Message: msg, Count: count,
		FirstTimestamp: ts(-25 * time.Minute), LastTimestamp: ts(-time.Minute),
	}
}

func podBundle(p *corev1.Pod, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:  fault.Resource{APIVersion: "v1", Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: string(p.UID)},
		Cluster: bundle.ClusterInfo{Context: "prod", Cluster: "prod-east"},
		Pods:    []*corev1.Pod{p},
		Nodes:   []*corev1.Node{node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func withLogs(previous bool, text string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		p := b.Pods[0]
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: p.Namespace, Pod: p.Name, Container: "app", Previous: previous, Text: text})
	}
}

func withEvents(evs ...corev1.Event) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.Events = append(b.Events, evs...) }
}

func TestInvestigate(t *testing.T) {
	tests := []struct {
		name         string
		bundle       *bundle.Bundle
		wantCategory string   // prefix of the root cause category
		wantCulprit  []string // substrings of the culprit
		wantTitle    []string // substrings of the one-line root cause
		minConf      float64
		healthy      bool
		degraded     bool
	}{
		{
			name:         "crashloop exit 1 with missing env line",
			bundle:       podBundle(pod("api", crashing(1, "Error")), withLogs(true, "2026-11-21T14:58:59Z starting api v1.4.2\n2026-11-21T14:59:00Z FATAL config: required env DATABASE_URL is empty\n")),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantCulprit:  []string{"DATABASE_URL"},
			wantTitle:    []string{"exit code 1", "environment variable"},
			minConf:      0.9,
		},
		{
			name:         "crashloop connection refused names host and port",
			bundle:       podBundle(pod("api", crashing(1, "Error")), withLogs(true, "connecting to postgres\nerror: dial tcp 10.0.0.12:5432: connect: connection refused\n")),
			wantCategory: "CrashLoop/Exit1/ConnectionRefused",
			wantTitle:    []string{"10.0.0.12:5432"},
			minConf:      0.9,
		},
		{
			name:         "crashloop go panic picks the panic line",
			bundle:       podBundle(pod("api", crashing(2, "Error")), withLogs(true, "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation]\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n")),
			wantCategory: "CrashLoop/Exit2/Panic",
			wantCulprit:  []string{"panic: runtime error"},
			minConf:      0.9,
		},
		{
			name:         "crashloop missing config file",
			bundle:       podBundle(pod("api", crashing(1, "Error")), withLogs(true, "open /etc/app/config.yaml: no such file or directory\n")),
			wantCategory: "CrashLoop/Exit1/MissingFile",
			wantCulprit:  []string{"/etc/app/config.yaml"},
		},
		{
			name:         "crashloop command not found",
			bundle:       podBundle(pod("api", crashing(127, "Error"))),
			wantCategory: "CrashLoop/Exit127",
			wantTitle:    []string{"command not found"},
			minConf:      0.5,
		},
		{
			name:         "crashloop exit 0 under restartPolicy Always",
			bundle:       podBundle(pod("api", crashing(0, "Completed"))),
			wantCategory: "CrashLoop/Exit0",
			wantTitle:    []string{"code 0"},
		},
		{
			name:         "oomkilled names container and limit",
			bundle:       podBundle(pod("worker", crashing(137, "OOMKilled"))),
			wantCategory: "OOMKilled",
			wantCulprit:  []string{"container app", "64Mi"},
			wantTitle:    []string{"OOMKilled", "64Mi"},
			minConf:      0.9,
		},
		{
			name: "image tag not found",
			bundle: podBundle(pod("api", waiting("ImagePullBackOff", `Back-off pulling image "registry.example.com/shop/api:1.4.2"`)),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, event(b.Pods[0], "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": rpc error: code = NotFound desc = failed to pull and unpack image: manifest unknown`, 3))
				}),
			wantCategory: "ImagePull/NotFound",
			wantCulprit:  []string{"registry.example.com/shop/api:1.4.2"},
			minConf:      0.9,
		},
		{
			name:         "image pull auth",
			bundle:       podBundle(pod("api", waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`))),
			wantCategory: "ImagePull/Auth",
			wantCulprit:  []string{"registry.example.com/shop/api:1.4.2"},
		},
		{
			name:         "image pull registry unreachable",
			bundle:       podBundle(pod("api", waiting("ErrImagePull", `failed to resolve reference "registry.example.com/shop/api:1.4.2": dial tcp: lookup registry.example.com: no such host`))),
			wantCategory: "ImagePull/Unreachable",
		},
		{
			name:         "invalid image name",
			bundle:       podBundle(pod("api", waiting("InvalidImageName", `Failed to apply default image tag "Shop/API:latest": couldn't parse image name "Shop/API:latest": invalid reference format: repository name must be lowercase`))),
			wantCategory: "ImagePull/InvalidName",
		},
		{
			name:         "unschedulable insufficient cpu compares request with allocatable",
			bundle:       podBundle(pod("batch", unscheduled("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.", "64"))),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantCulprit:  []string{"requests.cpu", "64"},
			wantTitle:    []string{"cpu 64", "node-1", "4"},
			minConf:      0.9,
		},
		{
			name:         "unschedulable taint",
			bundle:       podBundle(pod("batch", unscheduled("0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", "100m"))),
			wantCategory: "Unschedulable/Taint",
			wantTitle:    []string{"{dedicated: gpu}"},
		},
		{
			name:    "healthy pod",
			bundle:  podBundle(pod("api", healthy)),
			healthy: true,
		},
		{
			// Readiness failures about a probe the spec does not have (the
			// pod changed since): no rule can say why it is not ready.
			name: "running but not ready, unexplained, falls back to degraded",
			bundle: podBundle(pod("api", func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-10 * time.Minute)}}}}
			}), withEvents(event(pod("api"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			degraded: true,
		},
		{
			name: "running but not ready with a failing readiness probe",
			bundle: podBundle(pod("api", withCtrPorts(ctrPort("http", 8080)), withReadiness(httpGetProbe("/ready", intstr.FromInt32(8080))), runningNotReady),
				withEvents(ctrEvent(pod("api"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantCulprit:  []string{"readinessProbe", "/ready"},
			wantTitle:    []string{"HTTP 503", "/ready"},
			minConf:      0.7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Investigate(tt.bundle, Options{IncidentID: "test", Agent: "builtin", Now: now})
			if err := report.Validate(r.Markdown()); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			if r.Healthy != tt.healthy {
				t.Fatalf("healthy = %v, want %v (title %q)", r.Healthy, tt.healthy, r.Title)
			}
			if tt.degraded {
				if !r.Degraded || r.ConfidenceLevel != report.Speculation {
					t.Fatalf("want a degraded report at speculation, got degraded=%v level=%s title=%q", r.Degraded, r.ConfidenceLevel, r.Title)
				}
				if !strings.Contains(r.Markdown(), "Readiness probe failed") {
					t.Errorf("degraded report should list the warning events")
				}
				return
			}
			if tt.healthy {
				if len(r.Actions) != 0 || r.RootCause.Category != "Healthy" {
					t.Errorf("healthy report proposes actions or a cause: %+v", r.RootCause)
				}
				return
			}
			checkRootCause(t, r, rootCauseWant{tt.wantCategory, tt.wantCulprit, tt.wantTitle, tt.minConf}, "")
		})
	}
}

// rootCauseWant is what a report's root cause must say, in every area's
// table tests.
type rootCauseWant struct {
	category string   // prefix of the category
	culprit  []string // substrings of the culprit
	title    []string // substrings of the one-line root cause
	minConf  float64
}

// checkRootCause checks the root cause against want, and that it cites
// evidence the report lists and proposes an action; note is added to a
// wrong category's message.
func checkRootCause(t *testing.T, r *report.Report, want rootCauseWant, note string) {
	t.Helper()
	if !strings.HasPrefix(r.RootCause.Category, want.category) {
		t.Errorf("category = %q, want prefix %q (title %q)%s", r.RootCause.Category, want.category, r.Title, note)
	}
	for _, s := range want.culprit {
		if !strings.Contains(r.RootCause.Culprit, s) {
			t.Errorf("culprit %q lacks %q", r.RootCause.Culprit, s)
		}
	}
	for _, s := range want.title {
		if !strings.Contains(r.Title, s) {
			t.Errorf("title %q lacks %q", r.Title, s)
		}
	}
	if r.Confidence < want.minConf {
		t.Errorf("confidence %.2f < %.2f", r.Confidence, want.minConf)
	}
	if len(r.RootCause.Evidence) == 0 {
		t.Errorf("root cause cites no evidence")
	}
	for _, id := range r.RootCause.Evidence {
		if !hasEvidence(r, id) {
			t.Errorf("root cause cites %s, which is not in the evidence list", id)
		}
	}
	if len(r.Actions) == 0 {
		t.Errorf("no recommended action")
	}
}

func hasEvidence(r *report.Report, id string) bool {
	for _, e := range r.Evidence {
		if e.ID == id {
			return true
		}
	}
	return false
}

// TestOOMOutranksCrashLoop: the crash loop is the symptom, the OOM kill the cause.
func TestOOMOutranksCrashLoop(t *testing.T) {
	b := podBundle(pod("worker", crashing(137, "OOMKilled")), withLogs(true, "error: something failed\n"))
	r := Investigate(b, Options{Now: now})
	if r.RootCause.Category != "OOMKilled" {
		t.Fatalf("root cause %q, want OOMKilled", r.RootCause.Category)
	}
}

// TestWorkloadFindingsMerge: the same cause in every pod of a workload is one
// hypothesis that names the pods, not one per pod.
func TestWorkloadFindingsMerge(t *testing.T) {
	p1, p2 := pod("web-1", crashing(137, "OOMKilled")), pod("web-2", crashing(137, "OOMKilled"))
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "dep"}, Pods: []*corev1.Pod{p1, p2}}
	r := Investigate(b, Options{Now: now})
	if len(r.Hypotheses) != 1 {
		t.Fatalf("got %d hypotheses, want 1 merged: %+v", len(r.Hypotheses), r.Hypotheses)
	}
	if got := strings.Join(r.RootCause.Contributing, " "); !strings.Contains(got, "2 pods") || !strings.Contains(got, "web-1, web-2") {
		t.Errorf("merged finding does not name both pods: %q", got)
	}
	for _, e := range r.Evidence {
		if strings.Contains(e.Source, "web-2") {
			t.Errorf("evidence of the folded pod kept: %+v", e)
		}
	}
	for i, e := range r.Evidence {
		if e.ID != fmt.Sprintf("E%d", i+1) {
			t.Errorf("evidence not renumbered: %v", r.Evidence)
		}
	}
}

// TestSelfRepairingWarningsAreNotSymptoms: the API server's IP repair loop
// warns and fixes the allocation itself; a healthy target stays healthy,
// while an ordinary recent warning still counts.
func TestSelfRepairingWarningsAreNotSymptoms(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg", "namespace": "shop", "uid": "uid-cfg"}}}
	mk := func(reason, msg string) *bundle.Bundle {
		return &bundle.Bundle{
			Target: fault.Resource{APIVersion: "v1", Kind: "ConfigMap", Name: "cfg", Namespace: "shop", UID: "uid-cfg"},
			Object: cm,
			Events: []corev1.Event{{
				ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "shop"},
				InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Name: "cfg", Namespace: "shop", UID: "uid-cfg"},
				Type:           corev1.EventTypeWarning, Reason: reason, Message: msg, Count: 1,
				FirstTimestamp: ts(-time.Minute), LastTimestamp: ts(-time.Minute),
			}},
		}
	}
	if r := Investigate(mk("ClusterIPNotAllocated", "Cluster IP [IPv4]: 10.0.0.146 is not allocated; repairing"), Options{Now: now}); !r.Healthy {
		t.Errorf("a self-repairing notice made the target unhealthy: %q", r.Title)
	}
	if r := Investigate(mk("SyncFailed", "backend returned 503"), Options{Now: now}); r.Healthy {
		t.Errorf("an ordinary recent warning must still count")
	}
}

// testPass is a pass over b as of now with the whole catalogue, for tests
// that call a rule's Check directly.
func testPass(b *bundle.Bundle) *rule.Pass { return rule.NewPass(b, now, Rules) }

// rulesOf are the catalogue's rules of the given areas (ID prefixes), in
// catalogue order.
func rulesOf(areas ...string) []*rule.Rule {
	var out []*rule.Rule
	for _, r := range registry.Rules {
		for _, a := range areas {
			if strings.HasPrefix(r.ID, a+"/") {
				out = append(out, r)
			}
		}
	}
	return out
}

// workloadRules are the workload and batch areas.
var workloadRules = rulesOf("workload", "batch")
