package pod

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// ConfigError is the rule pod/config-error.
var ConfigError = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/config-error",
		Layer: rule.PodLayer,
		Needs: append([]rule.Need{rule.ConfigMaps, rule.ServiceAccounts}, rule.PodEvidence...),
		Doc:   "The kubelet refuses to create a container (CreateContainerConfigError): a missing ConfigMap, Secret or key.",
	},
	Check: checkContainerConfigError,
}

// configClass is why the kubelet cannot build a container's configuration:
// the category suffix ("CreateContainerConfigError/MissingSecret").
type configClass string

const (
	configMissingConfigMapKey configClass = "MissingConfigMapKey"
	configMissingSecretKey    configClass = "MissingSecretKey"
	configMissingConfigMap    configClass = "MissingConfigMap"
	configMissingSecret       configClass = "MissingSecret"
	configRunAsNonRoot        configClass = "RunAsNonRoot"
	configNonNumericUser      configClass = "NonNumericUser"
	// configOther: a message no row recognises.
	configOther configClass = "Other"
)

// configError is one row of the kubelet's container-config table: the
// message it leaves in state.waiting when it cannot build the container's
// environment or security settings.
type configError struct {
	Class configClass
	re    *regexp.Regexp // named groups: key and name of what is missing, user
	Kind  string         // the object kind the message names, if any
}

var configErrors = []configError{
	{configMissingConfigMapKey, regexp.MustCompile(`(?i)couldn't find key (?P<key>\S+) in ConfigMap (?P<ns>[^/\s]+)/(?P<name>\S+)`), "ConfigMap"},
	{configMissingSecretKey, regexp.MustCompile(`(?i)couldn't find key (?P<key>\S+) in Secret (?P<ns>[^/\s]+)/(?P<name>\S+)`), "Secret"},
	{configMissingConfigMap, regexp.MustCompile(`configmaps? "(?P<name>[^"]+)" not found`), "ConfigMap"},
	{configMissingSecret, regexp.MustCompile(`secrets? "(?P<name>[^"]+)" not found`), "Secret"},
	{configRunAsNonRoot, regexp.MustCompile(`container has runAsNonRoot and image will run as root`), ""},
	{configNonNumericUser, regexp.MustCompile(`container has runAsNonRoot and image has non-numeric user \((?P<user>[^)]*)\)`), ""},
}

// podSuffixRe is the kubelet's trailer naming the pod and container
// (`(pod: "web-0_ns(uid)", container: web)`), which the finding says
// already.
var podSuffixRe = regexp.MustCompile(`\s*\(pod: "[^"]*", container: [^)]*\)\s*$`)

// kubeletWords is the kubelet's message without its pod trailer.
func kubeletWords(text string) string {
	return strings.TrimSpace(podSuffixRe.ReplaceAllString(text, ""))
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
			f := configErrorFinding(c, p, st, text, evidence)
			if said := kubeletWords(text); said != "" {
				// The kubelet's own words, verbatim: a paraphrase loses the
				// name a human searches for.
				f.Culprit += fmt.Sprintf("; the kubelet says %q", said)
			}
			out = append(out, f)
		}
	}
	return out
}

func configErrorFinding(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, text string, evidence []string) rule.Finding {
	f := rule.Finding{Category: rule.CreateContainerConfigError.Sub(string(configOther)), Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: p.Name + "/" + st.Name, Evidence: evidence, Confidence: rule.Plausible,
		Culprit:   fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name),
		Mechanism: "Before creating a container the kubelet resolves its environment (env, envFrom) and checks its security settings; when that fails it records CreateContainerConfigError and retries on every sync, so the container never starts."}
	var row *configError
	var m submatch.Match
	for i := range configErrors {
		var ok bool
		if m, ok = submatch.Find(configErrors[i].re, text); ok {
			row = &configErrors[i]
			break
		}
	}
	if row == nil {
		f.Hypothesis = fmt.Sprintf("The kubelet cannot build container %s's configuration: %s", st.Name, text)
		f.Title = fmt.Sprintf("container %s cannot be created: %s", st.Name, text)
		f.Summary = fmt.Sprintf("The kubelet refuses to create container %s of pod %s: %s.", st.Name, p.Name, text)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the kubelet's full message and the container's env, envFrom and securityContext.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}}}
		return f
	}
	f.Category = rule.CreateContainerConfigError.Sub(string(row.Class))
	switch row.Class {
	case configMissingConfigMapKey, configMissingSecretKey:
		return configKeyFinding(c, p, st, f, row.Kind, m.Get("name"), m.Get("key"))
	case configMissingConfigMap, configMissingSecret:
		return configKeyFinding(c, p, st, f, row.Kind, m.Get("name"), "")
	}
	// runAsNonRoot against an image that runs as root, or as a user name the
	// kubelet cannot check.
	image := st.Image
	if spec := kube.SpecOf(p, st.Name); spec != nil {
		image = spec.Image
	}
	f.Confidence = rule.Definitive
	f.Culprit = fmt.Sprintf("%s container %s securityContext.runAsNonRoot with image %s", kube.PodRef(p), st.Name, image)
	if row.Class == configRunAsNonRoot {
		f.Hypothesis = fmt.Sprintf("Container %s must run as non-root, but image %s runs as root", st.Name, image)
		f.Title = fmt.Sprintf("container %s cannot start: runAsNonRoot is set but image %s runs as root (UID 0)", st.Name, image)
	} else {
		f.Hypothesis = fmt.Sprintf("Container %s must run as non-root, but image %s names its user %q, which the kubelet cannot check", st.Name, image, m.Get("user"))
		f.Title = fmt.Sprintf("container %s cannot start: runAsNonRoot is set but image %s has the non-numeric user %q", st.Name, image, m.Get("user"))
	}
	f.Summary = fmt.Sprintf("The kubelet refuses to start container %s of pod %s: %s.", st.Name, p.Name, text)
	f.Mechanism = "With runAsNonRoot the kubelet must prove the process will not run as UID 0 before starting it: it reads runAsUser from the securityContext, else the image's USER, which must be numeric and non-zero."
	f.Actions = []report.Action{
		ContainerPatch(c, p, st.Name, map[string]any{"securityContext": map[string]any{"runAsUser": 10001}},
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
			if near := NearestConfigKey(key, keys); near != "" {
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
