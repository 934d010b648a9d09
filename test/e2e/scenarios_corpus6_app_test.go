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
		// Healthy: the first start four days ago lost the race with MongoDB
		// (connection refused on first connect) and exited; the restart
		// connected and it has served since.
		name:    "real-healthy-wekan-restarted-once-mongo-first-connect",
		source:  "https://github.com/wekan/wekan/issues/3568 (container failing on first start; after a restart everything works; DeprecationWarning: Buffer() is deprecated, SyncedCron and Presence started lines); the first-connect error as in https://github.com/nosqlclient/nosqlclient/issues/456",
		healthy: true,
		culprit: []string{"crashed once", "ECONNREFUSED"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "wekanteam/wekan:v4.93"
			last := &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: minutesAgo(4*24*60 + 1), FinishedAt: minutesAgo(4*24*60 - 1), ContainerID: "containerd://w0"}
			c.CreatePod(t, simplePod("wekan-5c9d8b7f6-r4tnm", func(p *corev1.Pod) {
				p.Namespace = ns
				p.Spec.Containers[0].Image = image
				p.Status = rcReadyStatus(image, 1, last)
				p.Status.ContainerStatuses[0].State.Running.StartedAt = minutesAgo(4*24*60 - 2)
			}))
			c.SetLogs(ns, "wekan-5c9d8b7f6-r4tnm", "app", true, c5Lines(
				`{"error":{"name":"MongoNetworkError","message":"failed to connect to server [mongodb:27017] on first connect [MongoNetworkError: connect ECONNREFUSED 10.96.14.7:27017]"},"level":"error","message":"uncaughtException: failed to connect to server [mongodb:27017] on first connect [MongoNetworkError: connect ECONNREFUSED 10.96.14.7:27017]"}`,
			))
			c.SetLogs(ns, "wekan-5c9d8b7f6-r4tnm", "app", false, c5Lines(
				"(node:1) [DEP0005] DeprecationWarning: Buffer() is deprecated due to security and usability issues. Please use the Buffer.alloc(), Buffer.allocUnsafe(), or Buffer.from() methods instead.",
				"Presence started serverId=C4NbD9s97ufyTq73P",
				`{"line":"87","file":"percolate_synced-cron.js","message":"SyncedCron: Scheduled \"notification_cleanup\" next run @Fri Feb 12 2021 14:40:04 GMT+0000 (Coordinated Universal Time)","time":{"$date":1613140804770},"level":"info"}`,
			))
			return []string{"pod/wekan-5c9d8b7f6-r4tnm"}
		},
	},
}

// c6AppMisses are the batch's scenarios the builtin investigator does not
// diagnose yet.
var c6AppMisses = []scenario{
	{
		// Today: Probe/Readiness/CommandFailed (0.75), the probe's own
		// "Cluster is not yet ready" output named, the container's log not
		// used. Missing correlation: a readiness probe that waits for a
		// state the container's log reports otherwise (cluster health
		// YELLOW while the probe waits for green) names that log line.
		//
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
