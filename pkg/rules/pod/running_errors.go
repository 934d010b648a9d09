package pod

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// RunningErrors is the rule pod/running-errors.
var RunningErrors = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/running-errors",
		Kinds: rule.PodKinds,
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A running container whose current log repeats the same error-level record (3 or more times in its last 15 minutes): it is up, and may be Ready, but fails at its job; the log classifier says what the record means.",
	},
	Check: checkRunningErrors,
}

// checkRunningErrors explains the health model's pod/log-errors symptom:
// probes see a live process, the log sees the work failing. Only a record
// that recurs counts, so one-off errors around a healthy loop do not. It
// stays Observed whatever the classifier says: a rule that traces the
// error to its cause (a NetworkPolicy, a Service) outranks it.
func checkRunningErrors(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, st := range p.Status.ContainerStatuses {
			if st.State.Running == nil {
				continue
			}
			l, _ := c.B.LogsFor(p.Name, st.Name)
			if l == nil || l.Error != "" {
				continue
			}
			b := kube.ErrorBurst(l.Text, c.Now)
			if b.N < kube.BurstErrors || b.RepeatedN < kube.BurstErrors {
				continue
			}
			out = append(out, runningErrorsFinding(c, p, st, b))
		}
	}
	return out
}

func runningErrorsFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, b kube.Burst) rule.Finding {
	line := clipRecord(b.Repeated)
	// Say what was observed: a running container is not always Ready.
	ready := "running but not Ready"
	mechanism := "The container runs but is not Ready, and its log repeats the same failure: the process is up while the work it exists for (and, with it, its readiness) keeps failing. The repeated record is that call's failure."
	if st.Ready {
		ready = "running and Ready"
		mechanism = "Liveness and readiness probes ask whether the process answers, not whether its work succeeds: a controller, shipper or agent that retries a failing call forever stays Running and Ready " +
			"while nothing it should produce is produced. The repeated record is that call's failure."
	}
	f := rule.Finding{
		Category: rule.Running.Sub("Errors"), Verdict: report.Validated, Confidence: rule.Likely, Current: true, Strength: rule.Observed,
		Subject: p.Name + "/" + st.Name,
		Evidence: []string{c.Evidence(fmt.Sprintf("Log record repeated %d times in the last %s (%d error-level records): %q", b.RepeatedN, kube.HumanDuration(kube.BurstWindow), b.N, line),
			fmt.Sprintf("logs of %s container %s (current instance)", kube.PodRef(p), st.Name), kube.LogsCmd(p, st.Name, false))},
		Hypothesis: fmt.Sprintf("Container %s of pod %s keeps failing at its work while it runs", st.Name, p.Name),
		Title:      fmt.Sprintf("container %s is %s but repeats the same error (%d times in %s): %s", st.Name, ready, b.RepeatedN, kube.HumanDuration(kube.BurstWindow), line),
		Summary:    fmt.Sprintf("Container %s of pod %s is %s, yet its current log repeats one error %d times in %s: the process is alive, the work it exists for keeps failing.", st.Name, p.Name, ready, b.RepeatedN, kube.HumanDuration(kube.BurstWindow)),
		Mechanism:  mechanism,
		Culprit:    fmt.Sprintf("%s container %s: %q (repeated %d times)", kube.PodRef(p), st.Name, line, b.RepeatedN),
		Actions: []report.Action{{Kind: report.Check, Description: "Read the repeated error in the current log and fix what it names (credentials, permissions, the endpoint it cannot reach).",
			Commands: []string{kube.LogsCmd(p, st.Name, false) + " --tail=50"}}},
	}
	if !st.Ready && readinessFailing(c, p, st.Name) {
		// Not Ready because its readiness probe fails: the probe's finding
		// (with the log's reason) is the readiness path, this one a lead.
		f.Confidence = rule.Plausible
	}
	if dec := logs.FindDecisive(b.Repeated); dec != nil && dec.Pattern != nil && dec.Pattern.Explains != "" {
		f.Category = f.Category.Sub(dec.Pattern.Class.String())
		f.Contributing = append(f.Contributing, fmt.Sprintf("The log classifier reads the record as %s: %s.", dec.Pattern.Class, dec.Pattern.Explains))
		if dec.Pattern.Fix != "" {
			f.Actions = append([]report.Action{{Kind: report.Check, Description: dec.Pattern.Fix}}, f.Actions...)
		}
	}
	return f
}

// clipRecord keeps a record's first line whole up to 400 runes: the
// decisive words of a cloud error ("is not authorized to perform: …")
// come late.
func clipRecord(s string) string {
	s = kube.FirstLine(s)
	if r := []rune(s); len(r) > 400 {
		return string(r[:400]) + "…"
	}
	return s
}

// readinessFailing: the kubelet reports the container's readiness probe
// failing.
func readinessFailing(c *rule.Pass, p *corev1.Pod, container string) bool {
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if probeFailureEvent(&e, container, "Readiness") {
			return true
		}
	}
	return false
}
