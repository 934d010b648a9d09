package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestNodePlatform: an image with no variant for its node's platform is
// named with the node, its os and arch, and whether the pod pins either
// (a Linux-only Job pod on an AKS Windows node,
// https://github.com/nginx/nginx-gateway-fabric/issues/3661); the fix
// follows the node's OS.
func TestNodePlatform(t *testing.T) {
	node := func(name, os, arch string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: os, corev1.LabelArchStable: arch}}}
	}
	for _, tt := range []struct {
		name     string
		node     *corev1.Node
		selector map[string]string
		want     []string // in Platform + Unpinned + Fix
		unpinned bool
	}{
		{"windows node, unpinned", node("akswin000034", "windows", "amd64"), nil, []string{"kubernetes.io/os=windows", "nodeSelector kubernetes.io/os: linux"}, true},
		{"arm node, unpinned", node("graviton-1", "linux", "arm64"), nil, []string{"kubernetes.io/arch=arm64", "linux/arm64"}, true},
		{"pinned to linux", node("akswin000034", "windows", "amd64"), map[string]string{corev1.LabelOSStable: "linux"}, []string{"kubernetes.io/os=windows"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "cert-generator-gwg9d", Namespace: "ngf"}, Spec: corev1.PodSpec{NodeName: tt.node.Name, NodeSelector: tt.selector}}
			pf, ok := nodePlatform(rule.NewPass(&bundle.Bundle{Nodes: []*corev1.Node{tt.node}}, time.Now(), nil), p)
			if !ok {
				t.Fatal("no platform read")
			}
			all := pf.Platform + " | " + pf.Unpinned + " | " + pf.Fix
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("%q lacks %q", all, w)
				}
			}
			if (pf.Unpinned != "") != tt.unpinned {
				t.Errorf("unpinned %q, want %v", pf.Unpinned, tt.unpinned)
			}
		})
	}
}
