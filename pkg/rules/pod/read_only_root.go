package pod

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ReadOnlyRoot is the rule pod/read-only-root.
var ReadOnlyRoot = &rule.Rule{
	Meta: rule.Meta{
		ID:       "pod/read-only-root",
		Layer:    rule.PodLayer,
		Requires: []*rule.Rule{CrashLoop},
		Needs:    rule.PodEvidence,
		Doc:      "A crashing container whose write fails with \"Read-only file system\" (EROFS, errno 30) while its securityContext sets readOnlyRootFilesystem and no writable volume covers the path: the fix is a volume there, not a permission.",
	},
	Check: checkReadOnlyRoot,
}

// erofsRe is the kernel's EROFS as programs print it: the C library's
// text, the errno's name or number (Rust's "os error 30", its
// ReadOnlyFilesystem kind).
var erofsRe = regexp.MustCompile(`(?i)read-only file ?system|\bEROFS\b|os error 30\b|code: 30, kind: ReadOnlyFilesystem`)

// checkReadOnlyRoot: a crash whose log's failing write is EROFS on a
// container with a read-only root filesystem. The path the line names is
// on no writable volume (else it is that volume's case, not the root's);
// a line naming none still has one cause when the root is read-only.
func checkReadOnlyRoot(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, crash := range c.ResultOf(CrashLoop) {
		podName, ctrName, _ := strings.Cut(crash.Subject, "/")
		p := kube.PodNamed(c, podName)
		if p == nil {
			continue
		}
		spec := kube.SpecOf(p, ctrName)
		if spec == nil || spec.SecurityContext == nil || spec.SecurityContext.ReadOnlyRootFilesystem == nil || !*spec.SecurityContext.ReadOnlyRootFilesystem {
			continue
		}
		line := erofsLine(crashLog(c, p, ctrName))
		if line == "" {
			continue
		}
		dir, covered := erofsDir(spec, line)
		if covered {
			continue
		}
		out = append(out, readOnlyRootFinding(c, p, spec, crash, line, dir))
	}
	return out
}

// kubeletStamp is the timestamp the kubelet prefixes to a line fetched
// with timestamps.
var kubeletStamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T[0-9:.]+Z\s+`)

// erofsLine is the first line of text that says EROFS: the write that
// failed, before the shutdown it causes.
func erofsLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if erofsRe.MatchString(l) {
			return kubeletStamp.ReplaceAllString(strings.TrimSpace(l), "")
		}
	}
	return ""
}

// erofsDir is the directory of the path the EROFS line names ("" when it
// names none), and whether a writable volume mount covers that path (then
// the read-only root is not what refused it).
func erofsDir(spec *corev1.Container, line string) (string, bool) {
	for _, p := range applog.Extract(line).Paths {
		if !strings.HasPrefix(p, "/") {
			continue
		}
		p = strings.TrimRight(p, "/.:")
		for _, m := range spec.VolumeMounts {
			mp := strings.TrimSuffix(m.MountPath, "/")
			if !m.ReadOnly && (p == mp || strings.HasPrefix(p, mp+"/")) {
				return "", true
			}
		}
		if path.Ext(p) != "" {
			return path.Dir(p), false // a file: its directory needs the volume
		}
		return p, false
	}
	return "", false
}

func readOnlyRootFinding(c *rule.Pass, p *corev1.Pod, spec *corev1.Container, crash rule.Finding, line, dir string) rule.Finding {
	f := crash
	f.Strength, f.Current, f.Confidence = rule.Traced, true, rule.Strong
	f.Category = crashRoot(crash.Category).Sub("ReadOnlyRootFilesystem")
	f.Subject = p.Name + "/" + spec.Name
	where := "a path on the container's root filesystem"
	if dir != "" {
		where = dir
	}
	f.Evidence = append(f.Evidence,
		c.Evidence(fmt.Sprintf("Container %s sets securityContext.readOnlyRootFilesystem: true", spec.Name),
			fmt.Sprintf("%s .spec.containers[%s].securityContext", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "securityContext")),
		c.Evidence(fmt.Sprintf("No writable volume of container %s is mounted at %s", spec.Name, where),
			fmt.Sprintf("%s .spec.containers[%s].volumeMounts", kube.PodRef(p), spec.Name), containerSpecCmd(p, spec.Name, "volumeMounts")))
	f.Title = fmt.Sprintf("container %s cannot write %s: its root filesystem is read-only (securityContext.readOnlyRootFilesystem: true) and no writable volume is mounted there", spec.Name, where)
	f.Hypothesis = fmt.Sprintf("The application writes to %s, which lies on the container's read-only root filesystem; the write fails with EROFS and the application exits", where)
	f.Culprit = fmt.Sprintf("%s container %s: securityContext.readOnlyRootFilesystem: true with no writable volume at %s; its log says: %s", kube.PodRef(p), spec.Name, where, line)
	f.Mechanism = "With readOnlyRootFilesystem the container runtime mounts the image's filesystem read-only: every write outside a volume fails with EROFS (\"Read-only file system\", errno 30) whoever the process runs as, so no user, group or fsGroup change helps. " + crash.Mechanism
	mount := "Mount a writable volume (an emptyDir, or a claim for data that must persist) at the directory the application writes"
	if dir != "" {
		mount = fmt.Sprintf("Mount a writable volume (an emptyDir, or a claim for data that must persist) at %s", dir)
	}
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: mount + ", keeping readOnlyRootFilesystem; or point the application's data or cache directory at a volume it already has.",
		Commands:    []string{containerSpecCmd(p, spec.Name, "volumeMounts")},
		Risk:        "an emptyDir starts empty on every restart of the pod: data that must survive needs a claim"}}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upperFirst(f.Title), crash.Summary)
	return f
}
