package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A sixth batch of application-side scenarios from real material (issue
// threads): the pod's own log, or a dependency's, says why. Two are healthy
// controls, two carry a noisy but irrelevant line next to the fatal one.
// Each cites its source. The hits are captured into test/scenarios; the
// misses stay below, registered only with KUBECTL_TRIAGE_REAL_MISSES=1, each
// with what the report says today and the general check it lacks.

func init() {
	register(c6App...)
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c6AppMisses...)
	}
}

// c6Env sets the app container's environment (name, value pairs).
func c6Env(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
	}
}

// c6Repeat renders n copies of record, each with the time (formatted with
// layout) of one step, the last a few seconds ago.
func c6Repeat(n int, step time.Duration, layout, record string) string {
	var b strings.Builder
	start := time.Now().Add(-time.Duration(n) * step).UTC()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, record, start.Add(time.Duration(i+1)*step).Format(layout))
	}
	return b.String()
}

// c6App are the batch's scenarios still to be captured.
var c6App = []scenario{
	{
		// One Elasticsearch node: its indices' replica shards can never be
		// assigned, the cluster stays yellow, and the chart's readiness probe
		// waits for green.
		name:   "real-elasticsearch-readiness-waits-for-green-single-node",
		source: "https://github.com/elastic/helm-charts/issues/783 (replicas: 1; Readiness probe failed: Waiting for elasticsearch cluster to become ready (request params: \"wait_for_status=green&timeout=1s\" ) Cluster is not yet ready); the health-change line is Elasticsearch's own (server/src/main/java/org/elasticsearch/cluster/routing/allocation/AllocationService.java)",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "#!/usr/bin/env bash -e\n# If the node is starting up wait for the cluster to be ready (request params: \"wait_for_status=green&timeout=1s\" )\nhttp \"/_cluster/health?wait_for_status=green&timeout=1s\" \"--fail\""}}},
				InitialDelaySeconds: 10, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3, SuccessThreshold: 3}
			log := c5Lines(
				`{"type": "server", "timestamp": "2020-08-17T07:01:12,433Z", "level": "INFO", "component": "o.e.n.Node", "cluster.name": "elasticsearch", "node.name": "elasticsearch-master-0", "message": "started" }`,
				`{"type": "server", "timestamp": "2020-08-17T07:01:14,101Z", "level": "INFO", "component": "o.e.c.r.a.AllocationService", "cluster.name": "elasticsearch", "node.name": "elasticsearch-master-0", "message": "Cluster health status changed from [RED] to [YELLOW] (reason: [shards started [[logstash-2020.08.17][0]]])." }`,
			)
			p := c.CreatePod(t, simplePod("elasticsearch-master-0", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Labels = map[string]string{"app": "elasticsearch-master"}
				p.Spec.Containers[0].Name = "elasticsearch"
				p.Spec.Containers[0].Image = "docker.elastic.co/elasticsearch/elasticsearch:7.8.1"
				p.Spec.Containers[0].ReadinessProbe = probe
				p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "cluster.initial_master_nodes", Value: "elasticsearch-master-0,"}, {Name: "discovery.seed_hosts", Value: "elasticsearch-master-headless"}}
				st := wlReadyStatus("elasticsearch", "docker.elastic.co/elasticsearch/elasticsearch:7.8.1", 25*time.Minute)
				st.Conditions = notReadyConditions()
				st.ContainerStatuses[0].Ready = false
				p.Status = st
			}))
			c.SetLogs(ns, "elasticsearch-master-0", "elasticsearch", false, log)
			c.Event(t, testcluster.EventSpec{Object: p, Reason: "Unhealthy", Count: 140, First: time.Now().Add(-24 * time.Minute), FieldPath: "spec.containers{elasticsearch}",
				Message: "Readiness probe failed: Waiting for elasticsearch cluster to become ready (request params: \"wait_for_status=green&timeout=1s\" )\nCluster is not yet ready (request params: \"wait_for_status=green&timeout=1s\" )"})
			return []string{"pod/elasticsearch-master-0"}
		},
		category: "Probe/Readiness",
		culprit:  []string{"wait_for_status=green", "YELLOW"},
	},
}

// c6AppMisses are the batch's scenarios the builtin investigator does not
// diagnose yet.
var c6AppMisses = []scenario{}
