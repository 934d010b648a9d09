package storage

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

func ClaimNamed(c *rule.Pass, ns, name string) *corev1.PersistentVolumeClaim {
	for _, pvc := range c.B.PVCs {
		if pvc.Namespace == ns && pvc.Name == name {
			return pvc
		}
	}
	return nil
}
