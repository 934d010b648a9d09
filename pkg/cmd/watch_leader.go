package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-triage/kubectl-triage/pkg/leader"
)

// LeaderElectFlags are watch's high-availability flags (pkg/leader).
type LeaderElectFlags struct {
	LeaderElect   bool
	Namespace     string
	LeaseName     string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// AddFlags registers the --leader-elect flags.
func (l *LeaderElectFlags) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&l.LeaderElect, "leader-elect", false, "Run as one of several replicas: only the one holding a Lease triages; the others watch, remember the faults they see and take over, without doubling or losing incidents, when it goes away")
	f.StringVar(&l.Namespace, "leader-elect-namespace", "", "Namespace of the leader-election Lease. Default: the pod's own namespace in the cluster, else the current context's")
	f.StringVar(&l.LeaseName, "leader-elect-lease-name", "", "Name of the leader-election Lease (install --print sets the one its Role grants). Default: kubectl-triage-watch, plus the -n namespace or the MCP endpoint when given")
	nonNegativeDurationVar(f, &l.LeaseDuration, "leader-elect-lease-duration", leader.DefaultLeaseDuration, "How long followers wait after the last renewal before taking the Lease over")
	nonNegativeDurationVar(f, &l.RenewDeadline, "leader-elect-renew-deadline", leader.DefaultRenewDeadline, "How long the leader keeps retrying to renew the Lease before it stops leading")
	nonNegativeDurationVar(f, &l.RetryPeriod, "leader-elect-retry-period", leader.DefaultRetryPeriod, "How often replicas try to acquire or renew the Lease")
}

// Validate checks the durations as client-go's elector will.
func (l *LeaderElectFlags) Validate() error {
	if !l.LeaderElect {
		if l.LeaseName != "" {
			return errors.New("--leader-elect-lease-name is for --leader-elect: add it, or drop the name")
		}
		return nil
	}
	if l.LeaseName != "" {
		if errs := validation.IsDNS1123Subdomain(l.LeaseName); len(errs) > 0 {
			return fmt.Errorf("invalid --leader-elect-lease-name %q: %s", l.LeaseName, errs[0])
		}
	}
	switch {
	case l.LeaseDuration <= l.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", l.LeaseDuration, l.RenewDeadline)
	case float64(l.RenewDeadline) <= 1.2*float64(l.RetryPeriod) || l.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than 1.2 × --leader-elect-retry-period (%s)", l.RenewDeadline, l.RetryPeriod)
	}
	return nil
}
