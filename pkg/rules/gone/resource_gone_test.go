package gone

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestResourceGone: a gone target is named as such and, when the fault
// event carried a log excerpt, refined by its decisive line; a target that
// exists gives nothing.
func TestResourceGone(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	gone := func(logs ...bundle.ContainerLog) *bundle.Bundle {
		obj := &unstructured.Unstructured{}
		obj.SetAnnotations(map[string]string{bundle.GoneAnnotation: "true"})
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api-7d9f", Namespace: "shop"}, Object: obj, Logs: logs}
	}
	for _, tt := range []struct {
		name     string
		b        *bundle.Bundle
		category rule.Category
		title    string
	}{
		{"no excerpt", gone(), rule.Gone, "no longer exists"},
		{"excerpt names the cause", gone(bundle.ContainerLog{Container: "app", FromEvent: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}),
			rule.Gone.Sub("MissingEnv"), "DATABASE_URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(ResourceGone, tt.b, now))
			if f == nil {
				t.Fatal("no validated finding")
			}
			if f.Category != tt.category || !strings.Contains(f.Title, tt.title) {
				t.Errorf("finding %q %q, want %q naming %q", f.Category, f.Title, tt.category, tt.title)
			}
		})
	}
	present := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}, Object: &unstructured.Unstructured{}}
	if fs := ruletest.Run(ResourceGone, present, now); len(fs) != 0 {
		t.Errorf("findings on a target that exists: %+v", fs)
	}
}
