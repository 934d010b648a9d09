package workload

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// templateDiff is what changed between two pod templates, in words, with
// the identifiers each change touches (env names, images, ConfigMaps) so a
// pod's cause can be matched against it.
type templateDiff struct {
	Changes []string
	terms   [][]string // terms[i] are the identifiers of changes[i]
}

func (d *templateDiff) add(terms []string, format string, a ...any) {
	d.Changes = append(d.Changes, fmt.Sprintf(format, a...))
	d.terms = append(d.terms, terms)
}

// explains returns the changed identifier a pod cause names, if any.
func (d *templateDiff) Explains(cause *rule.Finding) string {
	text := cause.Title + " " + cause.Culprit + " " + cause.Summary
	for i, terms := range d.terms {
		for _, t := range terms {
			if len(t) >= 3 && strings.Contains(text, t) {
				return d.Changes[i]
			}
		}
	}
	return ""
}

// find returns the first change mentioning one of the words.
func (d *templateDiff) find(words ...string) string {
	for _, ch := range d.Changes {
		for _, w := range words {
			if strings.Contains(ch, w) {
				return ch
			}
		}
	}
	return ""
}

type namedContainer struct {
	c    *corev1.Container
	kind string // "container" or "init container"
}

func templateContainers(t *corev1.PodTemplateSpec) (map[string]namedContainer, []string) {
	out := map[string]namedContainer{}
	var order []string
	for i := range t.Spec.InitContainers {
		ctr := &t.Spec.InitContainers[i]
		out[ctr.Name] = namedContainer{ctr, "init container"}
		order = append(order, ctr.Name)
	}
	for i := range t.Spec.Containers {
		ctr := &t.Spec.Containers[i]
		out[ctr.Name] = namedContainer{ctr, "container"}
		order = append(order, ctr.Name)
	}
	return out, order
}

// DiffTemplates lists what a human would check first in a rollout: images,
// command, env, resources, probes, mounts, volumes and the pod's identity.
func DiffTemplates(old, cur *corev1.PodTemplateSpec) templateDiff {
	var d templateDiff
	oldC, oldOrder := templateContainers(old)
	curC, curOrder := templateContainers(cur)
	for _, name := range curOrder {
		nc := curC[name]
		oc, ok := oldC[name]
		if !ok {
			d.add([]string{name, nc.c.Image}, "%s %s added (image %s)", nc.kind, name, nc.c.Image)
			continue
		}
		diffContainer(&d, oc.c, nc.c, nc.kind)
	}
	for _, name := range oldOrder {
		if _, ok := curC[name]; !ok {
			d.add([]string{name}, "%s %s removed", oldC[name].kind, name)
		}
	}
	diffVolumes(&d, old.Spec.Volumes, cur.Spec.Volumes)
	if o, n := old.Spec.ServiceAccountName, cur.Spec.ServiceAccountName; o != n {
		d.add([]string{n}, "serviceAccountName %s → %s", kube.ValueOr(o, "(default)"), kube.ValueOr(n, "(default)"))
	}
	if !reflect.DeepEqual(old.Spec.NodeSelector, cur.Spec.NodeSelector) {
		d.add(kube.SortedKeys(cur.Spec.NodeSelector), "nodeSelector %s → %s", labelString(old.Spec.NodeSelector), labelString(cur.Spec.NodeSelector))
	}
	if !reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		d.add(nil, "tolerations changed (%d → %d)", len(old.Spec.Tolerations), len(cur.Spec.Tolerations))
	}
	if !reflect.DeepEqual(old.Spec.Affinity, cur.Spec.Affinity) {
		d.add(nil, "affinity changed")
	}
	if !reflect.DeepEqual(old.Spec.SecurityContext, cur.Spec.SecurityContext) {
		d.add([]string{"securityContext"}, "pod securityContext changed")
	}
	if !reflect.DeepEqual(old.Spec.ImagePullSecrets, cur.Spec.ImagePullSecrets) {
		d.add([]string{"imagePullSecrets"}, "imagePullSecrets %s → %s", refNames(old.Spec.ImagePullSecrets), refNames(cur.Spec.ImagePullSecrets))
	}
	return d
}

func diffContainer(d *templateDiff, o, n *corev1.Container, kind string) {
	name := n.Name
	if o.Image != n.Image {
		d.add([]string{n.Image, kube.ValueOr(kube.ImageTag(n.Image), n.Image)}, "%s %s image %s → %s", kind, name, o.Image, n.Image)
	}
	if !reflect.DeepEqual(o.Command, n.Command) {
		d.add(n.Command, "%s %s command %s → %s", kind, name, quoteList(o.Command), quoteList(n.Command))
	}
	if !reflect.DeepEqual(o.Args, n.Args) {
		d.add(n.Args, "%s %s args %s → %s", kind, name, quoteList(o.Args), quoteList(n.Args))
	}
	oldEnv := map[string]corev1.EnvVar{}
	for _, e := range o.Env {
		oldEnv[e.Name] = e
	}
	newEnv := map[string]bool{}
	for _, e := range n.Env {
		newEnv[e.Name] = true
		prev, ok := oldEnv[e.Name]
		switch {
		case !ok:
			d.add([]string{e.Name}, "%s %s env %s added (%s)", kind, name, e.Name, envSource(e))
		case !reflect.DeepEqual(prev, e):
			d.add([]string{e.Name}, "%s %s env %s changed (%s → %s)", kind, name, e.Name, envSource(prev), envSource(e))
		}
	}
	for _, e := range o.Env {
		if !newEnv[e.Name] {
			d.add([]string{e.Name}, "%s %s env %s removed", kind, name, e.Name)
		}
	}
	oldFrom, newFrom := envFromRefs(o.EnvFrom), envFromRefs(n.EnvFrom)
	for _, r := range newFrom {
		if !slices.Contains(oldFrom, r) {
			d.add([]string{refName(r)}, "%s %s envFrom %s added", kind, name, r)
		}
	}
	for _, r := range oldFrom {
		if !slices.Contains(newFrom, r) {
			d.add([]string{refName(r)}, "%s %s envFrom %s removed", kind, name, r)
		}
	}
	for _, part := range []struct {
		label    string
		old, cur corev1.ResourceList
	}{{"requests", o.Resources.Requests, n.Resources.Requests}, {"limits", o.Resources.Limits, n.Resources.Limits}} {
		names := map[string]bool{}
		for k := range part.old {
			names[string(k)] = true
		}
		for k := range part.cur {
			names[string(k)] = true
		}
		for _, res := range kube.SortedKeys(names) {
			oq, had := part.old[corev1.ResourceName(res)]
			nq, has := part.cur[corev1.ResourceName(res)]
			switch {
			case had && has && oq.Cmp(nq) != 0:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s → %s", kind, name, part.label, res, oq.String(), nq.String())
			case had && !has:
				d.add([]string{res}, "%s %s %s.%s %s removed", kind, name, part.label, res, oq.String())
			case !had && has:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s added", kind, name, part.label, res, nq.String())
			}
		}
	}
	for _, pr := range []struct {
		label    string
		old, cur *corev1.Probe
	}{{"livenessProbe", o.LivenessProbe, n.LivenessProbe}, {"readinessProbe", o.ReadinessProbe, n.ReadinessProbe}, {"startupProbe", o.StartupProbe, n.StartupProbe}} {
		if reflect.DeepEqual(pr.old, pr.cur) {
			continue
		}
		ob, nb := kube.ProbeText(pr.old, false), kube.ProbeText(pr.cur, false)
		if ob == nb {
			ob, nb = kube.ProbeText(pr.old, true), kube.ProbeText(pr.cur, true)
		}
		d.add([]string{pr.label}, "%s %s %s %s → %s", kind, name, pr.label, ob, nb)
	}
	oldMounts, newMounts := mountList(o.VolumeMounts), mountList(n.VolumeMounts)
	for _, m := range newMounts {
		if !slices.Contains(oldMounts, m) {
			d.add([]string{m}, "%s %s mounts %s", kind, name, m)
		}
	}
	for _, m := range oldMounts {
		if !slices.Contains(newMounts, m) {
			d.add([]string{m}, "%s %s no longer mounts %s", kind, name, m)
		}
	}
	if !reflect.DeepEqual(o.SecurityContext, n.SecurityContext) {
		d.add([]string{"securityContext"}, "%s %s securityContext changed", kind, name)
	}
}

func diffVolumes(d *templateDiff, old, cur []corev1.Volume) {
	oldV := map[string]string{}
	for _, v := range old {
		oldV[v.Name] = volumeSource(v)
	}
	curV := map[string]bool{}
	for _, v := range cur {
		curV[v.Name] = true
		src := volumeSource(v)
		prev, ok := oldV[v.Name]
		switch {
		case !ok:
			d.add([]string{v.Name, refName(src)}, "volume %s added (%s)", v.Name, src)
		case prev != src:
			d.add([]string{v.Name, refName(src)}, "volume %s now %s (was %s)", v.Name, src, prev)
		}
	}
	for _, v := range old {
		if !curV[v.Name] {
			d.add([]string{v.Name}, "volume %s removed (%s)", v.Name, oldV[v.Name])
		}
	}
}

func volumeSource(v corev1.Volume) string {
	switch {
	case v.ConfigMap != nil:
		return "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return "Secret " + v.Secret.SecretName
	case v.PersistentVolumeClaim != nil:
		return "PVC " + v.PersistentVolumeClaim.ClaimName
	case v.EmptyDir != nil:
		return "emptyDir"
	case v.HostPath != nil:
		return "hostPath " + v.HostPath.Path
	case v.Projected != nil:
		var parts []string
		for _, s := range v.Projected.Sources {
			switch {
			case s.ConfigMap != nil:
				parts = append(parts, "ConfigMap "+s.ConfigMap.Name)
			case s.Secret != nil:
				parts = append(parts, "Secret "+s.Secret.Name)
			case s.ServiceAccountToken != nil:
				parts = append(parts, "token")
			}
		}
		return "projected (" + strings.Join(parts, ", ") + ")"
	}
	return "other source"
}

// refName is the object name in "ConfigMap app-config".
func refName(s string) string {
	if _, name, ok := strings.Cut(s, " "); ok {
		return name
	}
	return ""
}

func envSource(e corev1.EnvVar) string {
	if f := e.ValueFrom; f != nil {
		switch {
		case f.ConfigMapKeyRef != nil:
			return fmt.Sprintf("from ConfigMap %s key %s", f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Key)
		case f.SecretKeyRef != nil:
			return fmt.Sprintf("from Secret %s key %s", f.SecretKeyRef.Name, f.SecretKeyRef.Key)
		case f.FieldRef != nil:
			return "from field " + f.FieldRef.FieldPath
		case f.ResourceFieldRef != nil:
			return "from resource " + f.ResourceFieldRef.Resource
		}
		return "from a reference"
	}
	switch {
	case strings.Contains(e.Value, redact.Mask):
		return "value redacted"
	case e.Value == "":
		return "empty value"
	case len(e.Value) > 40:
		return fmt.Sprintf("%q…", e.Value[:40])
	}
	return strconv.Quote(e.Value)
}

func envFromRefs(list []corev1.EnvFromSource) []string {
	var out []string
	for _, e := range list {
		switch {
		case e.ConfigMapRef != nil:
			out = append(out, "ConfigMap "+e.ConfigMapRef.Name)
		case e.SecretRef != nil:
			out = append(out, "Secret "+e.SecretRef.Name)
		}
	}
	return out
}

func mountList(ms []corev1.VolumeMount) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s at %s", m.Name, m.MountPath))
	}
	return out
}

func quoteList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	return "[" + strings.Join(l, " ") + "]"
}

func refNames(refs []corev1.LocalObjectReference) string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return "[" + strings.Join(out, ",") + "]"
}
