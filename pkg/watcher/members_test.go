package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/watch"
)

// TestWatcherRecordsGroupedFaults: a pod's PodCrash then CrashLoop, and a
// crash of another pod, through a watcher with a group window: two
// triages, and the first incident's record lists the CrashLoop, which the
// observers see already.
func TestWatcherRecordsGroupedFaults(t *testing.T) {
	root := t.TempDir()
	release := make(chan struct{})
	var mu sync.Mutex
	var triaged []string
	triage := func(ctx context.Context, ev *fault.Event) (*incident.Incident, error) {
		mu.Lock()
		triaged = append(triaged, ev.ResourceName()+" "+ev.FaultType)
		mu.Unlock()
		<-release // the CrashLoop arrives while the PodCrash is triaged
		inc := incident.New("id-"+ev.ResourceName(), ev, "ctx", "builtin", time.Now())
		inc.Status, inc.Workspace = incident.Resolved, filepath.Join(root, ev.ResourceName())
		if err := mkdirSave(inc); err != nil {
			return nil, err
		}
		return inc, nil
	}
	frame := func(name, faultType string) []byte {
		return fmt.Appendf(nil, `{"faultId":"f-%s-%s","cluster":"c1","faultType":%q,"severity":"critical","resource":{"kind":"Pod","name":%q,"namespace":"shop"}}`, name, faultType, faultType, name)
	}
	var seen []Outcome
	f, _ := watch.NewFilter("warning")
	w, err := New(Config{Filter: f, GroupWindow: 30 * time.Second, MaxIncidents: 2, Triage: triage,
		Observers: []Observer{func(_ context.Context, o Outcome) { mu.Lock(); seen = append(seen, o); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	src, sent := feedSent(frame("api", "PodCrash"), frame("api", "CrashLoop"), frame("cart", "PodCrash"))
	done := make(chan error)
	go func() { done <- w.Run(context.Background(), src) }()
	<-sent
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(triaged) != 2 || triaged[0] != "api PodCrash" || triaged[1] != "cart PodCrash" {
		t.Fatalf("triaged %v; want api's PodCrash and cart's", triaged)
	}
	rec, err := incident.Load(filepath.Join(root, "api", incident.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Members) != 1 || rec.Members[0].FaultType != "CrashLoop" || rec.Members[0].Cause != "Pod/shop/api" {
		t.Errorf("incident.json members %+v; want api's CrashLoop", rec.Members)
	}
	if len(seen) != 2 || len(seen[0].Incident.Members) != 1 {
		t.Errorf("observers saw %d outcomes, the first with %+v", len(seen), seen[0].Incident.Members)
	}
	if st := w.Stats(); st.Grouped != 1 || st.Enqueued != 2 {
		t.Errorf("stats %+v; want 1 grouped, 2 enqueued", st)
	}
}

func mkdirSave(inc *incident.Incident) error {
	if err := os.MkdirAll(inc.Workspace, 0o700); err != nil {
		return err
	}
	return incident.Save(filepath.Join(inc.Workspace, incident.FileName), inc)
}
