package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceLink: a value the kubelet injects for a Service of the
// namespace, rejected by the application. The log lines:
//   - vouch-proxy's envconfig naming the variable
//     (https://github.com/vouch/vouch-proxy/issues/482: VOUCH_PORT=tcp://172.20.247.10:9090);
//   - temboard lower-casing it, so only the injected value is in the line
//     (https://github.com/dalibo/temboard/issues/664);
//   - Spring Boot binding rabbitmq.port from RABBITMQ_PORT for a Service
//     named rabbitmq (https://github.com/kubernetes/kubernetes/issues/59552).
//
// Negatives: the variable set explicitly in the spec (the vouch fix),
// enableServiceLinks false, and a port complaint of an app whose prefix is
// no Service's.
func TestServiceLink(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	vouch := `{"level":"fatal","ts":1656954095.2000952,"msg":"envconfig.Process: assigning VOUCH_PORT to Port: converting 'tcp://172.20.247.10:9090' to type int. details: strconv.ParseInt: parsing \"tcp://172.20.247.10:9090\": invalid syntax"}` + "\n"
	temboard := "+ exec temboard\nERROR: Invalid temboard_port from environ: invalid literal for int() with base 10: 'tcp://10.107.29.224:8888'...\nCRITI: Failed to load configuration.\n"
	spring := "***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\nBinding to target [Bindable@4de4b452 type = java.lang.Integer, value = 'provided', annotations = array<Annotation>[[empty]]] failed:\n\n    Property: rabbitmq.port\n    Value: tcp://192.168.17.112:5672\n    Origin: System Environment Property \"RABBITMQ_PORT\"\n    Reason: Failed to convert from type [java.lang.String] to type [java.lang.Integer] for value 'tcp://192.168.17.112:5672'\n"
	svc := func(name, ip string, port int32) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: port, Protocol: corev1.ProtocolTCP}}}}
	}
	off := false
	for _, tt := range []struct {
		name, log, image string
		env              []corev1.EnvVar
		svc              *corev1.Service
		links            *bool
		culprit          string // "" when the rule must stay silent
		conf             rule.Confidence
	}{
		{"envconfig names the variable", vouch, "quay.io/vouch/vouch-proxy:0.37", nil, svc("vouch", "172.20.247.10", 9090), nil, "VOUCH_PORT=tcp://<cluster IP>:9090", rule.Strong},
		{"only the injected value", temboard, "dalibo/temboard:7", nil, svc("temboard", "10.107.29.224", 8888), nil, "TEMBOARD_PORT=tcp://<cluster IP>:8888", rule.Strong},
		{"another app's Service", spring, "shop/orders:2", nil, svc("rabbitmq", "192.168.17.112", 5672), nil, "Service rabbitmq", rule.Strong},
		{"set explicitly", vouch, "quay.io/vouch/vouch-proxy:0.37", []corev1.EnvVar{{Name: "VOUCH_PORT", Value: "9090"}}, svc("vouch", "172.20.247.10", 9090), nil, "", 0},
		{"service links off", vouch, "quay.io/vouch/vouch-proxy:0.37", nil, svc("vouch", "172.20.247.10", 9090), &off, "", 0},
		{"a port complaint, no Service of that prefix", "port is deprecated. Please use KAFKA_ADVERTISED_LISTENERS instead.\n", "confluentinc/cp-kafka:5.0.1",
			[]corev1.EnvVar{{Name: "KAFKA_BROKER_ID", Value: "0"}}, svc("broker", "10.96.0.40", 9092), nil, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: tt.image, Env: tt.env})
			p.Spec.EnableServiceLinks = tt.links
			b := envBundle(p, tt.log)
			b.Services = []*corev1.Service{tt.svc}
			fs := ruletest.Run(ServiceLink, b, now)
			if tt.culprit == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d", len(fs))
			}
			f := fs[0]
			if !strings.HasSuffix(string(f.Category), "/InvalidConfig/ServiceLink") || f.Confidence != tt.conf || !strings.Contains(f.Culprit, tt.culprit) {
				t.Errorf("category %q confidence %v culprit %q, want %q", f.Category, f.Confidence, f.Culprit, tt.culprit)
			}
			if cmd := strings.Join(f.Actions[0].Commands, "\n"); !strings.Contains(cmd, `"enableServiceLinks":false`) {
				t.Errorf("fix %q", cmd)
			}
		})
	}
}

// TestEnvValue: a variable whose value is outside the list the log gives,
// traced to where the value comes from. The lines: jboss/keycloak's
// entrypoint calling a wrong value missing (https://github.com/helm/charts/issues/7642),
// Bitnami's check_multi_value ("The allowed values for REDMINE_DATABASE_TYPE
// are: mariadb mysql postgresql", bitnami/containers libredmine.sh) with the
// value from a ConfigMap. Negative: the value is in the list.
func TestEnvValue(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	redmine := "redmine 10:04:11.52 INFO  ==> ** Starting Redmine setup **\nredmine 10:04:11.60 ERROR ==> The allowed values for REDMINE_DATABASE_TYPE are: mariadb mysql postgresql\n"
	fromCM := []corev1.EnvVar{{Name: "REDMINE_DATABASE_TYPE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "redmine-env"}, Key: "db-type"}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "redmine-env", Namespace: "shop"}, Data: map[string]string{"db-type": "postgres"}}
	for _, tt := range []struct {
		name, log string
		env       []corev1.EnvVar
		culprit   []string // none when the rule must stay silent
		fix       string
	}{
		{"literal, called missing", "Missing mandatory environment variable DB_VENDOR. Allowed values are [h2, postgresql, oracle]\n",
			[]corev1.EnvVar{{Name: "DB_VENDOR", Value: "postgres"}}, []string{"DB_VENDOR=postgres", "a literal value", "nearest is postgresql"}, `"value":"postgresql"`},
		{"from a ConfigMap key", redmine, fromCM, []string{"REDMINE_DATABASE_TYPE=postgres", "key db-type of ConfigMap redmine-env", "mariadb, mysql, postgresql"}, `"db-type":"postgresql"`},
		{"an allowed value", redmine, []corev1.EnvVar{{Name: "REDMINE_DATABASE_TYPE", Value: "mariadb"}}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := envPod(corev1.Container{Name: "app", Image: "shop/app:1", Env: tt.env})
			b := envBundle(p, tt.log)
			b.ConfigMaps = []*corev1.ConfigMap{cm}
			fs := ruletest.Run(EnvValue, b, now)
			if tt.culprit == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %s", fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d", len(fs))
			}
			f := fs[0]
			if !strings.HasSuffix(string(f.Category), "/InvalidConfig/Value") {
				t.Errorf("category %q", f.Category)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit, s) {
					t.Errorf("culprit %q does not name %q", f.Culprit, s)
				}
			}
			if cmd := strings.Join(f.Actions[0].Commands, "\n"); !strings.Contains(cmd, tt.fix) {
				t.Errorf("fix %q does not hold %q", cmd, tt.fix)
			}
		})
	}
}
