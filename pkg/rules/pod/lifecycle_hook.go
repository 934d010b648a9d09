package pod

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// LifecycleHook is the rule pod/lifecycle-hook.
var LifecycleHook = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/lifecycle-hook",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A postStart or preStop hook that fails (FailedPostStartHook, FailedPreStopHook): the kubelet kills a container whose postStart hook failed, whatever its own process does.",
	},
	Check: checkLifecycleHooks,
}

// hookMessageRe is the kubelet's wording of a failed hook
// (pkg/kubelet/lifecycle/handlers.go, https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/lifecycle/handlers.go):
// `Exec lifecycle hook ([sh -c …]) for Container "x" in Pod "p_ns(uid)"
// failed - error: command '…' exited with 1: , message: "…"`, and the HTTP
// one, `HTTP lifecycle hook (/path) for Container "x" in Pod "…" failed -
// error: Get "http://…": dial tcp …: connect: connection refused` (older
// kubelets "Http …" with a message). Newer kubelets record only
// "PostStartHook failed" in the event: the hook's spec is then all there is.
var hookMessageRe = regexp.MustCompile(`(?s)^(?P<handler>Exec|HTTP|Http|Sleep) lifecycle hook \((?P<what>.*?)\) for Container "(?P<ctr>[^"]+)" in Pod "[^"]*" failed - error: (?P<err>.*?)(?:, message: "(?P<msg>.*)")?$`)

// hookHintRe is a CLI's pointer to its help, never the error: cobra's
// "See 'influx v1 dbrp create -h' for help", "Run 'x --help' for usage".
var hookHintRe = regexp.MustCompile(`(?i)^(?:see|run) '[^']+' for (?:help|usage|more information)`)

type hookKind struct {
	reason, field, name string
	of                  func(*corev1.Lifecycle) *corev1.LifecycleHandler
}

var hookKinds = []hookKind{
	{"FailedPostStartHook", "lifecycle.postStart", "postStart", func(l *corev1.Lifecycle) *corev1.LifecycleHandler { return l.PostStart }},
	{"FailedPreStopHook", "lifecycle.preStop", "preStop", func(l *corev1.Lifecycle) *corev1.LifecycleHandler { return l.PreStop }},
}

// checkLifecycleHooks: a postStart hook that fails gets its container
// killed (the Killing event says "FailedPostStartHook"), so the container
// restarts in a loop whatever its own exit code says; that is the cause
// behind the crash loop (Traced). A failed preStop hook only costs the
// container its graceful stop: Observed, beside whatever stopped it.
func checkLifecycleHooks(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, ctr := range probeContainers(p) {
			if ctr.Lifecycle == nil {
				continue
			}
			for _, k := range hookKinds {
				if h := k.of(ctr.Lifecycle); h != nil {
					if f, ok := hookFinding(c, p, ctr, k, h); ok {
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

// hookError is the hook's own error in the kubelet's message: the first
// line of its output that is not a hint, else the error itself.
func hookError(message string) string {
	m := hookMessageRe.FindStringSubmatch(message)
	if m == nil {
		return ""
	}
	errText, out := m[hookMessageRe.SubexpIndex("err")], m[hookMessageRe.SubexpIndex("msg")]
	if u, err := strconv.Unquote(`"` + out + `"`); err == nil {
		out = u
	}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !hookHintRe.MatchString(l) {
			return l
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(errText), ":")
}

func hookFinding(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, k hookKind, h *corev1.LifecycleHandler) (rule.Finding, bool) {
	var newest *corev1.Event
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == k.reason && eventAboutContainer(&e, ctr.Name) && (newest == nil || bundle.EventTime(&e).After(bundle.EventTime(newest))) {
			ev := e
			newest = &ev
		}
	}
	if newest == nil {
		return rule.Finding{}, false
	}
	st := containerStatusNamed(p, ctr.Name)
	restarting := st != nil && (st.RestartCount > 0 || (st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff"))
	recent := c.Now.Sub(bundle.EventTime(newest)) < kube.RecentWarning
	if k.name == "postStart" && !restarting && !recent {
		return rule.Finding{}, false // one old failure, the container runs since
	}
	handler, what := "exec", ""
	switch {
	case h.Exec != nil:
		what = fmt.Sprintf("command %q", kube.Shorten(strings.Join(h.Exec.Command, " "), 200))
	case h.HTTPGet != nil:
		handler, what = "httpGet", fmt.Sprintf("HTTP GET %s on port %s", kube.OrDash(h.HTTPGet.Path), h.HTTPGet.Port.String())
	case h.Sleep != nil:
		handler, what = "sleep", fmt.Sprintf("sleep %ds", h.Sleep.Seconds)
	}
	quote := hookError(newest.Message)
	said := ""
	if quote != "" {
		said = fmt.Sprintf(": %q", quote)
	}
	f := rule.Finding{Verdict: report.Validated, Confidence: rule.Definitive, Current: recent || restarting, Strength: rule.Traced,
		Subject:  p.Name + "/" + ctr.Name,
		Evidence: []string{podEventEvidence(c, p, newest)},
		Culprit:  fmt.Sprintf("%s container %s %s.%s (%s)%s", kube.PodRef(p), ctr.Name, k.field, handler, what, said),
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s %s: %s", ctr.Name, k.field, what),
		fmt.Sprintf("%s .spec.containers[%s].%s", kube.PodRef(p), ctr.Name, k.field), containerSpecCmd(p, ctr.Name, "lifecycle")))
	fixDesc := fmt.Sprintf("Fix the %s hook's %s so that it succeeds (the kubelet quotes its error), or drop the hook; run it by hand in the container to check it.", k.name, what)
	if k.name == "postStart" {
		f.Category = rule.CrashLoop.Sub("PostStartHook")
		f.Hypothesis = fmt.Sprintf("Container %s's postStart hook fails, so the kubelet kills the container after each start", ctr.Name)
		f.Title = fmt.Sprintf("the postStart hook of container %s fails%s; the kubelet kills the container after each start", ctr.Name, said)
		f.Summary = fmt.Sprintf("The postStart hook of container %s in pod %s (%s) fails, and the kubelet kills a container whose postStart hook fails: its restarts come from the hook, not from its own process%s.", ctr.Name, p.Name, what, said)
		f.Mechanism = "The kubelet runs the postStart hook right after it starts the container; when the hook fails it records FailedPostStartHook and kills the container (its Killing event gives FailedPostStartHook as the reason), which then restarts with back-off. The container's own exit code, even 0, is that kill's."
	} else {
		f.Category = rule.Terminating.Sub("PreStopHook")
		f.Strength, f.Confidence = rule.Observed, rule.High
		f.Hypothesis = fmt.Sprintf("Container %s's preStop hook fails, so it is stopped without its graceful shutdown", ctr.Name)
		f.Title = fmt.Sprintf("the preStop hook of container %s fails%s; the container is stopped without it", ctr.Name, said)
		f.Summary = fmt.Sprintf("The preStop hook of container %s in pod %s (%s) fails%s: the kubelet records FailedPreStopHook and goes on to stop the container without what the hook should have done.", ctr.Name, p.Name, what, said)
		f.Mechanism = "The kubelet runs the preStop hook before it sends the container SIGTERM; a hook that fails is recorded as FailedPreStopHook and the stop goes on, so the drain or deregistration it was meant to do does not happen."
	}
	f.Actions = []report.Action{{Kind: report.Immediate, Description: fixDesc,
		Commands: []string{containerSpecCmd(p, ctr.Name, "lifecycle"), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NSFlag(p), p.Name, k.reason)}}}
	return f, true
}
