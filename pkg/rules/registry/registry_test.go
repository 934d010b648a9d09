package registry

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestNeeds: the plan for each kind holds what the collector fetched for
// it before the rules planned it — the investigator's rules and the
// external agents read the same evidence — and nothing that kind's rules do
// not read.
func TestNeeds(t *testing.T) {
	podish := []rule.Need{rule.Pods, rule.Owners, rule.Events, rule.Logs, rule.Nodes, rule.ConfigMaps, rule.ServiceAccounts, rule.Claims}
	with := func(extra ...rule.Need) []rule.Need { return append(slices.Clone(podish), extra...) }
	for _, tt := range []struct {
		kind    string
		want    []rule.Need
		notWant []rule.Need
	}{
		{"Pod", with(rule.NetworkPolicies, rule.NamespaceServices), []rule.Need{rule.NodePods, rule.Candidates, rule.IngressClasses}},
		{"Deployment", with(rule.Quotas, rule.HPAs), []rule.Need{rule.NodePods, rule.Candidates}},
		{"StatefulSet", with(rule.Quotas, rule.HPAs), nil},
		{"ReplicaSet", with(rule.Quotas, rule.HPAs), nil},
		{"DaemonSet", with(rule.Quotas), nil},
		{"Job", with(rule.Quotas), []rule.Need{rule.NetworkPolicies, rule.NamespaceServices}},
		{"CronJob", with(rule.Quotas), nil},
		{"Service", with(rule.EndpointSlices, rule.Candidates, rule.NetworkPolicies), []rule.Need{rule.NodePods, rule.IngressClasses, rule.NamespaceServices}},
		{"Ingress", []rule.Need{rule.Services, rule.EndpointSlices, rule.IngressClasses, rule.Events}, []rule.Need{rule.NodePods, rule.Candidates}},
		{"PersistentVolumeClaim", []rule.Need{rule.Claims, rule.Events}, []rule.Need{rule.Candidates}},
		{"HorizontalPodAutoscaler", with(rule.HPAs), []rule.Need{rule.NodePods}},
		{"Node", []rule.Need{rule.Nodes, rule.NodePods, rule.Events}, []rule.Need{rule.Candidates, rule.IngressClasses, rule.NetworkPolicies}},
	} {
		got := Needs(tt.kind)
		for _, n := range tt.want {
			if !slices.Contains(got, n) {
				t.Errorf("%s: plan %v lacks %s", tt.kind, got, n)
			}
		}
		for _, n := range tt.notWant {
			if slices.Contains(got, n) {
				t.Errorf("%s: plan %v has %s, which no rule for the kind reads", tt.kind, got, n)
			}
		}
	}
}

// TestRegistry: every rule is listed once, with an area/name ID, a layer,
// a doc and its needs; a rule it requires is in the registry before it is
// read, so Requires never reaches outside the catalogue.
func TestRegistry(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Rules {
		if area, name, ok := strings.Cut(r.ID, "/"); !ok || area == "" || name == "" {
			t.Errorf("rule ID %q is not area/name", r.ID)
		}
		if ids[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		ids[r.ID] = true
		if r.Layer == 0 || r.Doc == "" || len(r.Needs) == 0 || r.Check == nil {
			t.Errorf("rule %s: incomplete declaration %+v", r.ID, r.Meta)
		}
		for _, req := range r.Requires {
			if !slices.Contains(Rules, req) {
				t.Errorf("rule %s requires %s, which is not in the registry", r.ID, req.ID)
			}
		}
	}
}
