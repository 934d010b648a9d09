package pod

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// ListenPort is the rule pod/listen-port.
var ListenPort = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/listen-port",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{Probe},
		Needs:    rule.PodEvidence,
		Doc:      "A failing probe checks a port other than the one the application logs that it listens on, or the right port where the application listens on loopback only.",
	},
	Check: checkListenPort,
}

// probePort resolves a probe's port to a number against the container's
// declared ports; 0 when it cannot (an exec probe, an unknown name).
func probePort(ctr *corev1.Container, pr *corev1.Probe) (int32, string) {
	t := describeProbe(pr)
	if t.Port == nil {
		return 0, ""
	}
	field := fmt.Sprintf("%s.port", t.Handler)
	if t.Port.Type == intstr.Int {
		return t.Port.IntVal, field
	}
	for _, cp := range ctr.Ports {
		if cp.Name == t.Port.StrVal {
			return cp.ContainerPort, field
		}
	}
	return 0, field
}

// checkListenPort: for each probe finding, the port the probe checks
// against the port the application's own log says it listens on. When they
// differ, the probe is pointed at the wrong port whatever the container
// declares, and the root cause names both.
func checkListenPort(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, pf := range c.ResultOf(Probe) {
		if pf.Verdict != report.Validated {
			continue
		}
		podName, ctrName, _ := strings.Cut(pf.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		ctr := kube.SpecOf(p, ctrName)
		parts := strings.Split(string(pf.Category), "/")
		// Only a probe that finds nothing listening: one the application
		// answers (a 404, a 500, a slow reply) reached the right port, and a
		// listen line may be about another server (metrics, admin).
		if ctr == nil || len(parts) < 3 || (parts[2] != string(probePortMismatch) && parts[2] != string(probeConnectionRefused)) {
			continue
		}
		var kind *probeKind
		for i := range probeKinds {
			if probeKinds[i].Name == parts[1] {
				kind = &probeKinds[i]
			}
		}
		if kind == nil || kind.of(ctr) == nil {
			continue
		}
		pr := kind.of(ctr)
		port, field := probePort(ctr, pr)
		// The right port on the wrong interface: the kubelet connects to
		// the pod IP (loopback_listen.go).
		if port != 0 {
			if lb := logs.LoopbackListen(c, p, ctrName, strconv.Itoa(int(port))); lb != nil {
				out = append(out, loopbackFinding(c, p, ctr, pf, kind, port, lb))
				continue
			}
		}
		ll := logs.Listening(c, p, ctrName)
		if port == 0 || ll == nil || slices.Contains(ll.Ports, strconv.Itoa(int(port))) {
			continue
		}
		out = append(out, listenPortFinding(c, p, ctr, pf, kind, pr, port, field, ll))
	}
	return out
}

func listenPortFinding(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, pf rule.Finding, kind *probeKind, pr *corev1.Probe, port int32, field string, ll *logs.Listen) rule.Finding {
	f := pf
	listen := strings.Join(ll.Ports, ", ")
	probe := strings.ToLower(kind.Name) + " probe"
	f.Category = rule.Probe.Sub(kind.Name, string(probePortMismatch))
	f.Strength, f.Confidence, f.Current = rule.Traced, rule.Definitive, true
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("The application logs that it listens on port %s: %q", listen, ll.Line),
		fmt.Sprintf("logs of %s container %s (%s instance)", kube.PodRef(p), ctr.Name, kube.Instance(ll.Previous)), kube.LogsCmd(p, ctr.Name, ll.Previous)))
	declared := containerPortsText(ctr)
	decl := "it declares no containerPort"
	if len(declared) > 0 {
		decl = "it declares " + strings.Join(declared, ", ")
	}
	f.Title = fmt.Sprintf("%s of container %s checks port %d, but the application listens on port %s (its log says so; %s)", probe, ctr.Name, port, listen, decl)
	// The probe rule's title ends with what the failure does (restarts,
	// not Ready): keep it.
	if i := strings.LastIndex(pf.Title, "; "); i >= 0 {
		f.Title += pf.Title[i:]
	}
	f.Hypothesis = fmt.Sprintf("Container %s's %s checks port %d, where nothing listens: the application listens on %s", ctr.Name, probe, port, listen)
	f.Culprit = fmt.Sprintf("%s container %s %s.%s %d; the application listens on %s", kube.PodRef(p), ctr.Name, kind.Field, field, port, listen)
	var wrongDecl []string
	for _, cp := range ctr.Ports {
		if !slices.Contains(ll.Ports, strconv.Itoa(int(cp.ContainerPort))) {
			wrongDecl = append(wrongDecl, strconv.Itoa(int(cp.ContainerPort)))
		}
	}
	if len(wrongDecl) > 0 && len(wrongDecl) == len(ctr.Ports) {
		f.Culprit += fmt.Sprintf(" (containerPort %s does not match it either)", strings.Join(wrongDecl, ", "))
		f.Contributing = append(f.Contributing, fmt.Sprintf("Container %s declares containerPort %s, not %s: the Service's targetPort, if it names the port, reaches nothing either.", ctr.Name, strings.Join(wrongDecl, ", "), listen))
	}
	f.Summary = fmt.Sprintf("The %s of container %s in pod %s checks port %d, but the application's log says it listens on port %s (%q): the probe reaches nothing. %s", probe, ctr.Name, p.Name, port, listen, ll.Line, pf.Summary)
	want, _ := strconv.Atoi(ll.Ports[0])
	t := describeProbe(pr)
	handler := map[string]any{"port": want}
	if t.Handler == "httpGet" {
		handler["path"] = pr.HTTPGet.Path
	}
	fix := ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{t.Handler: handler}},
		fmt.Sprintf("Point the %s at port %d, where the application listens (or make the application listen on %d); keep containerPort and the Service's targetPort on the same port.", probe, want, port), "")
	// The probe rule's own fix aims at the declared port.
	f.Actions = append([]report.Action{fix}, withoutImmediate(pf.Actions)...)
	return f
}
