package pod

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// runtimeHostToolMissing: an "executable file not found" that is not the
// container's process but a program the node's runtime runs itself while
// it creates the container: containerd's AppArmor check ("get
// apparmor_parser version: exec: \"apparmor_parser\": …"), the shim it
// starts ("failed to start shim: exec: \"containerd-shim\": …"), an OCI
// hook ("exec: \"nvidia-container-runtime-hook\": …"). The image is fine;
// the node lacks the tool.
const runtimeHostToolMissing runtimeClass = "HostToolMissing"

// processStartRe is runc's (and crun's) step that execs the container's
// own process: an exec error after it is about the image's command
// ("runc create failed: unable to start container process: exec: \"x\"",
// older "starting container process caused \"exec: …\"").
var processStartRe = regexp.MustCompile(`unable to start container process|starting container process caused|exec failed:`)

// runtimeStepRe is a step of the runtime's own before the process:
// containerd's CRI create ("failed to create containerd container"), a
// version probe of a host tool ("get apparmor_parser version"), the shim,
// an OCI hook, the OCI runtime's create right before the exec (Docker's
// "OCI runtime create failed: exec: …", no process step between).
var runtimeStepRe = regexp.MustCompile(`failed to create containerd container|get \S+ version|failed to start shim|(?:prestart|createRuntime|poststart) hook|error running hook|OCI runtime create failed:\s*$`)

// hostTool returns the program the runtime could not find when the message
// says it ran it itself, not as the container's process: the name is not
// the container's command (or args[0] when it sets no command) and the
// exec comes in a runtime step, not after runc starts the process.
func hostTool(message string, spec *corev1.Container) (string, bool) {
	loc := execNameRe.FindStringSubmatchIndex(message)
	if loc == nil {
		return "", false
	}
	m, _ := submatch.Find(execNameRe, message)
	tool, before := m.Get("cmd"), message[:loc[0]]
	if spec != nil {
		argv0 := ""
		switch {
		case len(spec.Command) > 0:
			argv0 = spec.Command[0]
		case len(spec.Args) > 0:
			argv0 = spec.Args[0]
		}
		if argv0 != "" && path.Base(argv0) == path.Base(tool) {
			return "", false
		}
	}
	if processStartRe.MatchString(before) || !runtimeStepRe.MatchString(before) {
		return "", false
	}
	return tool, true
}

// hostToolFinding names the node and the tool: the fix is on the node
// (install the tool, or give the runtime a PATH that has it), never in the
// pod spec.
func hostToolFinding(c *rule.Pass, f rule.Finding, p *corev1.Pod, st corev1.ContainerStatus, area rule.Category, reason, message, tool string) rule.Finding {
	node := kube.OrDash(p.Spec.NodeName)
	f.Category = area.Sub(string(runtimeHostToolMissing))
	f.Confidence = rule.Strong
	f.Hypothesis = fmt.Sprintf("The container runtime on node %s cannot create container %s: it runs %s itself and cannot find it", node, st.Name, tool)
	f.Title = fmt.Sprintf("container %s cannot be created: the container runtime on node %s lacks %s, a program it runs itself (not the container's command)", st.Name, node, tool)
	f.Summary = fmt.Sprintf("The container runtime on node %s fails to create container %s of pod %s (%s): it runs %s itself while creating the container and cannot find it in its $PATH. The image and the pod spec are not at fault. The runtime says: %q.", node, st.Name, p.Name, reason, tool, message)
	f.Mechanism = "Before it execs the container's process the runtime runs programs of the node's own: containerd checks AppArmor with apparmor_parser when the kernel has AppArmor enabled, starts its shim, runs OCI hooks (a GPU runtime's). When one is missing from the runtime's $PATH every container it creates on that node fails, so the kubelet retries with back-off and nothing in the pod can fix it."
	f.Culprit = fmt.Sprintf("node %s: its container runtime cannot find %s (executable file not found in $PATH)", node, tool)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: fmt.Sprintf("Install %s on node %s (for apparmor_parser, the distribution's apparmor package; for a shim or a hook, the runtime's or the device plugin's package), or give the runtime's service a PATH that has it, then let the kubelet retry; meanwhile keep pods off the node.", tool, node),
			Commands: []string{fmt.Sprintf("kubectl cordon %s", node), fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.nodeInfo}'", node)},
			Risk:     "cordoning stops new pods from being scheduled on the node"},
		{Kind: report.Check, Description: "Confirm that the runtime's own step fails, not the container's command.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}},
	}
	if n := c.B.Node(p.Spec.NodeName); n != nil {
		info := n.Status.NodeInfo
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Node %s runs %s on %s (kernel %s)", n.Name, kube.OrDash(info.ContainerRuntimeVersion), kube.OrDash(info.OSImage), kube.OrDash(info.KernelVersion)),
			"node/"+n.Name+" .status.nodeInfo", fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.nodeInfo}'", n.Name)))
	}
	if strings.Contains(tool, "apparmor") {
		f.Contributing = append(f.Contributing, "containerd runs apparmor_parser whenever the node's kernel reports AppArmor enabled; a host OS that ships the kernel module without the parser (a minimal or immutable image) fails every container.")
	}
	return f
}
