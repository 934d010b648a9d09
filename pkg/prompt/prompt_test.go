package prompt

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

func TestBuild(t *testing.T) {
	inc := &incident.Incident{IncidentID: "id-1", Cluster: "prod", Context: "prod-ctx", FaultType: "CrashLoop", Severity: "critical",
		Resource: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop"}, Timestamp: time.Now()}
	p := Build(inc, Options{ClusterAccess: true})
	for _, want := range []string{"Pod/api in namespace shop", "id-1", "CRITICAL", "context/logs.txt", "context/events.json",
		"READ-ONLY triage mode", "## Root cause", "## Summary", "output/investigation.md", "untrusted"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	inc.Severity = "info"
	if low := Build(inc, Options{}); strings.Contains(low, "CRITICAL") || !strings.Contains(low, "thoroughly") {
		t.Errorf("a low-severity prompt should ask for depth, not urgency")
	}
	if !strings.Contains(p, "read-only: use it with kubectl") || strings.Contains(Build(inc, Options{}), "use it with kubectl") {
		t.Errorf("the prompt must say whether KUBECONFIG reaches the cluster")
	}
}
