package pod

import (
	"fmt"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// NotOOMKilled is the rule pod/not-oomkilled.
var NotOOMKilled = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/not-oomkilled",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "An exit code 137 that was not the kernel's OOM killer, said honestly.",
	},
	Check: checkNotOOMKilled,
}

// checkNotOOMKilled rules out the OOM killer for a container that died from
// SIGKILL (137) without reason OOMKilled: the kernel's OOM kill of the
// container is always recorded as OOMKilled.
func checkNotOOMKilled(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			t := st.LastTerminationState.Terminated
			if st.State.Terminated != nil {
				t = st.State.Terminated
			}
			if t == nil || t.ExitCode != 137 || t.Reason == "OOMKilled" {
				continue
			}
			out = append(out, rule.Finding{
				Category:   rule.OOMKilled,
				Hypothesis: fmt.Sprintf("Container %s is OOMKilled at its memory limit", st.Name),
				Verdict:    report.Refuted, Confidence: rule.Negligible, Subject: p.Name + "/" + st.Name,
				Evidence: []string{c.Evidence(
					fmt.Sprintf("Container %s died from SIGKILL (exit code 137) with reason %s, not OOMKilled", st.Name, kube.OrDash(t.Reason)),
					fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", kube.PodRef(p), st.Name),
					kube.StatusCmd(p, st.Name, "lastState.terminated"))},
			})
		}
	}
	return out
}
