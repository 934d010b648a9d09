package pod

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceLink is the rule pod/service-link.
var ServiceLink = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/service-link",
		Kinds:    []string{"Pod", "Deployment"},
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.NamespaceServices}, rule.PodEvidence...),
		Doc:      "A crashing container that rejects a setting the pod spec never sets, traced to the variables the kubelet injects for a Service of the namespace (<SERVICE>_PORT=tcp://…): a Service named like the application's own configuration prefix overrides its settings.",
	},
	Check: checkServiceLink,
}

// serviceLinkVar is one variable the kubelet injects for a Service.
type serviceLinkVar struct {
	name, value string
	svc         *corev1.Service
}

// serviceLinkVars are the variables the kubelet sets in a container for the
// Services of its namespace when enableServiceLinks is not false
// (pkg/kubelet/envvars: Services with a cluster IP; <NAME>_SERVICE_HOST,
// <NAME>_SERVICE_PORT, <NAME>_PORT=tcp://ip:port and the per-port ones).
func serviceLinkVars(c *rule.Pass, p *corev1.Pod) []serviceLinkVar {
	if p.Spec.EnableServiceLinks != nil && !*p.Spec.EnableServiceLinks {
		return nil
	}
	var out []serviceLinkVar
	for _, s := range c.B.Services {
		ip := s.Spec.ClusterIP
		if s.Namespace != p.Namespace || ip == "" || ip == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
			continue
		}
		prefix := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
		first := s.Spec.Ports[0]
		proto := strings.ToLower(string(first.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		add := func(name, value string) { out = append(out, serviceLinkVar{name, value, s}) }
		add(prefix+"_SERVICE_HOST", ip)
		add(prefix+"_SERVICE_PORT", strconv.Itoa(int(first.Port)))
		add(prefix+"_PORT", fmt.Sprintf("%s://%s:%d", proto, ip, first.Port))
		for _, sp := range s.Spec.Ports {
			pr := strings.ToUpper(string(sp.Protocol))
			if pr == "" {
				pr = "TCP"
			}
			base := fmt.Sprintf("%s_PORT_%d_%s", prefix, sp.Port, pr)
			add(base, fmt.Sprintf("%s://%s:%d", strings.ToLower(pr), ip, sp.Port))
			add(base+"_PROTO", strings.ToLower(pr))
			add(base+"_PORT", strconv.Itoa(int(sp.Port)))
			add(base+"_ADDR", ip)
		}
	}
	return out
}

// checkServiceLink: a crash whose log rejects a value the spec does not set
// is checked against the injected variables. The log names one of them or
// its value ("Invalid number value for N8N_PORT: tcp://…"), or — what
// cp-kafka and n8n print — complains about a setting ("port is
// deprecated", "options.port … NaN") of an application whose own
// configuration prefix (its env names, its image) is a Service's name.
func checkServiceLink(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		vars := serviceLinkVars(c, p)
		if spec == nil || len(vars) == 0 {
			continue
		}
		text := crashLog(c, p, ctrName)
		if text == "" {
			continue
		}
		// The weaker reading (a setting word, the app's own prefix) only
		// for a crash no log class explains: a classified line has its
		// own cause.
		unclassified := crashRoot(crash.Category) == crash.Category
		if v, sure := injectedCulprit(p, spec, vars, text, unclassified); v != nil {
			out = append(out, serviceLinkFinding(c, p, spec, crash, *v, sure))
		}
	}
	return out
}

// crashLog is the log of the instance that crashed (the previous one when
// it was read).
func crashLog(c *rule.Pass, p *corev1.Pod, ctr string) string {
	cur, prev := c.B.LogsFor(p.Name, ctr)
	if prev != nil && prev.Error == "" && strings.TrimSpace(prev.Text) != "" {
		return prev.Text
	}
	if cur != nil && cur.Error == "" {
		return cur.Text
	}
	return ""
}

// settingWordRe: the failing lines talk about a setting's value.
var settingWordRe = regexp.MustCompile(`(?i)\b(port|host|addr|address)\b`)

func injectedCulprit(p *corev1.Pod, spec *corev1.Container, vars []serviceLinkVar, text string, weak bool) (*serviceLinkVar, bool) {
	set := map[string]bool{}
	for _, e := range spec.Env {
		set[e.Name] = true
	}
	for i := range vars {
		v := &vars[i]
		if set[v.name] {
			continue // an explicit env wins over the injected one
		}
		// Its name, or the value only the kubelet writes (tcp://<cluster
		// IP>:<port>), which survives an app that lower-cases the name.
		if regexp.MustCompile(`\b`+regexp.QuoteMeta(v.name)+`\b`).MatchString(text) || v.name == portVar(v.svc) && strings.Contains(text, v.value) {
			return v, true
		}
	}
	tail := lastLines(text, 4)
	if !weak || !settingWordRe.MatchString(tail) {
		return nil, false
	}
	for i := range vars {
		v := &vars[i]
		prefix := strings.TrimSuffix(v.name, "_PORT")
		if set[v.name] || prefix == v.name || strings.Contains(prefix, "_PORT_") || strings.Contains(prefix, "_SERVICE") {
			continue
		}
		if ownsPrefix(p, spec, prefix) && strings.Contains(strings.ToLower(tail), "port") {
			return v, false
		}
	}
	return nil, false
}

// ownsPrefix: PREFIX_ is the application's own configuration namespace:
// the container sets other PREFIX_ variables, or its image or app label is
// named for it (confluentinc/cp-kafka, n8nio/n8n).
func ownsPrefix(p *corev1.Pod, spec *corev1.Container, prefix string) bool {
	for _, e := range spec.Env {
		if strings.HasPrefix(e.Name, prefix+"_") {
			return true
		}
	}
	low := strings.ToLower(prefix)
	repo := spec.Image
	if i := strings.LastIndex(repo, "/"); i >= 0 {
		repo = repo[i+1:]
	}
	repo, _, _ = strings.Cut(repo, ":")
	for _, w := range strings.FieldsFunc(repo, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if w == low {
			return true
		}
	}
	return p.Labels["app"] == low || p.Labels["app.kubernetes.io/name"] == low
}

func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func serviceLinkFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, v serviceLinkVar, sure bool) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	if !sure {
		f.Confidence = rule.Likely
	}
	f.Category = crashRoot(crash.Category).Sub("InvalidConfig", "ServiceLink")
	f.Subject = p.Name + "/" + spec.Name
	f.Evidence = append(f.Evidence,
		c.Evidence(fmt.Sprintf("Service %s (cluster IP %s) is in namespace %s: the kubelet sets %s=%s in every container started after it, unless the pod sets enableServiceLinks: false", v.svc.Name, v.svc.Spec.ClusterIP, p.Namespace, v.name, v.value),
			"service/"+v.svc.Name, fmt.Sprintf("kubectl get service %s -n %s", v.svc.Name, p.Namespace)),
		c.Evidence(fmt.Sprintf("Container %s's spec does not set %s itself", spec.Name, v.name),
			fmt.Sprintf("%s .spec.containers[%s].env", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "env")))
	// The cluster IP stays in the evidence: the root cause reads the same
	// wherever the Service got its address.
	shown := strings.Replace(v.value, v.svc.Spec.ClusterIP, "<cluster IP>", 1)
	how := fmt.Sprintf("its log names %s", v.name)
	if !sure {
		how = fmt.Sprintf("its log rejects a port setting, and %s_ is the application's own configuration prefix", strings.TrimSuffix(v.name, "_PORT"))
	}
	f.Title = fmt.Sprintf("container %s rejects %s=%s, which the kubelet injects for Service %s (enableServiceLinks)", spec.Name, v.name, shown, v.svc.Name)
	f.Hypothesis = fmt.Sprintf("Service %s makes the kubelet set %s=%s in the container; the application reads %s as its own setting and rejects the value (%s)", v.svc.Name, v.name, shown, v.name, how)
	f.Culprit = fmt.Sprintf("env %s=%s in %s container %s, injected by the kubelet for Service %s (enableServiceLinks is true by default)", v.name, shown, kube.PodRef(p), spec.Name, v.svc.Name)
	f.Mechanism = fmt.Sprintf("For every Service of the namespace the kubelet adds Docker-link style variables (<NAME>_PORT=tcp://<cluster IP>:<port>, <NAME>_SERVICE_HOST, …) to the container's environment. A Service named %s yields %s, a name the application also reads as configuration, so it starts with a value it never was given and exits. %s", v.svc.Name, v.name, crash.Mechanism)
	fix := PodSpecPatch(c, p, map[string]any{"enableServiceLinks": false},
		fmt.Sprintf("Stop the kubelet injecting Service variables into this pod (enableServiceLinks: false), or set %s explicitly in the container's env to the value the application expects; renaming Service %s also removes the collision.", v.name, v.svc.Name),
		"the application loses every <SERVICE>_… variable; anything that reads one must use the Service's DNS name instead")
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}

// portVar is the <NAME>_PORT variable of a Service, the one whose name
// applications most often also read as their own port setting.
func portVar(s *corev1.Service) string {
	return strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_")) + "_PORT"
}

// crashRoot is a crash category without the log class: "CrashLoop/Exit1"
// of "CrashLoop/Exit1/Panic".
func crashRoot(cat rule.Category) rule.Category {
	parts := strings.SplitN(string(cat), "/", 3)
	if len(parts) < 2 {
		return cat
	}
	return rule.Category(parts[0] + "/" + parts[1])
}
