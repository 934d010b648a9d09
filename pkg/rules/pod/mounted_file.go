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

// MountedFile is the rule pod/mounted-file.
var MountedFile = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/mounted-file",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.ConfigMaps}, rule.PodEvidence...),
		Doc:      "A crashing container's decisive log line (a missing, unparsable or too-open file) names a file projected from a ConfigMap or Secret volume, or written onto a shared emptyDir by another container (a sidecar copying labelled ConfigMaps): the object, key and mode it comes from are named, with the key's lines the error is about.",
	},
	Check: checkMountedFile,
}

// mountedFileClasses are the log classes whose line is about a file's
// presence, content or mode, so the object that projects the file is
// where it is fixed.
var mountedFileClasses = []logs.Class{logs.MissingFile, logs.InvalidConfig, logs.FileMode}

// sourceKind is the kind of object a projected file comes from.
type sourceKind string

const (
	fromConfigMap sourceKind = "ConfigMap"
	fromSecret    sourceKind = "Secret"
)

// projection is where a file in the container comes from: a key of a
// ConfigMap or Secret, through a volume mounted at a path.
type projection struct {
	Kind   sourceKind
	Name   string // the ConfigMap's or Secret's name
	Key    string // "" when the volume's items do not project the file
	Volume *corev1.Volume
	Mount  *corev1.VolumeMount
	Mode   int32 // the file's mode: items[].mode, else defaultMode, else 0644
}

// projectedFile says which ConfigMap or Secret key a path of the container
// is projected from; nil when no such volume is mounted over it.
func projectedFile(p *corev1.Pod, spec *corev1.Container, path string) *projection {
	m, _, sure := mountFor(p, spec, []string{path})
	if m == nil || !sure {
		return nil
	}
	v := volumeNamed(p, m.Name)
	if v == nil {
		return nil
	}
	pr := &projection{Volume: v, Mount: m, Mode: corev1.SecretVolumeSourceDefaultMode}
	var items []corev1.KeyToPath
	var mode *int32
	switch {
	case v.ConfigMap != nil:
		pr.Kind, pr.Name, items, mode = fromConfigMap, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.DefaultMode
	case v.Secret != nil:
		pr.Kind, pr.Name, items, mode = fromSecret, v.Secret.SecretName, v.Secret.Items, v.Secret.DefaultMode
	default:
		return nil
	}
	if mode != nil {
		pr.Mode = *mode
	}
	// The file's name inside the volume: below the mount, under its subPath.
	rel := strings.TrimPrefix(strings.TrimPrefix(path, strings.TrimSuffix(m.MountPath, "/")), "/")
	if m.SubPath != "" {
		rel = strings.Trim(m.SubPath+"/"+rel, "/")
	}
	if rel == "" {
		return nil // the whole volume: no one key
	}
	pr.Key = rel
	if len(items) > 0 {
		pr.Key = ""
		for _, it := range items {
			if it.Path == rel {
				pr.Key = it.Key
				if it.Mode != nil {
					pr.Mode = *it.Mode
				}
			}
		}
	}
	return pr
}

// String names the projection for a reader: "Secret nginxsecret key
// nginx.crt (volume secret-volume mounted at /etc/nginx/ssl)".
func (pr *projection) String() string {
	key := "key " + pr.Key
	if pr.Key == "" {
		key = "none of whose items projects it"
	}
	at := fmt.Sprintf("volume %s mounted at %s", pr.Volume.Name, pr.Mount.MountPath)
	if pr.Mount.SubPath != "" {
		at += fmt.Sprintf(" (subPath %s)", pr.Mount.SubPath)
	}
	return fmt.Sprintf("%s %s %s (%s)", pr.Kind, pr.Name, key, at)
}

// checkMountedFile traces a crash's file to the object projecting it. A
// ConfigMap key that is missing is pod/config-source's, a file a mount
// hides is pod/mount-shadow's; this rule speaks when the file is there
// (its content or mode is what the program refuses) or comes from a
// Secret, whose keys are never read.
func checkMountedFile(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, class := range mountedFileClasses {
		for _, cr := range crashesOf(c, class) {
			if f := mountedFileFinding(c, cr, class); f != nil {
				out = append(out, *f)
			}
		}
	}
	return out
}

func mountedFileFinding(c *rule.Pass, cr crashOf, class logs.Class) *rule.Finding {
	crash, p, spec, dec := cr.finding, cr.pod, cr.spec, cr.dec
	var pr *projection
	path := ""
	for _, candidate := range applog.Extract(dec.Line).Paths {
		if pr = projectedFile(p, spec, candidate); pr != nil {
			path = candidate
			break
		}
	}
	if pr == nil {
		// Nothing of the pod spec projects the file: another container may
		// write it onto a volume both mount.
		if class == logs.FileMode {
			return nil
		}
		if wf := writtenFileOf(c, p, spec, dec.Line); wf != nil {
			return writtenFileFinding(c, cr, wf)
		}
		return nil
	}
	ns := p.Namespace
	configMapHas := false
	if pr.Kind == fromConfigMap && pr.Key != "" {
		if cm := c.B.ConfigMap(ns, pr.Name); cm != nil {
			_, data := cm.Data[pr.Key]
			_, bin := cm.BinaryData[pr.Key]
			configMapHas = data || bin
		}
	}
	f := crash
	f.Strength, f.Current = rule.Traced, true
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("%s in container %s comes from %s, file mode %#o", path, spec.Name, pr, pr.Mode),
		fmt.Sprintf("%s .spec.containers[%s].volumeMounts, .spec.volumes[%s]", kube.PodRef(p), spec.Name, pr.Volume.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	inspect := fmt.Sprintf("kubectl describe %s %s -n %s", strings.ToLower(string(pr.Kind)), pr.Name, ns)
	var fix report.Action
	switch {
	case class == logs.FileMode:
		f.Confidence = rule.Strong
		f.Category = crash.Category.Sub(string(pr.Kind))
		f.Title = fmt.Sprintf("container %s crashes%s: %s refuses %s, projected with mode %#o from %s", spec.Name, kube.ExitSuffix(lastTerm(p, spec.Name)), kube.OrDash(programOf(spec)), path, pr.Mode, pr)
		f.Hypothesis = fmt.Sprintf("%s is readable by group or others (mode %#o from volume %s), which the program refuses", path, pr.Mode, pr.Volume.Name)
		f.Culprit = fmt.Sprintf("%s volume %s (%s %s, mode %#o) mounted at %s in container %s", kube.PodRef(p), pr.Volume.Name, strings.ToLower(string(pr.Kind)), pr.Name, pr.Mode, pr.Mount.MountPath, spec.Name)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Set defaultMode: 0400 (or items[].mode) on volume %s so %s is readable by its owner only; if the program runs as a non-root user, also set fsGroup or copy the file with chmod 0600 in an init container.", pr.Volume.Name, path),
			Commands:    []string{containerSpecCmd(p, spec.Name, "volumeMounts")}}
	case pr.Kind == fromConfigMap && !configMapHas:
		return nil // the key is missing, or the ConfigMap unread: pod/config-source's
	case pr.Kind == fromConfigMap:
		f.Confidence = rule.Strong
		f.Category = crash.Category.Sub(string(pr.Kind))
		f.Title = fmt.Sprintf("%s; %s is %s", crash.Title, path, pr)
		f.Hypothesis = fmt.Sprintf("The content of %s %s key %s, mounted as %s, is what the application rejects", pr.Kind, pr.Name, pr.Key, path)
		f.Culprit = fmt.Sprintf("configmap %s key %s, mounted at %s by %s container %s", pr.Name, pr.Key, path, kube.PodRef(p), spec.Name)
		if quoted := salientLines(c.B.ConfigMap(ns, pr.Name).Data[pr.Key], dec.Line, path, pr.Key); len(quoted) > 0 {
			f.Culprit += "; the lines the error is about: " + strings.Join(quoted, "; ")
		}
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Correct key %s of ConfigMap %s (the application's log says what it rejects), then restart the pod: a running container sees the new file, but the application read it only at start.", pr.Key, pr.Name),
			Commands:    []string{configMapKeyCmd(ns, pr.Name, pr.Key)}}
	default: // a Secret: its keys are never read, so the lead is a hypothesis to check
		f.Confidence = rule.Likely
		f.Category = crash.Category.Sub(string(pr.Kind))
		what := "holds that key with content the application accepts"
		if class == logs.MissingFile {
			what = "has that key"
		}
		if pr.Key == "" {
			what = "is projected with items that include it"
		}
		f.Title = fmt.Sprintf("%s; %s would come from %s", crash.Title, path, pr)
		f.Hypothesis = fmt.Sprintf("Secret %s, mounted at %s, does not provide %s as the application expects (check that it %s; Secrets are not read by this tool)", pr.Name, pr.Mount.MountPath, path, what)
		f.Culprit = fmt.Sprintf("secret %s, which should provide %s (key %s) through volume %s of %s container %s", pr.Name, path, kube.OrDash(pr.Key), pr.Volume.Name, kube.PodRef(p), spec.Name)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("List Secret %s's keys (describe shows names and sizes, not values): either give it key %s or make the application read the key it has (for a kubernetes.io/tls Secret: tls.crt and tls.key), or project it under that name with items.", pr.Name, kube.OrDash(pr.Key)),
			Commands:    []string{inspect}}
	}
	f.Mechanism = strings.TrimSpace(crash.Mechanism + fmt.Sprintf(" The file comes from %s %s, projected with mode %#o; the program's log says: %q.", pr.Kind, pr.Name, pr.Mode, dec.Line))
	f.Summary = fmt.Sprintf("%s %s comes from %s, file mode %#o.", crash.Summary, path, pr, pr.Mode)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}

// programOf is the container's program for a reader: its command or image.
func programOf(spec *corev1.Container) string {
	if len(spec.Command) > 0 {
		return spec.Command[0]
	}
	return spec.Image
}

// lastTerm is how container name last ended: its current state when it is
// terminated, else its last termination; nil if it has not.
func lastTerm(p *corev1.Pod, name string) *corev1.ContainerStateTerminated {
	for _, cs := range kube.AllStatuses(p) {
		if cs.Status.Name != name {
			continue
		}
		if t := cs.Status.State.Terminated; t != nil {
			return t
		}
		return cs.Status.LastTerminationState.Terminated
	}
	return nil
}
