package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// platform is the node an image has no variant for, what it runs, and
// whether the pod says where it may run: an image built for one OS or
// architecture lands on another node only when nothing pins the pod.
type platform struct {
	Node     string
	Platform string // "kubernetes.io/os=windows, kubernetes.io/arch=amd64"
	// Unpinned says, for the culprit, that the pod sets no
	// kubernetes.io/os or kubernetes.io/arch selector or affinity.
	Unpinned string
	Fix      string
	os, arch string
}

// nodePlatform reads the pod's node (its well-known os and arch labels,
// else its nodeInfo) and the pod's nodeSelector and required affinity on
// them.
func nodePlatform(c *rule.Pass, p *corev1.Pod) (platform, bool) {
	n := c.B.Node(p.Spec.NodeName)
	if n == nil {
		return platform{}, false
	}
	pf := platform{Node: n.Name, os: n.Labels[corev1.LabelOSStable], arch: n.Labels[corev1.LabelArchStable]}
	if pf.os == "" {
		pf.os = n.Status.NodeInfo.OperatingSystem
	}
	if pf.arch == "" {
		pf.arch = n.Status.NodeInfo.Architecture
	}
	if pf.os == "" && pf.arch == "" {
		return platform{}, false
	}
	pf.Platform = fmt.Sprintf("%s=%s, %s=%s", corev1.LabelOSStable, kube.OrDash(pf.os), corev1.LabelArchStable, kube.OrDash(pf.arch))
	if !pinsPlatform(p) {
		pf.Unpinned = fmt.Sprintf("; the pod sets no %s or %s nodeSelector, so it may land on any node", corev1.LabelOSStable, corev1.LabelArchStable)
		switch pf.os {
		case "windows":
			pf.Fix = fmt.Sprintf("Pin the pod to Linux nodes: nodeSelector %s: linux in its template (a chart's nodeSelector value), or use an image with a Windows variant.", corev1.LabelOSStable)
		case "linux":
			pf.Fix = fmt.Sprintf("Pin the pod to nodes of an architecture the image is built for (nodeSelector %s: <arch> in its template), or use a multi-arch image with a variant for linux/%s (docker buildx --platform).", corev1.LabelArchStable, kube.OrDash(pf.arch))
		}
	}
	return pf, true
}

// Evidence cites the node's platform labels.
func (pf platform) Evidence(c *rule.Pass) string {
	return c.Evidence(fmt.Sprintf("Node %s runs %s", pf.Node, pf.Platform), "node/"+pf.Node+" .metadata.labels",
		fmt.Sprintf("kubectl get node %s -L %s -L %s", pf.Node, corev1.LabelOSStable, corev1.LabelArchStable))
}

// pinsPlatform: the pod's nodeSelector or required node affinity names
// the OS or the architecture.
func pinsPlatform(p *corev1.Pod) bool {
	for k := range p.Spec.NodeSelector {
		if k == corev1.LabelOSStable || k == corev1.LabelArchStable || strings.HasPrefix(k, "beta.kubernetes.io/") {
			return true
		}
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				if e.Key == corev1.LabelOSStable || e.Key == corev1.LabelArchStable {
					return true
				}
			}
		}
	}
	return false
}
