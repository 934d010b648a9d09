package bundle

import (
	"context"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// A pod whose sandbox the node's CNI plugin fails to set up depends on the
// plugin's agent, a DaemonSet pod on that node (flanneld writing
// /run/flannel/subnet.env, calico-node, cilium-agent): when the agent is
// down its log says why, which the kubelet's event only shows as a missing
// file or a refused socket (docs/DESIGN.md, "Correlations").

// cniPluginRe names the CNI plugin in containerd's ("plugin
// type=\"calico\" failed (add)") and dockershim's ("networkPlugin cni
// failed to set up pod") wording.
var cniPluginRe = regexp.MustCompile(`plugin type="(?P<plugin>[^"]+)"(?: name="[^"]+")? failed \((?:add|delete)\): (?P<err>.*)|networkPlugin (?P<plugin>\S+) failed to set up pod "[^"]*" network: (?P<err>[^,\]]*)`)

// SandboxCNIPlugin is the CNI plugin a FailedCreatePodSandBox message
// names ("cni" in dockershim's generic wording) and the error it
// returned; "" when it names none.
func SandboxCNIPlugin(msg string) (plugin, err string) {
	m, ok := submatch.Find(cniPluginRe, msg)
	if !ok {
		return "", ""
	}
	return m.Get("plugin"), strings.TrimSpace(m.Get("err"))
}

// agentNames are the names a CNI plugin's agent goes by where it is not
// the plugin's own (the binary is aws-cni, the DaemonSet aws-node).
var agentNames = map[string][]string{
	"aws-cni":    {"aws-node", "amazon-k8s-cni"},
	"cilium-cni": {"cilium"},
	"weave-net":  {"weave"},
	"azure-vnet": {"azure-cns", "azure-cni"},
	"loopback":   nil,
	"portmap":    nil,
	"bandwidth":  nil,
}

// IsCNIAgent reports whether a pod is the agent of CNI plugin plugin: a
// DaemonSet's pod one of whose containers is named, or runs an image
// named, after the plugin.
func IsCNIAgent(p *corev1.Pod, plugin string) bool {
	plugin = strings.ToLower(plugin)
	if plugin == "" || plugin == "cni" {
		return false
	}
	names, known := agentNames[plugin]
	if !known {
		names = []string{strings.TrimSuffix(plugin, "-cni")}
	}
	if len(names) == 0 {
		return false
	}
	owned := false
	for _, r := range p.OwnerReferences {
		owned = owned || r.Kind == "DaemonSet"
	}
	if !owned {
		return false
	}
	for _, ctr := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, n := range names {
			if strings.Contains(strings.ToLower(ctr.Name), n) || strings.Contains(strings.ToLower(ctr.Image), n) {
				return true
			}
		}
	}
	return false
}

// cniAgents follows the pods whose sandbox a named CNI plugin fails on to
// the plugin's agent on their node: one bounded list of the node's pods
// (every namespace), those that are the agent kept among DependencyPods,
// and the log of one that is not ready read (one request). Nothing is read
// unless a sandbox event names a plugin.
func (c *collector) cniAgents(ctx context.Context) {
	wanted := map[string]string{} // node → plugin
	var order []string
	for _, p := range c.b.Pods {
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending || wanted[p.Spec.NodeName] != "" {
			continue
		}
		for _, e := range c.b.EventsFor(string(p.UID)) {
			if e.Reason != "FailedCreatePodSandBox" {
				continue
			}
			if plugin, _ := SandboxCNIPlugin(e.Message); plugin != "" {
				wanted[p.Spec.NodeName] = plugin
				order = append(order, p.Spec.NodeName)
				break
			}
		}
	}
	if len(order) > 1 {
		order = order[:1] // one node's agent says it for all
	}
	for _, node := range order {
		c.count()
		sel := fields.OneTermEqualSelector("spec.nodeName", node).String()
		list, err := c.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: maxNodePods})
		if err != nil {
			c.problem("pods on node "+node+" (its CNI agent)", err)
			continue
		}
		var down *corev1.Pod
		for i := range list.Items {
			p := &list.Items[i]
			if !IsCNIAgent(p, wanted[node]) {
				continue
			}
			p.ManagedFields = nil
			rp := redacted(p, gvkPod)
			c.mu.Lock()
			c.b.DependencyPods = append(c.b.DependencyPods, rp)
			c.mu.Unlock()
			if down == nil && !podHealthy(rp) {
				down = rp
			}
		}
		if down != nil && c.opts.wants(NeedLogs) {
			if r, ok := dependencyLog(down); ok {
				c.log(ctx, down.Namespace, down.Name, r)
			}
		}
	}
}
