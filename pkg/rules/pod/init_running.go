package pod

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// InitRunning is the rule pod/init-running.
var InitRunning = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/init-running",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A pod held in Init by an init container that keeps waiting for something (a wait loop).",
	},
	Check: checkInitRunning,
}

// waitLineRe is a wait loop's progress line: "waiting for db:5432",
// "still waiting on …", "retrying in 2s", nc's "connection refused".
var waitLineRe = regexp.MustCompile(`(?i)\b(wait(ing)?|retry(ing)?|not (yet )?(ready|available|reachable)|connection refused|bad address|timed? ?out)\b`)

// checkInitRunning: a pod held in Init because an init container is still
// running and has not exited. On a real node this is most often a
// wait-for-dependency loop (until nc -z db 5432 …) whose dependency never
// comes; nothing fails, so no other rule has anything to say.
func checkInitRunning(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil {
			continue
		}
		// A StatefulSet's blocked ordinal is the StatefulSet rules' to
		// explain: they also say which ordinals cannot be created.
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "StatefulSet" {
			continue
		}
		for i, st := range p.Status.InitContainerStatuses {
			r := st.State.Running
			// Running again after a failed run is a crash loop between
			// restarts: the crash rules explain it from that run.
			if r == nil || st.LastTerminationState.Terminated != nil {
				continue
			}
			// A restartable init container (a sidecar) runs for the pod's
			// whole life: running is its normal state.
			if spec := kube.SpecOf(p, st.Name); spec != nil && spec.RestartPolicy != nil && *spec.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				continue
			}
			out = append(out, initRunningFinding(c, p, st, r, i))
		}
	}
	return out
}

func initRunningFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, r *corev1.ContainerStateRunning, index int) rule.Finding {
	age := c.Now.Sub(r.StartedAt.Time).Round(time.Second)
	status := fmt.Sprintf("Init:%d/%d", index, max(len(p.Spec.InitContainers), len(p.Status.InitContainerStatuses)))
	f := rule.Finding{
		Category: rule.InitContainer.Sub("Running"), Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: p.Name + "/" + st.Name, Confidence: rule.Moderate,
		Evidence: []string{c.Evidence(
			fmt.Sprintf("Init container %s has been running since %s (%v) without exiting; the pod is %s", st.Name, kube.Stamp(r.StartedAt.Time), age, status),
			fmt.Sprintf("%s .status.initContainerStatuses[%s].state.running", kube.PodRef(p), st.Name),
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.initContainerStatuses[?(@.name=="%s")].state}'`, p.Name, kube.NSFlag(p), st.Name))},
		Hypothesis: fmt.Sprintf("Init container %s never completes, so the app containers never start", st.Name),
		Mechanism: "Init containers run one after another and must each exit 0 before the app containers start; this one is still running. " +
			"A wait loop for a dependency (a database, a Service, a file) that never becomes available keeps it, and the pod, there forever; nothing fails, so nothing restarts.",
		Culprit: fmt.Sprintf("%s init container %s (running %v, not finished)", kube.PodRef(p), st.Name, age),
	}
	cur, _ := c.B.LogsFor(p.Name, st.Name)
	w := waitLine(cur)
	what := ""
	switch {
	case w.endpoint != "":
		what = ", waiting for " + w.endpoint
		f.Confidence = rule.Likely
	case w.repeats > 1:
		what = fmt.Sprintf(", retrying an error its log repeats (%d times)", w.repeats)
		f.Confidence = rule.Plausible
	case w.line != "":
		f.Confidence = rule.Plausible
	}
	f.Title = fmt.Sprintf("init container %s has been running for %v without finishing%s: pod %s stays %s and its app containers never start", st.Name, age, what, p.Name, status)
	f.Summary = fmt.Sprintf("Pod %s is stuck in %s: init container %s started %v ago and has not exited.", p.Name, status, st.Name, age)
	if w.line != "" {
		said := fmt.Sprintf("Its latest log line: %q", w.line)
		if w.repeats > 1 {
			said = fmt.Sprintf("Its log repeats this error (%d times, still being logged): %q", w.repeats, w.line)
			f.Mechanism += " This one keeps retrying the error its log repeats: until that error is fixed it never exits."
		}
		f.Evidence = append(f.Evidence, c.Evidence(said,
			fmt.Sprintf("logs of %s init container %s (current instance)", kube.PodRef(p), st.Name), kube.LogsCmd(p, st.Name, false)))
		f.Summary += fmt.Sprintf(" Its log says: %q.", w.line)
		f.Culprit = fmt.Sprintf("%s init container %s: %s", kube.PodRef(p), st.Name, w.line)
	}
	check := report.Action{Kind: report.Immediate, Commands: []string{kube.LogsCmd(p, st.Name, false)}}
	switch {
	case w.endpoint != "":
		host, _, _ := strings.Cut(w.endpoint, ":")
		check.Description = fmt.Sprintf("Make %s reachable from the pod (the Service %s exists in namespace %s with ready endpoints, or the address is right), or fix the address the init container waits for.", w.endpoint, host, p.Namespace)
		check.Commands = append(check.Commands, fmt.Sprintf("kubectl get service,endpointslices %s | grep %s", kube.NSFlag(p), host))
	case w.repeats > 1:
		check.Description = fmt.Sprintf("Fix what the error init container %s keeps retrying names (the credentials, role or address it is refused), then let it finish; it retries on its own.", st.Name)
	default:
		check.Description = fmt.Sprintf("Find out what init container %s waits for or hangs on (its command and log), and make it available or let the container exit.", st.Name)
		check.Commands = append(check.Commands, fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.initContainers[?(@.name=="%s")].command}'`, p.Name, kube.NSFlag(p), st.Name))
	}
	f.Actions = []report.Action{check}
	return f
}

// waited is what a running init container's log says it waits on.
type waited struct {
	line     string // the record to quote
	endpoint string // the host:port a wait-loop line names
	repeats  int    // how often the record's error repeats (0: not an error)
}

// waitLine returns the most telling of the last records of a running init
// container's log (read by the log component, so a record's continuation
// lines are its own, never a line of their own): the latest wait-loop line
// naming an endpoint, else the error the log keeps repeating (a login
// refused on every retry), else the latest record.
func waitLine(l *bundle.ContainerLog) waited {
	var w waited
	if l == nil || l.Error != "" {
		return w
	}
	lg := applog.Parse(l.Text)
	for i := len(lg.Events) - 1; i >= 0 && i >= len(lg.Events)-20; i-- {
		ev := &lg.Events[i]
		text := strings.TrimSpace(ev.Text())
		if text == "" || ev.Hint {
			continue
		}
		if w.line == "" {
			w.line = text
		}
		if waitLineRe.MatchString(text) {
			if ep := logs.EndpointIn(text); ep != "" {
				return waited{line: text, endpoint: ep}
			}
		}
	}
	// A retry loop's error: declared by its logger and still repeating.
	if ds := lg.Decisive(applog.Options{Running: true, Max: 1}); len(ds) > 0 && ds[0].Repeats > 1 && ds[0].Event.Level >= applog.LevelError && !ds[0].Event.Implied {
		return waited{line: strings.TrimSpace(ds[0].Text), repeats: ds[0].Repeats}
	}
	return w
}
