package bundle

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// TestClaimHolders: a pod target whose log says its data lock is held reads
// its siblings by its labels in one request and keeps those mounting its
// claim; a log with no held lock reads nothing.
func TestClaimHolders(t *testing.T) {
	claim := func(name string) []corev1.Volume {
		return []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}
	}
	pod := func(name, claimName string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "db", Labels: map[string]string{"name": "mysql-slave"}},
			Spec: corev1.PodSpec{Volumes: claim(claimName)}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	target, holder, other := pod("mysql-q4m9z", "data"), pod("mysql-b7xkq", "data"), pod("mysql-zz", "other")
	for _, tt := range []struct {
		name, log string
		requests  int
		holders   []string
	}{
		// https://github.com/sclorg/mysql-container/issues/182
		{"lock held", "2017-05-04T11:49:24.525227Z 0 [ERROR] InnoDB: Unable to lock ./ibdata1 error: 11\n", 1, []string{"mysql-b7xkq"}},
		{"no lock", "2017-05-04T11:49:24.525227Z 0 [ERROR] Aborting\n", 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &collector{cs: fake.NewClientset(target, holder, other), opts: DefaultOptions(), seen: map[types.UID]bool{},
				b: &Bundle{Target: fault.Resource{Kind: "Pod", Name: target.Name, Namespace: "db"}, Pods: []*corev1.Pod{target},
					Logs: []ContainerLog{{Namespace: "db", Pod: target.Name, Container: "mysql", Text: tt.log}}}}
			c.claimHolders(context.Background())
			if c.b.Requests != tt.requests {
				t.Errorf("requests %d, want %d", c.b.Requests, tt.requests)
			}
			var got []string
			for _, p := range c.b.Candidates {
				got = append(got, p.Name)
				if len(p.Spec.Volumes) == 0 {
					t.Errorf("candidate %s without its claim volume", p.Name)
				}
			}
			if len(got) != len(tt.holders) || len(got) > 0 && got[0] != tt.holders[0] {
				t.Errorf("candidates %v, want %v", got, tt.holders)
			}
		})
	}
}
