package fault

// severityOf is the one severity table of every source that names a fault
// type itself: Classify (a one-shot triage, the cluster source's status
// transitions and the reconciling scan), the cluster source's Warning
// events, and MCP notifications that state no severity (events mode). A
// fault is rated by what it is, not by who saw it: the same CrashLoop is
// critical from a scan and from an event, and a failed Job is critical as
// kubernetes-mcp-server rates JobFailure/BackoffLimitExceeded.
var severityOf = map[string]string{
	// Down or about to be, with no self-healing in sight.
	TypeCrashLoop:         SeverityCritical,
	TypeOOMKilled:         SeverityCritical,
	TypeNodeUnhealthy:     SeverityCritical,
	TypeDeploymentFailure: SeverityCritical,
	TypeJobFailure:        SeverityCritical,
	TypeEvicted:           SeverityCritical,
	// Wrong, but contained or possibly transient.
	TypeImagePull:     SeverityWarning,
	TypeConfigError:   SeverityWarning,
	TypeUnschedulable: SeverityWarning,
	TypePodFailed:     SeverityWarning,
	TypePodCrash:      SeverityWarning,
	TypePodNotReady:   SeverityWarning,
	TypeProbeFailure:  SeverityWarning,
	// Nothing looked wrong; the user asked.
	TypeManual: SeverityInfo,
}

// SeverityOf is the severity of a fault type from the table every source
// shares; ok is false for a type it does not know (an event reason of its
// own), whose severity the caller derives.
func SeverityOf(faultType string) (severity string, ok bool) {
	severity, ok = severityOf[faultType]
	return severity, ok
}

// severityFor is SeverityOf for the fault types Classify itself names.
func severityFor(faultType string) string {
	if s, ok := severityOf[faultType]; ok {
		return s
	}
	return SeverityWarning
}
