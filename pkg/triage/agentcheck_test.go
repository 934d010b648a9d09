package triage

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/effort"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/secondopinion"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// checkedMarkdown is an agent's report that cites a command nobody ran,
// rests its root cause on it, and proposes deleting a pod that serves.
const checkedMarkdown = `# Triage: Pod/api (shop) — the image is wrong

## Summary
The image is wrong.

## Evidence
- **E1** The pod is crashing · ` + "`kubectl get pod api -n shop`" + `
- **E2** The ConfigMap pins image v2 · ` + "`kubectl get configmap ghost -n shop -o yaml`" + `

## Root cause
**The image tag v2 is wrong** (confident, 0.8) — based on E2

## Recommended actions
1. Recycle the web pod.
   ` + "```sh" + `
   kubectl delete pod web -n shop
   ` + "```" + `
2. Look at the image: ` + "`kubectl describe pod api -n shop`" + `
`

// twoPods: the crashing target and a pod beside it that serves.
func twoPods() (*bundle.Bundle, error) {
	ready := []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	api := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "u1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "api:v1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}}}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "u2"},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:v1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: ready, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	obj, _ := toUnstructured(api)
	return &bundle.Bundle{Target: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"}, Object: obj, Pods: []*corev1.Pod{api, web}}, nil
}

func toUnstructured(p *corev1.Pod) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	err = u.UnmarshalJSON(append(data[:len(data)-1], []byte(`,"apiVersion":"v1","kind":"Pod"}`)...))
	return u, err
}

func TestAgentIsACheckedSecondOpinion(t *testing.T) {
	for _, blind := range []bool{false, true} {
		var prompt, findings string
		got := triageWith(t, setup{collect: twoPods, noHints: blind}, func(_ context.Context, r *agent.Run) (*agent.Outcome, error) {
			// What the agent found in the workspace when it started.
			p, _ := os.ReadFile(r.Workspace.MustPath(workspace.PromptFile))
			f, _ := os.ReadFile(r.Workspace.MustPath(workspace.BuiltinFindingsFile))
			prompt, findings = string(p), string(f)
			writeFile(t, r, workspace.ReportFile, checkedMarkdown)
			return &agent.Outcome{Effort: &effort.Effort{TokensIn: 900, TokensOut: 30, Turns: 3, ToolCalls: effort.ToolCalls{Allowed: 2}, WallTimeMS: 4200, Source: "claude"}}, nil
		})
		inc := got.onDisk
		if inc == nil || inc.Status != incident.Resolved {
			t.Fatalf("blind=%v: %+v", blind, inc)
		}

		// 1. The builtin first, its findings handed over (or not, blind).
		var f secondopinion.Findings
		if blind {
			if findings != "" || strings.Contains(prompt, "builtin-findings.json") {
				t.Errorf("a blind agent was given the builtin's findings:\n%s", prompt)
			}
		} else {
			if err := json.Unmarshal([]byte(findings), &f); err != nil || f.RootCause.Statement == "" || len(f.FailedChecks) == 0 {
				t.Fatalf("builtin-findings.json: %v\n%s", err, findings)
			}
			if !strings.Contains(prompt, "## The builtin investigator's findings") || !strings.Contains(prompt, oneLineOf(f.RootCause.Statement)) {
				t.Errorf("PROMPT.md does not ask for a second opinion:\n%s", prompt)
			}
		}

		md := got.markdown
		// 2. The claim nobody read is marked, counted, and caps the root cause.
		if !strings.Contains(md, "- **E2** The ConfigMap pins image v2 · `kubectl get configmap ghost -n shop -o yaml` ⚠ _unverified by kubectl-triage") {
			t.Errorf("E2 is not marked unverified:\n%s", md)
		}
		if strings.Contains(lineOf(md, "- **E1**"), "unverified") {
			t.Errorf("E1, in context/, is marked:\n%s", md)
		}
		if c := inc.Claims; c == nil || c.Verified != 1 || c.Unverified != 1 || !c.Capped {
			t.Errorf("claims %+v", inc.Claims)
		}
		if inc.Report.ConfidenceLevel != "speculation" || inc.Report.Confidence >= 0.5 {
			t.Errorf("the root cause rests on an unverified claim and is %s (%.2f)", inc.Report.ConfidenceLevel, inc.Report.Confidence)
		}
		if !strings.Contains(md, "2 of the report's claims were checked") || !strings.Contains(md, "1 verified, 1 unverified") {
			t.Errorf("footer lacks the claim counts:\n%s", md)
		}

		// 3. Deleting the pod that serves is withheld, with the reason.
		if strings.Contains(md, "   kubectl delete pod web -n shop") || !strings.Contains(md, "### Not proposed") ||
			!strings.Contains(md, "`kubectl delete pod web -n shop` _Withheld by kubectl-triage's safe-fix policy: pod web is Running and Ready now") {
			t.Errorf("the delete of a serving pod is still proposed:\n%s", md)
		}
		if !strings.Contains(md, "2. Look at the image") {
			t.Errorf("a read-only check was withheld:\n%s", md)
		}

		// 4. The second opinion: both shown, the comparison recorded.
		so := inc.SecondOpinion
		if so == nil || so.Agreement == incident.Agree || so.Hinted == blind || so.AgentRootCause != "The image tag v2 is wrong" {
			t.Fatalf("second opinion %+v", so)
		}
		if !blind && so.BuiltinRootCause != f.RootCause.Statement {
			t.Errorf("recorded builtin root cause %q, the findings' %q", so.BuiltinRootCause, f.RootCause.Statement)
		}
		if !strings.Contains(md, "## Second opinion") || !strings.Contains(md, "| Agent (fake) | The image tag v2 is wrong | speculation (0.45) |") ||
			!strings.Contains(md, "| Builtin investigator | "+so.BuiltinRootCause) {
			t.Errorf("the report does not show both root causes:\n%s", md)
		}

		// 5. The effort, in the record and the footer.
		if inc.Effort == nil || inc.Effort.TokensIn != 900 || inc.Effort.Turns != 3 {
			t.Errorf("effort %+v", inc.Effort)
		}
		if !strings.Contains(md, "kubectl-triage: effort (the claude CLI's own figures): 900 tokens in, 30 out, 3 turns, 2 tool calls (2 allowed, 0 failed, 0 refused), 4.2s.") {
			t.Errorf("footer lacks the effort:\n%s", md)
		}
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

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }
