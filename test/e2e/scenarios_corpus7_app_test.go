package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The seventh batch of real material (27 scenarios from issue threads,
// application-side, Kubernetes-side and runtime): each was run once
// against a fixed build before any fix (12 hits), then the misses were
// fixed as classes and the batch captured into test/scenarios. The one
// miss left stays here, registered only with KUBECTL_TRIAGE_REAL_MISSES=1,
// with what the report says today and the check it lacks.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c7appMisses...)
	}
}

// c7appCrash is the status of a pod whose container crash-loops with exit
// code, restarted restarts times, running image.
func c7appCrash(container, image string, code int32, restarts int32) corev1.PodStatus {
	st := crashStatus(container, code, "Error", restarts)
	st.ContainerStatuses[0].Image = image
	st.ContainerStatuses[0].ImageID = image + "@sha256:7c"
	st.PodIP, st.PodIPs = "10.244.0.71", []corev1.PodIP{{IP: "10.244.0.71"}}
	return st
}

// c7appSts creates StatefulSet name (replicas wanted, governed by headless
// Service svc, or name when svc is "") whose template's first container
// is container running image, with its status as the controller leaves it
// when ordinal 0 is not Ready, and that pod with status. mutate edits the
// template.
func c7appSts(t *testing.T, c *testcluster.Cluster, ns, name, svc, container, image string, replicas int32, policy appsv1.PodManagementPolicyType, status corev1.PodStatus, mutate func(*corev1.PodSpec)) (*appsv1.StatefulSet, *corev1.Pod) {
	t.Helper()
	labels := map[string]string{"app.kubernetes.io/name": name}
	if svc == "" {
		svc = name
	}
	c4bService(t, c, ns, svc, labels, []corev1.ServicePort{c4bPort("tcp", 80, intstr.FromInt32(80))}, func(s *corev1.Service) {
		s.Spec.ClusterIP = corev1.ClusterIPNone
		s.Spec.PublishNotReadyAddresses = true
	})
	sts := c4bStatefulSet(t, c, ns, name, svc, labels, image, replicas, policy, func(s *corev1.PodSpec) {
		s.Containers[0].Name = container
		if mutate != nil {
			mutate(s)
		}
	})
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
		CurrentRevision: name + "-7b9d5c6f8d", UpdateRevision: name + "-7b9d5c6f8d", CollisionCount: ptr(int32(0))}
	c.SetObjectStatus(t, sts)
	return sts, c4bStatefulPod(t, c, sts, 0, status)
}

// c7appBackOff records the kubelet's BackOff event for container.
func c7appBackOff(t *testing.T, c *testcluster.Cluster, p *corev1.Pod, container string, count int32) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: count, First: time.Now().Add(-40 * time.Minute), FieldPath: "spec.containers{" + container + "}",
		Message: fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", container, p.Name, p.Namespace, p.UID)})
}

// c7appMisses are the batch's scenarios the builtin investigator does not
// diagnose yet.
var c7appMisses = []scenario{
	{
		// First round: MISS. Today: CrashLoop/Exit1/FatalError (0.90), the
		// final "not uploading as no external labels are configured yet ...
		// aborting as no external labels found after waiting 10m0s" error
		// quoted. Missing: when the fatal line is a timeout waiting for a
		// condition, look back at the warning repeated until then, which
		// says why the condition never held (unknown scrape protocol
		// PrometheusText1.0.0), and compare the sidecar's image version with
		// the neighbouring container's (Thanos v0.36.1, Prometheus v3.0.0).
		//
		// Prometheus 3.0 beside a Thanos 0.36.1 sidecar: the sidecar cannot
		// parse the new default scrape protocol in Prometheus' config, so it
		// never loads the external labels, gives up after 10m and exits;
		// the Prometheus container itself is fine.
		name:   "real-thanos-sidecar-0-36-prometheus-3-scrape-protocol",
		source: "https://github.com/thanos-io/thanos/issues/7923 (Prometheus 3.0.0 with Thanos 0.36.1: level=error err=\"not uploading as no external labels are configured yet - is Prometheus healthy/reachable?...aborting as no external labels found after waiting 10m0s...sidecar command failed\"); the warning that explains it as in https://github.com/prometheus-operator/prometheus-operator/issues/7078 (caller=sidecar.go:239 level=warn msg=\"failed to fetch initial external labels. Is Prometheus running? Retrying\" err=\"parse Prometheus config: ... scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config\"); fixed by https://github.com/thanos-io/thanos/pull/7893",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			promImage, thanosImage := "quay.io/prometheus/prometheus:v3.0.0", "quay.io/thanos/thanos:v0.36.1"
			st := wlReadyStatus("prometheus", promImage, 3*time.Hour)
			st.Conditions = notReadyConditions()
			side := c7appCrash("thanos-sidecar", thanosImage, 1, 17).ContainerStatuses[0]
			side.LastTerminationState.Terminated.StartedAt, side.LastTerminationState.Terminated.FinishedAt = minutesAgo(13), minutesAgo(3)
			st.ContainerStatuses = append(st.ContainerStatuses, side)
			_, p := c7appSts(t, c, ns, "prometheus-k8s", "", "prometheus", promImage, 1, appsv1.ParallelPodManagement, st, func(s *corev1.PodSpec) {
				s.Containers[0].Args = []string{"--config.file=/etc/prometheus/config_out/prometheus.env.yaml", "--storage.tsdb.path=/prometheus", "--web.enable-lifecycle"}
				s.Containers = append(s.Containers, corev1.Container{Name: "thanos-sidecar", Image: thanosImage,
					Args: []string{"sidecar", "--prometheus.url=http://localhost:9090/", "--grpc-address=:10901", "--http-address=:10902", "--tsdb.path=/prometheus", "--objstore.config-file=/etc/thanos/objstore.yaml"}})
			})
			c.SetLogs(ns, p.Name, "prometheus", false, c5Lines(
				`time=2024-11-18T09:02:11.482Z level=INFO source=main.go:1290 msg="Loading configuration file" filename=/etc/prometheus/config_out/prometheus.env.yaml`,
				`time=2024-11-18T09:02:11.490Z level=INFO source=main.go:1053 msg="Server is ready to receive web requests."`,
			))
			cfg := `global:\n  scrape_interval: 30s\n  scrape_timeout: 10s\n  scrape_protocols:\n  - OpenMetricsText1.0.0\n  - OpenMetricsText0.0.1\n  - PrometheusText1.0.0\n  - PrometheusText0.0.4\n  evaluation_interval: 30s\n  external_labels:\n    prometheus: monitoring/k8s\n    prometheus_replica: prometheus-k8s-0\nruntime:\n  gogc: 75\nrule_files:\n- /etc/prometheus/rules/prometheus-k8s-rulefiles-0/*.yaml\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config`
			var prev strings.Builder
			prev.WriteString(c5Lines(
				`ts=2024-11-18T11:52:06.438521924Z caller=options.go:26 level=info protocol=gRPC msg="disabled TLS, key and cert must be set to enable"`,
				`ts=2024-11-18T11:52:06.43907785Z caller=sidecar.go:426 level=info msg="starting sidecar"`,
				`ts=2024-11-18T11:52:06.439288815Z caller=intrumentation.go:75 level=info msg="changing probe status" status=healthy`,
				`ts=2024-11-18T11:52:06.439438114Z caller=http.go:73 level=info service=http/server component=sidecar msg="listening for requests and metrics" address=:10902`,
				`ts=2024-11-18T11:52:06.44209169Z caller=sidecar.go:223 level=info msg="successfully loaded prometheus version"`,
			))
			start := time.Date(2024, 11, 18, 11, 52, 6, 444183780, time.UTC)
			for i := 0; i < 20; i++ {
				fmt.Fprintf(&prev, "ts=%s caller=sidecar.go:239 level=warn msg=\"failed to fetch initial external labels. Is Prometheus running? Retrying\" err=\"parse Prometheus config: %s\"\n",
					start.Add(time.Duration(i)*30*time.Second).Format(time.RFC3339Nano), cfg)
			}
			prev.WriteString(c5Lines(
				`ts=2024-11-18T12:02:06.440176004Z caller=main.go:174 level=error err="not uploading as no external labels are configured yet - is Prometheus healthy/reachable?\nmain.runSidecar.func12.1\n\t/app/cmd/thanos/sidecar.go:397\ngithub.com/thanos-io/thanos/pkg/runutil.RetryWithLog\n\t/app/pkg/runutil/runutil.go:114\ngithub.com/thanos-io/thanos/pkg/runutil.Retry\n\t/app/pkg/runutil/runutil.go:104\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:395\ngithub.com/oklog/run.(*Group).Run.func1\n\t/go/pkg/mod/github.com/oklog/run@v1.1.0/group.go:38\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650\naborting as no external labels found after waiting 10m0s\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:401\ngithub.com/oklog/run.(*Group).Run.func1\n\t/go/pkg/mod/github.com/oklog/run@v1.1.0/group.go:38\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650\nsidecar command failed\nmain.main\n\t/app/cmd/thanos/main.go:171\nruntime.main\n\t/usr/local/go/src/runtime/proc.go:267\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650"`,
			))
			c.SetLogs(ns, p.Name, "thanos-sidecar", true, prev.String())
			c.SetLogs(ns, p.Name, "thanos-sidecar", false, "")
			c7appBackOff(t, c, p, "thanos-sidecar", 12)
			return []string{"pod/prometheus-k8s-0"}
		},
		category: "CrashLoop",
		culprit:  []string{"PrometheusText1.0.0"},
	},
}
