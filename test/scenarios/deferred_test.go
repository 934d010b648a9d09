package scenarios

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// TestDeferredListsChangeNoVerdict: the collector reads a pod's or a
// workload's namespace Services and NetworkPolicies only when its pods'
// own evidence calls for them (bundle.NamespaceListsWanted), and a pod
// target's ServiceAccount only when an image cannot be pulled
// (bundle.PullFailing). Across the corpus, every scenario it would skip
// them for gets the same report without them — root cause, verdict,
// confidence — as with them, and every healthy control is one whose lists
// it reads.
func TestDeferredListsChangeNoVerdict(t *testing.T) {
	all, err := All(Root())
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, s := range all {
		switch s.Meta.Target.Kind {
		case "Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		default:
			continue
		}
		b, err := s.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		lists := bundle.NamespaceListsWanted(b)
		account := s.Meta.Target.Kind != "Pod" || bundle.PullFailing(b.Pods)
		if lists && account {
			continue
		}
		skipped++
		if s.Meta.Healthy && !lists {
			t.Errorf("%s: a healthy control whose namespace lists would not be read", s.Name)
			continue
		}
		want, err := s.Replay()
		if err != nil {
			t.Fatal(err)
		}
		if !lists {
			withoutLists(b)
		}
		if !account {
			b.ServiceAccounts = nil
			b.Missing = slices.DeleteFunc(b.Missing, func(m bundle.MissingRef) bool { return m.Kind == "ServiceAccount" })
		}
		got := investigate.Investigate(b, investigate.Options{IncidentID: s.Name, Agent: "builtin", Severity: s.Meta.Severity, Now: s.Meta.CapturedAt})
		got.Duration = 0
		if got.Healthy != want.Healthy || got.Confidence != want.Confidence || got.Title != want.Title {
			t.Errorf("%s: without the namespace lists %q (%.2f, healthy %v), with them %q (%.2f, healthy %v)",
				s.Name, got.Title, got.Confidence, got.Healthy, want.Title, want.Confidence, want.Healthy)
		}
		w, g := report.Sections(Render(want))["root cause"], report.Sections(Render(got))["root cause"]
		if w != g {
			t.Errorf("%s: the Root cause differs without the namespace lists:\n%s", s.Name, golden.Diff("root cause", w+"\n", g+"\n"))
		}
	}
	if skipped == 0 {
		t.Fatal("no scenario of the corpus is one whose evidence the collector skips: the test checks nothing")
	}
	t.Logf("%d scenarios whose namespace lists or pod's ServiceAccount would not be read, each with the same report", skipped)
}

// withoutLists removes from b what the namespace's Services and
// NetworkPolicies brought: the lists and what was read because of them
// (the EndpointSlices and pods of a Service a log names).
func withoutLists(b *bundle.Bundle) {
	b.Services, b.Cluster.ServicesListed = nil, ""
	b.NetworkPolicies, b.Cluster.NetworkPoliciesListed = nil, ""
	// The controllers an object waits on (bundle Actors) are found
	// without the namespace lists and stay.
	var actors []*corev1.Pod
	for i := range b.Cluster.Actors {
		actors = append(actors, b.ActorPods(&b.Cluster.Actors[i])...)
	}
	b.EndpointSlices, b.DependencyPods = nil, actors
	kept := append(append([]*corev1.Pod(nil), b.Pods...), actors...)
	b.Logs = slices.DeleteFunc(b.Logs, func(l bundle.ContainerLog) bool {
		return !slices.ContainsFunc(kept, func(p *corev1.Pod) bool { return p.Name == l.Pod && p.Namespace == l.Namespace })
	})
}
