package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// RuntimeError is the rule pod/runtime-error.
var RuntimeError = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/runtime-error",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "The runtime cannot create or start a container (CreateContainerError, RunContainerError, StartError).",
	},
	Check: checkRuntimeError,
}

// runtimeClass is why the runtime cannot start a container: the category
// suffix ("RunContainerError/ExecFormat"); runtimeOther when no row
// recognises the message.
type runtimeClass string

const (
	runtimeMountTypeMismatch  runtimeClass = "MountTypeMismatch"
	runtimeMountFailed        runtimeClass = "MountFailed"
	runtimeExecutableNotFound runtimeClass = "ExecutableNotFound"
	runtimeExecPermission     runtimeClass = "ExecPermission"
	runtimeExecFormat         runtimeClass = "ExecFormat"
	runtimeNoCommand          runtimeClass = "NoCommand"
	runtimeNameConflict       runtimeClass = "NameConflict"
	runtimeOther              runtimeClass = "Other"
)

// runtimeFailure is one row of the container-runtime table: why the runtime
// could not create or start the container's process.
type runtimeFailure struct {
	Class    runtimeClass
	re       *regexp.Regexp
	Explains string
	Fix      string
	Conf     rule.Confidence
}

// runtimeFailures are matched against the runtime's message, in order:
// mount errors first, since they also say "no such file or directory".
var runtimeFailures = []runtimeFailure{
	{runtimeMountTypeMismatch, regexp.MustCompile(`(?i)not a directory|Are you trying to mount a directory onto a file`),
		"a volume (usually a subPath) is mounted over a path of the other type: a directory onto a file or a file onto a directory",
		"Make the volumeMount's mountPath and subPath agree on file vs directory (a ConfigMap key mounted with subPath is a file: mount it at the file's full path).", rule.Strong},
	{runtimeMountFailed, regexp.MustCompile(`error mounting "[^"]*" to rootfs at "[^"]*"`),
		"the runtime could not mount a volume into the container",
		"Check the volumeMounts (mountPath, subPath) against the volume's content.", rule.High},
	{runtimeExecutableNotFound, regexp.MustCompile(`executable file not found in \$PATH|exec: "[^"]+": stat [^:]+: no such file or directory|exec \S+: no such file or directory`),
		"the container's command does not exist in the image",
		"Fix the container's command/args (or the image's ENTRYPOINT) to a binary that exists in the image, with its full path if it is not on $PATH.", rule.Definitive},
	{runtimeExecPermission, regexp.MustCompile(`exec: "[^"]+": permission denied|exec \S+: permission denied`),
		"the container's command exists but is not executable",
		"Make the entrypoint executable in the image (chmod +x when building it) or run it through its interpreter (sh script.sh).", rule.Definitive},
	{runtimeExecFormat, regexp.MustCompile(`(?i)exec format error`),
		"the container's binary is built for another CPU architecture than the node's (or is a script without a #! line)",
		"Use an image built for the node's architecture (a multi-arch image, or docker buildx --platform), or schedule the pod on nodes of the image's architecture.", rule.Strong},
	{runtimeNoCommand, regexp.MustCompile(`no command specified`),
		"neither the pod nor the image says what to run",
		"Set command/args on the container, or use an image with an ENTRYPOINT or CMD.", rule.Definitive},
	{runtimeNameConflict, regexp.MustCompile(`is reserved for|is already in use by`),
		"the runtime still holds a container of the same name (a restart raced with the cleanup of the previous one)",
		"Usually transient: the kubelet retries. If it persists, check the container runtime on the node.", rule.Moderate},
}

var execNameRe = regexp.MustCompile(`exec:? "?(?P<cmd>[^"\s:]+)"?:`)

// mountTargetRe is the mount's target in runc's wording, the current one
// (`error mounting "src" to rootfs at "/etc/x"`) and the older one that
// names the rootfs and escapes its quotes (`mounting \"src\" to rootfs
// \"/var/lib/docker/.../merged\" at \"/var/lib/docker/.../merged/etc/x\"
// caused \"not a directory\"`); mountCauseRe is what the kernel said.
var (
	mountTargetRe = regexp.MustCompile(`to rootfs (?:\\*"[^"\\]*\\*" )?at \\*"(?P<target>[^"\\]+)\\*"`)
	mountCauseRe  = regexp.MustCompile(`(?i)(?P<cause>not a directory|is a directory)`)
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
		f.Category = area.Sub(string(runtimeOther))
		f.Confidence = rule.Plausible
		f.Hypothesis = fmt.Sprintf("The runtime cannot start container %s: %s", st.Name, message)
		f.Title = fmt.Sprintf("container %s cannot start: %s: %s", st.Name, reason, message)
		f.Summary = fmt.Sprintf("The container runtime fails to start container %s of pod %s (%s): %s.", st.Name, p.Name, reason, message)
		f.Culprit = fmt.Sprintf("%s container %s", kube.PodRef(p), st.Name)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the runtime's full message in the pod's events and the container's command and mounts.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}}}
		return f
	}
	if tool, ok := hostTool(message, spec); ok && row.Class == runtimeExecutableNotFound {
		return hostToolFinding(c, f, p, st, area, reason, message, tool)
	}
	f.Category = area.Sub(string(row.Class))
	f.Confidence = row.Conf
	detail := ""
	image := st.Image
	if spec != nil {
		image = spec.Image
	}
	switch row.Class {
	case runtimeExecutableNotFound, runtimeExecPermission:
		if m, ok := submatch.Find(execNameRe, message); ok {
			detail = fmt.Sprintf(" (%q, not in image %s)", m.Get("cmd"), image)
			if row.Class == runtimeExecPermission {
				detail = fmt.Sprintf(" (%q in image %s)", m.Get("cmd"), image)
			}
		}
		// The image decides what it holds: a tag moved under an
		// unchanged command (a chart's command over a newer image) is
		// the likelier change.
		f.Culprit = fmt.Sprintf("%s container %s %s on image %s", kube.PodRef(p), st.Name, command, image)
	case runtimeExecFormat:
		f.Culprit = fmt.Sprintf("%s container %s image %s", kube.PodRef(p), st.Name, image)
		if n := c.B.Node(p.Spec.NodeName); n != nil && n.Status.NodeInfo.Architecture != "" {
			detail = fmt.Sprintf(" (node %s is %s/%s)", n.Name, kube.OrDash(n.Status.NodeInfo.OperatingSystem), n.Status.NodeInfo.Architecture)
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Node %s runs %s/%s", n.Name, kube.OrDash(n.Status.NodeInfo.OperatingSystem), n.Status.NodeInfo.Architecture),
				"node/"+n.Name+" .status.nodeInfo", fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.nodeInfo.architecture}'", n.Name)))
		}
	case runtimeMountTypeMismatch, runtimeMountFailed:
		target := ""
		if m, ok := submatch.Find(mountTargetRe, message); ok {
			target = m.Get("target")
			detail = " (at " + target + ")"
		}
		f.Culprit = fmt.Sprintf("%s container %s volumeMounts", kube.PodRef(p), st.Name)
		cause := ""
		if m, ok := submatch.Find(mountCauseRe, message); ok {
			cause = fmt.Sprintf(": the runtime says %q", m.Get("cause"))
		}
		if spec != nil {
			best := ""
			for _, vm := range spec.VolumeMounts {
				// The longest mountPath the target ends with is the mount.
				if target != "" && strings.HasSuffix(target, vm.MountPath) && len(vm.MountPath) > len(best) {
					best = vm.MountPath
					f.Culprit = fmt.Sprintf("%s container %s volumeMount %s (subPath %q)%s", kube.PodRef(p), st.Name, strings.TrimPrefix(volumeOver(p, spec, vm.MountPath), "volume "), vm.SubPath, cause)
					detail = fmt.Sprintf(" (at %s%s)", vm.MountPath, cause)
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
			Commands: []string{containerSpecCmd(p, st.Name, "command"), fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}},
	}
	return f
}
