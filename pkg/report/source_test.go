package report

import (
	"strings"
	"testing"
)

// TestAmendedSource: an agent's report is printed as written, with what
// kubectl-triage found marked where it applies.
func TestAmendedSource(t *testing.T) {
	r, err := Parse(agentReport)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Evidence {
		for j := range r.Evidence[i].Claims {
			r.Evidence[i].Claims[j].Status = ClaimVerified
		}
	}
	r.Evidence[2].Claims[0].Status, r.Evidence[2].Claims[0].Basis = ClaimUnverified, "no read of it"
	del := r.Actions[0]
	r.Withheld = []Withheld{{Action: del, Reason: "pod api is Running and Ready now; `kubectl delete` would delete it"}}
	r.Actions = append(r.Actions[1:], Action{Kind: Check, Description: "Look at the pod's events.", Commands: []string{"kubectl get events -n shop"}})
	r.ConfidenceCap = "capped at speculation (0.45) by kubectl-triage: the root cause rests only on claims no read of the agent's backs (E3)"
	r.Addenda = []string{"## Second opinion\n\nboth shown\n"}
	r.Notes = []string{"kubectl-triage: 5 claims"}
	md := r.Markdown()

	lines := strings.Split(md, "\n")
	find := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		return ""
	}
	if l := find("- **E3**"); !strings.HasSuffix(l, "⚠ _unverified by kubectl-triage: `kubectl get cm/settings -n shop -o yaml` (no read of it)_") {
		t.Errorf("E3 is not marked: %q", l)
	}
	if l := find("- **E1**"); strings.Contains(l, "unverified") {
		t.Errorf("a verified item is marked: %q", l)
	}
	if strings.Contains(md, "1. Restart the pod.") || strings.Contains(md, "   kubectl delete pod api -n shop") {
		t.Errorf("the withheld action is still proposed:\n%s", md)
	}
	rec := md[strings.Index(md, "## Recommended actions"):strings.Index(md, "## Builtin findings")]
	for _, want := range []string{"2. Check the deployment", "### Not proposed",
		"- Restart the pod. `kubectl delete pod api -n shop` _Withheld by kubectl-triage's safe-fix policy: pod api is Running and Ready now; `kubectl delete` would delete it._",
		"- Instead: Look at the pod's events. `kubectl get events -n shop`"} {
		if !strings.Contains(rec, want) {
			t.Errorf("Recommended actions lacks %q:\n%s", want, rec)
		}
	}
	if strings.Index(rec, "### Not proposed") < strings.Index(rec, "Pin the tag") {
		t.Errorf("Not proposed is not at the end of the section:\n%s", rec)
	}
	if rc := Sections(md)["root cause"]; !strings.HasPrefix(rc, "**The image tag is wrong** (probable, 0.65)\n\n> **kubectl-triage:** the confidence is capped at speculation (0.45)") {
		t.Errorf("root cause:\n%s", rc)
	}
	if !strings.Contains(md, "Verdict: refuted.") || !strings.Contains(md, "\n## Second opinion\n\nboth shown\n\n---\nkubectl-triage: 5 claims") {
		t.Errorf("the rest of the report, the addenda or the footer:\n%s", md)
	}
	// The amended report is still a valid one, and parses the same.
	again, err := Parse(md)
	if err != nil || again.RootCause.Statement != r.RootCause.Statement || len(again.Evidence) != 4 || len(again.Actions) != 2 {
		t.Errorf("the amended report does not parse back: %v %+v", err, again)
	}
}

// A table row is marked inside its last cell, so the table stays one.
func TestAmendedSourceTableRow(t *testing.T) {
	r, err := Parse("## Summary\ns\n## Root cause\nx\n## Evidence\n| ID | Fact |\n|---|---|\n| E1 | `kubectl get cm x` |\n")
	if err != nil {
		t.Fatal(err)
	}
	r.Evidence[0].Claims[0].Status, r.Evidence[0].Claims[0].Basis = ClaimUnverified, "no read"
	if got := r.Markdown(); !strings.Contains(got, "| E1 | `kubectl get cm x` ⚠ _unverified by kubectl-triage: `kubectl get cm x` (no read)_ |\n") {
		t.Errorf("table row:\n%s", got)
	}
}

// A claim on an item's second line is marked there; a quoted log line of
// a code block on the item's first line, outside the block.
func TestAmendedSourceMarksWhereTheClaimIs(t *testing.T) {
	r, err := Parse(agentReport)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Evidence {
		for j := range r.Evidence[i].Claims {
			c := &r.Evidence[i].Claims[j]
			c.Status = ClaimVerified
			if c.Text == "kubectl logs api -n shop -c app --previous" || c.Text == "starting api v1.4.2" {
				c.Status, c.Basis = ClaimUnverified, "no read"
			}
		}
	}
	md := r.Markdown()
	if l := lineOf(md, "  (from `kubectl logs api -n shop -c app --previous`)"); !strings.HasSuffix(l, "⚠ _unverified by kubectl-triage: `kubectl logs api -n shop -c app --previous` (no read)_") {
		t.Errorf("continuation line: %q", l)
	}
	if l := lineOf(md, "Tool result 4"); !strings.HasSuffix(l, "⚠ _unverified by kubectl-triage: `starting api v1.4.2` (no read)_") {
		t.Errorf("the code block's item: %q", l)
	}
	if !strings.Contains(md, "```\nstarting api v1.4.2\n") || strings.Contains(lineOf(md, "- **E2**"), "unverified") {
		t.Errorf("a code block or another line changed:\n%s", md)
	}
}

func lineOf(md, prefix string) string {
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
