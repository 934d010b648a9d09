package investigate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
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

// containerMoreRules go beyond the crash loop, the OOM kill and the image
// pull: probes that fail, the kubelet refusing to create or start a
// container, the ConfigMap a crashing container misses, evictions and pods
// stuck terminating.

// ---------------------------------------------------------------------------
// Shared helpers

// podEventEvidence registers an event about a pod; the fact reads like the
// other rules' so the same event is one piece of evidence.
func podEventEvidence(c *rule.Pass, p *corev1.Pod, e *corev1.Event) string {
	return c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, bundle.EventCount(e), e.Message),
		"event on "+kube.PodRef(p),
		fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", kube.NsFlag(p), p.Name, e.Reason))
}

// eventAboutContainer: the event's fieldPath names this container, or names no
// container at all.
func eventAboutContainer(e *corev1.Event, container string) bool {
	switch e.InvolvedObject.FieldPath {
	case "", "spec.containers{" + container + "}", "spec.initContainers{" + container + "}", "spec.ephemeralContainers{" + container + "}":
		return true
	}
	return false
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

func isInitContainer(p *corev1.Pod, name string) bool {
	for _, ctr := range p.Spec.InitContainers {
		if ctr.Name == name {
			return true
		}
	}
	return false
}

// containerSpecCmd shows one field of one container of the pod.
func containerSpecCmd(p *corev1.Pod, container, field string) string {
	list := "containers"
	if isInitContainer(p, container) {
		list = "initContainers"
	}
	return fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.%s[?(@.name=="%s")].%s}'`, p.Name, kube.NsFlag(p), list, container, field)
}

// containerPatch proposes a change to one container of the pod's workload:
// a strategic-merge patch (containers merge by name) of the owner's pod
// template, or, for a bare pod or a Job whose template is immutable, an
// edit-and-recreate.
func containerPatch(c *rule.Pass, p *corev1.Pod, container string, fields map[string]any, desc, risk string) report.Action {
	kind, owner := kube.OwnerName(c, p)
	list := "containers"
	if isInitContainer(p, container) {
		list = "initContainers"
	}
	ctr := map[string]any{"name": container}
	for k, v := range fields {
		ctr[k] = v
	}
	podSpec := map[string]any{list: []any{ctr}}
	var patch map[string]any
	switch kind {
	case "deployment", "statefulset", "daemonset", "replicaset":
		patch = map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}
	case "cronjob":
		patch = map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}}}
	}
	a := report.Action{Kind: report.Immediate, Description: desc, Risk: risk}
	change, _ := json.Marshal(fields)
	if patch != nil {
		data, _ := json.Marshal(patch)
		a.Commands = kube.TemplateCommands(kind, owner, p.Namespace, []string{fmt.Sprintf("kubectl patch %s/%s %s -p '%s'", kind, owner, kube.NsFlag(p), data)}, "", "")
		if a.Risk == "" {
			a.Risk = kube.TemplateRisk(kind, "the change starts a rollout of the workload")
		} else if kind == "cronjob" {
			a.Risk += "; " + kube.CronJobTemplateRisk
		}
		return a
	}
	// Pods and Jobs cannot change these fields in place.
	a.Description += fmt.Sprintf(" A %s's containers cannot be changed in place: edit the manifest and recreate it.", kind)
	what := fmt.Sprintf("in %s %s set %s", list, container, change)
	a.Commands = []string{
		fmt.Sprintf("kubectl get %s %s %s -o yaml > %s.yaml   # %s", kind, owner, kube.NsFlag(p), owner, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", owner),
	}
	a.Risk = "replace --force deletes and recreates the " + kind
	if kind == "job" {
		a.Commands = kube.TemplateCommands(kind, owner, p.Namespace, nil, what, "")
		a.Risk = kube.JobTemplateRisk
	}
	if risk != "" {
		a.Risk += "; " + risk
	}
	return a
}

// ---------------------------------------------------------------------------
// Probes

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

// probeFailure is one row of the probe-output table: what the kubelet's
// "<Kind> probe failed: <output>" (or "errored") says went wrong.
type probeFailure struct {
	Class    string
	re       *regexp.Regexp
	Explains string
	// Config: the probe's own settings are at fault, not the application.
	Config bool
}

// probeFailures are matched against the newest failure output, in order.
// PortMismatch is not here: it comes from comparing the probe's port with
// the container's declared ports, when the output says nothing listens.
var probeFailures = []probeFailure{
	{"NamedPortMissing", regexp.MustCompile(`strconv\.Atoi: parsing "[^"]*": invalid syntax|port \S+ not found`),
		"the probe names a port the container does not declare, so the kubelet cannot resolve it and the probe errors every time", true},
	{"PathNotFound", regexp.MustCompile(`statuscode: 404\b`),
		"the endpoint answers 404 Not Found: the probe's path does not exist in the application", true},
	{"AuthRequired", regexp.MustCompile(`statuscode: 40[13]\b`),
		"the endpoint demands authentication, which the probe does not send", true},
	{"Unhealthy", regexp.MustCompile(`statuscode: 5\d\d\b|NOT_SERVING|service unhealthy`),
		"the application answers but reports itself unhealthy", false},
	{"HTTPStatus", regexp.MustCompile(`statuscode: \d+`),
		"the endpoint answers with a status the kubelet counts as a failure (only 200–399 pass)", true},
	{"Timeout", regexp.MustCompile(`(?i)context deadline exceeded|Client\.Timeout exceeded|i/o timeout|timed out|timeout: failed to connect`),
		"the endpoint does not answer within the probe's timeoutSeconds", false},
	{"ConnectionRefused", regexp.MustCompile(`connection refused`),
		"nothing listens on the probe's port when the kubelet connects", false},
	{"ConnectionReset", regexp.MustCompile(`connection reset by peer|: EOF`),
		"the connection is accepted then dropped: the port may speak another protocol (TLS where the probe uses HTTP) or the process is overloaded", false},
	{"Unreachable", regexp.MustCompile(`no route to host|network is unreachable`),
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
		return probeTarget{Handler: "exec", Desc: fmt.Sprintf("exec %q", strings.Join(pr.Exec.Command, " "))}
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

// probeContainers are the containers that can carry probes: app containers
// and sidecars (init containers that keep running).
func probeContainers(p *corev1.Pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range p.Spec.InitContainers {
		if rp := p.Spec.InitContainers[i].RestartPolicy; rp != nil && *rp == corev1.ContainerRestartPolicyAlways {
			out = append(out, &p.Spec.InitContainers[i])
		}
	}
	for i := range p.Spec.Containers {
		out = append(out, &p.Spec.Containers[i])
	}
	return out
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
		case e.Reason == "Unhealthy" && eventAboutContainer(&e, ctr.Name) &&
			(strings.HasPrefix(e.Message, kind.Name+" probe failed:") || strings.HasPrefix(e.Message, kind.Name+" probe errored:")):
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
	if kind.restarts() {
		killedLikeProbe := restarting && (lastExit == 137 || lastExit == 143)
		if len(failures) == 0 && len(kills) == 0 && !(ports.Named && restarting) && !(ports.Undeclared && killedLikeProbe) {
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
	name := "Failed"
	explains := "the probe fails"
	if target.Handler == "exec" {
		name, explains = "CommandFailed", "the probe's command exits non-zero"
		if output != "" {
			explains += fmt.Sprintf(" (%s)", kube.FirstLine(output))
		}
	}
	config := false
	if class != nil && target.Handler != "exec" {
		name, explains, config = class.Class, class.Explains, class.Config
	}
	switch {
	case ports.Named:
		name, config = "NamedPortMissing", true
		explains = fmt.Sprintf("the probe names port %q, which container %s does not declare (%s), so the kubelet cannot resolve it and the probe errors every time", target.Port.StrVal, ctr.Name, ports.Detail)
	case ports.Undeclared && (class == nil || name == "ConnectionRefused" || name == "Timeout" || name == "ConnectionReset" || name == "Failed"):
		name, config = "PortMismatch", true
		explains = fmt.Sprintf("the probe checks port %s, but container %s does not declare it (%s): nothing answers there", target.Port.String(), ctr.Name, ports.Detail)
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
	f.Category = rule.Probe.Sub(kind.Name, name)
	f.Verdict = report.Validated
	switch {
	case name == "NamedPortMissing" && newest != nil:
		f.Confidence = rule.Definitive
	case name == "NamedPortMissing":
		f.Confidence = rule.High // certain to fail, though no event shows it yet
	case newest == nil:
		f.Confidence = rule.Moderate // a port clue and a kill-like exit, no event
	case name == "PortMismatch", kind.restarts() && len(kills) > 0:
		f.Confidence = rule.Strong
	case config:
		f.Confidence = rule.High
	default:
		f.Confidence = rule.Probable
	}
	if !config && !kind.restarts() {
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
	f.Summary = fmt.Sprintf("The %s probe of container %s in pod %s (%s) fails: %s. As a result %s.", lower, ctr.Name, p.Name, target.Desc, explains, consequence)
	if output != "" {
		f.Summary += fmt.Sprintf(" The kubelet reports: %q.", kube.FirstLine(output))
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
	if dec, _ := logs.LastDecisive(c, p, ctr.Name); dec != nil && dec.Pattern.Priority > 10 && !config {
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
	case "PortMismatch", "NamedPortMissing":
		f.Culprit = fmt.Sprintf("%s container %s %s.port (%s; %s)", kube.PodRef(p), ctr.Name, probePath, target.Port.String(), ports.Detail)
		var port any = "<the port the application listens on>"
		if ports.Suggest != nil {
			port = ports.Suggest
		}
		handler[target.Handler] = map[string]any{"port": port}
		fix = containerPatch(c, p, ctr.Name, map[string]any{kind.Field: handler},
			fmt.Sprintf("Point the %s probe at the port the application listens on.", lower), "")
	case "PathNotFound", "AuthRequired", "HTTPStatus":
		f.Culprit = fmt.Sprintf("%s container %s %s.path (%s)", kube.PodRef(p), ctr.Name, probePath, pr.HTTPGet.Path)
		handler["httpGet"] = map[string]any{"path": "<a health path that answers 200 without authentication>"}
		fix = containerPatch(c, p, ctr.Name, map[string]any{kind.Field: handler},
			fmt.Sprintf("Point the %s probe at a path the application serves with a 2xx/3xx answer and no authentication.", lower), "")
	case "Timeout":
		f.Culprit = fmt.Sprintf("%s container %s %s.timeoutSeconds (%ds)", kube.PodRef(p), ctr.Name, kind.Field, defaultIfZero(pr.TimeoutSeconds, 1))
		fix = containerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"timeoutSeconds": max(5, 3*defaultIfZero(pr.TimeoutSeconds, 1))}},
			fmt.Sprintf("Give the %s probe more time to answer, and find out why the endpoint is slow (CPU throttling, a health check that calls dependencies).", lower), "")
	case "ConnectionRefused":
		switch kind.Name {
		case "Startup":
			f.Culprit = fmt.Sprintf("%s container %s %s.failureThreshold (%d × %ds)", kube.PodRef(p), ctr.Name, kind.Field, defaultIfZero(pr.FailureThreshold, 3), defaultIfZero(pr.PeriodSeconds, 10))
			fix = containerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"failureThreshold": 3 * defaultIfZero(pr.FailureThreshold, 3)}},
				"Give the application enough time to start: raise the startup probe's failureThreshold (or check it listens on the probed port).", "")
		case "Liveness":
			f.Culprit = fmt.Sprintf("%s container %s %s (%s, initialDelaySeconds %d)", kube.PodRef(p), ctr.Name, kind.Field, target.Desc, pr.InitialDelaySeconds)
			fix = containerPatch(c, p, ctr.Name, map[string]any{"startupProbe": map[string]any{target.Handler: probeHandlerCopy(pr, target.Handler), "periodSeconds": 10, "failureThreshold": 30}},
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
			fix.Commands = append(fix.Commands, fmt.Sprintf("kubectl exec %s %s -c %s -- %s", p.Name, kube.NsFlag(p), ctr.Name, strings.Join(pr.Exec.Command, " ")))
		}
		if kind.Name == "Liveness" && name == "Unhealthy" {
			f.Contributing = append(f.Contributing, "A liveness endpoint that checks dependencies (database, downstream services) restarts healthy processes when a dependency fails: keep liveness to the process itself.")
		}
	}
	f.Actions = []report.Action{fix,
		{Kind: report.Check, Description: fmt.Sprintf("Compare the %s probe with the container's ports and read the kubelet's probe events.", lower),
			Commands: []string{containerSpecCmd(p, ctr.Name, kind.Field), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=Unhealthy", kube.NsFlag(p), p.Name)}},
	}
	return f, true
}

var statusCodeRe = regexp.MustCompile(`statuscode: (\d+)`)

// probeHeadline says in a few words what a failing probe runs into, for
// the report's one-line root cause.
func probeHeadline(class string, target probeTarget, pr *corev1.Probe, ports portCheck, output string) string {
	code := ""
	if m := statusCodeRe.FindStringSubmatch(output); m != nil {
		code = m[1]
	}
	switch class {
	case "PortMismatch":
		return fmt.Sprintf("checks port %s, which the container does not declare (%s)", target.Port.String(), ports.Detail)
	case "NamedPortMissing":
		return fmt.Sprintf("names port %q, which the container does not declare (%s)", target.Port.String(), ports.Detail)
	case "PathNotFound":
		return fmt.Sprintf("gets 404 Not Found: %s does not exist", target.Desc)
	case "AuthRequired":
		return fmt.Sprintf("gets HTTP %s: %s demands authentication", code, target.Desc)
	case "Unhealthy":
		if code != "" {
			return fmt.Sprintf("gets HTTP %s from %s: the application reports itself unhealthy", code, target.Desc)
		}
		return fmt.Sprintf("gets NOT_SERVING from %s: the application reports itself unhealthy", target.Desc)
	case "HTTPStatus":
		return fmt.Sprintf("gets HTTP %s from %s (only 200-399 pass)", code, target.Desc)
	case "Timeout":
		return fmt.Sprintf("gets no answer from %s within timeoutSeconds %ds", target.Desc, defaultIfZero(pr.TimeoutSeconds, 1))
	case "ConnectionRefused":
		return fmt.Sprintf("finds nothing listening on port %s (initialDelaySeconds %d)", target.Port.String(), pr.InitialDelaySeconds)
	case "ConnectionReset":
		return fmt.Sprintf("has its connection reset (%s)", target.Desc)
	case "Unreachable":
		return fmt.Sprintf("cannot reach the pod (%s): no route from the node", target.Desc)
	case "CommandFailed":
		if output != "" {
			return fmt.Sprintf("fails: %s exits non-zero (%s)", target.Desc, kube.FirstLine(output))
		}
		return fmt.Sprintf("fails: %s exits non-zero", target.Desc)
	}
	return fmt.Sprintf("fails (%s)", target.Desc)
}

// probeHandlerCopy returns a probe's handler, for a startup probe on the
// same endpoint.
func probeHandlerCopy(pr *corev1.Probe, handler string) any {
	switch handler {
	case "httpGet":
		return map[string]any{"path": pr.HTTPGet.Path, "port": pr.HTTPGet.Port}
	case "tcpSocket":
		return map[string]any{"port": pr.TCPSocket.Port}
	case "grpc":
		return map[string]any{"port": pr.GRPC.Port}
	}
	return nil
}

// ---------------------------------------------------------------------------
// CreateContainerConfigError

// configError is one row of the kubelet's container-config table: the
// message it leaves in state.waiting when it cannot build the container's
// environment or security settings.
type configError struct {
	Class string
	re    *regexp.Regexp
	Kind  string // the object kind the message names, if any
}

var configErrors = []configError{
	{"MissingConfigMapKey", regexp.MustCompile(`(?i)couldn't find key (\S+) in ConfigMap ([^/\s]+)/(\S+)`), "ConfigMap"},
	{"MissingSecretKey", regexp.MustCompile(`(?i)couldn't find key (\S+) in Secret ([^/\s]+)/(\S+)`), "Secret"},
	{"MissingConfigMap", regexp.MustCompile(`configmaps? "([^"]+)" not found`), "ConfigMap"},
	{"MissingSecret", regexp.MustCompile(`secrets? "([^"]+)" not found`), "Secret"},
	{"RunAsNonRoot", regexp.MustCompile(`container has runAsNonRoot and image will run as root`), ""},
	{"NonNumericUser", regexp.MustCompile(`container has runAsNonRoot and image has non-numeric user \(([^)]*)\)`), ""},
}

// configRef is where a pod refers to a ConfigMap or Secret.
type configRef struct {
	Container string // "" for a pod-level volume
	Via       string // "env LOG_LEVEL", "envFrom", "volume config at /etc/app"
	Key       string
	Optional  bool
}

// refsTo lists where the pod refers to the ConfigMap or Secret name; key,
// when set, narrows env references to that key.
func refsTo(p *corev1.Pod, kind, name, key string) []configRef {
	var out []configRef
	for _, ctr := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, e := range ctr.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.ConfigMapKeyRef; kind == "ConfigMap" && r != nil && r.Name == name && (key == "" || r.Key == key) {
				out = append(out, configRef{ctr.Name, "env " + e.Name, r.Key, r.Optional != nil && *r.Optional})
			}
			if r := e.ValueFrom.SecretKeyRef; kind == "Secret" && r != nil && r.Name == name && (key == "" || r.Key == key) {
				out = append(out, configRef{ctr.Name, "env " + e.Name, r.Key, r.Optional != nil && *r.Optional})
			}
		}
		for _, ef := range ctr.EnvFrom {
			if r := ef.ConfigMapRef; kind == "ConfigMap" && r != nil && r.Name == name && key == "" {
				out = append(out, configRef{ctr.Name, "envFrom", "", r.Optional != nil && *r.Optional})
			}
			if r := ef.SecretRef; kind == "Secret" && r != nil && r.Name == name && key == "" {
				out = append(out, configRef{ctr.Name, "envFrom", "", r.Optional != nil && *r.Optional})
			}
		}
	}
	for _, v := range p.Spec.Volumes {
		match := (kind == "ConfigMap" && v.ConfigMap != nil && v.ConfigMap.Name == name) ||
			(kind == "Secret" && v.Secret != nil && v.Secret.SecretName == name)
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				match = match || (kind == "ConfigMap" && src.ConfigMap != nil && src.ConfigMap.Name == name) ||
					(kind == "Secret" && src.Secret != nil && src.Secret.Name == name)
			}
		}
		if match && key == "" {
			out = append(out, configRef{Via: "volume " + v.Name + mountedAt(p, v.Name)})
		}
	}
	return out
}

// mountedAt says where containers mount a volume.
func mountedAt(p *corev1.Pod, volume string) string {
	var at []string
	for _, ctr := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, m := range ctr.VolumeMounts {
			if m.Name == volume {
				at = append(at, fmt.Sprintf("%s in container %s", m.MountPath, ctr.Name))
			}
		}
	}
	if len(at) == 0 {
		return ""
	}
	return " (mounted at " + strings.Join(at, ", ") + ")"
}

func describeRefs(refs []configRef, container string) string {
	var out []string
	for _, r := range refs {
		s := r.Via
		if r.Container != "" && r.Container != container {
			s = "container " + r.Container + " " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// checkContainerConfigError: the kubelet cannot build a container's
// environment (a ConfigMap or Secret, or a key in one, does not exist) or
// refuses its security settings (runAsNonRoot with a root image).
func checkContainerConfigError(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			w := st.State.Waiting
			if w == nil || w.Reason != "CreateContainerConfigError" {
				continue
			}
			evidence := []string{c.Evidence(
				fmt.Sprintf("Container %s is waiting: CreateContainerConfigError: %s", st.Name, w.Message),
				fmt.Sprintf("%s .status.containerStatuses[%s].state.waiting", kube.PodRef(p), st.Name),
				kube.StatusCmd(p, st.Name, "state.waiting"))}
			text := w.Message
			for _, e := range c.B.EventsFor(string(p.UID)) {
				if e.Reason == "Failed" && eventAboutContainer(&e, st.Name) && strings.HasPrefix(e.Message, "Error: ") {
					evidence = append(evidence, podEventEvidence(c, p, &e))
					if text == "" {
						text = strings.TrimPrefix(e.Message, "Error: ")
					}
				}
			}
			out = append(out, configErrorFinding(c, p, st, text, evidence))
		}
	}
	return out
}

func configErrorFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, text string, evidence []string) rule.Finding {
	f := rule.Finding{Category: rule.CreateContainerConfigError.Sub("Other"), Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: p.Name + "/" + st.Name, Evidence: evidence, Confidence: rule.Plausible,
		Culprit:   fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name),
		Mechanism: "Before creating a container the kubelet resolves its environment (env, envFrom) and checks its security settings; when that fails it records CreateContainerConfigError and retries on every sync, so the container never starts."}
	var row *configError
	var m []string
	for i := range configErrors {
		if m = configErrors[i].re.FindStringSubmatch(text); m != nil {
			row = &configErrors[i]
			break
		}
	}
	if row == nil {
		f.Hypothesis = fmt.Sprintf("The kubelet cannot build container %s's configuration: %s", st.Name, text)
		f.Title = fmt.Sprintf("container %s cannot be created: %s", st.Name, text)
		f.Summary = fmt.Sprintf("The kubelet refuses to create container %s of pod %s: %s.", st.Name, p.Name, text)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the kubelet's full message and the container's env, envFrom and securityContext.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p))}}}
		return f
	}
	f.Category = rule.CreateContainerConfigError.Sub(row.Class)
	switch row.Class {
	case "MissingConfigMapKey", "MissingSecretKey":
		key, name := m[1], m[3]
		return configKeyFinding(c, p, st, f, row.Kind, name, key)
	case "MissingConfigMap", "MissingSecret":
		return configKeyFinding(c, p, st, f, row.Kind, m[1], "")
	}
	// runAsNonRoot against an image that runs as root, or as a user name the
	// kubelet cannot check.
	image := st.Image
	if spec := kube.SpecOf(p, st.Name); spec != nil {
		image = spec.Image
	}
	f.Confidence = rule.Definitive
	f.Culprit = fmt.Sprintf("%s container %s securityContext.runAsNonRoot with image %s", kube.PodRef(p), st.Name, image)
	if row.Class == "RunAsNonRoot" {
		f.Hypothesis = fmt.Sprintf("Container %s must run as non-root, but image %s runs as root", st.Name, image)
		f.Title = fmt.Sprintf("container %s cannot start: runAsNonRoot is set but image %s runs as root (UID 0)", st.Name, image)
	} else {
		f.Hypothesis = fmt.Sprintf("Container %s must run as non-root, but image %s names its user %q, which the kubelet cannot check", st.Name, image, m[1])
		f.Title = fmt.Sprintf("container %s cannot start: runAsNonRoot is set but image %s has the non-numeric user %q", st.Name, image, m[1])
	}
	f.Summary = fmt.Sprintf("The kubelet refuses to start container %s of pod %s: %s.", st.Name, p.Name, text)
	f.Mechanism = "With runAsNonRoot the kubelet must prove the process will not run as UID 0 before starting it: it reads runAsUser from the securityContext, else the image's USER, which must be numeric and non-zero."
	f.Actions = []report.Action{
		containerPatch(c, p, st.Name, map[string]any{"securityContext": map[string]any{"runAsUser": 10001}},
			"Run the container as an explicit non-root UID (one the image's files allow), or use an image whose USER is a numeric non-root UID.",
			"the process may lack permissions on files the image owns as root"),
	}
	return f
}

// configKeyFinding explains a missing ConfigMap/Secret or key, verified
// against the bundle for ConfigMaps. Secrets are never read by design: the
// kubelet's message is the evidence.
func configKeyFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, f rule.Finding, kind, name, key string) rule.Finding {
	ns := p.Namespace
	lkind := strings.ToLower(kind)
	refs := refsTo(p, kind, name, key)
	where := describeRefs(refs, st.Name)
	if where == "" {
		where = "a reference in the pod spec"
	}
	object := fmt.Sprintf("%s %s", kind, name)
	if key != "" {
		f.Hypothesis = fmt.Sprintf("%s has no key %s, which container %s needs (%s)", object, key, st.Name, where)
		f.Title = fmt.Sprintf("container %s cannot start: %s has no key %s (referenced by %s)", st.Name, object, key, where)
		f.Culprit = fmt.Sprintf("%s %s key %s, referenced by %s container %s %s", lkind, name, key, kube.PodRef(p), st.Name, where)
		f.Summary = fmt.Sprintf("The kubelet cannot create container %s of pod %s: %s has no key %s, which the container reads through %s.", st.Name, p.Name, object, key, where)
	} else {
		f.Hypothesis = fmt.Sprintf("%s does not exist, but container %s needs it (%s)", object, st.Name, where)
		f.Title = fmt.Sprintf("container %s cannot start: %s does not exist (referenced by %s)", st.Name, object, where)
		f.Culprit = fmt.Sprintf("%s %s (missing), referenced by %s container %s %s", lkind, name, kube.PodRef(p), st.Name, where)
		f.Summary = fmt.Sprintf("The kubelet cannot create container %s of pod %s: %s does not exist, and the container reads it through %s.", st.Name, p.Name, object, where)
	}
	f.Confidence = rule.Strong
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s refers to %s through %s", st.Name, object, where),
		fmt.Sprintf("%s .spec.containers[%s].env/envFrom, .spec.volumes", kube.PodRef(p), st.Name),
		containerSpecCmd(p, st.Name, "env")))

	if kind == "Secret" {
		f.Contributing = append(f.Contributing, "The Secret was not read, by design (kubectl-triage never reads Secrets): the kubelet's message is the evidence.")
		if key != "" {
			f.Actions = []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Add key %s to Secret %s (or correct the key the pod references).", key, name),
					Commands: []string{
						fmt.Sprintf(`kubectl get secret %s -n %s -o go-template='{{range $k, $v := .data}}{{$k}}{{"\n"}}{{end}}'   # lists key names only`, name, ns),
						fmt.Sprintf(`kubectl patch secret %s -n %s -p '{"stringData":{"%s":"<value>"}}'`, name, ns, key)},
					Risk: "writes a credential into the namespace; pods read it when their containers start"},
			}
		} else {
			f.Actions = []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Create Secret %s in namespace %s (or correct the name the pod references).", name, ns),
					Commands: []string{fmt.Sprintf("kubectl create secret generic %s -n %s --from-literal=<key>=<value>", name, ns)},
					Risk:     "writes a credential into the namespace"},
			}
		}
		return f
	}

	// ConfigMaps are collected: confirm what the kubelet says.
	cm := c.B.ConfigMap(ns, name)
	getCmd := fmt.Sprintf("kubectl get configmap %s -n %s -o yaml", name, ns)
	switch {
	case c.B.IsMissing("ConfigMap", ns, name):
		f.Confidence = rule.Certain
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s does not exist in namespace %s (404 when read)", name, ns), "configmap/"+name, getCmd))
		if key != "" {
			// The kubelet saw it before it was deleted.
			f.Contributing = append(f.Contributing, fmt.Sprintf("ConfigMap %s does not exist any more either.", name))
		}
	case cm == nil:
		f.Contributing = append(f.Contributing, fmt.Sprintf("ConfigMap %s was not collected, so the kubelet's message is the only evidence.", name))
	case key == "":
		// It exists now: created after the kubelet's last attempt.
		f.Confidence = rule.Even
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s exists now (created %s)", name, cm.CreationTimestamp.UTC().Format(time.RFC3339)), "configmap/"+name, getCmd))
		f.Contributing = append(f.Contributing, fmt.Sprintf("ConfigMap %s exists now: it was created after the kubelet's last attempt, which it retries on its own.", name))
	default:
		keys := configMapKeys(cm)
		if _, ok := cm.Data[key]; ok {
			f.Confidence = rule.Even
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s has key %s now", name, key), "configmap/"+name+" .data", getCmd))
			f.Contributing = append(f.Contributing, fmt.Sprintf("ConfigMap %s has key %s now: it was added after the kubelet's last attempt, which it retries on its own.", name, key))
		} else if _, ok := cm.BinaryData[key]; ok {
			f.Confidence = rule.Definitive
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s holds %s under binaryData, not data", name, key), "configmap/"+name+" .binaryData", getCmd))
			f.Mechanism += " A configMapKeyRef reads only the ConfigMap's data, never binaryData."
			f.Culprit += " (it is under binaryData, which env cannot read)"
		} else {
			f.Confidence = rule.Certain
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s has keys %s, not %s", name, kube.OrDash(strings.Join(keys, ", ")), key), "configmap/"+name+" .data", getCmd))
			if near := nearestConfigKey(key, keys); near != "" {
				f.Culprit += fmt.Sprintf(" (the ConfigMap has %s: a typo?)", near)
				f.Contributing = append(f.Contributing, fmt.Sprintf("The ConfigMap has a key %s, close to the missing %s.", near, key))
			}
		}
	}
	if key != "" {
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Add key %s to ConfigMap %s, or correct the key the pod references.", key, name),
				Commands: []string{fmt.Sprintf(`kubectl patch configmap %s -n %s -p '{"data":{"%s":"<value>"}}'`, name, ns, key)},
				Risk:     "every pod that reads this ConfigMap sees the new key when its containers (re)start"},
		}
	} else {
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Create ConfigMap %s in namespace %s with the keys the pod reads (or correct the name the pod references).", name, ns),
				Commands: []string{fmt.Sprintf("kubectl create configmap %s -n %s --from-literal=<key>=<value>", name, ns)}},
		}
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Compare the keys the pod references with the ConfigMap.",
		Commands: []string{getCmd, containerSpecCmd(p, st.Name, "env")}})
	return f
}

func configMapKeys(cm *corev1.ConfigMap) []string {
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	for k := range cm.BinaryData {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// nearestConfigKey finds a key that differs from want only by case, separators
// or a two-letter typo.
func nearestConfigKey(want string, keys []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 3
	for _, k := range keys {
		if k == want {
			continue
		}
		if norm(k) == norm(want) {
			return k
		}
		if d := kube.EditDistance(strings.ToLower(k), strings.ToLower(want)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// ---------------------------------------------------------------------------
// CreateContainerError / RunContainerError / StartError

// runtimeFailure is one row of the container-runtime table: why the runtime
// could not create or start the container's process.
type runtimeFailure struct {
	Class    string
	re       *regexp.Regexp
	Explains string
	Fix      string
	Conf     rule.Confidence
}

// runtimeFailures are matched against the runtime's message, in order:
// mount errors first, since they also say "no such file or directory".
var runtimeFailures = []runtimeFailure{
	{"MountTypeMismatch", regexp.MustCompile(`(?i)not a directory|Are you trying to mount a directory onto a file`),
		"a volume (usually a subPath) is mounted over a path of the other type: a directory onto a file or a file onto a directory",
		"Make the volumeMount's mountPath and subPath agree on file vs directory (a ConfigMap key mounted with subPath is a file: mount it at the file's full path).", rule.Strong},
	{"MountFailed", regexp.MustCompile(`error mounting "[^"]*" to rootfs at "[^"]*"`),
		"the runtime could not mount a volume into the container",
		"Check the volumeMounts (mountPath, subPath) against the volume's content.", rule.High},
	{"ExecutableNotFound", regexp.MustCompile(`executable file not found in \$PATH|exec: "[^"]+": stat [^:]+: no such file or directory|exec \S+: no such file or directory`),
		"the container's command does not exist in the image",
		"Fix the container's command/args (or the image's ENTRYPOINT) to a binary that exists in the image, with its full path if it is not on $PATH.", rule.Definitive},
	{"ExecPermission", regexp.MustCompile(`exec: "[^"]+": permission denied|exec \S+: permission denied`),
		"the container's command exists but is not executable",
		"Make the entrypoint executable in the image (chmod +x when building it) or run it through its interpreter (sh script.sh).", rule.Definitive},
	{"ExecFormat", regexp.MustCompile(`(?i)exec format error`),
		"the container's binary is built for another CPU architecture than the node's (or is a script without a #! line)",
		"Use an image built for the node's architecture (a multi-arch image, or docker buildx --platform), or schedule the pod on nodes of the image's architecture.", rule.Strong},
	{"NoCommand", regexp.MustCompile(`no command specified`),
		"neither the pod nor the image says what to run",
		"Set command/args on the container, or use an image with an ENTRYPOINT or CMD.", rule.Definitive},
	{"NameConflict", regexp.MustCompile(`is reserved for|is already in use by`),
		"the runtime still holds a container of the same name (a restart raced with the cleanup of the previous one)",
		"Usually transient: the kubelet retries. If it persists, check the container runtime on the node.", rule.Moderate},
}

var (
	execNameRe    = regexp.MustCompile(`exec:? "?([^"\s:]+)"?:`)
	mountTargetRe = regexp.MustCompile(`to rootfs at "([^"]*)"`)
)

// checkRuntimeError: the runtime cannot create or start the container's
// process: CreateContainerError and RunContainerError while waiting, or a
// last run that ended with StartError/ContainerCannotRun.
func checkRuntimeError(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			var reason, message, source string
			if w := st.State.Waiting; w != nil && (w.Reason == "CreateContainerError" || w.Reason == "RunContainerError") {
				reason, message, source = w.Reason, w.Message, "state.waiting"
			}
			for _, t := range []struct {
				term  *corev1.ContainerStateTerminated
				field string
			}{{st.State.Terminated, "state.terminated"}, {st.LastTerminationState.Terminated, "lastState.terminated"}} {
				// A start that failed once is history if the container runs now.
				if reason == "" && t.term != nil && (t.term.Reason == "StartError" || t.term.Reason == "ContainerCannotRun") && st.State.Running == nil {
					reason, message, source = t.term.Reason, t.term.Message, t.field
				}
			}
			if reason == "" {
				continue
			}
			evidence := []string{c.Evidence(fmt.Sprintf("Container %s: %s: %s", st.Name, reason, message),
				fmt.Sprintf("%s .status.containerStatuses[%s].%s", kube.PodRef(p), st.Name, source), kube.StatusCmd(p, st.Name, source))}
			for _, e := range c.B.EventsFor(string(p.UID)) {
				if e.Reason == "Failed" && eventAboutContainer(&e, st.Name) && strings.HasPrefix(e.Message, "Error: ") {
					evidence = append(evidence, podEventEvidence(c, p, &e))
					if message == "" {
						message = strings.TrimPrefix(e.Message, "Error: ")
					}
				}
			}
			out = append(out, runtimeFinding(c, p, st, reason, message, evidence))
		}
	}
	return out
}

func runtimeFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, reason, message string, evidence []string) rule.Finding {
	area := rule.RunContainerError
	if reason == "CreateContainerError" {
		area = rule.CreateContainerError
	}
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name + "/" + st.Name, Evidence: evidence}
	spec := kube.SpecOf(p, st.Name)
	command := "the image's entrypoint"
	if spec != nil && len(spec.Command) > 0 {
		command = fmt.Sprintf("command %q", strings.Join(append(append([]string{}, spec.Command...), spec.Args...), " "))
	}
	var row *runtimeFailure
	for i := range runtimeFailures {
		if runtimeFailures[i].re.MatchString(message) {
			row = &runtimeFailures[i]
			break
		}
	}
	f.Mechanism = "The kubelet asked the container runtime to create and start the container; the runtime failed before the application ran, so there is no application log. The kubelet retries with back-off."
	if row == nil {
		f.Category = area.Sub("Other")
		f.Confidence = rule.Plausible
		f.Hypothesis = fmt.Sprintf("The runtime cannot start container %s: %s", st.Name, message)
		f.Title = fmt.Sprintf("container %s cannot start: %s: %s", st.Name, reason, message)
		f.Summary = fmt.Sprintf("The container runtime fails to start container %s of pod %s (%s): %s.", st.Name, p.Name, reason, message)
		f.Culprit = fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the runtime's full message in the pod's events and the container's command and mounts.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p))}}}
		return f
	}
	f.Category = area.Sub(row.Class)
	f.Confidence = row.Conf
	detail := ""
	switch row.Class {
	case "ExecutableNotFound", "ExecPermission":
		if m := execNameRe.FindStringSubmatch(message); m != nil {
			detail = fmt.Sprintf(" (%q)", m[1])
		}
		f.Culprit = fmt.Sprintf("%s container %s %s", kube.PodRef(p), st.Name, command)
	case "ExecFormat":
		image := st.Image
		if spec != nil {
			image = spec.Image
		}
		f.Culprit = fmt.Sprintf("%s container %s image %s", kube.PodRef(p), st.Name, image)
		if n := c.B.Node(p.Spec.NodeName); n != nil && n.Status.NodeInfo.Architecture != "" {
			detail = fmt.Sprintf(" (node %s is %s/%s)", n.Name, kube.OrDash(n.Status.NodeInfo.OperatingSystem), n.Status.NodeInfo.Architecture)
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Node %s runs %s/%s", n.Name, kube.OrDash(n.Status.NodeInfo.OperatingSystem), n.Status.NodeInfo.Architecture),
				"node/"+n.Name+" .status.nodeInfo", fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.nodeInfo.architecture}'", n.Name)))
		}
	case "MountTypeMismatch", "MountFailed":
		target := ""
		if m := mountTargetRe.FindStringSubmatch(message); m != nil {
			target = m[1]
			detail = " (at " + target + ")"
		}
		f.Culprit = fmt.Sprintf("%s container %s volumeMounts", kube.PodRef(p), st.Name)
		if spec != nil {
			for _, vm := range spec.VolumeMounts {
				if target != "" && strings.HasSuffix(target, vm.MountPath) {
					f.Culprit = fmt.Sprintf("%s container %s volumeMount %s at %s (subPath %q)", kube.PodRef(p), st.Name, vm.Name, vm.MountPath, vm.SubPath)
				}
			}
		}
	default:
		f.Culprit = fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name)
	}
	f.Hypothesis = fmt.Sprintf("Container %s cannot start because %s", st.Name, row.Explains)
	f.Title = fmt.Sprintf("container %s cannot start: %s%s", st.Name, row.Explains, detail)
	f.Summary = fmt.Sprintf("The container runtime cannot start container %s of pod %s (%s) because %s%s. The runtime says: %q.", st.Name, p.Name, reason, row.Explains, detail, message)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: row.Fix,
			Commands: []string{containerSpecCmd(p, st.Name, "command"), fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p))}},
	}
	return f
}

// ---------------------------------------------------------------------------
// A crash caused by a ConfigMap: the variable or file the application
// misses comes from a ConfigMap that lacks it

// checkConfigSource follows a crash's decisive log line (a missing
// environment variable or file) to the ConfigMap that should provide it.
// It only speaks when the pod spec says where the value comes from and the
// collected ConfigMap lacks it; otherwise the crash finding stands.
func checkConfigSource(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			crashing := (st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff") ||
				(st.RestartCount > 0 && st.LastTerminationState.Terminated != nil && st.LastTerminationState.Terminated.ExitCode != 0)
			spec := kube.SpecOf(p, st.Name)
			if !crashing || spec == nil {
				continue
			}
			dec, fromPrev := logs.LastDecisive(c, p, st.Name)
			if dec == nil {
				continue
			}
			var f *rule.Finding
			switch dec.Pattern.Class {
			case "MissingEnv":
				if name := strings.TrimPrefix(logs.SubjectOf("MissingEnv", dec.Line), "environment variable "); name != "" {
					f = envSource(c, p, spec, name)
				}
			case "MissingFile":
				if path := logs.PathRe.FindString(dec.Line); path != "" {
					f = fileSource(c, p, spec, path)
				}
			}
			if f == nil {
				continue
			}
			f.Evidence = append([]string{c.Evidence(fmt.Sprintf("Log line: %q", dec.Line),
				fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), st.Name, kube.Instance(fromPrev)),
				kube.LogsCmd(p, st.Name, fromPrev))}, f.Evidence...)
			f.Verdict, f.Strength, f.Current = report.Validated, rule.Traced, true
			f.Subject = p.Name + "/" + st.Name
			f.Mechanism = fmt.Sprintf("The application exits at startup because of the value it misses (log: %q); the kubelet restarts it with growing back-off (CrashLoopBackOff). The pod spec takes that value from the ConfigMap, which does not have it; the kubelet does not complain because the reference is optional or imports the whole ConfigMap.", dec.Line)
			out = append(out, *f)
		}
	}
	return out
}

// envSource finds where variable name should come from and whether the
// collected ConfigMap has it.
func envSource(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, name string) *rule.Finding {
	ns := p.Namespace
	var def *corev1.EnvVar
	for i := range spec.Env {
		if spec.Env[i].Name == name {
			def = &spec.Env[i]
		}
	}
	if def != nil {
		if def.ValueFrom == nil || def.ValueFrom.ConfigMapKeyRef == nil {
			return nil // a literal or a Secret: nothing to verify here
		}
		ref := def.ValueFrom.ConfigMapKeyRef
		return configSourceFinding(c, p, spec, ref.Name, ref.Key, "env "+name+" (configMapKeyRef, optional)", name)
	}
	// envFrom imports every key; a Secret among the sources could hold it.
	var sources []corev1.EnvFromSource
	for _, ef := range spec.EnvFrom {
		if ef.SecretRef != nil {
			return nil
		}
		if ef.ConfigMapRef != nil && strings.HasPrefix(name, ef.Prefix) {
			sources = append(sources, ef)
		}
	}
	if len(sources) != 1 {
		return nil // none, or several to choose from
	}
	ef := sources[0]
	key := strings.TrimPrefix(name, ef.Prefix)
	if cm := c.B.ConfigMap(ns, ef.ConfigMapRef.Name); cm != nil {
		if v, ok := cm.Data[key]; ok && v != "" {
			return nil // it is set: the application's complaint is about something else
		}
	}
	via := "envFrom"
	if ef.Prefix != "" {
		via = fmt.Sprintf("envFrom (prefix %s)", ef.Prefix)
	}
	return configSourceFinding(c, p, spec, ef.ConfigMapRef.Name, key, via, name)
}

// fileSource finds the ConfigMap volume a missing file should come from.
func fileSource(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, path string) *rule.Finding {
	var mount *corev1.VolumeMount
	for i := range spec.VolumeMounts {
		m := &spec.VolumeMounts[i]
		if (path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")) && (mount == nil || len(m.MountPath) > len(mount.MountPath)) {
			mount = m
		}
	}
	if mount == nil {
		return nil
	}
	var vol *corev1.Volume
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == mount.Name {
			vol = &p.Spec.Volumes[i]
		}
	}
	if vol == nil || vol.ConfigMap == nil {
		return nil
	}
	// The file's name inside the volume, then the key it is projected from.
	rel := strings.TrimPrefix(strings.TrimPrefix(path, mount.MountPath), "/")
	if mount.SubPath != "" {
		rel = strings.TrimSuffix(mount.SubPath+"/"+rel, "/")
	}
	key := rel
	if len(vol.ConfigMap.Items) > 0 {
		key = ""
		for _, it := range vol.ConfigMap.Items {
			if it.Path == rel {
				key = it.Key
			}
		}
		if key == "" {
			return nil // the items do not project that path: a spec problem the log already shows
		}
	}
	via := fmt.Sprintf("volume %s mounted at %s", vol.Name, mount.MountPath)
	if mount.SubPath != "" {
		via += fmt.Sprintf(" (subPath %s)", mount.SubPath)
	}
	return configSourceFinding(c, p, spec, vol.ConfigMap.Name, key, via, path)
}

// configSourceFinding: ConfigMap name should hold key for what (a variable
// or a file) through via. Nil unless the bundle shows it does not.
func configSourceFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, name, key, via, what string) *rule.Finding {
	ns := p.Namespace
	getCmd := fmt.Sprintf("kubectl get configmap %s -n %s -o yaml", name, ns)
	f := &rule.Finding{Confidence: rule.Strong}
	f.Evidence = []string{c.Evidence(fmt.Sprintf("Container %s takes %s from ConfigMap %s through %s", spec.Name, what, name, via),
		fmt.Sprintf("%s .spec.containers[%s]", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "envFrom"))}
	cm := c.B.ConfigMap(ns, name)
	switch {
	case c.B.IsMissing("ConfigMap", ns, name):
		f.Category = rule.ConfigMap.Sub("Missing")
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s does not exist in namespace %s (404 when read)", name, ns), "configmap/"+name, getCmd))
		f.Hypothesis = fmt.Sprintf("ConfigMap %s, which should provide %s, does not exist", name, what)
		f.Title = fmt.Sprintf("ConfigMap %s does not exist, so container %s starts without %s and crashes", name, spec.Name, what)
		f.Culprit = fmt.Sprintf("configmap %s (missing), referenced by %s container %s %s", name, kube.PodRef(p), spec.Name, via)
		f.Summary = fmt.Sprintf("Container %s of pod %s takes %s from ConfigMap %s (%s), but that ConfigMap does not exist, so the application starts without it and exits.", spec.Name, p.Name, what, name, via)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Create ConfigMap %s with key %s (or correct the name the pod references).", name, key),
			Commands: []string{fmt.Sprintf("kubectl create configmap %s -n %s --from-literal=%s=<value>", name, ns, key)}}}
	case cm == nil:
		return nil
	default:
		v, ok := cm.Data[key]
		_, bin := cm.BinaryData[key]
		switch {
		case ok && v == "":
			f.Category = rule.ConfigMap.Sub("EmptyValue")
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s key %s is empty", name, key), "configmap/"+name+" .data", getCmd))
			f.Hypothesis = fmt.Sprintf("ConfigMap %s key %s, which provides %s, is empty", name, key, what)
			f.Title = fmt.Sprintf("ConfigMap %s key %s is empty, so container %s gets an empty %s and crashes", name, key, spec.Name, what)
			f.Culprit = fmt.Sprintf("configmap %s key %s (empty), read by %s container %s %s", name, key, kube.PodRef(p), spec.Name, via)
		case ok || bin && strings.HasPrefix(via, "volume"):
			return nil // it is there: the application's complaint is about something else
		default:
			f.Category = rule.ConfigMap.Sub("MissingKey")
			keys := configMapKeys(cm)
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("ConfigMap %s has keys %s, not %s", name, kube.OrDash(strings.Join(keys, ", ")), key), "configmap/"+name+" .data", getCmd))
			f.Hypothesis = fmt.Sprintf("ConfigMap %s has no key %s, so container %s starts without %s", name, key, spec.Name, what)
			f.Title = fmt.Sprintf("ConfigMap %s has no key %s, so container %s starts without %s and crashes", name, key, spec.Name, what)
			f.Culprit = fmt.Sprintf("configmap %s key %s (missing), read by %s container %s %s", name, key, kube.PodRef(p), spec.Name, via)
			if near := nearestConfigKey(key, keys); near != "" {
				f.Culprit += fmt.Sprintf(" (the ConfigMap has %s: a typo?)", near)
				f.Contributing = append(f.Contributing, fmt.Sprintf("The ConfigMap has a key %s, close to the missing %s.", near, key))
			}
		}
		f.Summary = fmt.Sprintf("Container %s of pod %s takes %s from ConfigMap %s (%s), but the ConfigMap does not provide it, so the application starts without it and exits.", spec.Name, p.Name, what, name, via)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Set key %s in ConfigMap %s, then restart the workload so the containers read it.", key, name),
			Commands: []string{fmt.Sprintf(`kubectl patch configmap %s -n %s -p '{"data":{"%s":"<value>"}}'`, name, ns, key)},
			Risk:     "every pod that reads this ConfigMap sees the change when its containers restart"}}
	}
	switch kind, owner := kube.OwnerName(c, p); kind {
	case "pod", "job", "replicaset": // rollout restart knows none of them
	case "cronjob":
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate, Description: "The CronJob's next run reads the fixed ConfigMap; to run it now rather than at the next schedule, start a run by hand.",
			Commands: []string{kube.RunCronJobNow(owner, p.Namespace)}, Risk: "runs the CronJob's work once more: make sure an extra run is safe"})
	default:
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate, Description: "Restart the pods so they read the fixed ConfigMap (environment variables are read only at container start).",
			Commands: []string{fmt.Sprintf("kubectl rollout restart %s/%s %s", kind, owner, kube.NsFlag(p))}, Risk: "replaces the pods one by one"})
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Compare what the application reads with the ConfigMap's keys.",
		Commands: []string{getCmd}})
	return f
}

// ---------------------------------------------------------------------------
// Exit 137 that is not an OOM kill

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

// ---------------------------------------------------------------------------
// Evicted

var (
	evictCtrLimitRe = regexp.MustCompile(`Container (\S+) exceeded its local ephemeral storage limit "([^"]+)"`)
	evictPodLimitRe = regexp.MustCompile(`Pod ephemeral local storage usage exceeds the total limit of containers ([0-9.]+[A-Za-z]*)`)
	evictEmptyDirRe = regexp.MustCompile(`Usage of EmptyDir volume "([^"]+)" exceeds the limit "([^"]+)"`)
	// Evictions for node pressure ("The node was low on resource: memory")
	// and admissions refused for a node condition are the node rules'
	// (nodes.go): the node is the cause there, with its conditions and
	// events as evidence.
	evictNodeRe = regexp.MustCompile(`The node was low on resource: (memory|ephemeral-storage|nodefs|imagefs|inodes|pids)\.|The node had condition: \[[^\]]*(MemoryPressure|DiskPressure|PIDPressure)`)
)

// checkEvicted: the kubelet evicted the pod for what the pod itself did
// (a container over its ephemeral-storage limit, an emptyDir over its size
// limit), or for a reason no rule knows.
func checkEvicted(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		msg := p.Status.Message
		if p.Status.Reason != "Evicted" {
			// The kubelet records its Evicted event before the pod's status
			// says so: for a few seconds the pod still runs while it is
			// being killed, and the event alone tells why.
			var last *corev1.Event
			for _, e := range c.B.EventsFor(string(p.UID)) {
				if e.Reason == "Evicted" {
					last = &e
				}
			}
			if last == nil || p.Status.Reason != "" || p.Status.Phase == corev1.PodSucceeded {
				continue
			}
			msg = last.Message
		}
		if evictNodeRe.MatchString(msg) {
			continue
		}
		out = append(out, evictedFinding(c, p, msg))
	}
	return out
}

func evictedFinding(c *rule.Pass, p *corev1.Pod, msg string) rule.Finding {
	node := kube.OrDash(p.Spec.NodeName)
	f := rule.Finding{Verdict: report.Validated, Confidence: rule.Strong, Strength: rule.Explained, Subject: p.Name,
		// An evicted pod of a workload has been replaced: history, unless the
		// pod itself is the target.
		Current: c.B.Target.Kind == "Pod" && c.B.Target.Name == p.Name,

		Mechanism: "The kubelet enforces ephemeral-storage limits itself: a container writing more to its writable layer, logs and emptyDir volumes than its limit, or an emptyDir beyond its sizeLimit, gets the pod evicted whatever the node's state. Evicted pods stay Failed; their controller creates replacements.",
	}
	if p.Status.Reason == "Evicted" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod phase Failed, reason Evicted: %s", msg),
			kube.PodRef(p)+" .status.reason/.status.message",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.reason}{": "}{.status.message}'`, p.Name, kube.NsFlag(p))))
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "Evicted" {
			f.Evidence = append(f.Evidence, podEventEvidence(c, p, &e))
		}
	}
	kind, owner := kube.OwnerName(c, p)
	switch {
	case evictCtrLimitRe.MatchString(msg):
		m := evictCtrLimitRe.FindStringSubmatch(msg)
		f.Category = rule.Evicted.Sub("EphemeralStorageLimit")
		f.Title = fmt.Sprintf("pod was evicted: container %s exceeded its ephemeral-storage limit %s", m[1], m[2])
		f.Culprit = fmt.Sprintf("%s container %s resources.limits.ephemeral-storage (%s)", kube.PodRef(p), m[1], m[2])
		f.Actions = []report.Action{containerPatch(c, p, m[1], map[string]any{"resources": map[string]any{"limits": map[string]any{"ephemeral-storage": "<higher limit>"}}},
			"Raise the container's ephemeral-storage limit to what it really writes, or move the data to a volume (PVC) and rotate logs and temporary files.", "")}
	case evictPodLimitRe.MatchString(msg):
		m := evictPodLimitRe.FindStringSubmatch(msg)
		f.Category = rule.Evicted.Sub("EphemeralStorageLimit")
		f.Title = fmt.Sprintf("pod was evicted: its local storage exceeded the containers' total ephemeral-storage limit %s", m[1])
		f.Culprit = fmt.Sprintf("%s resources.limits.ephemeral-storage (total %s)", kube.PodRef(p), m[1])
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Raise the containers' ephemeral-storage limits or move the data written locally to a PVC.",
			Commands: []string{fmt.Sprintf("kubectl describe %s %s %s", kind, owner, kube.NsFlag(p))}}}
	case evictEmptyDirRe.MatchString(msg):
		m := evictEmptyDirRe.FindStringSubmatch(msg)
		f.Category = rule.Evicted.Sub("EmptyDirLimit")
		f.Title = fmt.Sprintf("pod was evicted: emptyDir volume %s exceeded its sizeLimit %s", m[1], m[2])
		f.Culprit = fmt.Sprintf("%s volume %s emptyDir.sizeLimit (%s)", kube.PodRef(p), m[1], m[2])
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Raise emptyDir %s's sizeLimit or make the application clean up what it writes there.", m[1]),
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.volumes}'", p.Name, kube.NsFlag(p))}}}
	default:
		f.Category = rule.Evicted.Sub("Other")
		f.Confidence = rule.Plausible
		f.Title = fmt.Sprintf("pod was evicted from node %s: %s", node, strings.TrimSpace(msg))
		f.Culprit = fmt.Sprintf("%s (evicted from node %s)", kube.PodRef(p), node)
		f.Mechanism = "The kubelet evicted the pod; its message says why."
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the eviction message and the node's state.",
			Commands: []string{fmt.Sprintf("kubectl describe node %s", node)}}}
	}
	f.Hypothesis = "The kubelet evicted the pod: " + strings.TrimPrefix(f.Title, "pod was evicted: ")
	f.Summary = fmt.Sprintf("Pod %s was evicted by the kubelet on node %s. Its message: %q.", p.Name, node, strings.TrimSpace(msg))
	if !f.Current {
		f.Summary += " The pod is a leftover: its controller has replaced it."
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Delete the evicted pod once understood (evicted pods are kept for inspection and are not restarted).",
		Commands: []string{fmt.Sprintf("kubectl delete pod %s %s", p.Name, kube.NsFlag(p))}})
	return f
}

// ---------------------------------------------------------------------------
// Stuck terminating

// stuckAfter is how long past its deadline a deletion must be before it is
// called stuck when nothing else explains it.
const stuckAfter = 5 * time.Minute

// checkStuckTerminating: a pod whose deletion is overdue. Finalizers keep
// the object until their controller removes them; the kubelet must confirm
// the containers stopped, which it cannot do from a lost node.
func checkStuckTerminating(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.DeletionTimestamp == nil || c.Now.Before(p.DeletionTimestamp.Time) {
			continue // not deleted, or still within its grace period
		}
		overdue := c.Now.Sub(p.DeletionTimestamp.Time).Round(time.Second)
		deletion := c.Evidence(fmt.Sprintf("Pod %s was deleted: deletionTimestamp %s (%s overdue), grace period %ds",
			p.Name, p.DeletionTimestamp.UTC().Format(time.RFC3339), overdue, derefOrZero(p.DeletionGracePeriodSeconds)),
			kube.PodRef(p)+" .metadata.deletionTimestamp",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.deletionTimestamp}'", p.Name, kube.NsFlag(p)))
		base := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name}
		found := false
		if len(p.Finalizers) > 0 {
			f := base
			found = true
			names := strings.Join(p.Finalizers, ", ")
			f.Category = rule.Terminating.Sub("Finalizer")
			f.Confidence = rule.High
			if containersAllStopped(p) || overdue > stuckAfter {
				f.Confidence = rule.Strong
			}
			f.Evidence = []string{deletion, c.Evidence(fmt.Sprintf("Pod %s has finalizers: %s", p.Name, names), kube.PodRef(p)+" .metadata.finalizers",
				fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.finalizers}'", p.Name, kube.NsFlag(p)))}
			f.Hypothesis = fmt.Sprintf("Finalizer %s keeps the deleted pod from going away", names)
			f.Title = fmt.Sprintf("pod is stuck Terminating: finalizer %s has not been removed", names)
			f.Summary = fmt.Sprintf("Pod %s was deleted and its grace period ended %s ago, but it still exists: its finalizer(s) %s must be removed by the controller that added them, and that has not happened.", p.Name, overdue, names)
			f.Mechanism = "A deleted object with finalizers is only marked for deletion (deletionTimestamp); the API server removes it once every finalizer is gone. Each finalizer belongs to a controller that does its cleanup and then removes it; if that controller is down, lacks permissions or fails its cleanup, the object stays Terminating forever."
			f.Culprit = fmt.Sprintf("%s metadata.finalizers (%s)", kube.PodRef(p), names)
			f.Actions = []report.Action{
				{Kind: report.Check, Description: fmt.Sprintf("Find the controller that owns finalizer %s and why it does not finish (its logs, its permissions).", names),
					Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.finalizers}{\"\\n\"}{.metadata.ownerReferences}'", p.Name, kube.NsFlag(p))}},
				{Kind: report.Immediate, Description: "Only if the cleanup the finalizer guards is done or not needed: remove the finalizers by hand.",
					Commands: []string{fmt.Sprintf(`kubectl patch pod %s %s --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'`, p.Name, kube.NsFlag(p))},
					Risk:     "skips the cleanup the finalizer's controller was meant to do (external resources may leak)"},
			}
			out = append(out, f)
		}
		if n := p.Spec.NodeName; n != "" {
			if state, ev := nodeGone(c, n); state != "" {
				f := base
				found = true
				f.Category = rule.Terminating.Sub("NodeUnavailable")
				f.Confidence = rule.Strong
				f.Evidence = []string{deletion, ev}
				f.Hypothesis = fmt.Sprintf("Node %s is %s, so no kubelet confirms the pod's containers stopped", n, state)
				f.Title = fmt.Sprintf("pod is stuck Terminating: its node %s is %s, so the kubelet cannot confirm the containers stopped", n, state)
				f.Summary = fmt.Sprintf("Pod %s was deleted and its grace period ended %s ago, but it still exists: a pod bound to a node is only removed once that node's kubelet confirms its containers stopped, and node %s is %s.", p.Name, overdue, n, state)
				f.Mechanism = "Graceful deletion sets deletionTimestamp; the kubelet stops the containers and then deletes the pod object for good. A node that is gone never does, so the pod stays Terminating until the node returns or someone force-deletes it."
				f.Culprit = fmt.Sprintf("node %s (%s) of %s", n, state, kube.PodRef(p))
				f.Actions = []report.Action{
					{Kind: report.Check, Description: fmt.Sprintf("Check whether node %s will come back.", n),
						Commands: []string{fmt.Sprintf("kubectl get node %s -o wide", n)}},
					{Kind: report.Immediate, Description: "If the node is gone for good (or its containers are known to be stopped), force-delete the pod so its controller can replace it.",
						Commands: []string{fmt.Sprintf("kubectl delete pod %s %s --grace-period=0 --force", p.Name, kube.NsFlag(p))},
						Risk:     "if the node is in fact still running the containers, two copies may run at once (dangerous for StatefulSets and anything holding a lock or volume)"},
				}
				out = append(out, f)
			}
		}
		if !found && overdue > stuckAfter && !nodeNotReadyNow(c, p.Spec.NodeName) {
			out = append(out, rule.Finding{Category: rule.Terminating.Sub("KubeletNotConfirming"), Verdict: report.Inconclusive, Confidence: rule.Weak, Current: true, Strength: rule.Observed, Subject: p.Name,
				Hypothesis: fmt.Sprintf("The kubelet on node %s has not finished stopping the pod's containers (a hanging preStop hook, volume unmount or container runtime)", kube.OrDash(p.Spec.NodeName)),
				Evidence:   []string{deletion}})
		}
	}
	return out
}

// containersAllStopped: every container has terminated (the kubelet's part is done).
func containersAllStopped(p *corev1.Pod) bool {
	for _, cs := range kube.AllStatuses(p) {
		if cs.Status.State.Terminated == nil {
			return false
		}
	}
	return len(kube.AllStatuses(p)) > 0
}

// nodeGone says whether a node is gone, with the evidence. A node
// that exists but is NotReady is the node rules' to explain.
func nodeGone(c *rule.Pass, name string) (string, string) {
	cmd := fmt.Sprintf("kubectl get node %s", name)
	if c.B.IsMissing("Node", "", name) {
		return "gone", c.Evidence(fmt.Sprintf("Node %s does not exist (404 when read)", name), "node/"+name, cmd)
	}
	for _, pr := range c.B.Problems {
		if pr.What == "node "+name && strings.Contains(pr.Error, "not found") {
			return "gone", c.Evidence(fmt.Sprintf("Node %s does not exist: %s", name, pr.Error), "node/"+name, cmd)
		}
	}
	return "", ""
}

// nodeNotReadyNow: the node exists but is not Ready. The node rules
// (nodes.go) explain a pod on such a node, stuck Terminating included.
func nodeNotReadyNow(c *rule.Pass, name string) bool {
	n := c.B.Node(name)
	if n == nil {
		return false
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func derefOrZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
