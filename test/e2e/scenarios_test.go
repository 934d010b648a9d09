package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/scenarios"
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
	state    string              // the Summary's State line, when pinned (ongoing, healthy, historical)
	file     string              // the Go file defining setup
	source   string              // where the scenario's material came from (URL or repo+path), recorded in scenario.json
	dir      *scenarios.Scenario // a captured scenario (test/scenarios): setup loads it
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

// goScenarios are scenarios written as Go setups, registered from an
// init() of the file defining them. A new scenario starts as one: `make
// capture-scenarios` runs it and saves it as test/scenarios/NAME, and then
// the Go setup is deleted (the directory is the definition).
var goScenarios []scenario

func register(list ...scenario) {
	_, file, _, _ := runtime.Caller(1)
	for _, sc := range list {
		sc.file = filepath.Base(file)
		for _, have := range goScenarios {
			if have.name == sc.name {
				panic("duplicate scenario " + sc.name)
			}
		}
		goScenarios = append(goScenarios, sc)
	}
}

func scenarioNamed(name string) scenario {
	for _, sc := range allScenarios() {
		if sc.name == name {
			return sc
		}
	}
	panic("no scenario " + name)
}

// allScenarios is the corpus: the captured directories of test/scenarios
// and the scenarios written as Go setups (to be captured), in name order.
// A scenario defined both ways is an error, each is defined once; except
// while capturing (make capture-scenarios), when the Go setup is what
// replaces the directory.
func allScenarios() []scenario {
	var all []scenario
	for _, sc := range capturedScenarios() {
		if captureRoot != "" && slices.ContainsFunc(goScenarios, func(g scenario) bool { return g.name == sc.name }) {
			continue
		}
		all = append(all, sc)
	}
	all = append(all, goScenarios...)
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	for i := 1; i < len(all); i++ {
		if all[i].name == all[i-1].name {
			panic("scenario " + all[i].name + " is defined twice: as test/scenarios/" + all[i].name + " and in a Go setup; remove the Go one once captured")
		}
	}
	return all
}

// captureRoot is where TestScenarios saves each scenario's workspace as a
// corpus directory (make capture-scenarios), or "".
var captureRoot = os.Getenv("KUBECTL_TRIAGE_SCENARIOS_CAPTURE")

// printReports logs each scenario's whole report
// (KUBECTL_TRIAGE_SCENARIOS_PRINT=1), to read what a miss said.
var printReports = os.Getenv("KUBECTL_TRIAGE_SCENARIOS_PRINT") != ""

// TestScenarios triages each scenario on the real control plane and checks
// the report names the real cause, the incident lifecycle, the workspace
// and that only reads reached the API server. With -v it ends with the
// evaluation table (make eval).
func TestScenarios(t *testing.T) {
	c := testcluster.Get(t)
	var rows []evalRow
	for _, sc := range allScenarios() {
		row := evalRow{name: sc.name, expected: sc.category}
		if sc.healthy {
			row.expected = "Healthy"
		}
		t.Run(sc.name, func(t *testing.T) {
			defer func() { row.pass = !t.Failed(); rows = append(rows, row) }()
			// The namespace the scenario was (or is being) captured in, so
			// the live report names what the golden one does.
			name := sc.name
			if sc.dir != nil {
				name = sc.dir.Meta.Namespace
			}
			ns := c.NamespaceNamed(t, name)
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

			if printReports {
				t.Log(r.stdout)
				for _, e := range c.AuditSince(t, mark, c.UserName) {
					if !discovery(e.RequestURI) {
						t.Logf("request: %s %s", e.Verb, e.RequestURI)
					}
				}
			}
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
			if sc.state != "" && !strings.Contains(r.stdout, "State: "+sc.state) {
				t.Errorf("want State: %s", sc.state)
			}
			if sc.dir != nil && captureRoot == "" {
				// While capturing, the live report replaces the golden:
				// comparing would block refreshing a directory after a
				// collector change (review the new goldens with git diff).
				checkGolden(t, *sc.dir, r.stdout)
			}
			if captureRoot != "" && !t.Failed() {
				capture(t, sc, dir, args, ns)
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
