package kube

import "testing"

func TestTemplateRiskPerOwner(t *testing.T) {
	const rollout = "starts a rollout"
	for _, tt := range []struct {
		kind, risk, pending string
	}{
		{"deployment", rollout, rollout},
		{"statefulset", rollout, rollout},
		{"daemonset", rollout, rollout},
		{"replicaset", ReplicaSetTemplateRisk, ReplicaSetPendingRisk},
		{"job", JobTemplateRisk, JobTemplateRisk},
		{"cronjob", CronJobTemplateRisk, CronJobPendingRisk},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			if got := TemplateRisk(tt.kind, rollout); got != tt.risk {
				t.Errorf("templateRisk = %q, want %q", got, tt.risk)
			}
			if got := PendingTemplateRisk(tt.kind, rollout); got != tt.pending {
				t.Errorf("pendingTemplateRisk = %q, want %q", got, tt.pending)
			}
		})
	}
}
