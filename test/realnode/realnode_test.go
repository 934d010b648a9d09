package realnode

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/cmd"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// EnvCapture names a directory that receives, per fault and moment, the
// workspace the triage made (context/ and output/investigation.json): the
// real material the unit tier replays (pkg/investigate/testdata/real).
const EnvCapture = "KUBECTL_TRIAGE_REALNODE_CAPTURE"

func TestMain(m *testing.M) {
	flag.Parse()
	// Every fault runs in parallel on the one node: the run takes as long
	// as the slowest fault, not the sum. go test's default is GOMAXPROCS.
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == fmt.Sprint(defaultParallel()) {
		_ = flag.Set("test.parallel", "64")
	}
	config, err := os.MkdirTemp("", "realnode-config-")
	if err != nil {
		panic(err)
	}
	// The developer's settings stay out of the triage runs.
	os.Setenv("XDG_CONFIG_HOME", config)
	for _, name := range cmd.EnvironmentNames() {
		os.Unsetenv(name)
	}
	Summary = tally.line
	code := Main(m)
	os.RemoveAll(config)
	os.Exit(code)
}

func defaultParallel() int {
	f := flag.Lookup("test.parallel")
	if f == nil {
		return 0
	}
	var n int
	fmt.Sscan(f.DefValue, &n)
	return n
}

// tally counts fault classes produced by the node and triaged correctly.
var tally = &counter{}

type counter struct {
	mu       sync.Mutex
	produced map[string]bool
	correct  map[string]bool
	triages  []time.Duration
	settles  []time.Duration
}

func (c *counter) record(class string, produced, correct bool, settle time.Duration, triages ...time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.produced == nil {
		c.produced, c.correct = map[string]bool{}, map[string]bool{}
	}
	if produced {
		c.produced[class] = true
		c.settles = append(c.settles, settle)
	}
	if correct {
		c.correct[class] = true
	}
	c.triages = append(c.triages, triages...)
}

func (c *counter) line() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.produced == nil {
		return "" // no fault ran (a benchmark, or -run elsewhere)
	}
	var wrong []string
	for k := range c.produced {
		if !c.correct[k] {
			wrong = append(wrong, k)
		}
	}
	sort.Strings(wrong)
	s := fmt.Sprintf("real node: %d fault classes produced, %d triaged correctly", len(c.produced), len(c.correct))
	if len(wrong) > 0 {
		s += " (wrong: " + strings.Join(wrong, ", ") + ")"
	}
	if len(c.triages) > 0 {
		s += fmt.Sprintf("; node up in %v, slowest fault settled in %v, triage median %v over %d runs",
			global.StartedIn.Round(time.Second), maxDur(c.settles).Round(time.Second), median(c.triages).Round(time.Millisecond), len(c.triages))
	}
	return s
}

func maxDur(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// fault is one fault class produced by the real components.
type fault struct {
	name string
	// setup creates the broken objects in ns and returns the triage target
	// (TYPE/NAME).
	setup func(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string
	// moments are the points of the fault's life at which it is triaged;
	// each must give the same root cause.
	moments []moment
	// category is the prefix of the expected root-cause category; culprit
	// lists substrings the root cause (culprit or statement) must name.
	category string
	culprit  []string
}

// moment waits for a state of the fault, polled through the API server.
type moment struct {
	name string
	// reached reports whether the fault's pods (and events) are there yet.
	reached func(pods []corev1.Pod, events []corev1.Event) bool
}

const momentTimeout = 4 * time.Minute

func TestRealFaults(t *testing.T) {
	n := Get(t)
	plugin := pluginBinary(t)
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			runFault(t, n, plugin, f)
		})
	}
}

func runFault(t *testing.T, n *Node, plugin string, f fault) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ns := "rn-" + f.name
	if _, err := n.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	// The ServiceAccount admission refuses pods until the controller-manager
	// has made the namespace's default ServiceAccount.
	if err := poll(ctx, time.Minute, func() bool {
		_, err := n.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	}); err != nil {
		t.Fatalf("default ServiceAccount of %s: %v", ns, err)
	}
	t0 := time.Now()
	target := f.setup(ctx, t, n.Client, ns)
	produced, correct := false, true
	var settle time.Duration
	var triages []time.Duration
	defer func() { tally.record(f.name, produced, correct && produced, settle, triages...) }()
	for i, m := range f.moments {
		var pods []corev1.Pod
		var events []corev1.Event
		err := poll(ctx, momentTimeout, func() bool {
			pl, err := n.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			el, err := n.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			pods, events = pl.Items, el.Items
			return m.reached(pods, events)
		})
		if err != nil {
			correct = false
			t.Errorf("moment %q never came (%v); pods: %s", m.name, err, describePods(pods))
			return
		}
		if i == 0 {
			produced, settle = true, time.Since(t0)
		}
		t1 := time.Now()
		r, ws, out := triage(t, n, plugin, ns, target)
		triages = append(triages, time.Since(t1))
		if r == nil {
			correct = false
			t.Errorf("moment %q: no report; output:\n%s", m.name, out)
			continue
		}
		capture(t, f.name, m.name, ws)
		if msg := check(r, f); msg != "" {
			correct = false
			t.Errorf("moment %q (pods: %s): %s\nreport headline: %s\nroot cause: %+v", m.name, describePods(pods), msg, r.Title, r.RootCause)
		} else {
			t.Logf("moment %q: %s — %s", m.name, r.RootCause.Category, r.Title)
		}
	}
}

// check compares a report with the fault's expected root cause.
func check(r *report.Report, f fault) string {
	if !strings.HasPrefix(r.RootCause.Category, f.category) {
		return fmt.Sprintf("root-cause category %q, want prefix %q", r.RootCause.Category, f.category)
	}
	named := strings.Join(append([]string{r.RootCause.Culprit, r.RootCause.Statement}, r.RootCause.Contributing...), "\n")
	for _, c := range f.culprit {
		if !strings.Contains(named, c) {
			return fmt.Sprintf("root cause does not name %q (culprit %q)", c, r.RootCause.Culprit)
		}
	}
	return ""
}

// triage runs the plugin binary with the builtin agent against the node,
// as the triage-user identity, and returns its report and workspace.
func triage(t testing.TB, n *Node, plugin, ns, target string) (*report.Report, string, string) {
	t.Helper()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "incidents")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, plugin, target, "-n", ns, "--kubeconfig", n.UserKubeconfig,
		"--cache-dir", filepath.Join(tmp, "cache"), "--workspace-root", root, "--agent", "builtin")
	out, _ := c.CombinedOutput() // a found fault may exit non-zero; the report says
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 {
		return nil, "", string(out)
	}
	ws := filepath.Join(root, entries[0].Name())
	data, err := os.ReadFile(filepath.Join(ws, "output", "investigation.json"))
	if err != nil {
		return nil, ws, string(out)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, ws, string(out)
	}
	return &r, ws, string(out)
}

// capture copies the workspace's context/ and report into
// $EnvCapture/FAULT/MOMENT when set.
func capture(t *testing.T, faultName, momentName, ws string) {
	dst := os.Getenv(EnvCapture)
	if dst == "" {
		return
	}
	dir := filepath.Join(dst, faultName, strings.ReplaceAll(momentName, " ", "-"))
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "output"), 0o755); err != nil {
		t.Errorf("capture: %v", err)
		return
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(ws, "context"), dir+"/").CombinedOutput(); err != nil {
		t.Errorf("capture: %v: %s", err, out)
	}
	if out, err := exec.Command("cp", filepath.Join(ws, "output", "investigation.json"), filepath.Join(dir, "output")).CombinedOutput(); err != nil {
		t.Errorf("capture: %v: %s", err, out)
	}
	// The kubeconfig points at a gateway that is gone, and the read-only
	// instructions are the same for every fault: neither is evidence.
	_ = os.Remove(filepath.Join(dir, "context", "kubeconfig"))
	_ = os.Remove(filepath.Join(dir, "context", "system-instructions.txt"))
}

func poll(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func describePods(pods []corev1.Pod) string {
	var parts []string
	for _, p := range pods {
		s := p.Name + " " + string(p.Status.Phase)
		for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			st := "running"
			switch {
			case cs.State.Waiting != nil:
				st = cs.State.Waiting.Reason
			case cs.State.Terminated != nil:
				st = cs.State.Terminated.Reason
			}
			s += fmt.Sprintf(" %s=%s(restarts %d)", cs.Name, st, cs.RestartCount)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// pluginBinary is $KUBECTL_TRIAGE_BIN, or a fresh build.
func pluginBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KUBECTL_TRIAGE_BIN"); p != "" {
		return p
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "kubectl-triage")
	c := exec.Command("go", "build", "-o", out, "./cmd/kubectl-triage")
	c.Dir = root
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("build kubectl-triage: %v\n%s", err, b)
	}
	return out
}

// ignoreExists makes a create idempotent for retries.
func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
