package investigate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// realCorpus is testdata/real: workspaces captured by the real-node tier
// (test/realnode, `make capture-real`), one directory per fault class and
// moment of its life, each holding the bundle the plugin collected from a
// real kubelet, containerd, scheduler and controller-manager (context/)
// and the report it wrote then (output/investigation.json, for the target
// and the time). Beside the hand-written scenarios, these are statuses,
// events and logs nobody wrote to agree with the rules.
const realCorpus = "testdata/real"

// realExpect is the root cause each captured fault must get, at every
// moment: a category prefix and what the root cause (culprit, statement or
// contributing facts) must name.
var realExpect = map[string]struct {
	category string
	culprit  []string
}{
	"crashloop-envconfig":        {"CrashLoop/Exit1/MissingEnv", []string{"DATABASE_URL"}},
	"crashloop-envconfig-json":   {"CrashLoop/Exit1/MissingEnv", []string{"DATABASE_URL"}},
	"crashloop-logfmt-refused":   {"CrashLoop/Exit1/ConnectionRefused", []string{"10.0.0.42:5672"}},
	"crashloop-go-panic":         {"CrashLoop/Exit2/Panic", []string{"nil pointer dereference"}},
	"oomkilled-with-sidecar":     {"OOMKilled", []string{"container app"}},
	"image-never-pull":           {"ImagePull/NeverPull", []string{"local/nope:1"}},
	"image-registry-unreachable": {"ImagePull/Unreachable", []string{"10.99.0.1:5999/shop/api:1.4.2"}},
	"registry-manifest-unknown":  {"ImagePull/NotFound", []string{"10.99.0.1:5000/shop/api:9.9.9"}},
	"registry-auth-required":     {"ImagePull/Auth", []string{"10.99.0.1:5000/private/api:1.0"}},
	"ephemeral-storage-eviction": {"Evicted/EphemeralStorageLimit", []string{"ephemeral-storage"}},
	"readiness-failing":          {"Probe/Readiness", []string{"app"}},
	"liveness-failing":           {"Probe/Liveness", []string{"app"}},
	"configmap-key-missing":      {"CreateContainerConfigError/MissingConfigMapKey", []string{"DATABASE_URL", "shop-config"}},
	"secret-missing":             {"CreateContainerConfigError/MissingSecret", []string{"db-credentials"}},
	"volume-configmap-missing":   {"Volume/Mount/ConfigMapMissing", []string{"app-settings"}},
	"init-migration-fails":       {"InitContainer/CrashLoop/Exit1/Migration", []string{`relation "orders" does not exist`}},
	"bad-command":                {"RunContainerError/ExecutableNotFound", []string{"/app/server"}},
	"exit0-loop":                 {"CrashLoop/Exit0", []string{"app"}},
	"insufficient-cpu":           {"Unschedulable/InsufficientCpu", []string{"cpu"}},
	"nodeselector-unmatched":     {"Unschedulable/NodeSelector", []string{"disktype"}},
	"rollout-bad-image":          {"ImagePull/NeverPull", []string{"local/shop-api:2.0.0"}},
	"rollout-crash-introduced":   {"CrashLoop/Exit1/MissingEnv", []string{"DATABASE_URL", "revision 2"}},
	"service-selector-typo":      {"Service/NoEndpoints/SelectorMismatch", []string{"app=checkout", "app=check-out"}},
	"pvc-pending-no-class":       {"PVC/Pending/NoDefaultStorageClass", []string{"orders-data"}},
	"statefulset-ordinal-stuck":  {"CrashLoop/Exit1/PermissionDenied", []string{"db-0", "/var/lib/db"}},
	"init-waits-forever":         {"InitContainer/Running", []string{"wait-for-db", "orders-db:5432"}},
	"job-backoff-limit":          {"ContainerFailed/Exit1/MissingFile", []string{"/data/batch-7.csv"}},
	"quota-refusal":              {"FailedCreate/Quota", []string{"pods-cap"}},
}

// TestRealCaptures replays every captured real fault through the
// investigator: the same root cause at every moment it was captured.
func TestRealCaptures(t *testing.T) {
	faults, err := os.ReadDir(realCorpus)
	if err != nil {
		t.Fatalf("read %s: %v", realCorpus, err)
	}
	if len(faults) == 0 {
		t.Fatalf("%s holds no captured fault", realCorpus)
	}
	for _, fd := range faults {
		want, ok := realExpect[fd.Name()]
		if !ok {
			t.Errorf("captured fault %s has no expected root cause in realExpect", fd.Name())
			continue
		}
		moments, _ := os.ReadDir(filepath.Join(realCorpus, fd.Name()))
		for _, md := range moments {
			dir := filepath.Join(realCorpus, fd.Name(), md.Name())
			t.Run(fd.Name()+"/"+md.Name(), func(t *testing.T) {
				r := replay(t, dir)
				if !strings.HasPrefix(r.RootCause.Category, want.category) {
					t.Errorf("category %q, want prefix %q (headline %q)", r.RootCause.Category, want.category, r.Title)
				}
				named := strings.Join(append([]string{r.RootCause.Culprit, r.RootCause.Statement}, r.RootCause.Contributing...), "\n")
				for _, c := range want.culprit {
					if !strings.Contains(named, c) {
						t.Errorf("root cause does not name %q: culprit %q, statement %q", c, r.RootCause.Culprit, r.RootCause.Statement)
					}
				}
			})
		}
	}
}

// replay loads a captured workspace and investigates it again, at the time
// the capture was triaged.
func replay(t *testing.T, dir string) *report.Report {
	t.Helper()
	b, at := loadCapture(t, dir)
	return Investigate(b, Options{Agent: "builtin", Now: at})
}

// loadCapture is a captured workspace's bundle and the time it was
// triaged (its recorded report's), for tests that change the evidence
// before replaying it.
func loadCapture(t *testing.T, dir string) (*bundle.Bundle, time.Time) {
	t.Helper()
	c, err := workspace.Open(context.Background(), dir, workspace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Bundle, c.CapturedAt
}
