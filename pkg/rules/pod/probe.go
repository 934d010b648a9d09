package pod

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// Probe is the rule pod/probe.
var Probe = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/probe",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "Liveness, readiness or startup probes that fail, and why (wrong port or path, too short a delay).",
	},
	Check: checkProbes,
}

func containerStatusNamed(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, cs := range kube.AllStatuses(p) {
		if cs.Status.Name == name {
			st := cs.Status
			return &st
		}
	}
	return nil
}

// probeKind is one of the three probes, as the kubelet names it in events.
type probeKind struct {
	Name  string // "Liveness", as in "Liveness probe failed: …"
	Field string // the container field, "livenessProbe"
	of    func(*corev1.Container) *corev1.Probe
}

var probeKinds = []probeKind{
	{"Startup", "startupProbe", func(c *corev1.Container) *corev1.Probe { return c.StartupProbe }},
	{"Liveness", "livenessProbe", func(c *corev1.Container) *corev1.Probe { return c.LivenessProbe }},
	{"Readiness", "readinessProbe", func(c *corev1.Container) *corev1.Probe { return c.ReadinessProbe }},
}

// restarts: a failing startup or liveness probe makes the kubelet kill the
// container; a failing readiness probe only takes it out of service.
func (k probeKind) restarts() bool { return k.Name != "Readiness" }

// probeClass is what a failing probe runs into: the category suffix
// ("Probe/Liveness/ConnectionRefused").
type probeClass string

const (
	probeNamedPortMissing  probeClass = "NamedPortMissing"
	probePathNotFound      probeClass = "PathNotFound"
	probeAuthRequired      probeClass = "AuthRequired"
	probeUnhealthy         probeClass = "Unhealthy"
	probeHTTPStatus        probeClass = "HTTPStatus"
	probeTimeout           probeClass = "Timeout"
	probeConnectionRefused probeClass = "ConnectionRefused"
	probeConnectionReset   probeClass = "ConnectionReset"
	probeUnreachable       probeClass = "Unreachable"
	// Not read from the probe's output:
	probePortMismatch  probeClass = "PortMismatch"  // the probed port is not one the container declares
	probeCommandFailed probeClass = "CommandFailed" // an exec probe's command exits non-zero
	probeFailed        probeClass = "Failed"        // an output no row recognises
)

// probeFailure is one row of the probe-output table: what the kubelet's
// "<Kind> probe failed: <output>" (or "errored") says went wrong.
type probeFailure struct {
	Class    probeClass
	re       *regexp.Regexp
	Explains string
	// Config: the probe's own settings are at fault, not the application.
	Config bool
}

// probeFailures are matched against the newest failure output, in order.
// PortMismatch is not here: it comes from comparing the probe's port with
// the container's declared ports, when the output says nothing listens.
var probeFailures = []probeFailure{
	{probeNamedPortMissing, regexp.MustCompile(`strconv\.Atoi: parsing "[^"]*": invalid syntax|port \S+ not found`),
		"the probe names a port the container does not declare, so the kubelet cannot resolve it and the probe errors every time", true},
	{probePathNotFound, regexp.MustCompile(`statuscode: 404\b`),
		"the endpoint answers 404 Not Found: the probe's path does not exist in the application", true},
	{probeAuthRequired, regexp.MustCompile(`statuscode: 40[13]\b`),
		"the endpoint demands authentication, which the probe does not send", true},
	{probeUnhealthy, regexp.MustCompile(`statuscode: 5\d\d\b|NOT_SERVING|service unhealthy`),
		"the application answers but reports itself unhealthy", false},
	{probeHTTPStatus, regexp.MustCompile(`statuscode: \d+`),
		"the endpoint answers with a status the kubelet counts as a failure (only 200–399 pass)", true},
	{probeTimeout, regexp.MustCompile(`(?i)context deadline exceeded|Client\.Timeout exceeded|i/o timeout|timed out|timeout: failed to connect`),
		"the endpoint does not answer within the probe's timeoutSeconds", false},
	{probeConnectionRefused, regexp.MustCompile(`connection refused`),
		"nothing listens on the probe's port when the kubelet connects", false},
	{probeConnectionReset, regexp.MustCompile(`connection reset by peer|: EOF`),
		"the connection is accepted then dropped: the port may speak another protocol (TLS where the probe uses HTTP) or the process is overloaded", false},
	{probeUnreachable, regexp.MustCompile(`no route to host|network is unreachable`),
		"the kubelet cannot reach the pod's IP: a network problem on the node", false},
}

// probeTarget describes what a probe checks.
type probeTarget struct {
	Handler string // httpGet, tcpSocket, grpc, exec
	Port    *intstr.IntOrString
	Desc    string // "HTTP GET /healthz on port 8080"
}

func describeProbe(pr *corev1.Probe) probeTarget {
	switch {
	case pr.HTTPGet != nil:
		scheme := "HTTP"
		if pr.HTTPGet.Scheme == corev1.URISchemeHTTPS {
			scheme = "HTTPS"
		}
		port := pr.HTTPGet.Port
		return probeTarget{"httpGet", &port, fmt.Sprintf("%s GET %s on port %s", scheme, kube.OrDash(pr.HTTPGet.Path), port.String())}
	case pr.TCPSocket != nil:
		port := pr.TCPSocket.Port
		return probeTarget{"tcpSocket", &port, "TCP connect to port " + port.String()}
	case pr.GRPC != nil:
		port := intstr.FromInt32(pr.GRPC.Port)
		return probeTarget{"grpc", &port, fmt.Sprintf("gRPC health check on port %d", pr.GRPC.Port)}
	case pr.Exec != nil:
		return probeTarget{Handler: "exec", Desc: fmt.Sprintf("exec %q", kube.Shorten(strings.Join(pr.Exec.Command, " "), 100))}
	}
	return probeTarget{Desc: "a probe with no handler"}
}

// containerPortsText lists a container's ports as "name=3000/TCP".
func containerPortsText(ctr *corev1.Container) []string {
	var out []string
	for _, p := range ctr.Ports {
		s := strconv.Itoa(int(p.ContainerPort))
		if p.Name != "" {
			s = p.Name + "=" + s
		}
		out = append(out, s+"/"+string(defaultIfZero(p.Protocol, corev1.ProtocolTCP)))
	}
	return out
}

func defaultIfZero[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// portCheck compares a probe's port with what the container declares.
type portCheck struct {
	// Named: the probe names a port no port of the container carries. The
	// kubelet resolves names only against the probed container: the probe
	// can never succeed.
	Named bool
	// Undeclared: a number the container does not declare although it
	// declares others. Declaring ports is optional, so this is a clue that
	// only means something next to a "nothing listens" failure.
	Undeclared bool
	Detail     string // what the container declares, and who else uses the port
	Suggest    any    // the port to use instead, when there is one candidate
}

func checkProbePort(p *corev1.Pod, ctr *corev1.Container, port *intstr.IntOrString) portCheck {
	var pc portCheck
	if port == nil {
		return pc
	}
	declared := containerPortsText(ctr)
	pc.Detail = "it declares no ports"
	if len(declared) > 0 {
		pc.Detail = "it declares " + strings.Join(declared, ", ")
	}
	if len(ctr.Ports) == 1 {
		if ctr.Ports[0].Name != "" && port.Type == intstr.String {
			pc.Suggest = ctr.Ports[0].Name
		} else {
			pc.Suggest = ctr.Ports[0].ContainerPort
		}
	}
	if port.Type == intstr.String {
		for _, cp := range ctr.Ports {
			if cp.Name == port.StrVal {
				return portCheck{}
			}
		}
		pc.Named = true
		return pc
	}
	if len(ctr.Ports) == 0 {
		return portCheck{}
	}
	for _, cp := range ctr.Ports {
		if cp.ContainerPort == port.IntVal {
			return portCheck{}
		}
	}
	pc.Undeclared = true
	for i := range p.Spec.Containers {
		other := &p.Spec.Containers[i]
		if other.Name == ctr.Name {
			continue
		}
		for _, cp := range other.Ports {
			if cp.ContainerPort == port.IntVal {
				pc.Detail += fmt.Sprintf("; port %d belongs to container %s", port.IntVal, other.Name)
			}
		}
	}
	return pc
}

// checkProbes: a probe that fails, split by what its output says and by
// comparing its target with the container's ports. Liveness and startup
// failures explain restarts; readiness failures explain a running
// container that is not Ready.
func checkProbes(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, ctr := range probeContainers(p) {
			st := containerStatusNamed(p, ctr.Name)
			for _, kind := range probeKinds {
				if f, ok := probeFinding(c, p, ctr, st, kind); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func probeFinding(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, st *corev1.ContainerStatus, kind probeKind) (rule.Finding, bool) {
	var failures, kills []corev1.Event
	for _, e := range c.B.EventsFor(string(p.UID)) {
		switch {
		case probeFailureEvent(&e, ctr.Name, kind.Name):
			failures = append(failures, e)
		case e.Reason == "Killing" && kind.restarts() &&
			strings.Contains(e.Message, fmt.Sprintf("Container %s failed %s probe", ctr.Name, strings.ToLower(kind.Name))):
			kills = append(kills, e)
		}
	}
	pr := kind.of(ctr)
	f := rule.Finding{Subject: p.Name + "/" + ctr.Name, Strength: rule.Explained}
	if pr == nil {
		if len(failures) == 0 {
			return f, false
		}
		// Events about a probe the spec does not have: the pod was changed
		// since, or the events belong to an earlier incarnation.
		f.Category = rule.Probe.Sub(kind.Name)
		f.Verdict, f.Confidence = report.Inconclusive, rule.Speculative
		f.Hypothesis = fmt.Sprintf("Container %s fails its %s probe (events say so, but its spec has no %s)", ctr.Name, strings.ToLower(kind.Name), kind.Field)
		f.Evidence = []string{podEventEvidence(c, p, &failures[len(failures)-1])}
		return f, true
	}

	target := describeProbe(pr)
	ports := checkProbePort(p, ctr, target.Port)
	restarting := st != nil && st.RestartCount > 0
	crashLooping := st != nil && st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff"
	notReady := st != nil && st.State.Running != nil && !st.Ready
	// The kubelet probes only a running container, and publishes the pod's
	// status after its events: failures of a container whose status still
	// says ContainerCreating (a real node, a busy kubelet) mean it runs and
	// is not ready.
	if st == nil || (st.State.Waiting != nil && (st.State.Waiting.Reason == "ContainerCreating" || st.State.Waiting.Reason == "PodInitializing")) {
		notReady = notReady || len(failures) > 0
	}
	lastExit := int32(-1)
	if st != nil && st.LastTerminationState.Terminated != nil {
		lastExit = st.LastTerminationState.Terminated.ExitCode
	}

	// Is this probe relevant to what is wrong with the container?
	inferredKill := false // only the kill, no event, says the probe failed
	if kind.restarts() {
		killedLikeProbe := restarting && (lastExit == 137 || lastExit == 143)
		unseen := len(failures) == 0 && len(kills) == 0
		inferredKill = unseen && killedLikeProbe && !ports.Named && !ports.Undeclared && onlyProbeKills(c, p, ctr, st, kind)
		if unseen && !(ports.Named && restarting) && !(ports.Undeclared && killedLikeProbe) && !inferredKill {
			return f, false
		}
	} else {
		// A crashing container is not ready either; the crash explains it.
		if !notReady || (len(failures) == 0 && !ports.Named && !ports.Undeclared) {
			return f, false
		}
	}

	// What the newest failure says.
	output := ""
	var newest *corev1.Event
	for i := range failures {
		if newest == nil || bundle.EventTime(&failures[i]).After(bundle.EventTime(newest)) {
			newest = &failures[i]
		}
	}
	// A few failures below the threshold, long ago, on a container that
	// never restarted: the probe did nothing, and says nothing of today.
	if kind.restarts() && len(kills) == 0 && !restarting && !crashLooping && newest != nil && c.Now.Sub(bundle.EventTime(newest)) > kube.RecentWarning {
		return f, false
	}
	if newest != nil {
		_, output, _ = strings.Cut(newest.Message, ":")
		output = strings.TrimSpace(output)
	}
	var class *probeFailure
	for i := range probeFailures {
		if probeFailures[i].re.MatchString(output) {
			class = &probeFailures[i]
			break
		}
	}
	name := probeFailed
	explains := "the probe fails"
	if target.Handler == "exec" {
		name, explains = probeCommandFailed, "the probe's command exits non-zero"
		if output != "" {
			explains += fmt.Sprintf(" (%s)", kube.ProbeVerdict(output))
		}
	}
	config := false
	if class != nil && target.Handler != "exec" {
		name, explains, config = class.Class, class.Explains, class.Config
	}
	switch {
	case ports.Named:
		name, config = probeNamedPortMissing, true
		explains = fmt.Sprintf("the probe names port %q, which container %s does not declare (%s), so the kubelet cannot resolve it and the probe errors every time", target.Port.StrVal, ctr.Name, ports.Detail)
	case ports.Undeclared && (class == nil || name == probeConnectionRefused || name == probeTimeout || name == probeConnectionReset || name == probeFailed):
		name, config = probePortMismatch, true
		explains = fmt.Sprintf("the probe checks port %s, but container %s does not declare it (%s): nothing answers there", target.Port.String(), ctr.Name, ports.Detail)
	}

	// The application's own log line for the probe's requests says why an
	// answered probe fails (probe_reason.go).
	// A plain request on a TLS port first (probe_scheme.go): its 400 is no
	// path's fault.
	var answer *probeAnswer
	if class != nil && target.Handler == "httpGet" {
		answer = probeSchemeReason(c, p, ctr, pr, name, output)
	}
	if answer == nil && class != nil && target.Handler == "httpGet" && (name == probeAuthRequired || name == probeHTTPStatus || name == probeUnhealthy || name == probePathNotFound) {
		answer = probeLogReason(c, p, ctr, pr, failures)
	}
	// A start-up failure the log states explains any answer but a timeout.
	if answer == nil && class != nil && target.Handler != "exec" && name != probeTimeout && name != probePortMismatch && name != probeNamedPortMissing {
		answer = probeStartupReason(c, p, ctr)
	}
	// A state the probe waits for, and the one the log reports (probe_state.go).
	if answer == nil && (target.Handler == "exec" || name == probeUnhealthy || name == probeHTTPStatus) {
		answer = probeStateReason(c, p, ctr, pr, output)
	}
	// Nothing probe-specific: the application's own decisive line says why
	// it is not ready (probe_app_error.go).
	if answer == nil {
		answer = probeAppErrorReason(c, p, ctr, kind, name)
	}
	if answer != nil {
		name, explains, config = answer.class, answer.explain(), answer.class == probeHostRejected || answer.class == probeSchemeMismatch
	}

	// Evidence: the probe, what failed, what the kubelet did about it.
	evidence := []string{c.Evidence(
		fmt.Sprintf("Container %s %s: %s (initialDelaySeconds %d, periodSeconds %d, timeoutSeconds %d, failureThreshold %d)",
			ctr.Name, kind.Field, target.Desc, pr.InitialDelaySeconds, defaultIfZero(pr.PeriodSeconds, 10), defaultIfZero(pr.TimeoutSeconds, 1), defaultIfZero(pr.FailureThreshold, 3)),
		fmt.Sprintf("%s .spec.containers[%s].%s", kube.PodRef(p), ctr.Name, kind.Field),
		containerSpecCmd(p, ctr.Name, kind.Field))}
	if target.Port != nil {
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s ports: %s", ctr.Name, kube.OrDash(strings.Join(containerPortsText(ctr), ", "))),
			fmt.Sprintf("%s .spec.containers[%s].ports", kube.PodRef(p), ctr.Name), containerSpecCmd(p, ctr.Name, "ports")))
	}
	if newest != nil {
		evidence = append(evidence, podEventEvidence(c, p, newest))
	}
	if answer != nil {
		at := "at the probe's requests"
		switch answer.class {
		case probeStartupFailed:
			at = "of the application's failed start-up"
		case probeStateNotReached:
			at = "with the application's last state change"
		case probeAppError:
			at = "that says why the application is not ready"
		}
		if answer.line != "" {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Log line %s: %q", at, answer.line),
				fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), ctr.Name, kube.Instance(answer.prev)), kube.LogsCmd(p, ctr.Name, answer.prev)))
		}
	}
	var killCount int32
	for i := range kills {
		killCount += bundle.EventCount(&kills[i])
	}
	if len(kills) > 0 {
		evidence = append(evidence, podEventEvidence(c, p, &kills[len(kills)-1]))
	}
	if st != nil && kind.restarts() && restarting && st.LastTerminationState.Terminated != nil {
		t := st.LastTerminationState.Terminated
		evidence = append(evidence, c.Evidence(
			fmt.Sprintf("Container %s has restarted %d times; its last run ended with exit code %d (%s) after %s", ctr.Name, st.RestartCount, t.ExitCode, kube.OrDash(t.Reason), t.FinishedAt.Sub(t.StartedAt.Time).Round(time.Second)),
			fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", kube.PodRef(p), ctr.Name),
			kube.StatusCmd(p, ctr.Name, "lastState.terminated")))
	}
	if notReady {
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Container %s is running but not ready", ctr.Name),
			fmt.Sprintf("%s .status.containerStatuses[%s].ready", kube.PodRef(p), ctr.Name), kube.StatusCmd(p, ctr.Name, "ready")))
	}

	// Verdict and confidence: the kubelet's own events are the proof.
	f.Category = rule.Probe.Sub(kind.Name, string(name))
	f.Verdict = report.Validated
	switch {
	case name == probeNamedPortMissing && newest != nil:
		f.Confidence = rule.Definitive
	case name == probeNamedPortMissing:
		f.Confidence = rule.High // certain to fail, though no event shows it yet
	case newest == nil:
		f.Confidence = rule.Moderate // a port clue and a kill-like exit, no event
	case name == probePortMismatch, kind.restarts() && len(kills) > 0:
		f.Confidence = rule.Strong
	case config:
		f.Confidence = rule.High
	default:
		f.Confidence = rule.Probable
	}
	if !config && !kind.restarts() && answer == nil {
		// "the app says it is not ready": true, but the reason lies deeper.
		f.Strength = rule.Observed
	}
	f.Current = crashLooping || notReady || (newest != nil && c.Now.Sub(bundle.EventTime(newest)) < kube.RecentWarning) ||
		(lastExit >= 0 && c.Now.Sub(st.LastTerminationState.Terminated.FinishedAt.Time) < kube.RecentWarning)
	f.Evidence = evidence

	lower := strings.ToLower(kind.Name)
	consequence := "the pod is not Ready and gets no Service traffic"
	if kind.restarts() {
		consequence = "the kubelet kills and restarts the container"
		if killCount > 0 {
			consequence = fmt.Sprintf("the kubelet has killed and restarted the container %d time(s)", killCount)
		}
	}
	f.Hypothesis = fmt.Sprintf("Container %s's %s probe (%s) fails: %s", ctr.Name, lower, target.Desc, explains)
	f.Title = fmt.Sprintf("%s probe of container %s %s; %s", lower, ctr.Name, probeHeadline(name, target, pr, ports, output), consequence)
	if answer != nil {
		f.Title = fmt.Sprintf("%s probe of container %s %s; %s", lower, ctr.Name, answer.headline(output, target), consequence)
	}
	f.Summary = fmt.Sprintf("The %s probe of container %s in pod %s (%s) fails: %s. As a result %s.", lower, ctr.Name, p.Name, target.Desc, explains, consequence)
	if inferredKill {
		// Said, not implied: the failure is inferred from the kill.
		f.Contributing = append(f.Contributing, fmt.Sprintf("No %s probe failure event is in the bundle (the kubelet's events can lag behind its status, and expire after an hour): that the probe killed the container is inferred from its exit (code %d, not OOMKilled) and the %s, not seen.", lower, lastExit, kind.Field))
	}
	if output != "" {
		f.Summary += fmt.Sprintf(" The kubelet reports: %q.", kube.ProbeVerdict(output))
	}

	budget := pr.InitialDelaySeconds + defaultIfZero(pr.FailureThreshold, 3)*defaultIfZero(pr.PeriodSeconds, 10)
	switch kind.Name {
	case "Liveness":
		f.Mechanism = fmt.Sprintf("The kubelet runs the liveness probe every %ds after an initial delay of %ds; after %d consecutive failures it kills the container (SIGTERM, then SIGKILL after the grace period: exit 143 or 137) and restarts it. Repeated kills end in CrashLoopBackOff.",
			defaultIfZero(pr.PeriodSeconds, 10), pr.InitialDelaySeconds, defaultIfZero(pr.FailureThreshold, 3))
	case "Startup":
		f.Mechanism = fmt.Sprintf("Until the startup probe succeeds the kubelet runs no other probe; if it still fails %ds after start (initialDelaySeconds %d + failureThreshold %d × periodSeconds %d), the kubelet kills and restarts the container.",
			budget, pr.InitialDelaySeconds, defaultIfZero(pr.FailureThreshold, 3), defaultIfZero(pr.PeriodSeconds, 10))
	default:
		f.Mechanism = "A failing readiness probe never restarts the container: the kubelet marks it not Ready, so the pod leaves its Services' endpoints and a rollout waiting for it stalls."
	}
	if lastExit >= 0 && kind.restarts() && st.LastTerminationState.Terminated != nil {
		t := st.LastTerminationState.Terminated
		if run := int32(t.FinishedAt.Sub(t.StartedAt.Time).Seconds()); run > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Each run lasted about %ds; the probe gives the container %ds (initial delay + failureThreshold × period) before the kill.", run, budget))
		}
	}
	if dec, _ := logs.LastDecisive(c, p, ctr.Name); dec != nil && !dec.Pattern.Generic() && !config && (answer == nil || answer.class != probeAppError) {
		f.Contributing = append(f.Contributing, fmt.Sprintf("The container's log says %q, which may be why the probe fails.", dec.Line))
	}

	handler := map[string]any{}
	probePath := kind.Field
	switch target.Handler {
	case "httpGet", "tcpSocket", "grpc":
		probePath += "." + target.Handler
	}
	f.Culprit = fmt.Sprintf("%s container %s %s (%s)", kube.PodRef(p), ctr.Name, kind.Field, target.Desc)
	var fix report.Action
	switch name {
	case probePortMismatch, probeNamedPortMissing:
		f.Culprit = fmt.Sprintf("%s container %s %s.port (%s; %s)", kube.PodRef(p), ctr.Name, probePath, target.Port.String(), ports.Detail)
		var port any = "<the port the application listens on>"
		if ports.Suggest != nil {
			port = ports.Suggest
		}
		handler[target.Handler] = map[string]any{"port": port}
		fix = ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: handler},
			fmt.Sprintf("Point the %s probe at the port the application listens on.", lower), "")
	case probeHostRejected, probeAuthzDenied, probeDirectoryIndex:
		f.Culprit = fmt.Sprintf("log line of %s container %s at the %s probe's requests: %s", kube.PodRef(p), ctr.Name, lower, answer.line)
		fix = answer.fix(c, p, ctr, kind)
	case probeStartupFailed:
		f.Culprit = fmt.Sprintf("log line of %s container %s, whose start-up failed: %s", kube.PodRef(p), ctr.Name, answer.line)
		fix = answer.fix(c, p, ctr, kind)
	case probeStateNotReached:
		f.Culprit = fmt.Sprintf("log line of %s container %s with its state: %s", kube.PodRef(p), ctr.Name, answer.line)
		fix = answer.fix(c, p, ctr, kind)
	case probeSchemeMismatch:
		f.Culprit, fix = answer.schemeCulprit(p, ctr, kind), answer.fix(c, p, ctr, kind)
	case probeAppError:
		f.Culprit = fmt.Sprintf("log line of %s container %s, which is not ready: %s", kube.PodRef(p), ctr.Name, answer.line)
		fix = answer.fix(c, p, ctr, kind)
	case probePathNotFound, probeAuthRequired, probeHTTPStatus:
		f.Culprit = fmt.Sprintf("%s container %s %s.path (%s)", kube.PodRef(p), ctr.Name, probePath, pr.HTTPGet.Path)
		handler["httpGet"] = map[string]any{"path": "<a health path that answers 200 without authentication>"}
		fix = ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: handler},
			fmt.Sprintf("Point the %s probe at a path the application serves with a 2xx/3xx answer and no authentication.", lower), "")
	case probeTimeout:
		f.Culprit = fmt.Sprintf("%s container %s %s.timeoutSeconds (%ds)", kube.PodRef(p), ctr.Name, kind.Field, defaultIfZero(pr.TimeoutSeconds, 1))
		fix = ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"timeoutSeconds": max(5, 3*defaultIfZero(pr.TimeoutSeconds, 1))}},
			fmt.Sprintf("Give the %s probe more time to answer, and find out why the endpoint is slow (CPU throttling, a health check that calls dependencies).", lower), "")
	case probeConnectionRefused:
		switch kind.Name {
		case "Startup":
			f.Culprit = fmt.Sprintf("%s container %s %s.failureThreshold (%d × %ds)", kube.PodRef(p), ctr.Name, kind.Field, defaultIfZero(pr.FailureThreshold, 3), defaultIfZero(pr.PeriodSeconds, 10))
			fix = ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"failureThreshold": 3 * defaultIfZero(pr.FailureThreshold, 3)}},
				"Give the application enough time to start: raise the startup probe's failureThreshold (or check it listens on the probed port).", "")
		case "Liveness":
			f.Culprit = fmt.Sprintf("%s container %s %s (%s, initialDelaySeconds %d)", kube.PodRef(p), ctr.Name, kind.Field, target.Desc, pr.InitialDelaySeconds)
			fix = ContainerPatch(c, p, ctr.Name, map[string]any{"startupProbe": map[string]any{target.Handler: probeHandlerCopy(pr, target.Handler), "periodSeconds": 10, "failureThreshold": 30}},
				"Let the application finish starting before liveness counts: add a startupProbe on the same endpoint (or raise initialDelaySeconds), and check it listens on the probed port.", "")
		default:
			fix = report.Action{Kind: report.Check, Description: "Check which port the application listens on and when it starts listening.",
				Commands: []string{kube.LogsCmd(p, ctr.Name, false)}}
		}
	default:
		fix = report.Action{Kind: report.Check,
			Description: fmt.Sprintf("Find out why the application fails its %s check: read its log and run the check by hand.", lower),
			Commands:    []string{kube.LogsCmd(p, ctr.Name, kind.restarts() && restarting)}}
		if target.Handler == "exec" && pr.Exec != nil {
			fix.Commands = append(fix.Commands, fmt.Sprintf("kubectl exec %s %s -c %s -- %s", p.Name, kube.NSFlag(p), ctr.Name, strings.Join(pr.Exec.Command, " ")))
		}
		if kind.Name == "Liveness" && name == probeUnhealthy {
			f.Contributing = append(f.Contributing, "A liveness endpoint that checks dependencies (database, downstream services) restarts healthy processes when a dependency fails: keep liveness to the process itself.")
		}
	}
	f.Actions = []report.Action{fix,
		{Kind: report.Check, Description: fmt.Sprintf("Compare the %s probe with the container's ports and read the kubelet's probe events.", lower),
			Commands: []string{containerSpecCmd(p, ctr.Name, kind.Field), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=Unhealthy", kube.NSFlag(p), p.Name)}},
	}
	return f, true
}
