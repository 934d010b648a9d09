package report

import (
	"reflect"
	"strings"
	"testing"
)

// agentReport is a report as an AI CLI writes one, following PROMPT.md
// more or less: a list of evidence with inline commands, a table of
// hypotheses, subsections of actions with code blocks.
const agentReport = `# Triage: Pod/api (shop) — the image tag is wrong

## Summary
The pod crashes because its image is wrong. Confidence: probable (0.65).

## Symptom
- pod/api is in CrashLoopBackOff

## Evidence
- **E1** Pod api restarted 5 times. _Source:_ pod/api status · ` + "`kubectl get pods -n shop`" + `
- **E2** The previous container logged ` + "`FATAL config: required env DATABASE_URL is empty`" + `
  (from ` + "`kubectl logs api -n shop -c app --previous`" + `)
- **E3** ConfigMap settings has no key IMAGE_TAG · ` + "`kubectl get cm/settings -n shop -o yaml`" + `

Tool result 4 (` + "`kubectl logs api -n shop`" + `):

` + "```" + `
starting api v1.4.2
FATAL config: required env DATABASE_URL is empty
` + "```" + `

## Hypotheses
| Hypothesis | Verdict | Confidence | Evidence |
|---|---|---|---|
| The image tag is wrong | validated | 0.65 | E3 |
| DATABASE_URL is missing | refuted | 0.2 | E1, E2 |

## Root cause
**The image tag is wrong** (probable, 0.65)

Based on E3.

## Recommended actions
### Immediate mitigation
1. Restart the pod.
   ` + "```sh" + `
   kubectl delete pod api -n shop
   ` + "```" + `
2. Check the deployment with ` + "`kubectl describe deploy/api -n shop`" + `.

### Long-term fix
- Pin the tag in the manifest.

## Builtin findings
Verdict: refuted. The builtin blames DATABASE_URL; the tag is the cause.
`

func TestParseAgentReport(t *testing.T) {
	r, err := Parse(agentReport)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(agentReport, "\n")
	if r.RootCause.Statement != "The image tag is wrong" || r.ConfidenceLevel != Probable || r.Confidence != 0.65 {
		t.Errorf("headline: %q %q %v", r.RootCause.Statement, r.ConfidenceLevel, r.Confidence)
	}
	if !reflect.DeepEqual(r.RootCause.Evidence, []string{"E3"}) {
		t.Errorf("root cause evidence %v", r.RootCause.Evidence)
	}
	if r.OnBuiltin != StanceRefuted {
		t.Errorf("stance %q", r.OnBuiltin)
	}

	type claim struct {
		kind ClaimKind
		text string
	}
	want := []struct {
		id, line string // line: the start of the item's first line
		claims   []claim
	}{
		{"E1", "- **E1**", []claim{{ClaimCommand, "kubectl get pods -n shop"}, {ClaimObject, "pod/api"}}},
		{"E2", "- **E2**", []claim{{ClaimQuote, "FATAL config: required env DATABASE_URL is empty"}, {ClaimCommand, "kubectl logs api -n shop -c app --previous"}}},
		{"E3", "- **E3**", []claim{{ClaimCommand, "kubectl get cm/settings -n shop -o yaml"}}},
		// A paragraph and the code block under it are one item; the block
		// quotes a log, so each of its lines is a quote.
		{"", "Tool result 4", []claim{{ClaimCommand, "kubectl logs api -n shop"}, {ClaimQuote, "starting api v1.4.2"}, {ClaimQuote, "FATAL config: required env DATABASE_URL is empty"}}},
	}
	if len(r.Evidence) != len(want) {
		t.Fatalf("%d evidence items, want %d: %+v", len(r.Evidence), len(want), r.Evidence)
	}
	for i, w := range want {
		e := r.Evidence[i]
		if e.ID != w.id || !strings.HasPrefix(lines[e.Line-1], w.line) {
			t.Errorf("item %d: id %q at line %d (%q), want %q at %q", i, e.ID, e.Line, lines[e.Line-1], w.id, w.line)
		}
		var got []claim
		for _, c := range e.Claims {
			got = append(got, claim{c.Kind, c.Text})
			if !strings.Contains(lines[c.Line-1], c.Text) {
				t.Errorf("claim %q: line %d is %q", c.Text, c.Line, lines[c.Line-1])
			}
		}
		if !reflect.DeepEqual(got, w.claims) {
			t.Errorf("item %s claims\n got %v\nwant %v", w.id, got, w.claims)
		}
	}
	if r.Evidence[0].Source == "" || !strings.Contains(r.Evidence[0].Fact, "restarted 5 times") {
		t.Errorf("E1 fact %q source %q", r.Evidence[0].Fact, r.Evidence[0].Source)
	}

	wantHyp := []Hypothesis{
		{Statement: "The image tag is wrong", Verdict: Validated, Confidence: 0.65, Evidence: []string{"E3"}},
		{Statement: "DATABASE_URL is missing", Verdict: Refuted, Confidence: 0.2, Evidence: []string{"E1", "E2"}},
	}
	if !reflect.DeepEqual(r.Hypotheses, wantHyp) {
		t.Errorf("hypotheses\n got %+v\nwant %+v", r.Hypotheses, wantHyp)
	}

	if len(r.Actions) != 3 {
		t.Fatalf("actions: %+v", r.Actions)
	}
	del := r.Actions[0]
	if del.Kind != Immediate || !reflect.DeepEqual(del.Commands, []string{"kubectl delete pod api -n shop"}) || del.Description != "Restart the pod." {
		t.Errorf("first action %+v", del)
	}
	if got := strings.Join(lines[del.Lines[0]-1:del.Lines[1]], "\n"); !strings.HasPrefix(got, "1. Restart") || !strings.HasSuffix(got, "```") {
		t.Errorf("first action's lines:\n%s", got)
	}
	if !reflect.DeepEqual(r.Actions[1].Commands, []string{"kubectl describe deploy/api -n shop"}) {
		t.Errorf("second action %+v", r.Actions[1])
	}
	if r.Actions[2].Kind != LongTerm || len(r.Actions[2].Commands) != 0 {
		t.Errorf("third action %+v", r.Actions[2])
	}
}

// TestParseItems covers the shapes of evidence agents write.
func TestParseItems(t *testing.T) {
	tests := []struct {
		name     string
		evidence string
		ids      []string
		claims   [][]string // each item's claim texts
	}{
		{"table rows", "| ID | Fact | Command |\n|---|---|---|\n| E1 | restarts | `kubectl get pod api` |\n| E2 | no key | `kubectl get cm x -o yaml` |\n",
			[]string{"E1", "E2"}, [][]string{{"kubectl get pod api"}, {"kubectl get cm x -o yaml"}}},
		{"numbered with continuation", "1. E1: the pod restarts\n   seen with `kubectl describe pod api`\n2. E2: Deployment/web is fine\n",
			[]string{"E1", "E2"}, [][]string{{"kubectl describe pod api"}, {"Deployment/web"}}},
		{"a code block of commands", "E1 — the events:\n```\n$ kubectl get events -n shop\nLAST SEEN   TYPE\n```\n",
			[]string{"E1"}, [][]string{{"kubectl get events -n shop"}}},
		{"a table kubectl printed is not quoted", "- E1 pods (`kubectl get pods`)\n\n```\nNAME  READY\napi   0/1\n```\n",
			[]string{"E1"}, [][]string{{"kubectl get pods"}}},
		{"plain prose cites nothing", "- E1 The pod is crashing.\n", []string{"E1"}, [][]string{nil}},
		{"a URL path is no object", "- E1 see https://example.com/pods/api\n", []string{"E1"}, [][]string{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("## Summary\ns\n## Root cause\nx\n## Evidence\n" + tt.evidence)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			var claims [][]string
			for _, e := range r.Evidence {
				ids = append(ids, e.ID)
				var texts []string
				for _, c := range e.Claims {
					texts = append(texts, c.Text)
				}
				claims = append(claims, texts)
			}
			if !reflect.DeepEqual(ids, tt.ids) || !reflect.DeepEqual(claims, tt.claims) {
				t.Errorf("got %v %q, want %v %q", ids, claims, tt.ids, tt.claims)
			}
		})
	}
}

func TestParseStance(t *testing.T) {
	for text, want := range map[string]Stance{
		"Verdict: confirmed\nSame cause.":       StanceConfirmed,
		"**Verdict:** Extended — and the node.": StanceExtended,
		"I refute it: the tag is wrong.":        StanceRefuted,
		"Nothing to say.":                       "",
	} {
		r, err := Parse("## Summary\ns\n## Root cause\nx\n## Builtin findings\n" + text + "\n")
		if err != nil {
			t.Fatal(err)
		}
		if r.OnBuiltin != want {
			t.Errorf("%q: %q, want %q", text, r.OnBuiltin, want)
		}
	}
}
