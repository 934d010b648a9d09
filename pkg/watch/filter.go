package watch

import (
	"fmt"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Filter passes events whose severity is at least a minimum, on
// fault.SeverityRank's scale (both the faults vocabulary info/warning/critical
// and the MCP logging levels). The zero Filter passes everything.
type Filter struct {
	min        int
	minName    string
	namespaces map[string]bool // nil: every namespace
}

// NewFilter makes the --min-severity filter; "" passes everything.
func NewFilter(minSeverity string) (Filter, error) {
	if minSeverity == "" {
		return Filter{}, nil
	}
	r := fault.SeverityRank(minSeverity)
	if r < 0 {
		return Filter{}, fmt.Errorf("unknown severity %q: want one of info, warning, critical (or debug, notice, error, alert, emergency)", minSeverity)
	}
	return Filter{min: r, minName: minSeverity}, nil
}

// MinSeverity is the minimum as given ("" when none).
func (f Filter) MinSeverity() string { return f.minName }

// Allow reports whether ev passes: in -n's namespaces, and severe enough
// (Why says which it is not). An event whose severity is not
// on the scale counts as a warning: an unfamiliar word from a newer server
// should not silence a fault under the default threshold.
func (f Filter) Allow(ev *fault.Event) bool { return f.Why(ev) == NotFiltered }

// FilterReason is why a filter drops an event, for the log line that says
// so: a Node fault dropped by -n is not "below --min-severity".
type FilterReason int

const (
	NotFiltered      FilterReason = iota
	BelowSeverity                 // below --min-severity
	OutsideNamespace              // not in the namespaces of -n
)

func (r FilterReason) String() string {
	return [...]string{"", "below --min-severity", "outside the namespace of -n"}[r]
}

// Why says whether ev passes (NotFiltered) and, if not, why not.
func (f Filter) Why(ev *fault.Event) FilterReason {
	if f.namespaces != nil && !f.namespaces[ev.Namespace()] {
		return OutsideNamespace
	}
	if EventRank(ev) < f.min {
		return BelowSeverity
	}
	return NotFiltered
}

// InNamespaces narrows f to events in the given namespaces (-n for a
// source whose server cannot filter by namespace itself); none: all.
func (f Filter) InNamespaces(namespaces ...string) Filter {
	if len(namespaces) == 0 {
		f.namespaces = nil
		return f
	}
	f.namespaces = make(map[string]bool, len(namespaces))
	for _, ns := range namespaces {
		f.namespaces[ns] = true
	}
	return f
}

// EventRank is ev's severity rank, with unknown severities ranked as warning.
func EventRank(ev *fault.Event) int {
	if r := fault.SeverityRank(ev.Severity); r >= 0 {
		return r
	}
	return fault.SeverityRank(fault.SeverityWarning)
}
