package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
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
