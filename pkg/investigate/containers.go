package investigate

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// exitCode is one row of the exit-code table.
type exitCode struct {
	Meaning string
	Hint    string
}

// exitCodes explains the exit codes containers commonly die with; 128+n is a
// death by signal n.
var exitCodes = map[int32]exitCode{
	0:   {"exited successfully", "the main process finished; with restartPolicy Always the kubelet restarts it, so a process that is meant to run forever is returning early (a script that ends, a server started in the background)"},
	1:   {"general application error", "the application exited on an error of its own"},
	2:   {"misuse or invalid arguments", "the command line or shell script given to the container is wrong"},
	126: {"command not executable", "the entrypoint exists but cannot be executed (permissions, wrong binary format)"},
	127: {"command not found", "the entrypoint or a command it runs does not exist in the image"},
	128: {"could not start (exit 128)", "the runtime reports 128 when the container's process could not be started at all (reason StartError or ContainerCannotRun: a missing or non-executable entrypoint, a failed mount); an application may also exit 128 on its own"},
	130: {"interrupted (SIGINT)", "the process received SIGINT"},
	134: {"aborted (SIGABRT)", "the process aborted itself, usually a failed assertion or a runtime abort"},
	137: {"killed (SIGKILL)", "something killed the process with SIGKILL: a failed liveness probe after the grace period, a preStop timeout, or a kill from outside; OOM kills report reason OOMKilled"},
	139: {"segmentation fault (SIGSEGV)", "the process accessed invalid memory: a native crash, often a binary built for another libc or CPU"},
	143: {"terminated (SIGTERM)", "the process was asked to stop with SIGTERM: a liveness probe failure, a rollout or a node drain"},
	255: {"exit status 255", "the process exited with -1/255, often a generic fatal error or an exec failure in a wrapper"},
}

func explainExit(code int32) exitCode {
	if e, ok := exitCodes[code]; ok {
		return e
	}
	if code > 128 && code < 160 {
		return exitCode{fmt.Sprintf("killed by signal %d", code-128), "the process died from a signal"}
	}
	return exitCode{fmt.Sprintf("exit code %d", code), "the application chose this exit code; its documentation or logs say what it means"}
}

func podRef(p *corev1.Pod) string { return "pod/" + p.Name }

func nsFlag(p *corev1.Pod) string { return "-n " + p.Namespace }

func statusCmd(p *corev1.Pod, container, field string) string {
	return fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.containerStatuses[?(@.name=="%s")].%s}'`, p.Name, nsFlag(p), container, field)
}

func logsCmd(p *corev1.Pod, container string, previous bool) string {
	prev := ""
	if previous {
		prev = " --previous"
	}
	return fmt.Sprintf("kubectl logs %s %s -c %s%s --tail=50", p.Name, nsFlag(p), container, prev)
}

func specOf(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	for i := range p.Spec.InitContainers {
		if p.Spec.InitContainers[i].Name == name {
			return &p.Spec.InitContainers[i]
		}
	}
	return nil
}

// ownerName is the workload to change for a pod: its top controller in the
// bundle, or the pod itself.
func ownerName(c *Context, p *corev1.Pod) (kind, name string) {
	b := c.B
	switch {
	case len(b.Deployments) > 0:
		return "deployment", b.Deployments[0].Name
	case len(b.StatefulSets) > 0:
		return "statefulset", b.StatefulSets[0].Name
	case len(b.DaemonSets) > 0:
		return "daemonset", b.DaemonSets[0].Name
	case len(b.CronJobs) > 0:
		return "cronjob", b.CronJobs[0].Name
	case len(b.Jobs) > 0:
		return "job", b.Jobs[0].Name
	}
	// A ReplicaSet triaged directly, with no Deployment over it: its
	// template is what a human changes.
	if rs := targetOf(c, "ReplicaSet", b.ReplicaSets); rs != nil {
		return "replicaset", rs.Name
	}
	return "pod", p.Name
}

// checkOOMKilled: a container killed by the kernel's OOM killer at its limit.
func checkOOMKilled(c *Context) []Finding {
	var out []Finding
	for _, p := range c.B.Pods {
		for _, cs := range allStatuses(p) {
			st := cs.status
			term, current := st.LastTerminationState.Terminated, false
			if st.State.Terminated != nil && st.State.Terminated.Reason == "OOMKilled" {
				term, current = st.State.Terminated, true
			}
			if term == nil || term.Reason != "OOMKilled" {
				continue
			}
			if st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" {
				current = true
			}
			limit := "no memory limit"
			if spec := specOf(p, st.Name); spec != nil {
				if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; ok {
					limit = "memory limit " + q.String()
				}
			}
			e1 := c.Evidence(
				fmt.Sprintf("Container %s last terminated with reason OOMKilled, exit code %d, at %s (%d restarts)", st.Name, term.ExitCode, term.FinishedAt.UTC().Format("15:04:05"), st.RestartCount),
				fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", podRef(p), st.Name),
				statusCmd(p, st.Name, "lastState.terminated"))
			e2 := c.Evidence(fmt.Sprintf("Container %s has %s", st.Name, limit),
				fmt.Sprintf("%s .spec.containers[%s].resources", podRef(p), st.Name),
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].resources}'`, p.Name, nsFlag(p), st.Name))
			kind, owner := ownerName(c, p)
			newLimit := "<a higher limit, e.g. 2x the current one>"
			if spec := specOf(p, st.Name); spec != nil {
				if q, ok := spec.Resources.Limits[corev1.ResourceMemory]; ok {
					d := q.DeepCopy()
					d.Add(q)
					newLimit = d.String()
				}
			}
			out = append(out, Finding{
				Category:   rule.OOMKilled,
				Hypothesis: fmt.Sprintf("Container %s is killed for exceeding its memory (%s)", st.Name, limit),
				Verdict:    report.Validated, Confidence: rule.Definitive, Evidence: []string{e1, e2},
				Title:   fmt.Sprintf("container %s is OOMKilled at its %s", st.Name, limit),
				Summary: fmt.Sprintf("Container %s of pod %s uses more memory than its %s allows; the kernel OOM killer ends it (exit code 137) and the kubelet restarts it.", st.Name, p.Name, limit),
				Mechanism: "When a container's memory usage reaches its cgroup limit, the kernel kills its process (SIGKILL, exit 137) and the kubelet records reason OOMKilled. " +
					"Either the limit is too low for the workload's real peak, or the application leaks memory.",
				Culprit: fmt.Sprintf("%s container %s resources.limits.memory (%s)", podRef(p), st.Name, strings.TrimPrefix(limit, "memory limit ")),
				Actions: []report.Action{
					raiseMemory(p, kind, owner, st.Name, newLimit),
					{Kind: report.LongTerm, Description: "Measure the container's real memory use under load (kubectl top pod, or your metrics) and fix a leak or size the limit and any runtime heap setting (-Xmx, GOMEMLIMIT) to it.",
						Commands: []string{fmt.Sprintf("kubectl top pod %s %s --containers", p.Name, nsFlag(p))}},
				},
				Current: current, Strength: rule.Explained, Subject: p.Name + "/" + st.Name,
			})
		}
	}
	return out
}

// raiseMemory proposes a higher limit on the workload, or, for a bare pod
// or a Job whose limits cannot be changed by `kubectl set resources`, a
// recreate.
func raiseMemory(p *corev1.Pod, kind, owner, container, limit string) report.Action {
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Raise the memory limit of container %s so it fits the workload's peak.", container),
		Commands:    []string{fmt.Sprintf("kubectl set resources %s/%s %s -c %s --limits=memory=%s", kind, owner, nsFlag(p), container, limit)},
		Risk:        templateRisk(kind, "the pods restart with the new limit") + "; a higher limit needs room on the node and may leave a leak unfixed"}
	a.Commands = templateCommands(kind, owner, p.Namespace, a.Commands, fmt.Sprintf("set resources.limits.memory: %s for container %s", limit, container), "")
	if kind == "pod" {
		a.Description += " A bare pod's limits cannot be set in place: change the manifest and recreate the pod."
		a.Commands = []string{
			fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set resources.limits.memory: %s for container %s", p.Name, nsFlag(p), p.Name, limit, container),
			fmt.Sprintf("kubectl replace --force -f %s.yaml", p.Name),
		}
		a.Risk = "replace --force deletes and recreates the pod; a higher limit needs room on the node and may leave a leak unfixed"
	}
	return a
}

// checkCrashLoop: a container that keeps exiting, classified by exit code
// and by the decisive line of its last log. An init container that fails
// blocks the whole pod (Init:CrashLoopBackOff, or Init:Error when the pod
// does not restart), and a container of a pod that never restarts fails
// once: both are reported too.
func checkCrashLoop(c *Context) []Finding {
	var out []Finding
	for _, p := range c.B.Pods {
		for _, cs := range allStatuses(p) {
			st := cs.status
			waiting := st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff"
			term := st.LastTerminationState.Terminated
			failedOnce, firstCrash := false, false
			// An app container that exits 0 under restartPolicy Always is
			// restarted too (a completed init container is not).
			exit0Restart := !cs.init && p.Spec.RestartPolicy == corev1.RestartPolicyAlways
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
			if p.Status.Reason == "Evicted" {
				continue // checkEvicted explains it: the kubelet stopped the containers
			}
			f := crashFinding(c, p, st, term, waiting)
			if failedOnce {
				f = failedOnceFinding(p, st, f)
			}
			if cs.init {
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
func failedOnceFinding(p *corev1.Pod, st corev1.ContainerStatus, f Finding) Finding {
	f.Category = f.Category.WithRoot(rule.ContainerFailed)
	f.Title = strings.Replace(f.Title, "crash-loops with", "failed with", 1)
	f.Title = strings.Replace(f.Title, "crashes with", "failed with", 1)
	f.Mechanism = strings.Replace(f.Mechanism, "the kubelet restarts it with growing back-off (CrashLoopBackOff)",
		fmt.Sprintf("with restartPolicy %s the kubelet does not restart it, so the pod ends Failed", orDash(string(p.Spec.RestartPolicy))), 1)
	f.Mechanism = strings.Replace(f.Mechanism, "The kubelet restarts the container with growing back-off (CrashLoopBackOff).",
		fmt.Sprintf("With restartPolicy %s the kubelet does not restart it; the pod ends Failed.", orDash(string(p.Spec.RestartPolicy))), 1)
	f.Summary = strings.Replace(f.Summary, "keeps exiting", "exited", 1)
	return f
}

// initFinding rewords a crash finding for an init container: until it
// succeeds, none of the pod's app containers start.
func initFinding(p *corev1.Pod, st corev1.ContainerStatus, f Finding) Finding {
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

// lastDecisive returns the most telling line of a container's logs, from
// the previous instance first: it is the one that died.
func lastDecisive(c *Context, p *corev1.Pod, container string) (*decisive, bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" {
			continue
		}
		if d := findDecisive(l.entry.Text); d != nil {
			return d, l.prev
		}
	}
	return nil, false
}

func crashFinding(c *Context, p *corev1.Pod, st corev1.ContainerStatus, term *corev1.ContainerStateTerminated, waiting bool) Finding {
	kind, owner := ownerName(c, p)
	f := Finding{Category: rule.CrashLoop, Current: waiting || st.State.Terminated != nil, Strength: rule.Observed, Subject: p.Name + "/" + st.Name}
	// When the kubelet itself ended the container (a failing probe) or the
	// runtime could not start it, the exit is a symptom: the probe and
	// runtime rules name the cause, so this finding never outranks them.
	demoted := probeKilled(c, p, st.Name) != "" || (term != nil && (term.Reason == "StartError" || term.Reason == "ContainerCannotRun"))
	var evidence []string
	if waiting {
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Container %s is in CrashLoopBackOff after %d restarts", st.Name, st.RestartCount),
			fmt.Sprintf("%s .status.containerStatuses[%s].state.waiting", podRef(p), st.Name),
			statusCmd(p, st.Name, "state.waiting")))
	}
	var code exitCode
	if term != nil {
		code = explainExit(term.ExitCode)
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Its last run ended with exit code %d (%s, reason %s) at %s", term.ExitCode, code.Meaning, orDash(term.Reason), term.FinishedAt.UTC().Format("15:04:05")),
			fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", podRef(p), st.Name),
			statusCmd(p, st.Name, "lastState.terminated")))
		f.Category = rule.CrashLoop.Sub(fmt.Sprintf("Exit%d", term.ExitCode))
	}

	// The previous instance's log says why it died; the current one may be
	// empty if it is waiting in back-off.
	_, prev := c.B.LogsFor(p.Name, st.Name)
	dec, fromPrev := lastDecisive(c, p, st.Name)

	switch {
	case term != nil && term.ExitCode == 0:
		f.Category = rule.CrashLoop.Sub("Exit0")
		f.Title = fmt.Sprintf("container %s exits successfully (code 0) and is restarted: its command does not keep running", st.Name)
		f.Hypothesis = fmt.Sprintf("Container %s's main process returns instead of running forever", st.Name)
		f.Summary = fmt.Sprintf("Container %s of pod %s exits with code 0, and restartPolicy %s restarts it until the kubelet backs off.", st.Name, p.Name, p.Spec.RestartPolicy)
		f.Mechanism = code.Hint + "."
		f.Confidence = rule.High
		f.Culprit = fmt.Sprintf("%s container %s command/args", podRef(p), st.Name)
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Make the container's command run in the foreground (no `&`, no daemonizing) or, for a one-off task, run it as a Job instead of a Deployment.",
				Commands: []string{fmt.Sprintf(`kubectl get %s/%s %s -o jsonpath='{.spec.template.spec.containers[?(@.name=="%s")].command}'`, kind, owner, nsFlag(p), st.Name)}},
		}
	case dec != nil && dec.Pattern.Priority > 10:
		logEv := c.Evidence(fmt.Sprintf("Log line: %q", dec.Line),
			fmt.Sprintf("logs of %s container %s (%s instance)", podRef(p), st.Name, instance(fromPrev)),
			logsCmd(p, st.Name, fromPrev))
		evidence = append(evidence, logEv)
		f.Category = f.Category.Sub(dec.Pattern.Class)
		what := dec.Pattern.Explains
		detail := ""
		if subj := subjectOf(dec.Pattern.Class, dec.Line); subj != "" {
			detail = " (" + subj + ")"
		}
		f.Title = fmt.Sprintf("container %s crashes%s: %s%s", st.Name, exitSuffix(term), what, detail)
		f.Hypothesis = fmt.Sprintf("Container %s exits because %s", st.Name, what)
		f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting%s because %s%s. Its log says: %q.", st.Name, p.Name, exitSuffix(term), what, detail, dec.Line)
		f.Mechanism = "The container's process fails at startup and exits; the kubelet restarts it with growing back-off (CrashLoopBackOff)."
		if term != nil {
			f.Mechanism += fmt.Sprintf(" Exit code %d means %s: %s.", term.ExitCode, code.Meaning, code.Hint)
		}
		f.Culprit = fmt.Sprintf("log line of %s container %s: %s", podRef(p), st.Name, dec.Line)
		f.Confidence = rule.Strong
		f.Strength = rule.Explained
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: dec.Pattern.Fix,
				Commands: []string{logsCmd(p, st.Name, fromPrev), fmt.Sprintf("kubectl describe %s %s %s", kind, owner, nsFlag(p))}},
			{Kind: report.LongTerm, Description: "If a recent rollout introduced this, roll back while the fix is prepared.",
				Commands: []string{fmt.Sprintf("kubectl rollout undo %s/%s %s", kind, owner, nsFlag(p))},
				Risk:     "rolls the whole workload back to the previous revision"},
		}
		if kind == "pod" || kind == "job" || kind == "cronjob" || kind == "replicaset" { // nothing to roll back
			f.Actions = f.Actions[:1]
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
			// SIGKILL without reason OOMKilled: not the kernel's OOM killer.
			f.Title += fmt.Sprintf(", not an OOM kill (reason %s): something else sent SIGKILL", orDash(term.Reason))
		}
		f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting with %s; the logs collected do not say why.", st.Name, p.Name, meaning)
		if dec != nil {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Last error-like log line: %q", dec.Line),
				fmt.Sprintf("logs of %s container %s (%s instance)", podRef(p), st.Name, instance(fromPrev)), logsCmd(p, st.Name, fromPrev)))
			f.Summary = fmt.Sprintf("Container %s of pod %s keeps exiting with %s; its last error line is %q.", st.Name, p.Name, meaning, dec.Line)
			f.Confidence = rule.Plausible
		} else if prev == nil || prev.Error != "" {
			f.Contributing = append(f.Contributing, "The previous instance's logs could not be read, so the reason for the exit is not confirmed.")
		}
		f.Culprit = fmt.Sprintf("%s container %s", podRef(p), st.Name)
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Read the full log of the previous run and the container's command; run the image locally with the same arguments to reproduce.",
				Commands: []string{logsCmd(p, st.Name, true), fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")]}'`, p.Name, nsFlag(p), st.Name)}},
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
	return f
}

// replicaSetTemplateRisk: a ReplicaSet's controller does not roll a
// template change out.
const replicaSetTemplateRisk = "a ReplicaSet applies a template change only to the pods it creates from now on: delete its running pods to replace them"

// replicaSetPendingRisk: the same for pods that have not started (waiting
// to be scheduled, or for their image), which keep the old template and
// wait on.
const replicaSetPendingRisk = "a ReplicaSet applies a template change only to the pods it creates from now on: delete its pending pods so that it recreates them"

// jobTemplateRisk: a Job's pod template is immutable, so a fix to it
// recreates the Job.
const jobTemplateRisk = "a Job's pod template cannot change: replace --force deletes the Job and its pods, and the new Job runs its work again from the start"

// cronJobTemplateRisk: a CronJob's Jobs copy its template when they start,
// so a change reaches only the runs after it.
const cronJobTemplateRisk = "a CronJob applies a template change from its next run on (the runs already started keep the old one); create job starts a run now: make sure an extra run is safe"

// cronJobPendingRisk: the same for a run whose pods cannot start (or be
// created), which waits on with the old template until it is deleted.
const cronJobPendingRisk = "a CronJob applies a template change from its next run on: the stuck run keeps the old one, so delete it; create job starts a run now: make sure an extra run is safe"

// templateRisk is what changing the pod template of an owner of kind does
// to the pods it has: rollout (e.g. "the change starts a rollout") for a
// controller that rolls its pods, but neither a bare ReplicaSet, nor a Job
// (whose template is immutable), nor a CronJob (whose runs have their own
// copy) does.
func templateRisk(kind, rollout string) string {
	switch kind {
	case "replicaset":
		return replicaSetTemplateRisk
	case "job":
		return jobTemplateRisk
	case "cronjob":
		return cronJobTemplateRisk
	}
	return rollout
}

// pendingTemplateRisk is templateRisk for a fix of pods that have not
// started (unschedulable, or waiting for their image).
func pendingTemplateRisk(kind, rollout string) string {
	switch kind {
	case "replicaset":
		return replicaSetPendingRisk
	case "job":
		return jobTemplateRisk
	case "cronjob":
		return cronJobPendingRisk
	}
	return rollout
}

// templateCommands are the commands that make a change to the pod template
// of the owner kind/name in namespace ns take effect. edit changes the
// template in place (kubectl set, patch or edit), which is all a
// controller that rolls its pods needs; what says the change in words. A
// Job's template cannot change, so its manifest is edited and the Job
// recreated; a CronJob takes edit, and a run is started now rather than at
// the next schedule, after deleting stuckRun, the run whose pods wait with
// the old template ("" when none waits or it is unknown).
func templateCommands(kind, name, ns string, edit []string, what, stuckRun string) []string {
	switch kind {
	case "job":
		return recreateJobCommands(name, ns, what)
	case "cronjob":
		out := slices.Clone(edit)
		if stuckRun != "" {
			out = append(out, fmt.Sprintf("kubectl delete job %s -n %s", stuckRun, ns))
		}
		return append(out, runCronJobNow(name, ns))
	}
	return edit
}

// recreateJobCommands edit a Job's manifest and recreate the Job from it.
// The API server refuses a Job that carries another Job's generated
// selector, hence what to remove.
func recreateJobCommands(name, ns, what string) []string {
	return []string{
		fmt.Sprintf("kubectl get job %s -n %s -o yaml > %s.yaml   # %s; remove status, metadata.uid/resourceVersion, spec.selector and the controller-uid labels", name, ns, name, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", name),
	}
}

// runCronJobNow starts a run of a CronJob outside its schedule.
func runCronJobNow(name, ns string) string {
	return fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", name, ns, name)
}

// podRun is the Job that controls pod p, "" when none does.
func podRun(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "Job" {
		return ref.Name
	}
	return ""
}

func exitSuffix(t *corev1.ContainerStateTerminated) string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf(" with exit code %d", t.ExitCode)
}

func instance(previous bool) string {
	if previous {
		return "previous"
	}
	return "current"
}
