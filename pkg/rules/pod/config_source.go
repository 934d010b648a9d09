package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// ConfigSource is the rule pod/config-source.
var ConfigSource = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/config-source",
		Layer: rule.PodLayer,
		Needs: append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
		Doc:   "A crashing container's missing setting traced to the ConfigMap its spec takes it from.",
	},
	Check: checkConfigSource,
}

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
			case logs.MissingEnv:
				if name := strings.TrimPrefix(logs.SubjectOf(logs.MissingEnv, dec.Line), "environment variable "); name != "" {
					f = envSource(c, p, spec, name)
				}
			case logs.MissingFile:
				// A file the mount hides is pod/mount-shadow's, not a key
				// the ConfigMap lacks.
				if path := logs.PathRe.FindString(dec.Line); path != "" && shadowOf(c, p, spec, path, applog.Extract(dec.Line).Paths, false) == nil {
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
			if near := NearestConfigKey(key, keys); near != "" {
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
			Commands: []string{fmt.Sprintf("kubectl rollout restart %s/%s %s", kind, owner, kube.NSFlag(p))}, Risk: "replaces the pods one by one"})
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Compare what the application reads with the ConfigMap's keys.",
		Commands: []string{getCmd}})
	return f
}
