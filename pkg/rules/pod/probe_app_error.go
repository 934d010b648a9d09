package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// probeAppError: a readiness or startup probe fails because the
// application is up but not serving, and its own log says why: the
// decisive line of the running instance is of a class that names a cause
// (an incompatible peer version, a refused login, an unreachable or
// untrusted dependency, an invalid setting). The probe's output ("503",
// "not ready", a sealed status) only says that it is not ready.
const probeAppError probeClass = "AppError"

// appErrorProbeClasses are the failures an application that is not ready
// produces; a probe whose own settings are wrong (a path, a port, a
// scheme) is that setting's finding.
var appErrorProbeClasses = map[probeClass]bool{
	probeCommandFailed: true, probeFailed: true, probeUnhealthy: true,
	probeConnectionRefused: true, probeTimeout: true,
}

// probeAppErrorReason reads the current log's decisive line when nothing
// probe-specific explained a failing readiness or startup probe. A liveness
// failure restarts the container and is read from the previous instance by
// the crash rules; a line that names no cause (a bare error word, a
// timeout, below startupCauseMin) explains nothing.
func probeAppErrorReason(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, kind probeKind, name probeClass) *probeAnswer {
	if kind.Name == "Liveness" || !appErrorProbeClasses[name] {
		return nil
	}
	cur, _ := c.B.LogsFor(p.Name, ctr.Name)
	if cur == nil || cur.Error != "" {
		return nil
	}
	dec := logs.FindDecisive(cur.Text)
	if dec == nil || dec.Pattern == nil || dec.Pattern.Priority < startupCauseMin {
		return nil
	}
	what := dec.Subject
	if what == "" {
		what = dec.Pattern.Explains
	}
	return &probeAnswer{
		probeReason: probeReason{class: probeAppError,
			explains: fmt.Sprintf("the application runs but is not ready, and its log says why (%s): %s", dec.Pattern.Class, what)},
		line: clipRecord(strings.TrimSpace(dec.Line)), subject: what, causeFix: dec.Pattern.Fix,
	}
}

// appErrorHeadline is the title's clause: the probe's answer, then the
// application's own line.
func (a *probeAnswer) appErrorHeadline(output string, target probeTarget) string {
	got := "fails"
	if sc := probeStatusCode(output); sc != "" {
		got = "gets HTTP " + sc
	} else if output != "" {
		got = fmt.Sprintf("fails (%s)", kube.Shorten(kube.ProbeVerdict(output), 80))
	}
	if target.Handler != "exec" {
		got += " from " + target.Desc
	}
	return fmt.Sprintf("%s because the application is not ready: %s", got, a.line)
}

// appErrorFix is the log class's own fix, with the log to read.
func (a *probeAnswer) appErrorFix(p *corev1.Pod, ctr *corev1.Container) report.Action {
	desc := a.causeFix
	if desc == "" {
		desc = "Fix what the application's log names; the probe passes once the application is ready."
	}
	return report.Action{Kind: report.Immediate, Description: desc, Commands: []string{kube.LogsCmd(p, ctr.Name, false)}}
}
