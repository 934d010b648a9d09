package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
)

// deadProcess is a process that ran and was reaped.
func deadProcess(t *testing.T) owner.Process {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true(1)")
	}
	return owner.Process{PID: c.Process.Pid, StartTime: 1}
}

func setOwner(t *testing.T, dir string, p owner.Process) {
	t.Helper()
	path := filepath.Join(dir, incident.FileName)
	inc, err := incident.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	inc.Owner = &p
	if err := incident.Save(path, inc); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedIncident: an incident still investigating whose owner
// process is gone reads as failed, reason interrupted, and gc collects it;
// one whose owner runs is kept.
func TestInterruptedIncident(t *testing.T) {
	root := t.TempDir()
	const idDead, idLive = "cccc0000-0000-4000-8000-00000000000a", "cccc0000-0000-4000-8000-00000000000b"
	setOwner(t, makeIncident(t, root, fixture{id: idDead, status: incident.Investigating, created: now.Add(-2 * time.Hour)}), deadProcess(t))
	setOwner(t, makeIncident(t, root, fixture{id: idLive, status: incident.Investigating, created: now.Add(-2 * time.Hour)}), owner.Self())
	s, _ := New(root)
	e, err := s.Find(idDead)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Interrupted || e.Incident.Status != incident.Failed || e.Incident.FailureReason != incident.ReasonInterrupted {
		t.Errorf("dead owner: interrupted=%v status=%s reason=%q", e.Interrupted, e.Incident.Status, e.Incident.FailureReason)
	}
	if e, _ := s.Find(idLive); e.Interrupted || e.Incident.Status != incident.Investigating {
		t.Errorf("live owner reads as %s", e.Incident.Status)
	}
	res, err := s.GC(GCOptions{OlderThan: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := removedIDs(res); len(got) != 1 || got[0] != idDead {
		t.Errorf("gc removed %v, want only the interrupted %s", got, idDead)
	}
	if len(res.Running) != 1 || res.Running[0].ID != idLive {
		t.Errorf("gc running = %v", res.Running)
	}
}

// TestGCRemovesAbandonedCreation: a workspace left half-created by a
// process that is gone goes at once; one being created by a live process
// stays; one whose creator cannot be known goes after the grace period.
func TestGCRemovesAbandonedCreation(t *testing.T) {
	root := t.TempDir()
	const id = "dddd0000-0000-4000-8000-00000000000c"
	dead := filepath.Join(root, ".creating-"+id+"-"+deadProcess(t).Token()+"-123")
	live := filepath.Join(root, ".creating-"+id+"-"+owner.Self().Token()+"-456")
	oldFormat := filepath.Join(root, ".creating-"+id+"-789")
	for _, d := range []string{dead, live, oldFormat} {
		writeFile(t, filepath.Join(d, "incident.json"), "{}")
	}
	s, _ := New(root)
	res, err := s.GC(GCOptions{OlderThan: time.Hour, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if exists(t, dead) || !exists(t, live) || !exists(t, oldFormat) || res.Leftovers != 1 {
		t.Errorf("after gc: dead %v live %v old %v leftovers %d", exists(t, dead), exists(t, live), exists(t, oldFormat), res.Leftovers)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(oldFormat, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(GCOptions{OlderThan: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if exists(t, oldFormat) || !exists(t, live) {
		t.Errorf("grace period: old %v live %v", exists(t, oldFormat), exists(t, live))
	}
}
