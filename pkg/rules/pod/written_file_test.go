package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestWrittenFile: a file no ConfigMap or Secret of the pod spec projects,
// on an emptyDir another container writes, is traced to the writer and to
// what it copies. The lines:
//   - Grafana 10's provisioning: "datasource.yaml config is invalid. Only
//     one datasource per organization can be marked as default"
//     (awslabs/crossplane-on-eks#165), the file written by the
//     kiwigrid/k8s-sidecar from the ConfigMaps labelled grafana_datasource;
//   - Prometheus started before the operator's config reloader rendered its
//     configuration: `open /etc/prometheus/config_out/prometheus.env.yaml:
//     no such file or directory` (prometheus-operator/prometheus-operator#3211).
func TestWrittenFile(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	grafana := `logger=provisioning t=2024-02-01T14:26:19.066649715Z level=error msg="Failed to provision data sources" error="Datasource provisioning error: datasource.yaml config is invalid. Only one datasource per organization can be marked as default"` + "\n" +
		"Error: ✗ Datasource provisioning error: datasource.yaml config is invalid. Only one datasource per organization can be marked as default\n"
	prom := `ts=2020-05-04T09:11:38.414Z caller=main.go:759 level=error msg="Error loading config (--config.file=/etc/prometheus/config_out/prometheus.env.yaml)" err="open /etc/prometheus/config_out/prometheus.env.yaml: no such file or directory"` + "\n"
	dsYAML := "apiVersion: 1\ndatasources:\n- name: Prometheus\n  type: prometheus\n  isDefault: true\n- name: extra\n  type: prometheus\n  isDefault: true\n"
	shared := []corev1.Volume{{Name: "shared", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	sidecar := corev1.Container{Name: "grafana-sc-datasources", Image: "quay.io/kiwigrid/k8s-sidecar:1.25.2",
		Env:          []corev1.EnvVar{{Name: "LABEL", Value: "grafana_datasource"}, {Name: "LABEL_VALUE", Value: "1"}, {Name: "FOLDER", Value: "/etc/grafana/provisioning/datasources"}, {Name: "RESOURCE", Value: "both"}},
		VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/etc/grafana/provisioning/datasources"}}}
	grafanaCtr := corev1.Container{Name: "grafana", Image: "grafana/grafana:10.2.3", VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/etc/grafana/provisioning/datasources"}}}
	labelled := func(name, label string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{label: "1"}}, Data: map[string]string{"datasource.yaml": dsYAML}}
	}
	promCtr := corev1.Container{Name: "prometheus", Image: "quay.io/prometheus/prometheus:v2.17.2", VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/etc/prometheus/config_out"}}}
	reloader := corev1.Container{Name: "config-reloader", Image: "quay.io/prometheus-operator/prometheus-config-reloader:v0.39.0",
		Args:         []string{"--reload-url=http://127.0.0.1:9090/-/reload", "--config-file=/etc/prometheus/config/prometheus.yaml.gz", "--config-envsubst-file=/etc/prometheus/config_out/prometheus.env.yaml"},
		VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/etc/prometheus/config_out"}}}
	for _, tt := range []struct {
		name      string
		ctrs      []corev1.Container
		log       string
		cms       []*corev1.ConfigMap
		writerLog string
		category  string // "" when the rule must stay silent
		culprit   []string
		conf      rule.Confidence
	}{
		{"a sidecar copies a labelled ConfigMap", []corev1.Container{grafanaCtr, sidecar}, grafana, []*corev1.ConfigMap{labelled("grafana-ds", "grafana_datasource")}, "",
			"CrashLoop/Exit1/InvalidConfig/ConfigMap", []string{"configmap grafana-ds key datasource.yaml", "labelled grafana_datasource=1", `"isDefault: true" (lines 5, 8)`}, rule.Strong},
		{"the labelled ConfigMaps lack the key; the sidecar's log names the file", []corev1.Container{grafanaCtr, sidecar}, grafana, []*corev1.ConfigMap{labelled("dashboards", "grafana_dashboard")},
			`{"level": "INFO", "msg": "Writing /etc/grafana/provisioning/datasources/datasource.yaml (ascii)"}`,
			"CrashLoop/Exit1/InvalidConfig/SharedVolume", []string{"datasource.yaml on emptyDir volume shared", "written by container grafana-sc-datasources"}, rule.Likely},
		{"a container whose arguments name the file", []corev1.Container{promCtr, reloader}, prom, nil, "",
			"CrashLoop/Exit1/MissingFile/SharedVolume", []string{"/etc/prometheus/config_out/prometheus.env.yaml on emptyDir volume shared", "container config-reloader"}, rule.Likely},
		// Mounting the volume is not writing the file.
		{"a sibling that shows no sign of writing it", []corev1.Container{grafanaCtr, {Name: "exporter", Image: "shop/exporter:1", VolumeMounts: sidecar.VolumeMounts}}, grafana, nil, "",
			"", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(tt.ctrs...)
			p.Spec.Volumes = shared
			b := envBundle(p, tt.log)
			b.ConfigMaps = tt.cms
			if tt.writerLog != "" {
				b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: p.Name, Container: tt.ctrs[1].Name, Text: tt.writerLog + "\n"})
			}
			fs := ruletest.Run(MountedFile, b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d (crash: %+v)", len(fs), ruletest.Run(CrashLoop, b, now))
			}
			f := fs[0]
			if string(f.Category) != tt.category || f.Strength != rule.Traced || f.Confidence != tt.conf {
				t.Errorf("category %q strength %v confidence %v", f.Category, f.Strength, f.Confidence)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
		})
	}
}

// TestSalientLines: the setting lines of a file quoted for an error are
// those whose key shares a word with it.
func TestSalientLines(t *testing.T) {
	for _, tt := range []struct {
		name, content, line, file string
		want                      []string
	}{
		{"YAML, repeated line grouped", "datasources:\n- name: a\n  isDefault: true\n- name: b\n  isDefault: true\n",
			"datasource.yaml config is invalid. Only one datasource per organization can be marked as default", "datasource.yaml",
			[]string{`"isDefault: true" (lines 3, 5)`}},
		{"INI", "[server]\nhttp_port = 3000\nroot_url = %(protocol)s://%(domain)s/grafana\n",
			`Error: ✗ invalid root_url setting, it must end with a slash`, "grafana.ini",
			[]string{`"root_url = %(protocol)s://%(domain)s/grafana" (line 3)`}},
		{"JSON keys", "{\n  \"listenPort\": 80,\n  \"logLevel\": \"debug\"\n}\n", "cannot bind listen port 80: permission denied", "config.json",
			[]string{`"\"listenPort\": 80," (line 2)`}},
		// Loki 3's yaml.v2 error: the field under the type's own heading,
		// not every "enabled" of the file (grafana/loki#16141).
		{"the heading's words decide", "auth_enabled: false\nquery_range:\n  results_cache:\n    cache:\n      embedded_cache:\n        enabled: true\npattern_ingester:\n  enabled: true\n  metric_aggregation:\n    enabled: true\n    loki_address: localhost:3100\n",
			"failed parsing config: /etc/loki/config.yml: yaml: unmarshal errors:\n  line 44: field enabled not found in type aggregation.Config", "/etc/loki/config.yml",
			[]string{`"enabled: true" (line 10, under metric_aggregation)`}},
		{"no shared word", "a: 1\nb: 2\n", "datasource.yaml config is invalid", "datasource.yaml", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := salientLines(tt.content, tt.line, tt.file)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
