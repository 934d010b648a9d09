package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// IDs chosen so that prefixes collide on purpose.
const (
	idOld     = "aaaa1111-0000-4000-8000-000000000001"
	idNew     = "aaaa2222-0000-4000-8000-000000000002"
	idRunning = "bbbb0000-0000-4000-8000-000000000003"
	idAncient = "cccc0000-0000-4000-8000-000000000004"
)

// fixture describes a fabricated incident workspace.
type fixture struct {
	id        string
	status    incident.Status
	created   time.Time
	completed *time.Time
	pid       int
	report    string // output/investigation.md; empty = none
}

func at(d time.Duration) *time.Time { t := now.Add(-d); return &t }

// makeIncident writes a workspace as the triage engine leaves it.
func makeIncident(t *testing.T, root string, f fixture) string {
	t.Helper()
	dir := filepath.Join(root, f.id)
	if err := os.MkdirAll(filepath.Join(dir, "output", "artifacts"), 0o700); err != nil {
		t.Fatal(err)
	}
	inc := &incident.Incident{
		IncidentID: f.id, TriggeringEventID: "ev-" + f.id[:4], Status: f.status,
		Resource:  fault.Resource{Kind: "Pod", Name: "api-" + f.id[:4], Namespace: "shop"},
		FaultType: "CrashLoop", Severity: "critical", CreatedAt: f.created, CompletedAt: f.completed,
		Agent: incident.Agent{Name: "builtin", State: incident.AgentSuccess, PID: f.pid}, Workspace: dir,
	}
	if f.report != "" {
		inc.Report = &incident.ReportRef{Path: filepath.Join(dir, workspace.ReportFile), RootCause: "missing env DATABASE_URL", ConfidenceLevel: "verified", Confidence: 0.95}
		writeFile(t, filepath.Join(dir, workspace.ReportFile), f.report)
	}
	if err := incident.Save(filepath.Join(dir, incident.FileName), inc); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "context", "logs.txt"), strings.Repeat("x", 4096))
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
}

// messyRoot is a root with valid incidents and every kind of thing that is
// not one. outside is a directory beside the root that must never be touched.
func messyRoot(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "incidents"), filepath.Join(base, "outside")
	makeIncident(t, root, fixture{id: idOld, status: incident.Resolved, created: now.Add(-100 * time.Hour), completed: at(99 * time.Hour), report: "# Triage: old\n"})
	makeIncident(t, root, fixture{id: idNew, status: incident.Failed, created: now.Add(-1 * time.Hour), completed: at(59 * time.Minute)})
	makeIncident(t, root, fixture{id: idRunning, status: incident.Investigating, created: now.Add(-500 * time.Hour), pid: 0})
	makeIncident(t, root, fixture{id: idAncient, status: incident.AgentFailed, created: now.Add(-300 * time.Hour)}) // no completedAt recorded

	// Not incidents.
	writeFile(t, filepath.Join(root, "dddd0000-0000-4000-8000-000000000005", incident.FileName), "{not json")
	if err := os.MkdirAll(filepath.Join(root, "eeee0000-0000-4000-8000-000000000006"), 0o700); err != nil { // no incident.json
		t.Fatal(err)
	}
	makeIncident(t, root, fixture{id: "ffff0000-0000-4000-8000-000000000007", status: incident.Resolved, created: now})
	writeFile(t, filepath.Join(root, "ffff0000-0000-4000-8000-000000000007", incident.FileName), `{"incidentId":"aaaa1111-0000-4000-8000-000000000001","status":"resolved","createdAt":"2026-11-21T00:00:00Z"}`)
	writeFile(t, filepath.Join(root, "notes.txt"), "hello")
	if err := os.MkdirAll(filepath.Join(root, "not-an-id"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A valid-looking incident outside the root, reachable only through symlinks.
	escaped := "9999aaaa-0000-4000-8000-000000000009"
	makeIncident(t, outside, fixture{id: escaped, status: incident.Resolved, created: now.Add(-1000 * time.Hour), completed: at(999 * time.Hour), report: "# outside\n"})
	symlink(t, filepath.Join(outside, escaped), filepath.Join(root, escaped))
	// A workspace whose incident.json is a symlink out of it.
	linked := "12340000-0000-4000-8000-00000000000a"
	if err := os.MkdirAll(filepath.Join(root, linked), 0o700); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(outside, escaped, incident.FileName), filepath.Join(root, linked, incident.FileName))
	// Hidden: a workspace being created, ignored silently.
	makeIncident(t, filepath.Join(root, ".creating-"+idOld+"-123"), fixture{id: idOld, status: incident.Resolved, created: now})
	return root, outside
}

func ids(entries []*Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func TestList(t *testing.T) {
	root, _ := messyRoot(t)
	s, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	entries, skipped, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{idNew, idOld, idAncient, idRunning} // newest first
	if got := ids(entries); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("entries %v, want %v", got, want)
	}
	for _, e := range entries {
		if e.Dir != filepath.Join(root, e.ID) {
			t.Errorf("entry %s dir %s", e.ID, e.Dir)
		}
	}
	wantSkipped := map[string]string{
		"dddd0000-0000-4000-8000-000000000005": "corrupt incident.json",
		"eeee0000-0000-4000-8000-000000000006": "no incident.json",
		"ffff0000-0000-4000-8000-000000000007": "belongs to incident",
		"notes.txt":                            "not a directory",
		"not-an-id":                            "not an incident ID",
		"9999aaaa-0000-4000-8000-000000000009": "symbolic link",
		"12340000-0000-4000-8000-00000000000a": "incident.json is a symbolic link (not followed)",
	}
	got := map[string]string{}
	for _, sk := range skipped {
		got[sk.Name] = sk.Reason
	}
	for name, reason := range wantSkipped {
		if !strings.Contains(got[name], reason) {
			t.Errorf("skipped %s: reason %q, want it to contain %q", name, got[name], reason)
		}
	}
	if len(got) != len(wantSkipped) {
		t.Errorf("skipped %v, want exactly %v (hidden entries are ignored silently)", got, wantSkipped)
	}
}

func TestListMissingAndEmptyRoot(t *testing.T) {
	for name, root := range map[string]string{"missing": filepath.Join(t.TempDir(), "nope"), "empty": t.TempDir()} {
		t.Run(name, func(t *testing.T) {
			s, _ := New(root)
			entries, skipped, err := s.List()
			if err != nil || len(entries) != 0 || len(skipped) != 0 {
				t.Errorf("List() = %v, %v, %v; want nothing", entries, skipped, err)
			}
		})
	}
}

func TestNormalizeRef(t *testing.T) {
	tests := []struct {
		ref, want, err string
	}{
		{ref: idOld, want: idOld},
		{ref: "AAAA1111", want: "aaaa1111"},
		{ref: "aaaa", want: "aaaa"},
		{ref: "aaaa1111-00", want: "aaaa1111-00"},
		{ref: "aaa", err: "at least 4"},
		{ref: "", err: "empty"},
		{ref: "../etc", err: "invalid incident ID"},
		{ref: "aaaa/../../x", err: "invalid incident ID"},
		{ref: "aaaa1111..", err: "invalid incident ID"},
		{ref: "zzzz", err: "invalid incident ID"},
		{ref: "-aaaa", err: "invalid incident ID"},
		{ref: idOld + "0", err: "invalid incident ID"},
		{ref: "aaaa\x00", err: "invalid incident ID"},
	}
	for _, tt := range tests {
		got, err := NormalizeRef(tt.ref)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrInvalidID) {
				t.Errorf("NormalizeRef(%q) = %q, %v; want error %q", tt.ref, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeRef(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	root, _ := messyRoot(t)
	s, _ := New(root)
	tests := []struct {
		ref, want string
		err       string
		errType   any
	}{
		{ref: idOld, want: idOld},
		{ref: "aaaa1", want: idOld},
		{ref: "AAAA2222", want: idNew},
		{ref: "bbbb", want: idRunning},
		{ref: "aaaa", err: "ambiguous", errType: &AmbiguousError{}},
		{ref: "abcd", err: `no incident matches "abcd" in ` + root, errType: &NotFoundError{}},
		{ref: "dddd", err: "not readable: corrupt incident.json"},
		{ref: "9999", err: "not readable: is a symbolic link"},
		{ref: "1234", err: "not readable: incident.json is a symbolic link (not followed)"},
		{ref: "../outside", err: "invalid incident ID"},
		{ref: "aa", err: "at least 4"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			e, err := s.Find(tt.ref)
			if tt.err == "" {
				if err != nil || e.ID != tt.want {
					t.Fatalf("Find(%q) = %v, %v; want %s", tt.ref, e, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Find(%q) error %v, want %q", tt.ref, err, tt.err)
			}
			switch tt.errType.(type) {
			case *AmbiguousError:
				var amb *AmbiguousError
				if !errors.As(err, &amb) || len(amb.Candidates) != 2 ||
					!strings.Contains(err.Error(), idOld+"  Pod/api-aaaa -n shop") || !strings.Contains(err.Error(), idNew) {
					t.Errorf("ambiguous error does not list both candidates: %v", err)
				}
			case *NotFoundError:
				var nf *NotFoundError
				if !errors.As(err, &nf) {
					t.Errorf("want a NotFoundError, got %T", err)
				}
			}
		})
	}
}

func TestReadFileStaysInTheWorkspace(t *testing.T) {
	root, outside := messyRoot(t)
	s, _ := New(root)
	e, err := s.Find(idOld)
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.ReadFile(e, workspace.ReportFile)
	if err != nil || string(data) != "# Triage: old\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if _, err := s.ReadFile(e, workspace.ReportJSONFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
	// An agent replaced its report with a symlink to a file outside the workspace.
	secret := filepath.Join(outside, "secret")
	writeFile(t, secret, "TOKEN")
	report := filepath.Join(root, idNew, workspace.ReportFile)
	symlink(t, secret, report)
	e, _ = s.Find(idNew)
	if data, err := s.ReadFile(e, workspace.ReportFile); err == nil {
		t.Errorf("read through a symlink out of the workspace: %q", data)
	}
	// Even one pointing at another workspace of the same root.
	os.Remove(report)
	symlink(t, filepath.Join("..", "..", idOld, workspace.ReportFile), report)
	if data, err := s.ReadFile(e, workspace.ReportFile); err == nil {
		t.Errorf("read through a symlink into another workspace: %q", data)
	}
	if _, err := s.ReadFile(e, "../"+idOld+"/"+workspace.ReportFile); err == nil {
		t.Errorf("read a path escaping the workspace")
	}
}

func TestEntryHelpers(t *testing.T) {
	e := &Entry{Incident: &incident.Incident{Status: incident.Resolved, CreatedAt: now.Add(-time.Minute), CompletedAt: at(0),
		Resource: fault.Resource{Kind: "Deployment", Name: "web"}}}
	if d, ok := e.Duration(); !ok || d != time.Minute {
		t.Errorf("Duration = %v, %v", d, ok)
	}
	if !e.LastActivity().Equal(now) || e.Resource() != "Deployment/web" {
		t.Errorf("LastActivity %v Resource %q", e.LastActivity(), e.Resource())
	}
	e.Incident.CompletedAt = nil
	if _, ok := e.Duration(); ok || !e.LastActivity().Equal(now.Add(-time.Minute)) {
		t.Errorf("unfinished: duration known or wrong last activity")
	}
	if e.AgentGone() {
		t.Errorf("a finished incident's agent is not 'gone'")
	}
	e.Incident.Status = incident.Investigating
	e.Incident.Agent.PID = os.Getpid()
	if e.AgentGone() {
		t.Errorf("this process is alive")
	}
	e.Incident.Agent.PID = 0
	if e.AgentGone() {
		t.Errorf("no PID recorded: unknown, not gone")
	}
}
