package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// DataDir is the rule pod/data-dir.
var DataDir = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/data-dir",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    append([]rule.Need{rule.Claims}, rule.PodEvidence...),
		Doc:      "A database that refuses a non-empty data directory (initdb, mysqld --initialize) traced to the volume mounted there: a claim's root holds lost+found.",
	},
	Check: checkDataDir,
}

// checkDataDir follows the data directory a database refuses to the mount
// that covers it. When the directory is the mountPath itself, the volume's
// root is the data directory, and a fresh ext4 volume's root holds
// lost+found: the fix is a subdirectory (PGDATA or subPath), never
// deleting what is on the volume.
func checkDataDir(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, cr := range crashesOf(c, logs.DataDirNotEmpty) {
		crash, p, spec, dec := cr.finding, cr.pod, cr.spec, cr.dec
		var paths []string
		if path := logs.SubjectOf(logs.DataDirNotEmpty, dec.Line); strings.HasPrefix(path, "/") {
			paths = append(paths, strings.TrimSuffix(path, "/"))
		}
		mount, path, _ := mountFor(p, spec, paths)
		if mount == nil {
			continue
		}
		if f := dataDirFinding(c, p, spec, crash, mount, path, strings.Contains(dec.Line, "initdb")); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

func dataDirFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, m *corev1.VolumeMount, path string, postgres bool) *rule.Finding {
	v := volumeNamed(p, m.Name)
	if v == nil {
		return nil
	}
	if path == "" {
		// The log names no directory (MySQL 5.7's "--initialize specified
		// but the data directory has files in it"): the one writable claim
		// mounted in the container is where the data directory lives.
		path = strings.TrimSuffix(m.MountPath, "/")
	}
	atRoot := m.SubPath == "" && strings.TrimSuffix(m.MountPath, "/") == path
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	what := "volume " + v.Name
	if claim := claimOf(p, v); claim != "" {
		what = fmt.Sprintf("PVC %s (volume %s)", claim, v.Name)
		for _, x := range c.B.PVCs {
			if x.Namespace == p.Namespace && x.Name == claim {
				capacity, ok := x.Status.Capacity[corev1.ResourceStorage]
				if !ok {
					capacity = x.Spec.Resources.Requests[corev1.ResourceStorage]
				}
				what = fmt.Sprintf("PVC %s (volume %s, %s)", claim, v.Name, capacity.String())
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("PersistentVolumeClaim %s: phase %s, capacity %s", claim, x.Status.Phase, capacity.String()),
					"persistentvolumeclaim/"+claim, fmt.Sprintf("kubectl get pvc %s -n %s", claim, p.Namespace)))
			}
		}
	}
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Container %s mounts %s at %s%s", spec.Name, what, m.MountPath, subPathText(m)),
		fmt.Sprintf("%s .spec.containers[%s].volumeMounts", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	db := "MySQL"
	if postgres {
		db = "PostgreSQL's initdb"
	}
	where := fmt.Sprintf("%s container %s", kube.PodRef(p), spec.Name)
	crashes := "crashes"
	if st := containerStatusNamed(p, spec.Name); st != nil {
		term := st.LastTerminationState.Terminated
		if term == nil {
			term = st.State.Terminated
		}
		crashes += kube.ExitSuffix(term)
	}
	if atRoot {
		f.Category = crash.Category.Sub("MountRoot")
		f.Title = fmt.Sprintf("container %s %s: %s refuses data directory %s because it is the root of %s, which holds lost+found", spec.Name, crashes, db, path, what)
		f.Hypothesis = fmt.Sprintf("The data directory %s is the mount point of %s: the volume's root is not empty (lost+found)", path, what)
		f.Culprit = fmt.Sprintf("%s volumeMount %s at %s (%s): the data directory is the volume's root", where, m.Name, m.MountPath, what)
	} else {
		f.Category = crash.Category.Sub("Volume")
		f.Title = fmt.Sprintf("container %s %s: %s refuses data directory %s on %s, which already holds files", spec.Name, crashes, db, path, what)
		f.Hypothesis = fmt.Sprintf("The data directory %s on %s is not empty: a partial or foreign initialisation", path, what)
		f.Culprit = fmt.Sprintf("%s data directory %s on %s (mounted at %s)", where, path, what, m.MountPath)
	}
	var fix report.Action
	sub := "pgdata"
	if !postgres {
		sub = "mysql"
	}
	switch {
	case postgres && atRoot:
		fix = ContainerPatch(c, p, spec.Name, map[string]any{"env": []any{map[string]any{"name": "PGDATA", "value": path + "/" + sub}}},
			fmt.Sprintf("Set PGDATA to a subdirectory of the mount (%s/%s), so initdb creates and owns an empty directory; the volume and its lost+found stay as they are.", path, sub), "")
	case atRoot:
		fix = ContainerPatch(c, p, spec.Name, map[string]any{"volumeMounts": []any{map[string]any{"name": m.Name, "mountPath": m.MountPath, "subPath": sub}}},
			fmt.Sprintf("Mount volume %s with subPath %s, so the data directory is an empty subdirectory of the volume rather than its root.", m.Name, sub), "")
	default:
		fix = report.Action{Kind: report.Check, Description: fmt.Sprintf("See what the data directory %s already holds (an earlier, failed initialisation or another program's files) before deciding what to keep.", path),
			Commands: []string{containerSpecCmd(p, spec.Name, "volumeMounts")}}
	}
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	f.Actions = append([]report.Action{fix}, crash.Actions...)
	return &f
}

func subPathText(m *corev1.VolumeMount) string {
	if m.SubPath == "" {
		return " (the volume's root, no subPath)"
	}
	return " (subPath " + m.SubPath + ")"
}
