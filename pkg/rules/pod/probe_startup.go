package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// probeStartupFailed: the application's own start-up failed in this
// instance (a servlet container keeps serving with the webapp undeployed, a
// framework logs its failure and the process stays up), so the probe's path
// answers 404, an error or nothing at all; the log's decisive line says why.
const probeStartupFailed probeClass = "StartupFailed"

// startupFailedRe is a runtime or framework saying the application did not
// start: Tomcat's "Context [/x] startup failed due to previous errors" and
// "One or more Filters/listeners failed to start"; Spring Boot's
// "Application run failed" and "APPLICATION FAILED TO START"; Jetty's
// "Failed startup of context"; WildFly's "Deployment ... failed"; a generic
// "failed to start".
var startupFailedRe = regexp.MustCompile(`(?i)startup failed due to previous errors|One or more (?:Filters|listeners) failed to start|Application run failed|APPLICATION FAILED TO START|Failed startup of context|Error starting ApplicationContext|\bfailed to start\b|WFLYCTL0013: Operation \("deploy"\) failed`)

// probeStartupReason reads the running instance's log for a start-up
// failure and its cause: the failure's own line proves the application is
// not serving, the decisive line (a specific class, never a bare error word)
// is why. A probe refused before the application's start-up ran is not
// explained by it, nor a log that names no cause.
func probeStartupReason(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container) *probeAnswer {
	cur, _ := c.B.LogsFor(p.Name, ctr.Name)
	if cur == nil || cur.Error != "" {
		return nil
	}
	marker := ""
	for _, l := range strings.Split(cur.Text, "\n") {
		if startupFailedRe.MatchString(l) {
			marker = strings.TrimSpace(l)
		}
	}
	if marker == "" {
		return nil
	}
	dec := logs.FindDecisive(cur.Text)
	if dec == nil || dec.Pattern.Priority < startupCauseMin || startupFailedRe.MatchString(dec.Line) {
		return nil
	}
	line := strings.TrimSpace(kube.FirstLine(dec.Line))
	if len(line) > 300 {
		line = line[:297] + "..."
	}
	what := dec.Subject
	if what == "" {
		what = dec.Pattern.Explains
	}
	return &probeAnswer{
		probeReason: probeReason{class: probeStartupFailed,
			explains: fmt.Sprintf("the application did not start in this instance (%q): %s, so the probed endpoint is not served", kube.FirstLine(marker), what)},
		line: line, subject: what, causeFix: dec.Pattern.Fix,
	}
}

// startupCauseMin is the lowest decisive priority that names a cause (a
// version, a variable, a dependency), not only that something failed.
const startupCauseMin = 70

// startupHeadline is the title's clause for a start-up failure.
func (a *probeAnswer) startupHeadline(output string, target probeTarget) string {
	got := "an error"
	if sc := probeStatusCode(output); sc != "" {
		got = "HTTP " + sc
	} else if strings.Contains(output, "connection refused") {
		got = "no connection"
	}
	return fmt.Sprintf("gets %s from %s because the application failed to start: %s", got, target.Desc, a.subject)
}

// startupFix is the cause's own fix, with the log to read.
func (a *probeAnswer) startupFix(p *corev1.Pod, ctr *corev1.Container) report.Action {
	desc := a.causeFix
	if desc == "" {
		desc = "Fix what the application's start-up log names; the probe passes once the application starts."
	}
	return report.Action{Kind: report.Immediate, Description: desc,
		Commands: []string{kube.LogsCmd(p, ctr.Name, false)}}
}
