package e2e

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// scenario is one broken (or healthy) state built on the real control plane,
// with the root cause the builtin investigator must find.
type scenario struct {
	name     string
	setup    func(t *testing.T, c *testcluster.Cluster, ns string) []string // returns the triage arguments
	category string                                                         // prefix of the root-cause category
	culprit  []string                                                       // substrings the Root cause section must name
	healthy  bool
}

func minutesAgo(m int) metav1.Time {
	return metav1.NewTime(time.Now().Add(-time.Duration(m) * time.Minute).Truncate(time.Second))
}

func notReadyConditions() []corev1.PodCondition {
	return []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(30)},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(30)},
		{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: minutesAgo(30)},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: minutesAgo(30)},
	}
}

func crashStatus(container string, code int32, reason string, restarts int32) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.11", StartTime: ptr(minutesAgo(30)),
		Conditions: notReadyConditions(),
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: container, Image: "docker.io/library/busybox:1.36", ImageID: "docker.io/library/busybox@sha256:01", ContainerID: "containerd://c1",
			RestartCount: restarts,
			State:        corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 2m40s restarting failed container=" + container}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: minutesAgo(2), FinishedAt: minutesAgo(1), ContainerID: "containerd://c1"}},
		}},
	}
}

func ptr[T any](v T) *T { return &v }

func simplePod(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// scenarios is the corpus; each area's file registers its own.
var scenarios []scenario

func register(list ...scenario) {
	for _, sc := range list {
		for _, have := range scenarios {
			if have.name == sc.name {
				panic("duplicate scenario " + sc.name)
			}
		}
		scenarios = append(scenarios, sc)
	}
}

func scenarioNamed(name string) scenario {
	for _, sc := range scenarios {
		if sc.name == name {
			return sc
		}
	}
	panic("no scenario " + name)
}

func init() { register(baseScenarios...) }

var baseScenarios = []scenario{
	{
		name: "crashloop-missing-env",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			p := simplePod("api", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Status = crashStatus("app", 1, "Error", 5)
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", Value: "hunter2-planted-secret"}}
			})
			p = c.CreatePod(t, p)
			c.SetLogs(ns, "api", "app", true, "starting api v1.4.2\nFATAL config: required env DATABASE_URL is empty\n")
			c.SetLogs(ns, "api", "app", false, "")
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 42, First: time.Now().Add(-25 * time.Minute),
				Message: fmt.Sprintf("Back-off restarting failed container app in pod api_%s(%s)", ns, p.UID), FieldPath: "spec.containers{app}"})
			return []string{"pod/api"}
		},
		category: "CrashLoop/Exit1/MissingEnv",
		culprit:  []string{"DATABASE_URL", "container app"},
	},
	{
		name: "crashloop-connection-refused-bare-name",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("worker", func(p *corev1.Pod) { p.Namespace = ns; p.Status = crashStatus("app", 1, "Error", 3) }))
			c.SetLogs(ns, "worker", "app", true, "connecting to redis\nError: dial tcp 10.0.0.42:6379: connect: connection refused\n")
			return []string{"worker"} // a bare NAME means a pod
		},
		category: "CrashLoop/Exit1/ConnectionRefused",
		culprit:  []string{"10.0.0.42:6379"},
	},
	{
		name: "oomkilled",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("cruncher", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
					Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}, Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}
				p.Status = crashStatus("app", 137, "OOMKilled", 3)
			}))
			return []string{"po", "cruncher"} // TYPE NAME with a short name
		},
		category: "OOMKilled",
		culprit:  []string{"container app", "64Mi"},
	},
	{
		name: "imagepull-tag-not-found",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.invalid/shop/api:9.9.9"
			p := c.CreatePod(t, simplePod("frontend", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = image
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(30)), Conditions: notReadyConditions(),
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}}}}
			}))
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Failed", Count: 3, FieldPath: "spec.containers{app}",
				Message: `Failed to pull image "` + image + `": rpc error: code = NotFound desc = failed to pull and unpack image "` + image + `": failed to resolve reference "` + image + `": ` + image + `: not found`})
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 12, Message: `Back-off pulling image "` + image + `"`})
			return []string{"pod/frontend"}
		},
		category: "ImagePull/NotFound",
		culprit:  []string{"registry.invalid/shop/api:9.9.9"},
	},
	{
		name: "unschedulable-insufficient-cpu",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			msg := "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
			p := c.CreatePod(t, simplePod("trainer", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Annotations = map[string]string{testcluster.AnnotationUnscheduled: "true"}
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
				p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
					Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg, LastTransitionTime: minutesAgo(20)}}}
			}))
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "FailedScheduling", Count: 4, Component: "default-scheduler", Message: "0/1 nodes are available: 1 Insufficient cpu."})
			return []string{"pods/trainer"}
		},
		category: "Unschedulable/InsufficientCpu",
		culprit:  []string{"cpu", "64"},
	},
	{
		name: "deployment-crashloop",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "checkout", Image: "shop/checkout:2.1.0", Container: "web",
				PodStatus: crashStatus("web", 1, "Error", 4)})
			for _, p := range pods {
				c.SetLogs(ns, p.Name, "web", true, "loading /etc/checkout/config.yaml\nopen /etc/checkout/config.yaml: no such file or directory\n")
			}
			return []string{"deploy/checkout"}
		},
		category: "CrashLoop/Exit1/MissingFile",
		culprit:  []string{"/etc/checkout/config.yaml"},
	},
	{
		name: "healthy-pod",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.CreatePod(t, simplePod("fine", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Status = corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "127.0.0.1", StartTime: ptr(minutesAgo(30)),
					Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr(true), Image: "busybox:1.36",
						State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(29)}}}}}
			}))
			c.SetLogs(ns, "fine", "app", false, "serving on :8080\n")
			return []string{"pod/fine"}
		},
		healthy: true,
	},
	{
		name: "healthy-deployment",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "web", Replicas: 2, PodStatus: corev1.PodStatus{
				Phase: corev1.PodRunning, StartTime: ptr(minutesAgo(30)),
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "nginx:1.27",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(29)}}}}}})
			return []string{"deployments.apps/web"}
		},
		healthy: true,
	},
}

// TestScenarios triages each scenario on the real control plane and checks
// the report names the real cause, the incident lifecycle, the workspace
// and that only reads reached the API server. With -v it ends with the
// evaluation table (make eval).
func TestScenarios(t *testing.T) {
	c := testcluster.Get(t)
	sorted := append([]scenario(nil), scenarios...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	var rows []evalRow
	for _, sc := range sorted {
		row := evalRow{name: sc.name, expected: sc.category}
		if sc.healthy {
			row.expected = "Healthy"
		}
		t.Run(sc.name, func(t *testing.T) {
			defer func() { row.pass = !t.Failed(); rows = append(rows, row) }()
			ns := c.Namespace(t)
			args := sc.setup(t, c, ns)
			mark := c.AuditMark()
			r := triage(t, c, ns, args...)
			if r.code != 0 {
				t.Fatalf("exit code %d\nstderr:\n%s", r.code, r.stderr)
			}
			requests := assertReadOnly(t, c, mark)
			dir := onlyWorkspace(t, r.root)
			assertWorkspace(t, dir, incident.Resolved)
			rep := readReportJSON(t, dir)
			row.found, row.confidence, row.requests = rep.RootCause.Category, rep.Confidence, requests
			assertReplays(t, dir) // the saved workspace alone gives the same report

			section := rootCauseSection(r.stdout)
			if sc.healthy {
				if !rep.Healthy || !strings.Contains(section, "healthy") {
					t.Errorf("want a healthy report, got %q:\n%s", rep.Title, r.stdout)
				}
			} else {
				if !strings.HasPrefix(rep.RootCause.Category, sc.category) {
					t.Errorf("root cause category %q, want %q; title %q", rep.RootCause.Category, sc.category, rep.Title)
				}
				for _, s := range sc.culprit {
					if !strings.Contains(section, s) {
						t.Errorf("Root cause section does not name %q:\n%s", s, section)
					}
				}
				if len(rep.Evidence) == 0 || !strings.Contains(r.stdout, "_Source:_") {
					t.Errorf("the report cites no evidence")
				}
				if !strings.Contains(r.stdout, "```sh") {
					t.Errorf("the report proposes no command for a human")
				}
			}
			if strings.Contains(r.stdout, "Resolving") || !strings.HasPrefix(r.stdout, "# Triage: ") {
				t.Errorf("stdout must carry only the report; got:\n%.300s", r.stdout)
			}
			if !strings.Contains(r.stderr, "Collected") {
				t.Errorf("progress missing from stderr: %q", r.stderr)
			}
			t.Logf("%s: %s (%d API requests)", sc.name, rep.Title, requests)
		})
	}
	if testing.Verbose() {
		printEval(rows)
	}
}

type evalRow struct {
	name, expected, found string
	confidence            float64
	requests              int
	pass                  bool
}

// printEval prints the evaluation table and the closing count line.
func printEval(rows []evalRow) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIO\tEXPECTED\tFOUND\tCONFIDENCE\tREQUESTS\tPASS")
	passed := 0
	for _, r := range rows {
		mark := "FAIL"
		if r.pass {
			mark, passed = "ok", passed+1
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%d\t%s\n", r.name, r.expected, r.found, r.confidence, r.requests, mark)
	}
	w.Flush()
	fmt.Printf("%d passed, %d failed\n", passed, len(rows)-passed)
}

func rootCauseSection(md string) string {
	_, after, _ := strings.Cut(md, "## Root cause")
	before, _, _ := strings.Cut(after, "\n## ")
	return before
}
