package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// scenarioStates is the State line the Summary must carry for the targets
// whose kinds have their own symptom reading (Service, Ingress, HPA,
// StatefulSet, DaemonSet, ReplicaSet, Job, CronJob): a fault that is
// validated now is ongoing, a healthy object healthy. Before those
// readings, such reports said "No abnormal status was observed" and
// "historical" while describing a current fault.
var scenarioStates = map[string]string{
	"net-ingress-backend-no-endpoints":            "ongoing",
	"net-ingress-class-missing":                   "ongoing",
	"net-ingress-healthy":                         "healthy",
	"net-ingress-missing-service":                 "ongoing",
	"net-ingress-no-class-no-default":             "ongoing",
	"net-ingress-wrong-port":                      "ongoing",
	"net-service-externalname-healthy":            "healthy",
	"net-service-healthy":                         "healthy",
	"net-service-named-targetport-missing":        "ongoing",
	"net-service-no-pods-in-namespace":            "ongoing",
	"net-service-no-selector":                     "ongoing",
	"net-service-selector-typo":                   "ongoing",
	"net-service-selector-version":                "ongoing",
	"storage-hpa-at-max-replicas":                 "ongoing",
	"storage-hpa-healthy":                         "healthy",
	"storage-hpa-metrics-server-missing":          "ongoing",
	"storage-hpa-missing-cpu-request":             "ongoing",
	"workload-cronjob-failing-jobs":               "ongoing",
	"workload-cronjob-forbid-blocked":             "ongoing",
	"workload-cronjob-suspended":                  "ongoing",
	"workload-cronjob-too-many-missed":            "ongoing",
	"workload-daemonset-misscheduled-taint":       "ongoing",
	"workload-daemonset-podsecurity":              "ongoing",
	"workload-daemonset-selector-matches-no-node": "ongoing",
	"workload-healthy-cronjob":                    "healthy",
	"workload-healthy-daemonset":                  "healthy",
	"workload-healthy-statefulset":                "healthy",
	"workload-job-backoff-pods-gone":              "ongoing",
	"workload-job-deadline-exceeded":              "ongoing",
	"workload-job-failed-pods-missing-env":        "ongoing",
	"workload-replicaset-missing-serviceaccount":  "ongoing",
	"workload-statefulset-limitrange":             "ongoing",
	"workload-statefulset-ordinal-blocked":        "ongoing",
}

// TestScenarioStates triages the scenarios above and checks the State line
// of the Summary and that the Symptom section says what is wrong.
func TestScenarioStates(t *testing.T) {
	c := testcluster.Get(t)
	names := make([]string, 0, len(scenarioStates))
	for name := range scenarioStates {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		sc, want := scenarioNamed(name), scenarioStates[name]
		t.Run(name, func(t *testing.T) {
			ns := c.Namespace(t)
			r := triage(t, c, ns, sc.setup(t, c, ns)...)
			if r.code != 0 {
				t.Fatalf("exit code %d\nstderr:\n%s", r.code, r.stderr)
			}
			summary, _, _ := strings.Cut(r.stdout, "## Evidence")
			if !strings.Contains(summary, "State: "+want) {
				t.Errorf("want State: %s:\n%s", want, summary)
			}
			if want == "ongoing" && strings.Contains(summary, "No abnormal status was observed") {
				t.Errorf("a current fault with an empty Symptom section:\n%s", summary)
			}
		})
	}
}
