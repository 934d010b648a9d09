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

// NoSpace is the rule pod/no-space.
var NoSpace = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/no-space",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.Claims}, rule.PodEvidence...),
		Doc:      "A container that exits on \"no space left on device\", traced from the path to its volumeMount, volume and claim (name and capacity).",
	},
	Check: checkNoSpace,
}

// checkNoSpace follows the path a full-disk error names to the volume
// mounted over it. A path relative to the program's data directory
// (PostgreSQL's "pg_wal/…") names no mount: then the container's only
// claim-backed mount is the likely one.
func checkNoSpace(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, cr := range crashesOf(c, logs.NoSpace) {
		crash, p, spec, dec := cr.finding, cr.pod, cr.spec, cr.dec
		mount, path, sure := mountFor(p, spec, applog.Extract(dec.Line).Paths)
		if mount == nil {
			continue
		}
		if f := noSpaceFinding(c, p, spec, crash, mount, path, sure, dec.Line); f != nil {
			out = append(out, *f)
		}
	}
	return append(out, runningNoSpace(c)...)
}

// crashOf is a crash-loop finding of one class with its pod, container spec
// and decisive log line, for the rules that trace that line further.
type crashOf struct {
	finding rule.Finding
	pod     *corev1.Pod
	spec    *corev1.Container
	dec     *logs.Decisive
}

// crashesOf are the crash-loop findings whose category is refined with the
// log class (".../NoSpace") and whose container and decisive line are in
// the bundle.
func crashesOf(c *rule.Pass, class logs.Class) []crashOf {
	var out []crashOf
	for _, crash := range c.ResultOf(CrashLoop) {
		if !strings.Contains(string(crash.Category), "/"+class.String()) {
			continue
		}
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		dec, _ := logs.LastDecisive(c, p, ctrName)
		if spec == nil || dec == nil {
			continue
		}
		out = append(out, crashOf{crash, p, spec, dec})
	}
	return out
}

// runningNoSpace: a container that keeps running while its writes fail
// with "no space left on device" (a database refusing writes, a queue
// that stops persisting) is not a crash loop, but the path still leads to
// the full volume. A path relative to the program's data directory
// (PostgreSQL's "base/16384/…") leads to the container's only writable
// claim, with less confidence.
func runningNoSpace(c *rule.Pass) []rule.Finding {
	crashed := map[string]bool{}
	for _, crash := range c.ResultOf(CrashLoop) {
		crashed[crash.Subject] = true
	}
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, st := range p.Status.ContainerStatuses {
			subject := p.Name + "/" + st.Name
			if crashed[subject] || st.State.Running == nil {
				continue
			}
			spec := kube.SpecOf(p, st.Name)
			dec, prev := logs.LastDecisive(c, p, st.Name)
			if spec == nil || dec == nil || prev || dec.Pattern.Class != logs.NoSpace {
				continue
			}
			mount, path, sure := mountFor(p, spec, applog.Extract(dec.Line).Paths)
			if mount == nil {
				continue
			}
			base := rule.Finding{Category: rule.PVC, Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: subject,
				Evidence: []string{c.Evidence(fmt.Sprintf("Log line: %q", dec.Line),
					fmt.Sprintf("logs of %s container %s (current instance)", kube.PodRef(p), st.Name), kube.LogsCmd(p, st.Name, false))},
				Summary:   fmt.Sprintf("Container %s of pod %s keeps running, but its writes fail: %q.", st.Name, p.Name, dec.Line),
				Mechanism: "The filesystem the process writes to is full: every write fails with ENOSPC while the process keeps running (and may stay Ready), so the pod looks healthy while it loses or refuses data.",
			}
			f := noSpaceFinding(c, p, spec, base, mount, path, sure, dec.Line)
			if f == nil {
				continue
			}
			if strings.HasSuffix(string(f.Category), "/EmptyDir") {
				f.Category = rule.Volume.Sub("EmptyDirFull")
			} else {
				f.Category = rule.PVC.Sub("Full")
			}
			f.Title = strings.Replace(f.Title, "runs out of disk", "keeps running but its writes fail", 1)
			out = append(out, *f)
		}
	}
	return out
}

// mountFor is the container's mount covering one of the paths (the
// longest mountPath wins), or, when no path is absolute, its only mount of
// a claim; sure is false for that guess.
func mountFor(p *corev1.Pod, spec *corev1.Container, paths []string) (*corev1.VolumeMount, string, bool) {
	var best *corev1.VolumeMount
	bestPath := ""
	for _, path := range paths {
		for i := range spec.VolumeMounts {
			m := &spec.VolumeMounts[i]
			mp := strings.TrimSuffix(m.MountPath, "/")
			if (path == mp || strings.HasPrefix(path, mp+"/")) && (best == nil || len(m.MountPath) > len(best.MountPath)) {
				best, bestPath = m, path
			}
		}
	}
	if best != nil {
		return best, bestPath, true
	}
	if len(paths) > 0 {
		return nil, "", false // an absolute path on no mount: the image's own filesystem
	}
	var claimed []*corev1.VolumeMount
	for i := range spec.VolumeMounts {
		if v := volumeNamed(p, spec.VolumeMounts[i].Name); v != nil && claimOf(p, v) != "" && !spec.VolumeMounts[i].ReadOnly {
			claimed = append(claimed, &spec.VolumeMounts[i])
		}
	}
	if len(claimed) == 1 {
		return claimed[0], "", false
	}
	return nil, "", false
}

func volumeNamed(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

// claimOf is the claim a volume uses: its persistentVolumeClaim, or the
// claim the ephemeral controller names <pod>-<volume>.
func claimOf(p *corev1.Pod, v *corev1.Volume) string {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName
	case v.Ephemeral != nil:
		return p.Name + "-" + v.Name
	}
	return ""
}

// line is the log's failing write, which the root cause quotes: the path
// and the error the fix is checked against.
func noSpaceFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, m *corev1.VolumeMount, path string, sure bool, line string) *rule.Finding {
	v := volumeNamed(p, m.Name)
	if v == nil {
		return nil
	}
	f := crash
	ns := p.Namespace
	f.Strength, f.Current = rule.Traced, true
	f.Confidence = rule.Strong
	if !sure {
		f.Confidence = rule.Likely
	}
	at := fmt.Sprintf("volume %s mounted at %s", v.Name, m.MountPath)
	why := fmt.Sprintf("the path %s is on %s", path, at)
	if !sure {
		why = fmt.Sprintf("the log names no absolute path; %s is the container's only writable claim", at)
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s mounts %s", spec.Name, at),
		fmt.Sprintf("%s .spec.containers[%s].volumeMounts, .spec.volumes[%s]", kube.PodRef(p), spec.Name, v.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	var fix report.Action
	switch claim := claimOf(p, v); {
	case claim != "":
		var pvc *corev1.PersistentVolumeClaim
		for _, x := range c.B.PVCs {
			if x.Namespace == ns && x.Name == claim {
				pvc = x
			}
		}
		size := "its capacity was not collected"
		grow := "<larger size>"
		if pvc != nil {
			capacity, ok := pvc.Status.Capacity[corev1.ResourceStorage]
			if !ok {
				capacity = pvc.Spec.Resources.Requests[corev1.ResourceStorage]
			}
			size = "capacity " + capacity.String()
			if sc := pvc.Spec.StorageClassName; sc != nil && *sc != "" {
				size += ", StorageClass " + *sc
			}
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("PersistentVolumeClaim %s: %s, bound to %s", claim, size, kube.OrDash(pvc.Spec.VolumeName)),
				"persistentvolumeclaim/"+claim+" .status.capacity", fmt.Sprintf("kubectl get pvc %s -n %s", claim, ns)))
			if !capacity.IsZero() {
				double := capacity.DeepCopy()
				double.Add(capacity)
				grow = double.String()
			}
		}
		f.Category = crash.Category.Sub("PVC")
		f.Title = fmt.Sprintf("container %s runs out of disk: PVC %s (%s), mounted at %s, is full", spec.Name, claim, size, m.MountPath)
		f.Hypothesis = fmt.Sprintf("PersistentVolumeClaim %s (%s), which container %s writes to at %s, is full", claim, size, spec.Name, m.MountPath)
		f.Culprit = fmt.Sprintf("persistentvolumeclaim %s (%s), volume %s of %s mounted at %s in container %s", claim, size, v.Name, kube.PodRef(p), m.MountPath, spec.Name)
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Grow PVC %s (its StorageClass must allow volume expansion), or free space on it (old data, logs, WAL).", claim),
			Commands: []string{fmt.Sprintf(`kubectl patch pvc %s -n %s -p '{"spec":{"resources":{"requests":{"storage":"%s"}}}}'`, claim, ns, grow),
				fmt.Sprintf("kubectl exec %s -n %s -c %s -- df -h %s", p.Name, ns, spec.Name, m.MountPath)},
			Risk: "a claim cannot shrink again; some drivers grow the filesystem only when the pod restarts"}
	case v.EmptyDir != nil:
		limit := "no sizeLimit: it shares the node's disk"
		if v.EmptyDir.SizeLimit != nil {
			limit = "sizeLimit " + v.EmptyDir.SizeLimit.String()
		}
		if v.EmptyDir.Medium == corev1.StorageMediumMemory {
			limit += ", medium Memory (counted against the container's memory limit)"
		}
		f.Category = crash.Category.Sub("EmptyDir")
		f.Title = fmt.Sprintf("container %s runs out of disk: emptyDir volume %s (%s), mounted at %s, is full", spec.Name, v.Name, limit, m.MountPath)
		f.Hypothesis = fmt.Sprintf("The emptyDir %s that container %s writes to at %s is full", v.Name, spec.Name, m.MountPath)
		f.Culprit = fmt.Sprintf("%s emptyDir volume %s (%s) mounted at %s in container %s", kube.PodRef(p), v.Name, limit, m.MountPath, spec.Name)
		fix = report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Raise emptyDir %s's sizeLimit (or the node's disk), or store the data on a PersistentVolumeClaim.", v.Name),
			Commands: []string{fmt.Sprintf("kubectl exec %s -n %s -c %s -- df -h %s", p.Name, ns, spec.Name, m.MountPath)}}
	default:
		return nil
	}
	f.Contributing = append([]string{fmt.Sprintf("The failing write, in container %s's log: %q.", spec.Name, line)}, f.Contributing...)
	f.Summary = fmt.Sprintf("%s: %s. %s", upperFirst(f.Title), why, crash.Summary)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}
