package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// The real CLIs as a checked second opinion (DESIGN.md §6): the builtin
// investigator runs first and the CLI is handed its findings; the scripted
// model then writes a report that cites a command it never ran, rests its
// root cause on it, disagrees with the builtin and proposes deleting a pod
// that serves. The plugin marks the claim unverified and caps the root
// cause, withholds the delete, shows both root causes, and records the
// tokens and turns the CLI reported.

// secondOpinionReport is the scripted model's report for namespace ns.
func secondOpinionReport(ns string) func([]string) string {
	return func([]string) string {
		return strings.ReplaceAll(`# Triage: Pod/api (NS) — scripted model: the image tag is wrong

## Summary
The scripted model blames the image tag (probable, 0.8).

## Evidence
- **E1** pod/api is not ready · `+"`kubectl get pods -n NS`"+`
- **E2** The previous container logged `+"`FATAL config: required env DATABASE_URL is empty`"+` · `+"`kubectl logs api -n NS -c app --previous`"+`
- **E3** ConfigMap api-settings pins image tag v2 · `+"`kubectl get configmap api-settings -n NS -o yaml`"+`

## Hypotheses
| Hypothesis | Verdict | Confidence | Evidence |
|---|---|---|---|
| The image tag v2 is wrong | validated | 0.8 | E3 |
| DATABASE_URL is missing | refuted | 0.3 | E2 |

## Root cause
**The image tag v2 is wrong** (confident, 0.8) — based on E3

## Recommended actions
### Immediate mitigation
1. Recycle the web pod, which shares the image.
   `+"```sh"+`
   kubectl delete pod web -n NS
   `+"```"+`
2. Look at the pod: `+"`kubectl describe pod api -n NS`"+`

## Builtin findings
Verdict: refuted. The builtin blames DATABASE_URL; the scripted model blames the tag.
`, "NS", ns)
	}
}

// realAgentSetups give each CLI its key and base URL at the model server.
var realAgentSetups = map[string]func(t *testing.T, r *realAgentRun){
	"claude": func(t *testing.T, r *realAgentRun) {
		r.env = append(r.env, "ANTHROPIC_API_KEY=sk-ant-test-key", "ANTHROPIC_BASE_URL="+r.srv.URL)
	},
	"codex": func(t *testing.T, r *realAgentRun) {
		r.homeFile(t, ".codex/config.toml", "openai_base_url = \""+r.srv.URL+"/v1\"\n")
		r.env = append(r.env, "CODEX_API_KEY=test-codex-key")
	},
	"gemini": func(t *testing.T, r *realAgentRun) {
		r.homeFile(t, ".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
		r.env = append(r.env, "GEMINI_API_KEY=test-gemini-key", "GOOGLE_GEMINI_BASE_URL="+r.srv.URL)
	},
}

// startSecondOpinion is startRealAgent with a serving pod "web" beside
// the crashing "api", and the model's report scripted.
func startSecondOpinion(t *testing.T) *realAgentRun {
	t.Helper()
	r := startRealAgent(t, "kubectl get pods -n NS", "kubectl logs api -n NS -c app --previous")
	r.c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: r.ns, Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
		Status: schedRunningStatus("app", "busybox:1.36")})
	r.srv.Script.Report = secondOpinionReport(r.ns)
	return r
}

func TestRealAgentsSecondOpinion(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini"} {
		t.Run(name, func(t *testing.T) {
			r := startSecondOpinion(t)
			realAgentSetups[name](t, r)
			r.run(t, name, "--require-sandbox")
			inc := assertWorkspace(t, r.dir, incident.Resolved)
			out := r.stdout

			// The builtin ran first; the CLI sent its findings to the model.
			findings, err := os.ReadFile(filepath.Join(r.dir, workspace.BuiltinFindingsFile))
			if err != nil || !strings.Contains(string(findings), "DATABASE_URL") {
				t.Errorf("builtin-findings.json: %v\n%s", err, findings)
			}
			if !r.sentToModel("The builtin investigator's findings") || !r.sentToModel("builtin-findings.json") {
				t.Errorf("no request to the model carried the builtin's findings")
			}

			// The command the model never ran is unverified, the others are
			// backed by the gateway's reads; the root cause rests on it
			// alone, so it is speculation.
			if l := lineOf(out, "- **E3**"); !strings.Contains(l, "⚠ _unverified by kubectl-triage: `kubectl get configmap api-settings -n "+r.ns+" -o yaml`") {
				t.Errorf("E3 is not marked unverified: %q\n%s", l, out)
			}
			for _, id := range []string{"- **E1**", "- **E2**"} {
				if l := lineOf(out, id); l == "" || strings.Contains(l, "unverified") {
					t.Errorf("%s: %q", id, l)
				}
			}
			if c := inc.Claims; c == nil || c.Verified != 4 || c.Unverified != 1 || !c.Capped {
				t.Errorf("claims %+v", inc.Claims)
			}
			if inc.Report.ConfidenceLevel != "speculation" || inc.Report.Confidence >= 0.5 {
				t.Errorf("confidence %s (%.2f)", inc.Report.ConfidenceLevel, inc.Report.Confidence)
			}
			if !strings.Contains(out, "5 of the report's claims were checked against what the agent read through the gateway and in context/: 4 verified, 1 unverified") {
				t.Errorf("footer lacks the claim counts:\n%s", out)
			}

			// Deleting the serving pod is withheld, the read is kept.
			if strings.Contains(out, "   kubectl delete pod web") ||
				!strings.Contains(out, "`kubectl delete pod web -n "+r.ns+"` _Withheld by kubectl-triage's safe-fix policy: pod web is Running and Ready now") {
				t.Errorf("the delete of a serving pod is still proposed:\n%s", out)
			}
			if !strings.Contains(out, "2. Look at the pod: `kubectl describe pod api -n "+r.ns+"`") {
				t.Errorf("the read-only action is gone:\n%s", out)
			}

			// Both root causes, each with its evidence; the record says they differ.
			so := inc.SecondOpinion
			if so == nil || so.Agreement != incident.Differ || so.AgentStance != "refuted" || !so.Hinted ||
				!strings.Contains(so.BuiltinRootCause, "DATABASE_URL") || so.AgentRootCause != "The image tag v2 is wrong" {
				t.Fatalf("second opinion %+v", so)
			}
			for _, want := range []string{"## Second opinion", "| Agent (" + name + ") | The image tag v2 is wrong | speculation (0.45) |",
				"| Builtin investigator | " + so.BuiltinRootCause, "**E3** ConfigMap api-settings pins image tag v2", "DATABASE_URL is empty"} {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q:\n%s", want, out)
				}
			}

			// The CLI's own figures: tokens, the turns the model took (two
			// commands and the report), the two calls that ran.
			turns := 0
			for _, e := range r.entries {
				if strings.HasPrefix(e.Reply, "tool:") || e.Reply == "report" {
					turns++
				}
			}
			e := inc.Effort
			if e == nil || e.TokensIn <= 0 || e.TokensOut < int64(10*turns) || e.Turns != turns || e.ToolCalls.Allowed != 2 || e.ToolCalls.Refused != 0 || e.WallTimeMS <= 0 || e.Source != name {
				t.Errorf("effort %+v (the model took %d turns)", e, turns)
			}
			if !strings.Contains(out, fmt.Sprintf("kubectl-triage: effort (the %s CLI's own figures): %d tokens in", name, e.TokensIn)) {
				t.Errorf("footer lacks the effort:\n%s", out)
			}
			status := r.status(t)
			for _, want := range []string{"Effort:", fmt.Sprintf("%d turns", e.Turns), "Claims:", "4 verified, 1 unverified", "Second opinion:", "differ"} {
				if !strings.Contains(status, want) {
					t.Errorf("kubectl triage status lacks %q:\n%s", want, status)
				}
			}
		})
	}
}

// TestRealClaudeBlindAndLimited: --no-builtin-hints runs the CLI blind
// (the comparison is still recorded) and --max-turns reaches claude's own
// limit.
func TestRealClaudeBlindAndLimited(t *testing.T) {
	r := startSecondOpinion(t)
	realAgentSetups["claude"](t, r)
	r.run(t, "claude", "--require-sandbox", "--no-builtin-hints", "--max-turns", "9")
	inc := assertWorkspace(t, r.dir, incident.Resolved)
	if _, err := os.Stat(filepath.Join(r.dir, workspace.BuiltinFindingsFile)); err == nil {
		t.Errorf("a blind run has builtin-findings.json")
	}
	if r.sentToModel("builtin-findings.json") {
		t.Errorf("a blind run sent the builtin's findings to the model")
	}
	if so := inc.SecondOpinion; so == nil || so.Hinted || so.Agreement != incident.Differ {
		t.Errorf("second opinion %+v", so)
	}
	if inc.Effort == nil || inc.Effort.Limits.MaxTurns != 9 || !strings.Contains(r.stdout, "(limits: max 9 turns)") {
		t.Errorf("effort %+v", inc.Effort)
	}
	log, _ := os.ReadFile(filepath.Join(r.dir, workspace.AgentLogFile))
	if !strings.Contains(string(log), `"num_turns":3`) {
		t.Errorf("claude's result:\n%s", clip(string(log), 4000))
	}

	// One turn is not enough for two commands: claude stops itself, the
	// run fails, and the record says why.
	r2 := startSecondOpinion(t)
	realAgentSetups["claude"](t, r2)
	code, _, stderr := runWith(t, r2.env, "pod/api", "-n", r2.ns, "--agent", "claude", "--timeout", "4m", "--max-turns", "1")
	dir := onlyWorkspace(t, r2.root)
	inc2, err := incident.Load(filepath.Join(dir, incident.FileName))
	if code == 0 || err != nil || inc2.Effort == nil || inc2.Effort.Stopped != "max turns reached" {
		t.Errorf("exit %d, incident %v %+v\n%s", code, err, inc2, stderr)
	}
}

// sentToModel: some request the CLI made to the model carried s.
func (r *realAgentRun) sentToModel(s string) bool {
	for _, e := range r.entries {
		if strings.Contains(string(e.Body), s) {
			return true
		}
	}
	return false
}

// status is `kubectl triage status` of the run's incident.
func (r *realAgentRun) status(t *testing.T) string {
	t.Helper()
	code, out, errOut := runWith(t, r.env, "status", filepath.Base(r.dir))
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	return out
}

func lineOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
