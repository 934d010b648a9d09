package incident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

func TestAddMembers(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "investigation.md")
	if err := os.WriteFile(report, []byte("# Node worker-3 is NotReady\n\nThe kubelet stopped posting status.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inc := &Incident{IncidentID: "i1", Status: Resolved, Resource: fault.Resource{Kind: "Node", Name: "worker-3"}, FaultType: "NodeUnhealthy",
		CreatedAt: time.Now(), Report: &ReportRef{Path: report}}
	if err := Save(filepath.Join(dir, FileName), inc); err != nil {
		t.Fatal(err)
	}
	m := func(id, name string) Member {
		return Member{EventID: id, Resource: fault.Resource{Kind: "Pod", Namespace: "shop", Name: name}, FaultType: "PodNotReady", Severity: "warning", Cause: "Node//worker-3"}
	}
	if _, err := AddMembers(safefile.Dir{Base: dir}, []Member{m("a", "web-0"), m("b", "web-1")}); err != nil {
		t.Fatal(err)
	}
	// Later members: the same one again is not added twice, and the
	// report's section is replaced, not repeated.
	got, err := AddMembers(safefile.Dir{Base: dir}, []Member{m("b", "web-1"), m("c", "db-0")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Members) != 3 {
		t.Fatalf("members %+v; want 3", got.Members)
	}
	loaded, err := Load(filepath.Join(dir, FileName))
	if err != nil || len(loaded.Members) != 3 || loaded.Members[2].Resource.Name != "db-0" || loaded.Members[0].Cause != "Node//worker-3" {
		t.Fatalf("incident.json members %+v, %v", loaded.Members, err)
	}
	b, _ := os.ReadFile(report)
	text := string(b)
	want := "# Node worker-3 is NotReady\n\nThe kubelet stopped posting status.\n\n" + membersMarker + "\n## Grouped faults\n\n" +
		"This incident also stands for 3 other fault(s) that share its cause and were not triaged on their own:\n\n" +
		"- shop/Pod/web-0 PodNotReady (warning), via Node//worker-3\n" +
		"- shop/Pod/web-1 PodNotReady (warning), via Node//worker-3\n" +
		"- shop/Pod/db-0 PodNotReady (warning), via Node//worker-3\n"
	if text != want {
		t.Fatalf("report:\n%s\nwant:\n%s", text, want)
	}
	if strings.Count(text, "## Grouped faults") != 1 {
		t.Fatal("section repeated")
	}
}
