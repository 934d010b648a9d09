package pod

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Sandbox is the rule pod/sandbox.
var Sandbox = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/sandbox",
		Layer: rule.PodLayer,
		Needs: append([]rule.Need{rule.Dependencies, rule.Nodes}, rule.PodEvidence...),
		Doc:   "The kubelet cannot create the pod's sandbox (FailedCreatePodSandBox): usually the CNI plugin fails to set up the pod's network; the plugin's agent on the node, when down, and what its log says are the cause (a node without spec.podCIDR for one that needs it).",
	},
	Check: checkSandbox,
}

var (
	// sandboxErrRe is the runtime's error after its gRPC preamble.
	sandboxErrRe = regexp.MustCompile(`rpc error: code = \w+ desc = (?P<desc>.*)`)
	// sandboxNetRe: the sandbox failed in its network setup.
	sandboxNetRe = regexp.MustCompile(`(?i)network plugin|networkPlugin|cni|NetworkPluginNotReady|network is not ready|failed to setup network|failed to set up sandbox container .* network`)
	refusedRe    = regexp.MustCompile(`(?i)unauthorized|forbidden`)
	// sandboxPrefixRe is the runtime's own preamble before the plugin's
	// error, which names only the sandbox's ID.
	sandboxPrefixRe = regexp.MustCompile(`^(?:failed to setup network for sandbox|\[?failed to set up sandbox container) "[^"]*"(?: network for pod "[^"]*")?: (?:networkPlugin cni failed to set up pod "[^"]*" network: )?`)
)

// checkSandbox: a pod that never got a sandbox, so none of its containers
// started; the node-level NetworkUnavailable case is node/pod-node's.
func checkSandbox(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodPending || anyContainerStarted(p) {
			continue
		}
		if n := c.B.Node(p.Spec.NodeName); n != nil && kube.NodeConditionTrue(n, corev1.NodeNetworkUnavailable) {
			continue
		}
		var last *corev1.Event
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "FailedCreatePodSandBox" && (last == nil || e.LastTimestamp.After(last.LastTimestamp.Time)) {
				last = &e
			}
		}
		if last != nil {
			out = append(out, sandboxFinding(c, p, last))
		}
	}
	return out
}

func anyContainerStarted(p *corev1.Pod) bool {
	for _, cs := range kube.AllStatuses(p) {
		if cs.Status.State.Running != nil || cs.Status.State.Terminated != nil || cs.Status.LastTerminationState.Terminated != nil {
			return true
		}
	}
	return false
}

func sandboxFinding(c *rule.Pass, p *corev1.Pod, e *corev1.Event) rule.Finding {
	evidence := []string{podEventEvidence(c, p, e)}
	for _, o := range c.B.EventsFor(string(p.UID)) {
		if o.Reason == "SandboxChanged" {
			evidence = append(evidence, podEventEvidence(c, p, &o))
			break
		}
	}
	node := kube.OrDash(p.Spec.NodeName)
	msg := kube.FirstLine(e.Message)
	detail := msg
	if m, ok := submatch.Find(sandboxErrRe, msg); ok {
		detail = m.Get("desc")
	}
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name, Evidence: evidence, Confidence: rule.High,
		Mechanism: "Before any container starts, the kubelet asks the container runtime for the pod's sandbox (its pause container and network namespace), and the runtime calls the node's CNI plugin to give it an IP; when that fails the kubelet tears the sandbox down and retries (SandboxChanged), so the containers stay in ContainerCreating and there is no application log."}
	plugin, cniErr := bundle.SandboxCNIPlugin(msg)
	raw := plugin
	if plugin == "" && !sandboxNetRe.MatchString(msg) {
		f.Category = rule.Node.Sub("Sandbox")
		f.Hypothesis = fmt.Sprintf("The container runtime on node %s cannot create the sandbox of pod %s", node, p.Name)
		f.Title = fmt.Sprintf("the container runtime on node %s cannot create the pod's sandbox: %s", node, detail)
		f.Summary = fmt.Sprintf("Pod %s never started a container: the runtime on node %s fails to create its sandbox: %s.", p.Name, node, detail)
		f.Culprit = fmt.Sprintf("node/%s container runtime: %s", node, detail)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the sandbox error and the runtime's state on the node.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p)), fmt.Sprintf("kubectl describe node %s", node)}}}
		return f
	}
	f.Category = rule.Node.Sub("Sandbox", "CNI")
	if plugin == "" {
		plugin, cniErr = "the CNI plugin", sandboxPrefixRe.ReplaceAllString(detail, "")
	} else {
		plugin = fmt.Sprintf("CNI plugin %q", plugin)
	}
	f.Hypothesis = fmt.Sprintf("%s on node %s fails to set up the network of pod %s", plugin, node, p.Name)
	f.Title = fmt.Sprintf("the pod's sandbox cannot be created: %s on node %s fails to set up its network (%s)", plugin, node, cniErr)
	f.Summary = fmt.Sprintf("Pod %s never started a container: every sandbox the kubelet creates on node %s fails because %s returns an error: %s.", p.Name, node, plugin, cniErr)
	f.Culprit = fmt.Sprintf("node/%s %s: %s", node, plugin, cniErr)
	f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Repair the pod network on node %s: look at the CNI agent pod running there (its log says why it fails) and restart it once fixed; the kubelet then creates the sandbox by itself.", node),
		Commands: []string{fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", node), fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))}}}
	if refusedRe.MatchString(cniErr) {
		f.Contributing = append(f.Contributing, "The plugin's own calls to the API server are refused (Unauthorized): the credentials it uses on the node (its kubeconfig or service-account token) are expired or revoked; restarting the CNI agent on the node usually rewrites them.")
	}
	return withAgent(c, f, p, raw, cniErr)
}
