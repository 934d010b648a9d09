package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A fifth batch of scenarios from real material (issue threads, framework
// and controller source strings), about half application-side (a pod whose
// log, or a dependency's, says why) and half Kubernetes-side (an object's
// status and the controllers' events), with healthy controls and red
// herrings. Each cites its source. The hits are captured into
// test/scenarios; the misses stay in the _app and _kube files, registered
// only with KUBECTL_TRIAGE_REAL_MISSES=1, each with what the report says
// today and the general check it lacks.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_REAL_MISSES") != "" {
		register(c5App...)
		register(c5Kube...)
	}
}

// c5Stamped renders n records of format (which takes an RFC 3339 time
// first) every step, the last one a few seconds ago.
func c5Stamped(n int, step time.Duration, format string, args ...any) string {
	return c4bStamps(n, step, "2006-01-02T15:04:05.000Z", format, args...)
}

// c5Running is a bare pod running image, Ready for the given time, with its
// current log.
func c5Running(t *testing.T, c *testcluster.Cluster, ns, name, image string, since time.Duration, log string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := c.CreatePod(t, simplePod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.Containers[0].Image = image
		p.Status = wlReadyStatus("app", image, since)
	}}, mutate...)...))
	c.SetLogs(ns, name, "app", false, log)
	return p
}

// c5Lines joins lines with newlines (and a final one).
func c5Lines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
