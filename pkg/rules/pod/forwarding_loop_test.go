package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestForwardingLoop: a DNS server's loop fatal is traced to the Corefile
// line that forwards to /etc/resolv.conf and to whose resolvers that file
// lists under the pod's dnsPolicy; an explicit upstream is no such line.
func TestForwardingLoop(t *testing.T) {
	// coredns/coredns#2087 (1.2's wording, proxy) and, for forward,
	// the later wording shown in coredns/coredns#2400.
	old := `2018/09/06 13:02:45 [FATAL] plugin/loop: Seen "HINFO IN 2050421060481615995.5620656063561519376." more than twice, loop detected` + "\n"
	later := `[FATAL] plugin/loop: Loop (127.0.0.1:45301 -> :53) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO 7710911356745618106.2843526185325183573."` + "\n"
	for _, tt := range []struct {
		name, log, corefile string
		policy              corev1.DNSPolicy
		names               []string
		not                 string
	}{
		{"proxy under dnsPolicy Default", old, ".:53 {\n    proxy . /etc/resolv.conf\n    loop\n}\n", corev1.DNSDefault,
			[]string{"ConfigMap coredns key Corefile", "proxy . /etc/resolv.conf", "dnsPolicy Default", "--resolv-conf"}, ""},
		{"forward under ClusterFirst", later, ".:53 {\n    forward . /etc/resolv.conf {\n       max_concurrent 1000\n    }\n    loop\n}\n", corev1.DNSClusterFirst,
			[]string{"forward . /etc/resolv.conf", "dnsPolicy ClusterFirst", "cluster DNS Service"}, ""},
		{"an explicit upstream is not the setting", later, ".:53 {\n    forward . 10.0.0.2\n    loop\n}\n", corev1.DNSDefault,
			[]string{"come back to it"}, "dnsPolicy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := bundletest.Pod("coredns", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.DNSPolicy = tt.policy
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config-volume", MountPath: "/etc/coredns", ReadOnly: true}}
				p.Spec.Volumes = []corev1.Volume{{Name: "config-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "coredns"}}}}}
			})
			b := bundletest.PodBundle(p, func(b *bundle.Bundle) {
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "coredns", Container: "app", Previous: true, Text: tt.log}}
				b.ConfigMaps = []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: "shop"}, Data: map[string]string{"Corefile": tt.corefile}}}
			})
			f := ruletest.Root(ruletest.Run(CrashLoop, b, bundletest.Now))
			if f == nil || !strings.HasSuffix(string(f.Category), "/ForwardingLoop") {
				t.Fatalf("finding %+v, want a ForwardingLoop crash", f)
			}
			for _, n := range tt.names {
				if !strings.Contains(f.Title, n) {
					t.Errorf("title does not name %q: %s", n, f.Title)
				}
			}
			if tt.not != "" && strings.Contains(f.Title, tt.not) {
				t.Errorf("title names %q: %s", tt.not, f.Title)
			}
		})
	}
}
