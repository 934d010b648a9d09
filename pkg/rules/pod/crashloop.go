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

// CrashLoop is the rule pod/crashloop.
var CrashLoop = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/crashloop",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A container that keeps exiting: its exit code and the decisive line of its previous log.",
	},
	Check: checkCrashLoop,
}

// checkCrashLoop: a container that keeps exiting, classified by exit code
// and by the decisive line of its last log. An init container that fails
// blocks the whole pod (Init:CrashLoopBackOff, or Init:Error when the pod
// does not restart), and a container of a pod that never restarts fails
// once: both are reported too.
func checkCrashLoop(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			waiting := st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff"
			term := st.LastTerminationState.Terminated
			failedOnce, firstCrash := false, false
			// An app container that exits 0 under restartPolicy Always is
			// restarted too (a completed init container is not).
			exit0Restart := !cs.Init && p.Spec.RestartPolicy == corev1.RestartPolicyAlways
			if term == nil && st.State.Terminated != nil && (st.State.Terminated.ExitCode != 0 || exit0Restart) {
				term = st.State.Terminated
				failedOnce = st.RestartCount == 0 && failedForGood(p)
				// A real kubelet reports the first failure (Error,
				// restartCount 0) for a moment before it restarts the
				// container: the same crash, caught before the loop.
				firstCrash = st.RestartCount == 0 && willRestart(p)
			}
			if !waiting && (term == nil || st.RestartCount == 0) && !failedOnce && !firstCrash {
				continue
			}
			if term != nil && term.Reason == "OOMKilled" {
				continue // checkOOMKilled explains it
			}
			if !waiting && oneCleanRestartLongAgo(c, st, term) {
				continue // one clean stop (a node drain, a SIGTERM) is not a loop
			}
			if !waiting && kube.LostByRuntime(st) {
				continue // a node reboot, not a crash
			}
			if p.Status.Reason == "Evicted" {
				continue // checkEvicted explains it: the kubelet stopped the containers
			}
			f := crashFinding(c, p, st, term, waiting)
			if failedOnce {
				f = failedOnceFinding(p, st, f)
			}
			if cs.Init {
				f = initFinding(p, st, f)
			}
			out = append(out, f)
		}
	}
	return out
}

// failedForGood: the pod will not restart a failed container (restartPolicy
// Never, or the pod already Failed) and nothing at the pod level (an
// eviction, a node shutdown, a deadline: status.reason) stopped it.
func failedForGood(p *corev1.Pod) bool {
	return p.Status.Reason == "" && (p.Spec.RestartPolicy == corev1.RestartPolicyNever || p.Status.Phase == corev1.PodFailed)
}

// willRestart: the kubelet restarts this pod's failed containers; nothing at
// the pod level (a deletion, an eviction, a deadline) stopped them.
func willRestart(p *corev1.Pod) bool {
	return p.Spec.RestartPolicy != corev1.RestartPolicyNever && p.Status.Reason == "" && p.DeletionTimestamp == nil &&
		p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded
}

// failedOnceFinding rewords a crash finding for a container that exited
// once and will not be restarted.
func failedOnceFinding(p *corev1.Pod, st corev1.ContainerStatus, f rule.Finding) rule.Finding {
	f.Category = f.Category.WithRoot(rule.ContainerFailed)
	f.Title = strings.Replace(f.Title, "crash-loops with", "failed with", 1)
	f.Title = strings.Replace(f.Title, "crashes with", "failed with", 1)
	f.Mechanism = strings.Replace(f.Mechanism, "the kubelet restarts it with growing back-off (CrashLoopBackOff)",
		fmt.Sprintf("with restartPolicy %s the kubelet does not restart it, so the pod ends Failed", kube.OrDash(string(p.Spec.RestartPolicy))), 1)
	f.Mechanism = strings.Replace(f.Mechanism, "The kubelet restarts the container with growing back-off (CrashLoopBackOff).",
		fmt.Sprintf("With restartPolicy %s the kubelet does not restart it; the pod ends Failed.", kube.OrDash(string(p.Spec.RestartPolicy))), 1)
	f.Summary = strings.Replace(f.Summary, "keeps exiting", "exited", 1)
	return f
}

// initFinding rewords a crash finding for an init container: until it
// succeeds, none of the pod's app containers start.
func initFinding(p *corev1.Pod, st corev1.ContainerStatus, f rule.Finding) rule.Finding {
	f.Category = rule.InitContainer.Sub(string(f.Category))
	status := "Init:CrashLoopBackOff"
	if st.State.Waiting == nil {
		status = "Init:Error"
	}
	f.Title = "init " + f.Title + fmt.Sprintf("; the pod stays %s and its app containers never start", status)
	f.Hypothesis = "Init " + f.Hypothesis
	f.Summary = strings.Replace(f.Summary, "Container "+st.Name, "Init container "+st.Name, 1) +
		fmt.Sprintf(" Init containers run one after another before the app containers; until %s succeeds, pod %s stays %s.", st.Name, p.Name, status)
	f.Culprit = strings.Replace(f.Culprit, "container "+st.Name, "init container "+st.Name, 1)
	return f
}

func crashFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, term *corev1.ContainerStateTerminated, waiting bool) rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	f := rule.Finding{Category: rule.CrashLoop, Current: waiting || st.State.Terminated != nil || kube.JustRestarted(st, c.Now), Strength: rule.Observed, Subject: p.Name + "/" + st.Name}
	// When the kubelet itself ended the container (a failing probe) or the
	// runtime could not start it, the exit is a symptom: the probe and
	// runtime rules name the cause, so this finding never outranks them.
	demoted := probeKilled(c, p, st.Name) != "" || (term != nil && (term.Reason == "StartError" || term.Reason == "ContainerCannotRun"))
	var evidence []string
	if waiting {
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Container %s is in CrashLoopBackOff after %d restarts", st.Name, st.RestartCount),
			fmt.Sprintf("%s .status.containerStatuses[%s].state.waiting", kube.PodRef(p), st.Name),
			kube.StatusCmd(p, st.Name, "state.waiting")))
	}
	var code kube.ExitCode
	if term != nil {
		code = kube.ExplainExit(term.ExitCode)
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Its last run ended with exit code %d (%s, reason %s) at %s", term.ExitCode, code.Meaning, kube.OrDash(term.Reason), kube.Stamp(term.FinishedAt.Time)),
			fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", kube.PodRef(p), st.Name),
			kube.StatusCmd(p, st.Name, "lastState.terminated")))
		f.Category = rule.CrashLoop.Sub(fmt.Sprintf("Exit%d", term.ExitCode))
	}

	// The previous instance's log says why it died; the current one may be
	// empty if it is waiting in back-off.
	_, prev := c.B.LogsFor(p.Name, st.Name)
	dec, fromPrev := logs.LastDecisive(c, p, st.Name)
	if term != nil {
		dec = logs.ForExit(dec, term.ExitCode)
	}

	// because is what made it exit, for the past-tense headline of a
	// crash that has ended.
	because := "the logs collected do not say why"
	switch {
	case term != nil && term.ExitCode == 0:
		because = "its command returned"
		f.Category = rule.CrashLoop.Sub("Exit0")
		f.Title = fmt.Sprintf("container %s exits successfully (code 0) and is restarted: its command does not keep running", st.Name)
		f.Hypothesis = fmt.Sprintf("Container %s's main process returns instead of running forever", st.Name)
		f.Summary = fmt.Sprintf("Container %s of pod %s exits with code 0, and restartPolicy %s restarts it until the kubelet backs off.", st.Name, p.Name, p.Spec.RestartPolicy)
		f.Mechanism = code.Hint + "."
		f.Confidence = rule.High
		f.Culprit = fmt.Sprintf("%s container %s command/args", kube.PodRef(p), st.Name)
		// Exit 0 is no verdict: a script may log its failure and still
		// return 0. Its last words say which.
		if line, prev := logs.LastWords(c, p, st.Name); line != "" {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Its last log line before exiting: %q", line),
				fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), st.Name, kube.Instance(prev)), kube.LogsCmd(p, st.Name, prev)))
			f.Summary += fmt.Sprintf(" Its last log line before exiting: %q.", line)
		}
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Make the container's command run in the foreground (no `&`, no daemonizing) or, for a one-off task, run it as a Job instead of a Deployment.",
				Commands: []string{fmt.Sprintf(`kubectl get %s/%s %s -o jsonpath='{.spec.template.spec.containers[?(@.name=="%s")].command}'`, kind, owner, kube.NSFlag(p), st.Name)}},
		}
	case dec != nil && !dec.Pattern.Generic():
		logEv := c.Evidence(fmt.Sprintf("Log line: %q", dec.Line),
			fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), st.Name, kube.Instance(fromPrev)),
			kube.LogsCmd(p, st.Name, fromPrev))
		evidence = append(evidence, logEv)
		f.Category = f.Category.Sub(dec.Pattern.Class.String())
		what := dec.Pattern.Explains
		detail := ""
		if subj := dec.Subject; subj != "" {
			detail = " (" + subj + ")"
		} else if dec.Pattern.Class == logs.PrivilegedPort {
			if port := privilegedPort(p, st.Name); port != "" {
				detail = " (" + port + ")"
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s is set to listen on %s", st.Name, port),
					fmt.Sprintf("%s .spec.containers[%s] env, ports and securityContext", kube.PodRef(p), st.Name),
					fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")]}'`, p.Name, kube.NSFlag(p), st.Name)))
			}
		} else if dec.Pattern.Class == logs.NoServerCertificate {
			if listener := tlsListener(p, st.Name); listener != "" {
				detail = " (" + listener + ")"
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s is set to serve TLS on %s", st.Name, listener),
					fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), st.Name),
					fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].env}'`, p.Name, kube.NSFlag(p), st.Name)))
			}
		} else if name, value := logs.ConfiguredEndpoint(p, st.Name, dec); name != "" && (dec.Pattern.Class == logs.ConnectionRefused || dec.Pattern.Class == logs.DNS) {
			// The line names no endpoint: the one the container is
			// configured to reach is the likeliest.
			detail = fmt.Sprintf(" (%s, from env %s)", value, name)
		}
		if dec.Pattern.Class == logs.AddressFamily {
			if setting := ipv6Setting(c, p, st.Name); setting != "" {
				detail = fmt.Sprintf(" (%s, set by %s)", dec.Subject, setting)
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s is set to listen on an IPv6 address by %s", st.Name, setting),
					fmt.Sprintf("%s .spec.containers[%s] env, args and mounted ConfigMaps", kube.PodRef(p), st.Name),
					fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")]}'`, p.Name, kube.NSFlag(p), st.Name)))
			}
		}
		if dec.Pattern.Class == logs.ForwardingLoop {
			if setting := settingMatching(c, p, st.Name, logs.ForwardingSettingRe); setting != "" {
				detail = fmt.Sprintf(" (%s; %s)", setting, resolverOf(p))
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s forwards to the resolvers of its /etc/resolv.conf (%s); %s", st.Name, setting, resolverOf(p)),
					fmt.Sprintf("%s .spec.dnsPolicy and the mounted configuration", kube.PodRef(p)),
					fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.dnsPolicy} {.spec.nodeName}'`, p.Name, kube.NSFlag(p))))
			}
		}
		detail = withImage(detail, versionImage(p, st.Name, dec))
		f.Title = fmt.Sprintf("container %s crashes%s: %s%s", st.Name, kube.ExitSuffix(term), what, detail)
		because = what + detail
		f.Hypothesis = fmt.Sprintf("Container %s exits because %s", st.Name, what)
		f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting%s because %s%s. Its log says: %q.", st.Name, p.Name, kube.ExitSuffix(term), what, detail, dec.Line)
		f.Mechanism = "The container's process fails at startup and exits; the kubelet restarts it with growing back-off (CrashLoopBackOff)."
		if term != nil {
			f.Mechanism += fmt.Sprintf(" Exit code %d means %s: %s.", term.ExitCode, code.Meaning, code.Hint)
		}
		f.Culprit = fmt.Sprintf("log line of %s container %s: %s", kube.PodRef(p), st.Name, dec.Line)
		f.Confidence = rule.Strong
		f.Strength = rule.Explained
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: dec.Pattern.Fix,
				Commands: []string{kube.LogsCmd(p, st.Name, fromPrev), fmt.Sprintf("kubectl describe %s %s %s", kind, owner, kube.NSFlag(p))}},
			{Kind: report.LongTerm, Description: "If a recent rollout introduced this, roll back while the fix is prepared.",
				Commands: []string{fmt.Sprintf("kubectl rollout undo %s/%s %s", kind, owner, kube.NSFlag(p))},
				Risk:     "rolls the whole workload back to the previous revision"},
		}
		if kind == "pod" || kind == "job" || kind == "cronjob" || kind == "replicaset" { // nothing to roll back
			f.Actions = f.Actions[:1]
		}
		if dec.Pattern.Class == logs.DNS {
			f = withHostNetworkDNS(c, f, p, dec)
		}
	default:
		f.Hypothesis = fmt.Sprintf("Container %s exits with an application error", st.Name)
		f.Confidence = rule.Moderate
		meaning := "an unknown exit"
		if term != nil {
			meaning = fmt.Sprintf("exit code %d (%s)", term.ExitCode, code.Meaning)
			f.Mechanism = fmt.Sprintf("Exit code %d: %s. The kubelet restarts the container with growing back-off (CrashLoopBackOff).", term.ExitCode, code.Hint)
		}
		f.Title = fmt.Sprintf("container %s crash-loops with %s", st.Name, meaning)
		if term != nil && term.ExitCode == 137 && term.Reason != "OOMKilled" {
			// SIGKILL without reason OOMKilled: with a memory limit and no
			// other sender, pod/not-oomkilled reads it as an OOM kill the
			// runtime did not record; otherwise something else sent it.
			if killer := sigkillSource(c, p, st.Name); killer != "" {
				f.Title += fmt.Sprintf(", not an OOM kill (reason %s): %s", kube.OrDash(term.Reason), killer)
			} else if memoryLimit(p, st.Name) == "" {
				f.Title += fmt.Sprintf(", not an OOM kill at a limit (reason %s, no memory limit): something else sent SIGKILL", kube.OrDash(term.Reason))
			} else {
				f.Title += fmt.Sprintf(" (reason %s, not OOMKilled)", kube.OrDash(term.Reason))
			}
		}
		f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting with %s; the logs collected do not say why.", st.Name, p.Name, meaning)
		if dec != nil {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Last error-like log line: %q", dec.Line),
				fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), st.Name, kube.Instance(fromPrev)), kube.LogsCmd(p, st.Name, fromPrev)))
			f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting with %s; its last error line is %q.", st.Name, p.Name, meaning, dec.Line)
			because = fmt.Sprintf("its last error line is %q", dec.Line)
			f.Confidence = rule.Plausible
		} else if line, lp := logs.LastWords(c, p, st.Name); line != "" && (term == nil || term.ExitCode < 128) {
			// No error-like line: the last words are still what the
			// application said before it exited. Not after a signal
			// (137, 143): something else ended it mid-sentence.
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Last log line before the exit: %q", line),
				fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), st.Name, kube.Instance(lp)), kube.LogsCmd(p, st.Name, lp)))
			f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting with %s; its last log line is %q.", st.Name, p.Name, meaning, line)
		} else if prev == nil || prev.Error != "" {
			f.Contributing = append(f.Contributing, "The previous instance's logs could not be read, so the reason for the exit is not confirmed.")
		}
		f.Culprit = fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name)
		if dec != nil {
			// The application's own last error is the best lead there is:
			// the root cause quotes it.
			f.Culprit += fmt.Sprintf(", whose last error line is: %s", dec.Line)
		}
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Read the full log of the previous run and the container's command; run the image locally with the same arguments to reproduce.",
				Commands: []string{kube.LogsCmd(p, st.Name, true), fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")]}'`, p.Name, kube.NSFlag(p), st.Name)}},
		}
	}
	f.Evidence = evidence
	f.Verdict = report.Validated
	if term != nil && code.Meaning != "" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("Exit code %d: %s.", term.ExitCode, code.Meaning))
	}
	if demoted {
		f.Strength = rule.Symptom
		if probe := probeKilled(c, p, st.Name); probe != "" {
			f.Hypothesis = fmt.Sprintf("Container %s keeps restarting because the kubelet kills it for failing its %s probe", st.Name, probe)
			f.Contributing = append(f.Contributing, fmt.Sprintf("The kubelet killed the container because its %s probe failed: the exit is the kubelet's doing, not the application's.", probe))
		}
	}
	if !f.Current && term != nil && st.State.Running != nil {
		// History: it runs again and has for a while. Say when it crashed
		// (a fault that ended reads as history, with its date).
		// The headline is in the past tense: it no longer crashes.
		times := "last crashed"
		if st.RestartCount <= 1 {
			times = "crashed once"
		}
		f.Title = fmt.Sprintf("history: container %s %s%s at %s: %s; it has run since %s", st.Name, times, kube.ExitSuffix(term), kube.Since(c, term.FinishedAt.Time), because, kube.Stamp(st.State.Running.StartedAt.Time))
		f.Summary = fmt.Sprintf("In the past: container %s of pod %s exited%s at %s: %s.", st.Name, p.Name, kube.ExitSuffix(term), kube.Stamp(term.FinishedAt.Time), because)
		if dec != nil && !strings.Contains(because, dec.Line) {
			f.Summary += fmt.Sprintf(" Its log said: %q.", dec.Line)
		}
		f.Summary += fmt.Sprintf(" It has run again since %s.", kube.Stamp(st.State.Running.StartedAt.Time))
		// A SIGKILL under a memory limit may be an OOM kill the runtime did
		// not record: that limit still stands, so it is no recovery.
		f.Recovered = kube.RecoveredOnce(st, c.Now) && !(term.ExitCode == 137 && memoryLimit(p, st.Name) != "")
	}
	return f
}

// probeKilled names the probe ("liveness", "startup") whose failure made
// the kubelet kill the container, from its Killing event; "" if none.
func probeKilled(c *rule.Pass, p *corev1.Pod, container string) string {
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason != "Killing" {
			continue
		}
		for _, kind := range []string{"liveness", "startup"} {
			if strings.Contains(e.Message, fmt.Sprintf("Container %s failed %s probe", container, kind)) {
				return kind
			}
		}
	}
	return ""
}

// oneCleanRestartLongAgo: a container that exited 0 once, beyond the hour
// that still describes the present, and has run and been ready since. A
// command that returns is restarted again within seconds; one restart weeks
// ago was a stop from outside (a SIGTERM, a node restart).
func oneCleanRestartLongAgo(c *rule.Pass, st corev1.ContainerStatus, term *corev1.ContainerStateTerminated) bool {
	return term != nil && term.ExitCode == 0 && kube.RecoveredOnce(st, c.Now)
}
