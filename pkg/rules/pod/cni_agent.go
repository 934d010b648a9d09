package pod

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// podCIDRRe is a CNI agent's complaint that its node has no pod range:
// flannel's "failed to acquire lease: node "x" pod cidr not assigned",
// kube-router's "failed to get pod CIDR".
var podCIDRRe = regexp.MustCompile(`(?i)pod ?cidr`)

// cniAgent is the CNI plugin's agent on a node, read from the pods the
// collector followed a failing sandbox to (bundle DependencyPods).
type cniAgent struct {
	Pod      *corev1.Pod
	State    string // "CrashLoopBackOff (last exit code 1)"
	LogLine  string
	Evidence []string
}

// cniAgentOn is the agent of plugin on node that is down (a container
// waiting to start or restart), or nil when the collector did not follow
// it or every agent there runs.
func cniAgentOn(c *rule.Pass, node, plugin string) *cniAgent {
	for _, p := range c.B.DependencyPods {
		if p.Spec.NodeName != node || !bundle.IsCNIAgent(p, plugin) || kube.IsPodReady(p) {
			continue
		}
		state, down := kube.PodState(p)
		if !down {
			continue // running: its readiness is its own matter, the plugin's error stands
		}
		a := &cniAgent{Pod: p, State: state}
		ref := agentRef(p)
		a.Evidence = append(a.Evidence, c.Evidence(fmt.Sprintf("Pod %s, the agent of CNI plugin %q on node %s, is %s", ref, plugin, node, a.State),
			ref+" .status", fmt.Sprintf("kubectl get pod %s -n %s -o wide", p.Name, p.Namespace)))
		for _, st := range p.Status.ContainerStatuses {
			if dec, prev := logs.LastDecisive(c, p, st.Name); dec != nil {
				a.LogLine = dec.Line
				a.Evidence = append(a.Evidence, c.Evidence(fmt.Sprintf("Log line: %q", dec.Line),
					fmt.Sprintf("logs of %s container %s (%s instance)", ref, st.Name, kube.Instance(prev)), kube.LogsCmd(p, st.Name, prev)))
				break
			}
		}
		return a
	}
	return nil
}

// agentRef names an agent pod with its namespace, which is seldom the
// failing pod's.
func agentRef(p *corev1.Pod) string { return "pod " + p.Namespace + "/" + p.Name }

// withAgent refines a CNI sandbox finding with the plugin's agent on the
// node: the cause a fix must address is the agent's own failure, and a
// node with no pod range, when the agent says that is what it lacks.
func withAgent(c *rule.Pass, f rule.Finding, p *corev1.Pod, plugin, cniErr string) rule.Finding {
	node := p.Spec.NodeName
	a := cniAgentOn(c, node, plugin)
	if a == nil {
		return f
	}
	ref := agentRef(a.Pod)
	f.Evidence = append(f.Evidence, a.Evidence...)
	f.Category = rule.Node.Sub("Sandbox", "CNI", "Agent")
	f.Strength = rule.Traced
	said := ""
	if a.LogLine != "" {
		said = fmt.Sprintf(": its log says %q", a.LogLine)
	}
	f.Title = fmt.Sprintf("the pod's sandbox cannot be created: CNI plugin %q on node %s fails (%s) because its agent there, %s, is %s%s", plugin, node, cniErr, ref, a.State, said)
	f.Hypothesis = fmt.Sprintf("CNI agent %s on node %s is down, so CNI plugin %q cannot set up pod networks there", ref, node, plugin)
	f.Culprit = fmt.Sprintf("%s, the CNI agent on node %s, %s%s", ref, node, a.State, said)
	f.Summary += fmt.Sprintf(" The plugin's agent on the node, %s, is %s%s.", ref, a.State, said)
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Fix what CNI agent %s reports (its log), then let the DaemonSet restart it; the kubelet creates pod %s's sandbox by itself once the agent runs.", ref, p.Name),
		Commands:    []string{fmt.Sprintf("kubectl logs %s -n %s --previous --tail=50", a.Pod.Name, a.Pod.Namespace), fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", node)}}
	if n := c.B.Node(node); n != nil && n.Spec.PodCIDR == "" && podCIDRRe.MatchString(a.LogLine) {
		f.Culprit += fmt.Sprintf("; node %s has no spec.podCIDR", node)
		f.Contributing = append(f.Contributing, fmt.Sprintf("Node %s has no spec.podCIDR: kube-controller-manager gives each node a pod range only with --allocate-node-cidrs=true and --cluster-cidr (kubeadm init --pod-network-cidr), and a CNI that reads it from the node (flannel's --kube-subnet-mgr) cannot start without one.", node))
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Node %s has no spec.podCIDR", node), "node/"+node+" .spec.podCIDR",
			fmt.Sprintf(`kubectl get node %s -o jsonpath='{.spec.podCIDR}'`, node)))
		fix = report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Give the nodes pod ranges: run kube-controller-manager with --allocate-node-cidrs=true and --cluster-cidr matching the CNI's network (flannel's net-conf.json Network, 10.244.0.0/16 by default; kubeadm: --pod-network-cidr at init, or the controllerManager extraArgs), or set spec.podCIDR on node %s (it can be set once); then the agent %s starts.", node, ref),
			Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,PODCIDR:.spec.podCIDR",
				"kubectl -n kube-system get pods -l component=kube-controller-manager -o jsonpath='{.items[*].spec.containers[*].command}'"}}
	}
	f.Actions = append([]report.Action{fix}, f.Actions...)
	return f
}
