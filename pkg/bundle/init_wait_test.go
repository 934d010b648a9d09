package bundle

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestInitWaitTargets: the host a wait loop waits for, read from the
// lookup or connection check its command line runs, else from the host
// its log fails to reach. Commands from the Kubernetes docs'
// init-containers page and public charts' wait loops.
func TestInitWaitTargets(t *testing.T) {
	pod := func(cmd ...string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "shop"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "wait", Command: cmd}}}}
	}
	for _, tt := range []struct {
		name string
		cmd  []string
		log  string
		want []WaitTarget
	}{
		{"docs nslookup with the namespace file", []string{"sh", "-c", "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"}, "",
			[]WaitTarget{{Host: "myservice.shop.svc.cluster.local", From: FromCommandLine}}},
		{"bare nslookup", []string{"sh", "-c", "until nslookup db-cluster; do echo waiting for db-cluster; sleep 2; done"}, "",
			[]WaitTarget{{Host: "db-cluster", From: FromCommandLine}}},
		{"nc -z with a timeout flag", []string{"sh", "-c", "until nc -w 5 -vz nextcloud-postgres 5432; do echo waiting for postgres; sleep 2; done"}, "",
			[]WaitTarget{{Host: "nextcloud-postgres", Port: "5432", From: FromCommandLine}}},
		{"wait-for-it host:port", []string{"/wait-for-it.sh", "mysql:3306", "--timeout=60", "--", "echo", "up"}, "",
			[]WaitTarget{{Host: "mysql", Port: "3306", From: FromCommandLine}}},
		{"pg_isready -h -p", []string{"sh", "-c", "until pg_isready -h postgres -p 5432; do echo waiting for database; sleep 2; done;"}, "",
			[]WaitTarget{{Host: "postgres", Port: "5432", From: FromCommandLine}}},
		{"curl URL", []string{"sh", "-c", "until curl -sf http://api:8080/healthz; do sleep 2; done"}, "",
			[]WaitTarget{{Host: "api", Port: "8080", From: FromCommandLine}}},
		{"echo names no check", []string{"sh", "-c", "echo waiting for host db; sleep 3600"}, "", nil},
		{"host in a variable: the log's bad address", []string{"sh", "-c", "until nc -z $DB_HOST $DB_PORT; do echo waiting for db; sleep 1; done"},
			"nc: bad address 'superset-postgresql'\nwaiting for db\n", []WaitTarget{{Host: "superset-postgresql", From: FromLog}}},
		{"an IP is no Service name", []string{"sh", "-c", "until nc -z 10.0.0.5 5432; do sleep 1; done"}, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := InitWaitTargets(pod(tt.cmd...), "wait", tt.log); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("InitWaitTargets = %+v, want %+v", got, tt.want)
			}
		})
	}
}
