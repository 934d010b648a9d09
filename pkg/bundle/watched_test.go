package bundle

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestLabelWatchOf: the k8s-sidecar's environment is read as the selector
// and folder it copies ConfigMaps by; a Secrets-only watch, another
// namespace's, or a container without LABEL and FOLDER is none.
func TestLabelWatchOf(t *testing.T) {
	env := func(kv ...string) corev1.Container {
		var c corev1.Container
		for i := 0; i+1 < len(kv); i += 2 {
			c.Env = append(c.Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		c.Name = "sc"
		return c
	}
	for _, tt := range []struct {
		name     string
		ctr      corev1.Container
		ok       bool
		selector string
		ns       string
	}{
		{"label and value", env("LABEL", "grafana_datasource", "LABEL_VALUE", "1", "FOLDER", "/etc/grafana/provisioning/datasources", "RESOURCE", "both"), true, "grafana_datasource=1", "monitoring"},
		{"label only: any value", env("LABEL", "grafana_dashboard", "FOLDER", "/tmp/dashboards"), true, "grafana_dashboard", "monitoring"},
		{"all namespaces: the pod's own is read", env("LABEL", "grafana_dashboard", "FOLDER", "/tmp/dashboards", "NAMESPACE", "ALL"), true, "grafana_dashboard", "monitoring"},
		{"another namespace: not read", env("LABEL", "grafana_dashboard", "FOLDER", "/tmp/dashboards", "NAMESPACE", "team-a"), true, "grafana_dashboard", ""},
		{"Secrets only", env("LABEL", "grafana_datasource", "FOLDER", "/etc/grafana/provisioning/datasources", "RESOURCE", "secret"), false, "", ""},
		{"no folder", env("LABEL", "app"), false, "", ""},
		{"invalid label key", env("LABEL", "not a label", "FOLDER", "/x"), false, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := LabelWatchOf(&tt.ctr, "monitoring")
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if w.Selector.String() != tt.selector || w.Namespace != tt.ns || w.Container != "sc" {
				t.Errorf("got selector %q namespace %q container %q", w.Selector, w.Namespace, w.Container)
			}
		})
	}
}
