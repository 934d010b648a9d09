// Package scenarios is the scenario corpus: each broken (or healthy) state
// the builtin investigator must read is defined once, as a captured
// workspace in a directory of its own beside this file:
//
//	test/scenarios/NAME/
//	  scenario.json  what to triage and what the report must say (Meta)
//	  context/       the evidence, exactly as the plugin wrote it into the
//	                 workspace (resources/, events.json, logs.txt, …)
//	  report.md      the golden report: the builtin investigator's report
//	                 on context/ as of Meta.CapturedAt, as printed (Render)
//
// The unit tier replays every directory in memory (workspace.Open, then
// investigate.Investigate at the captured time) against report.md; the e2e
// tier (test/e2e TestScenarios) creates the same objects, events and logs
// in a real control plane, runs `kubectl triage` on them and checks the
// same expectations and the golden Root cause. `make capture-scenarios`
// regenerates the directories from that e2e run.
package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Files of a scenario directory.
const (
	MetaFile   = "scenario.json"
	ContextDir = "context"
	ReportFile = "report.md"
)

// Meta is scenario.json.
type Meta struct {
	// Args are the `kubectl triage` arguments the e2e run passes (before
	// -n Namespace), e.g. ["deploy/checkout"] or ["po", "cruncher"].
	Args []string `json:"args"`
	// Namespace is the namespace the objects were created in; the e2e
	// run creates it again under that name.
	Namespace string `json:"namespace"`
	// Target is the triaged object, as workspace.Open wants it.
	Target fault.Resource `json:"target"`
	// Category is the prefix the root cause's category must have, and
	// Culprit what the root cause must name; Healthy instead of a
	// Category for a healthy target, whose Culprit, if any, is the fault
	// it names as history.
	Category string   `json:"category,omitempty"`
	Culprit  []string `json:"culprit,omitempty"`
	Healthy  bool     `json:"healthy,omitempty"`
	// State, when set, is the Summary's State (ongoing, healthy,
	// historical) the report must give.
	State string `json:"state,omitempty"`
	// Severity is the live run's, replayed with the report.
	Severity string `json:"severity,omitempty"`
	// CapturedAt is when the live run read the evidence: the replay's now.
	CapturedAt time.Time `json:"capturedAt"`
	// Source says where the scenario's material came from.
	Source string `json:"source"`
}

// Scenario is one directory of the corpus.
type Scenario struct {
	Name string
	Dir  string
	Meta Meta
}

// Root is the corpus directory (this package's source directory), so tests
// in any package find it.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// All loads every scenario directory under root, in name order.
func All(root string) ([]Scenario, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read scenario corpus: %w", err)
	}
	var out []Scenario
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := Load(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Load reads one scenario directory's metadata.
func Load(dir string) (Scenario, error) {
	s := Scenario{Name: filepath.Base(dir), Dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return s, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if err := json.Unmarshal(data, &s.Meta); err != nil {
		return s, fmt.Errorf("scenario %s: read %s: %w", s.Name, MetaFile, err)
	}
	if s.Meta.Target.Kind == "" || s.Meta.CapturedAt.IsZero() || len(s.Meta.Args) == 0 {
		return s, fmt.Errorf("scenario %s: %s needs target, args and capturedAt", s.Name, MetaFile)
	}
	return s, nil
}

// Bundle loads the captured evidence, as replay opens a workspace, with
// the target and the capture time scenario.json records.
func (s Scenario) Bundle() (*bundle.Bundle, error) {
	c, err := workspace.Open(context.Background(), s.Dir, workspace.OpenOptions{Target: s.Meta.Target, CapturedAt: s.Meta.CapturedAt})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return c.Bundle, nil
}

// Replay investigates the captured evidence as of its capture. Of the
// report only the run's wall time is not the evidence's: it is zeroed, and
// the incident ID (random per live run) is the scenario's name.
func (s Scenario) Replay() (*report.Report, error) {
	b, err := s.Bundle()
	if err != nil {
		return nil, err
	}
	rep := investigate.Investigate(b, investigate.Options{IncidentID: s.Name, Agent: "builtin", Severity: s.Meta.Severity, Now: s.Meta.CapturedAt})
	rep.Duration = 0
	return rep, nil
}

// Render is the report as `kubectl triage` prints it (and `replay`
// compares it): through the engine's redaction pass (redact.Report, which
// cleans rep in place), so a golden reads like the printed report,
// [REDACTED] included.
func Render(rep *report.Report) string {
	return redact.Report(rep)
}

// Check says how the report misses the scenario's expectations (nil when
// it meets them): the root cause's category prefix and what the root cause
// names, or a healthy report; and the State when pinned.
func (s Scenario) Check(rep *report.Report) []string {
	var miss []string
	m := s.Meta
	if m.Healthy {
		if !rep.Healthy {
			miss = append(miss, fmt.Sprintf("want a healthy report, got %q (%s)", rep.Title, rep.RootCause.Category))
		}
	} else if !strings.HasPrefix(rep.RootCause.Category, m.Category) {
		miss = append(miss, fmt.Sprintf("root cause category %q, want prefix %q; title %q", rep.RootCause.Category, m.Category, rep.Title))
	}
	// A healthy report may have culprits too: the fault it names as
	// history.
	section := report.Sections(rep.Markdown())["root cause"]
	for _, c := range m.Culprit {
		if !strings.Contains(section, c) {
			miss = append(miss, fmt.Sprintf("the Root cause section does not name %q", c))
		}
	}
	if m.State != "" && !strings.Contains(rep.Markdown(), "State: "+m.State) {
		miss = append(miss, "want State: "+m.State)
	}
	return miss
}

// Capture makes dir a scenario from a live run's workspace (wsDir): its context/
// (copied as the plugin wrote it) and meta, with CapturedAt and Severity
// taken from the workspace's builtin report; then writes the golden
// report.md from the replay. A previous capture in dir is replaced.
func Capture(wsDir, dir string, meta Meta) error {
	c, err := workspace.Open(context.Background(), wsDir, workspace.OpenOptions{})
	if err != nil {
		return fmt.Errorf("capture %s: %w", wsDir, err)
	}
	if c.Report == nil {
		return fmt.Errorf("capture %s: no readable %s", wsDir, workspace.ReportJSONFile)
	}
	meta.CapturedAt, meta.Severity = c.Report.Time.UTC(), c.Report.Severity
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := copyTree(filepath.Join(wsDir, ContextDir), filepath.Join(dir, ContextDir)); err != nil {
		return fmt.Errorf("capture %s: %w", wsDir, err)
	}
	m, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, MetaFile), append(m, '\n'), 0o644); err != nil {
		return err
	}
	s, err := Load(dir)
	if err != nil {
		return err
	}
	replayed, err := s.Replay()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReportFile), []byte(Render(replayed)), 0o644)
}

// notEvidence are the files of context/ that the plugin writes for an
// external agent rather than as evidence: its kubeconfig and instructions.
var notEvidence = map[string]bool{
	filepath.Base(workspace.AgentKubeconfig):  true,
	filepath.Base(workspace.InstructionsFile): true,
}

// copyTree copies the regular files under src to dst but notEvidence,
// world-readable (the workspace keeps them 0600: they are committed here).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if notEvidence[rel] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}
