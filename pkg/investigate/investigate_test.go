package investigate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

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
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, "2026-11-21T14:58:59Z starting api v1.4.2\n2026-11-21T14:59:00Z FATAL config: required env DATABASE_URL is empty\n")),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantCulprit:  []string{"DATABASE_URL"},
			wantTitle:    []string{"exit code 1", "environment variable"},
			minConf:      0.9,
		},
		{
			name:         "crashloop connection refused names host and port",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, "connecting to postgres\nerror: dial tcp 10.0.0.12:5432: connect: connection refused\n")),
			wantCategory: "CrashLoop/Exit1/ConnectionRefused",
			wantTitle:    []string{"10.0.0.12:5432"},
			minConf:      0.9,
		},
		{
			name:         "crashloop go panic picks the panic line",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(2, "Error")), bundletest.WithLogs(true, "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation]\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n")),
			wantCategory: "CrashLoop/Exit2/Panic",
			wantCulprit:  []string{"panic: runtime error"},
			minConf:      0.9,
		},
		{
			name:         "crashloop missing config file",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, "open /etc/app/config.yaml: no such file or directory\n")),
			wantCategory: "CrashLoop/Exit1/MissingFile",
			wantCulprit:  []string{"/etc/app/config.yaml"},
		},
		{
			name:         "crashloop command not found",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(127, "Error"))),
			wantCategory: "CrashLoop/Exit127",
			wantTitle:    []string{"command not found"},
			minConf:      0.5,
		},
		{
			name:         "crashloop exit 0 under restartPolicy Always",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(0, "Completed"))),
			wantCategory: "CrashLoop/Exit0",
			wantTitle:    []string{"code 0"},
		},
		{
			name:         "oomkilled names container and limit",
			bundle:       bundletest.PodBundle(bundletest.Pod("worker", bundletest.Crashing(137, "OOMKilled"))),
			wantCategory: "OOMKilled",
			wantCulprit:  []string{"container app", "64Mi"},
			wantTitle:    []string{"OOMKilled", "64Mi"},
			minConf:      0.9,
		},
		{
			name: "image tag not found",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ImagePullBackOff", `Back-off pulling image "registry.example.com/shop/api:1.4.2"`)),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, bundletest.Event(b.Pods[0], "Warning", "Failed", `Failed to pull image "registry.example.com/shop/api:1.4.2": rpc error: code = NotFound desc = failed to pull and unpack image: manifest unknown`, 3))
				}),
			wantCategory: "ImagePull/NotFound",
			wantCulprit:  []string{"registry.example.com/shop/api:1.4.2"},
			minConf:      0.9,
		},
		{
			name:         "image pull auth",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ErrImagePull", `failed to pull and unpack image "registry.example.com/shop/api:1.4.2": failed to authorize: 401 Unauthorized`))),
			wantCategory: "ImagePull/Auth",
			wantCulprit:  []string{"registry.example.com/shop/api:1.4.2"},
		},
		{
			name:         "image pull registry unreachable",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ErrImagePull", `failed to resolve reference "registry.example.com/shop/api:1.4.2": dial tcp: lookup registry.example.com: no such host`))),
			wantCategory: "ImagePull/Unreachable",
		},
		{
			name:         "invalid image name",
			bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("InvalidImageName", `Failed to apply default image tag "Shop/API:latest": couldn't parse image name "Shop/API:latest": invalid reference format: repository name must be lowercase`))),
			wantCategory: "ImagePull/InvalidName",
		},
		{
			name:         "unschedulable insufficient cpu compares request with allocatable",
			bundle:       bundletest.PodBundle(bundletest.Pod("batch", bundletest.Unscheduled("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.", "64"))),
			wantCategory: "Unschedulable/InsufficientCpu",
			wantCulprit:  []string{"requests.cpu", "64"},
			wantTitle:    []string{"cpu 64", "node-1", "4"},
			minConf:      0.9,
		},
		{
			name:         "unschedulable taint",
			bundle:       bundletest.PodBundle(bundletest.Pod("batch", bundletest.Unscheduled("0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", "100m"))),
			wantCategory: "Unschedulable/Taint",
			wantTitle:    []string{"{dedicated: gpu}"},
		},
		{
			name:    "healthy pod",
			bundle:  bundletest.PodBundle(bundletest.Pod("api", bundletest.Healthy)),
			healthy: true,
		},
		{
			// Readiness failures about a probe the spec does not have (the
			// pod changed since): no rule can say why it is not ready.
			name: "running but not ready, unexplained, falls back to degraded",
			bundle: bundletest.PodBundle(bundletest.Pod("api", func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-10 * time.Minute)}}}}
			}), bundletest.WithEvents(bundletest.Event(bundletest.Pod("api"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			degraded: true,
		},
		{
			name: "running but not ready with a failing readiness probe",
			bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithReadiness(bundletest.HTTPGetProbe("/ready", intstr.FromInt32(8080))), bundletest.RunningNotReady),
				bundletest.WithEvents(bundletest.CtrEvent(bundletest.Pod("api"), "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30))),
			wantCategory: "Probe/Readiness/Unhealthy",
			wantCulprit:  []string{"readinessProbe", "/ready"},
			wantTitle:    []string{"HTTP 503", "/ready"},
			minConf:      0.7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := investigate.Investigate(tt.bundle, investigate.Options{IncidentID: "test", Agent: "builtin", Now: bundletest.Now})
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
			investigatetest.CheckRootCause(t, r, investigatetest.RootCause{Category: tt.wantCategory, Culprit: tt.wantCulprit, Title: tt.wantTitle, MinConf: tt.minConf}, "")
		})
	}
}

// TestOOMOutranksCrashLoop: the crash loop is the symptom, the OOM kill the cause.
func TestOOMOutranksCrashLoop(t *testing.T) {
	b := bundletest.PodBundle(bundletest.Pod("worker", bundletest.Crashing(137, "OOMKilled")), bundletest.WithLogs(true, "error: something failed\n"))
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
	if r.RootCause.Category != "OOMKilled" {
		t.Fatalf("root cause %q, want OOMKilled", r.RootCause.Category)
	}
}

// TestWorkloadFindingsMerge: the same cause in every pod of a workload is one
// hypothesis that names the pods, not one per pod.
func TestWorkloadFindingsMerge(t *testing.T) {
	p1, p2 := bundletest.Pod("web-1", bundletest.Crashing(137, "OOMKilled")), bundletest.Pod("web-2", bundletest.Crashing(137, "OOMKilled"))
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "dep"}, Pods: []*corev1.Pod{p1, p2}}
	r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
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
				FirstTimestamp: bundletest.TS(-time.Minute), LastTimestamp: bundletest.TS(-time.Minute),
			}},
		}
	}
	r := investigate.Investigate(mk("ClusterIPNotAllocated", "Cluster IP [IPv4]: 10.0.0.146 is not allocated; repairing"), investigate.Options{Now: bundletest.Now})
	if !r.Healthy {
		t.Errorf("a self-repairing notice made the target unhealthy: %q", r.Title)
	}
	// Nor is it an "older warning" factor: the real API server emits it at
	// random, and the verdict must not depend on its timing.
	if len(r.RootCause.Contributing) != 0 {
		t.Errorf("a harmless notice listed as a contributing factor: %q", r.RootCause.Contributing)
	}
	old := mk("SyncFailed", "backend returned 503")
	old.Events[0].FirstTimestamp, old.Events[0].LastTimestamp = bundletest.TS(-3*time.Hour), bundletest.TS(-3*time.Hour)
	if r := investigate.Investigate(old, investigate.Options{Now: bundletest.Now}); !r.Healthy || len(r.RootCause.Contributing) != 1 {
		t.Errorf("an old ordinary warning: want healthy with it named as a factor, got %q %q", r.Title, r.RootCause.Contributing)
	}
	if r := investigate.Investigate(mk("SyncFailed", "backend returned 503"), investigate.Options{Now: bundletest.Now}); r.Healthy {
		t.Errorf("an ordinary recent warning must still count")
	}
}
