package bundle

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestArgHosts: the hosts a container's command line names (a URL's host,
// a host:port), and FailingHosts falling back to them when the failing
// line names none.
func TestArgHosts(t *testing.T) {
	pod := func(cmd []string, args ...string) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Command: cmd, Args: args}, {Name: "other", Args: []string{"http://elsewhere"}}}}}
	}
	for _, tt := range []struct {
		name string
		p    *corev1.Pod
		want []string
	}{
		{"wget URL", pod([]string{"wget"}, "-q", "--spider", "--timeout=1", "http://nginx"), []string{"nginx"}},
		{"shell script", pod([]string{"sh", "-c"}, "until nc -z db:5432; do sleep 1; done; curl -sf http://api.shop.svc:8080/healthz"), []string{"api.shop.svc", "db"}},
		{"flags only", pod([]string{"sleep"}, "3600"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ArgHosts(tt.p, "app")
			if !reflect.DeepEqual(sorted(got), sorted(tt.want)) {
				t.Errorf("ArgHosts = %v, want %v", got, tt.want)
			}
		})
	}
	if got := FailingHosts("wget: download timed out\n", pod([]string{"wget"}, "http://nginx"), "app"); !reflect.DeepEqual(got, []string{"nginx"}) {
		t.Errorf("FailingHosts = %v, want [nginx]", got)
	}
}

func sorted(l []string) []string {
	out := slices.Clone(l)
	slices.Sort(out)
	return out
}

// A refused login names the host it was refused by (the URL's, or the
// env's when the line names none), marked so that the collector reads the
// answering server's log; a refused connection is not marked.
func TestFailingHostsLoginRefused(t *testing.T) {
	env := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{{Name: "DB_HOSTNAME", Value: "db"}}}}}}
	for _, tt := range []struct {
		name, log string
		p         *corev1.Pod
		want      []failingHost
	}{
		{"kobo celery (URL)", "[2020-03-01 10:00:00,000: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabbit:5672//: Couldn't log in: a socket error occurred.\n", nil, []failingHost{{host: "rabbit", loginRefused: true}}},
		{"sequelize (env)", "ERROR: password authentication failed for user \"somesafeuser\"\n", env, []failingHost{{host: "db", loginRefused: true}}},
		{"refused", "Error: connect ECONNREFUSED db:5432\n", nil, []failingHost{{host: "db"}}},
	} {
		if got := failingHosts(tt.log, tt.p, "app"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: failingHosts = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// The log read behind a Service that refused a login is the current one
// of the container serving its target port.
func TestServingLog(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "exporter", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9419}}},
		{Name: "rabbitmq", Ports: []corev1.ContainerPort{{Name: "amqp", ContainerPort: 5672}}}}}}
	byName := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5672, TargetPort: intstr.FromString("amqp")}}}}
	byPort := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5672}}}}
	none := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	for _, tt := range []struct {
		name string
		svc  *corev1.Service
		want string
	}{{"target port name", byName, "rabbitmq"}, {"port number", byPort, "rabbitmq"}, {"no container's port", none, "exporter"}} {
		if r, ok := servingLog(p, tt.svc); !ok || r.container != tt.want || r.previous {
			t.Errorf("%s: servingLog = %+v, want the current log of %s", tt.name, r, tt.want)
		}
	}
}
