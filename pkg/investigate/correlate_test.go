package investigate

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
)

// TestCorrelatedRootCause: through the whole engine (every rule, the
// ranking, the safe-fix policy) the root cause names the spec fact behind
// what the log says, and the fix corrects the spec. Log wording:
// kelseyhightower/envconfig's "required key %s missing value"; Go's
// os.PathError "write <path>: no space left on device"; Spring Boot 2's
// TomcatWebServer "Tomcat started on port(s): …".
func TestCorrelatedRootCause(t *testing.T) {
	env := func(vars ...corev1.EnvVar) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.Containers[0].Env = vars }
	}
	mount := func(p *corev1.Pod) {
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/ingest"}}
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "ingest-data"}}}}
	}
	for _, tt := range []struct {
		name     string
		pod      *corev1.Pod
		log      string
		category string
		culprit  []string
		fix      string // in the first action's commands
		never    string // in no proposed command
	}{
		{name: "misspelled env", pod: bundletest.Pod("api", bundletest.Crashing(1, "Error"), env(corev1.EnvVar{Name: "DATABSE_URL", Value: "postgres://db/shop"})),
			log: "2026/11/21 14:58:59 required key DATABASE_URL missing value\n", category: "CrashLoop/Exit1/MissingEnv/Misspelled",
			culprit: []string{"DATABSE_URL", "DATABASE_URL"}, fix: `"name":"DATABASE_URL"`, never: `{"name":"DATABSE_URL","value"`},
		{name: "full claim", pod: bundletest.Pod("ingest", bundletest.Crashing(1, "Error"), mount),
			log: "2026/11/21 14:58:59 flush segment: write /var/lib/ingest/wal/000042.seg: no space left on device\n", category: "CrashLoop/Exit1/NoSpace/PVC",
			culprit: []string{"ingest-data", "capacity 5Gi"}, fix: `"storage":"10Gi"`},
		{name: "probe on the wrong port", pod: bundletest.Pod("web", bundletest.Crashing(137, "Error"), bundletest.WithCtrPorts(bundletest.CtrPort("http", 8080)), bundletest.WithLiveness(bundletest.HTTPGetProbe("/actuator/health", intstr.FromInt32(8080)))),
			log:      "2026-11-21 14:58:01.120  INFO 1 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port(s): 8081 (http) with context path ''\n",
			category: "Probe/Liveness/PortMismatch", culprit: []string{"8080", "listens on 8081"}, fix: `"port":8081`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := bundletest.PodBundle(tt.pod, bundletest.WithLogs(true, tt.log))
			if tt.name == "full claim" {
				b.PVCs = []*corev1.PersistentVolumeClaim{{}}
				b.PVCs[0].Name, b.PVCs[0].Namespace = "ingest-data", "shop"
				b.PVCs[0].Status.Phase = corev1.ClaimBound
				b.PVCs[0].Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}
			}
			if tt.name == "probe on the wrong port" {
				b.Events = append(b.Events,
					bundletest.CtrEvent(tt.pod, "Warning", "Unhealthy", `Liveness probe failed: Get "http://10.244.0.11:8080/actuator/health": dial tcp 10.244.0.11:8080: connect: connection refused`, 9),
					bundletest.CtrEvent(tt.pod, "Normal", "Killing", "Container app failed liveness probe, will be restarted", 3))
			}
			r := Investigate(b, Options{Now: bundletest.Now})
			if r.RootCause.Category != tt.category {
				t.Fatalf("category %q (%s)", r.RootCause.Category, r.RootCause.Statement)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(r.RootCause.Culprit, s) {
					t.Errorf("culprit %q does not name %q", r.RootCause.Culprit, s)
				}
			}
			if len(r.Actions) == 0 || !strings.Contains(strings.Join(r.Actions[0].Commands, "\n"), tt.fix) {
				t.Errorf("first action %+v lacks %s (withheld %+v)", r.Actions, tt.fix, r.Withheld)
			}
			for _, a := range r.Actions {
				if tt.never != "" && strings.Contains(strings.Join(a.Commands, "\n"), tt.never) {
					t.Errorf("an action adds the misspelled name: %v", a.Commands)
				}
			}
		})
	}
}
