package investigate

import (
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
)

// BenchmarkInvestigate is the investigator alone on one bundle: a crashing
// pod, and a rollout whose new revision crashes (where the workload rules
// read the pod rules' findings).
func BenchmarkInvestigate(b *testing.B) {
	rollout := bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0", bundletest.WithoutEnv("DATABASE_URL")), bundletest.Crashing(1, "Error"))
	rollout.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-new-aaaaa", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}
	for _, bc := range []struct {
		name string
		b    *bundle.Bundle
	}{
		{"pod", bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")),
			bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"),
			bundletest.WithEvents(bundletest.Event(bundletest.Pod("api"), "Warning", "BackOff", "Back-off restarting failed container app", 42)))},
		{"rollout", rollout},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				Investigate(bc.b, Options{Agent: "builtin", Now: bundletest.Now})
			}
		})
	}
}
