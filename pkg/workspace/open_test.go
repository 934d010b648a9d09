package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// TestCapturedAt: the time a replay is made as of, from the records a
// workspace may hold.
func TestCapturedAt(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 7, 59, 17, 0, time.UTC)
	started, created, event, reported := t0.Add(2*time.Second), t0.Add(time.Second), t0, t0.Add(3*time.Second)
	for _, tc := range []struct {
		name string
		c    Capture
		want time.Time
	}{
		{"builtin report", Capture{Incident: &incident.Incident{CreatedAt: created, StartedAt: &started}, Report: &report.Report{Agent: "builtin", Time: reported}}, reported},
		{"external agent's report: when the agent started", Capture{Incident: &incident.Incident{CreatedAt: created, StartedAt: &started}, Report: &report.Report{Agent: "claude", Time: reported}}, started},
		{"never started", Capture{Incident: &incident.Incident{CreatedAt: created}}, created},
		{"event only", Capture{Event: &fault.Event{Timestamp: event}}, event},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.capturedAt()
			if err != nil || !got.Equal(tc.want) {
				t.Errorf("capturedAt = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	if _, err := (&Capture{Dir: "d"}).capturedAt(); err == nil {
		t.Error("a workspace without any time: no error")
	}
}

// capture writes a minimal saved workspace: one pod, an event, the
// builtin report's data and its markdown.
func capture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		ResourcesDir + "/pod-api.json": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"api","namespace":"shop","uid":"u1"}}`,
		EventsFile:                     `[]`,
		EventFile:                      `{"resource":{"apiVersion":"v1","kind":"Pod","name":"api","namespace":"shop"},"severity":"warning","timestamp":"2026-11-26T07:59:17Z"}`,
		ReportJSONFile:                 `{"incidentId":"x","agent":"builtin","time":"2026-11-26T07:59:20Z","resource":{"kind":"Pod","name":"api","namespace":"shop"}}`,
		ReportFile:                     "# Triage: Pod/api\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpen(t *testing.T) {
	dir := capture(t)
	c, err := Open(context.Background(), dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Target.Kind != "Pod" || c.Target.Name != "api" || c.Bundle.Object.GetName() != "api" || c.Bundle.Target.UID != "u1" {
		t.Errorf("target %+v, bundle target %+v", c.Target, c.Bundle.Target)
	}
	if want := time.Date(2026, 11, 26, 7, 59, 20, 0, time.UTC); !c.CapturedAt.Equal(want) {
		t.Errorf("captured at %s, want the builtin report's %s", c.CapturedAt, want)
	}
	if c.Severity() != "warning" || string(c.Markdown) != "# Triage: Pod/api\n" {
		t.Errorf("severity %q, markdown %q", c.Severity(), c.Markdown)
	}
	// A corpus's own record wins.
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err = Open(context.Background(), dir, OpenOptions{Target: fault.Resource{Kind: "Pod", Name: "api"}, CapturedAt: at})
	if err != nil || !c.CapturedAt.Equal(at) {
		t.Errorf("with options: %v, %v", c, err)
	}
}

func TestReadLimit(t *testing.T) {
	for name, want := range map[string]int64{
		IncidentFile:                      4 << 20,
		ReportFile:                        8 << 20,
		ReportJSONFile:                    8 << 20,
		EventsFile:                        32 << 20,
		LogsFile:                          64 << 20,
		ResourcesDir + "/pod-api.json":    16 << 20,
		ContextDir + "/node-pods.json":    32 << 20,
		ArtifactsDir + "/sub/dump.txt":    maxArtifactBytes,
		AuditFile:                         64 << 20,
		"./" + IncidentFile:               4 << 20,
		CancelPrefix + "0f8fad5b-d9cb-46": 4 << 10,
		"somewhere/else.bin":              safefile.DefaultLimit,
	} {
		if got := ReadLimit(name); got != want {
			t.Errorf("ReadLimit(%q) = %d, want %d", name, got, want)
		}
	}
}
