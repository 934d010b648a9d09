package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

func TestLeaderElectFlagsValidate(t *testing.T) {
	ok := LeaderElectFlags{LeaderElect: true, LeaseDuration: leader.DefaultLeaseDuration, RenewDeadline: leader.DefaultRenewDeadline, RetryPeriod: leader.DefaultRetryPeriod}
	cases := []struct {
		name   string
		mutate func(*LeaderElectFlags)
		want   string
	}{
		{"defaults", func(*LeaderElectFlags) {}, ""},
		{"off: not checked", func(l *LeaderElectFlags) { l.LeaderElect, l.LeaseDuration = false, 0 }, ""},
		{"lease not longer than renew", func(l *LeaderElectFlags) { l.LeaseDuration = l.RenewDeadline }, "--leader-elect-lease-duration (10s) must be longer than --leader-elect-renew-deadline (10s)"},
		{"renew within the jittered retry", func(l *LeaderElectFlags) { l.RetryPeriod = 9 * time.Second }, "--leader-elect-renew-deadline (10s) must be longer than 1.2 × --leader-elect-retry-period (9s)"},
		{"no retry period", func(l *LeaderElectFlags) { l.RetryPeriod = 0 }, "--leader-elect-retry-period"},
		{"lease name", func(l *LeaderElectFlags) { l.LeaseName = "kubectl-triage-watch" }, ""},
		{"invalid lease name", func(l *LeaderElectFlags) { l.LeaseName = "Watch_1" }, `invalid --leader-elect-lease-name "Watch_1"`},
		{"lease name without leader election", func(l *LeaderElectFlags) { l.LeaderElect, l.LeaseName = false, "kubectl-triage-watch" }, "--leader-elect-lease-name is for --leader-elect"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ok
			tc.mutate(&l)
			err := l.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate = %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate = %v; want %q", err, tc.want)
			}
		})
	}
}

// TestStatusShowsGroupedFaults: status says how many faults watch grouped
// into an incident, and by which cause.
func TestStatusShowsGroupedFaults(t *testing.T) {
	root := standardRoot(t)
	members := []incident.Member{
		{EventID: "e1", Resource: fault.Resource{Kind: "Pod", Namespace: "shop", Name: "api-1"}, FaultType: "CrashLoop", Cause: "ReplicaSet/shop/api-0f8f"},
		{EventID: "e2", Resource: fault.Resource{Kind: "Pod", Namespace: "shop", Name: "api-2"}, FaultType: "CrashLoop", Cause: "ReplicaSet/shop/api-0f8f"},
	}
	if inc, err := incident.AddMembers(workspace.Files(filepath.Join(root, idResolved)), members); inc == nil || len(inc.Members) != 2 {
		t.Fatalf("AddMembers: %v", err)
	}
	r := run(t, "status", "0f8fad5b", "--workspace-root", root)
	if got := fields(r.stdout)["Grouped"]; got != "2 more fault(s) with the same cause (ReplicaSet/shop/api-0f8f); incident.json lists them under members" {
		t.Errorf("Grouped = %q\n%s", got, r.stdout)
	}
	if r := run(t, "status", "0f8fad5c", "--workspace-root", root); fields(r.stdout)["Grouped"] != "" {
		t.Errorf("an incident without members says Grouped:\n%s", r.stdout)
	}
}
