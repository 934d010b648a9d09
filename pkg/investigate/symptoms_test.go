package investigate

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Builders for targets of each kind with a dedicated symptom reading.

func symStatefulSet(mutate ...func(*appsv1.StatefulSet)) *bundle.Bundle {
	return bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
		b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 3, 3, mutate...)}
	})
}

func symDaemonSet(desired, current, ready int32, mutate ...func(*appsv1.DaemonSet)) *bundle.Bundle {
	return bundletest.WorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
		b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(desired, current, ready, mutate...)}
	})
}

func symReplicaSet(created, ready int32, conds ...appsv1.ReplicaSetCondition) *bundle.Bundle {
	return bundletest.WorkloadBundle("ReplicaSet", "web-abc", func(b *bundle.Bundle) {
		rs := bundletest.NewReplicaSet("web-abc", 1, time.Hour, bundletest.PodTemplate("shop/web:2.4.0"), 2, ready)
		rs.OwnerReferences = nil
		rs.Status.Replicas = created
		rs.Status.Conditions = conds
		b.ReplicaSets = []*appsv1.ReplicaSet{rs}
	})
}

func symJob(j *batchv1.Job) *bundle.Bundle {
	return bundletest.WorkloadBundle("Job", j.Name, func(b *bundle.Bundle) { b.Jobs = []*batchv1.Job{j} })
}

func symCompleteJob(j *batchv1.Job) {
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	j.Status.Succeeded = 1
}

// symCronJob is CronJob nightly ("0 * * * *", last run 30m ago) with jobs.
func symCronJob(mutate func(*batchv1.CronJob), jobs ...*batchv1.Job) *bundle.Bundle {
	return bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
		cj := bundletest.NewCronJob("0 * * * *", func(cj *batchv1.CronJob) {
			cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-30 * time.Minute)}
		})
		if mutate != nil {
			mutate(cj)
		}
		b.CronJobs = []*batchv1.CronJob{cj}
		b.Jobs = jobs
	})
}

func symFailedCronRun(name string, age time.Duration) *batchv1.Job {
	j := bundletest.CompleteJob(name, age, bundletest.CtrlRef("CronJob", "nightly"))
	j.Status.Succeeded = 0
	j.Status.Failed = 4
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
		Message: "Job has reached the specified backoff limit", LastTransitionTime: bundletest.TS(-age + 5*time.Minute)}}
	return j
}

func symRunningCronRun(name string, age time.Duration) *batchv1.Job {
	j := bundletest.CompleteJob(name, age, bundletest.CtrlRef("CronJob", "nightly"))
	j.Status.Succeeded = 0
	j.Status.Active = 1
	j.Status.Conditions = nil
	return j
}

func readySlice(svc *corev1.Service, ready bool, pods ...*corev1.Pod) func(*bundle.Bundle) {
	return bundletest.WithSlices(bundletest.EndpointSlice(svc, ready, false, pods...))
}

func withAddress(ing *networkingv1.Ingress) {
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}
}

func withBackend(svc *corev1.Service, ready bool) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Services = append(b.Services, svc)
		b.EndpointSlices = append(b.EndpointSlices, bundletest.EndpointSlice(svc, ready, false, bundletest.Pod("api-1")))
	}
}

var (
	hpaActive   = bundletest.HPACond(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)")
	hpaAble     = bundletest.HPACond(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	hpaUnlimted = bundletest.HPACond(autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range")
)

// TestKindSymptoms: each kind's reading states what is wrong, keeps
// observations that are no fault apart, and says nothing of a healthy
// object; the report of a fault is ongoing, of a healthy object healthy.
func TestKindSymptoms(t *testing.T) {
	api := bundletest.Service("api", map[string]string{"app": "api"})
	tests := []struct {
		name   string
		bundle *bundle.Bundle
		faults []string // substrings of fault lines, in order
		notes  []string // substrings of observation lines
		state  string   // "healthy", "ongoing" or "degraded"
	}{
		// Service.
		{name: "service with a ready endpoint", bundle: bundletest.ServiceBundle(api, readySlice(api, true, bundletest.Pod("api-1", bundletest.Labelled("app", "api"), bundletest.Healthy)), bundletest.WithPods(bundletest.Pod("api-1", bundletest.Labelled("app", "api"), bundletest.Healthy))), state: "healthy"},
		{name: "service whose endpoints are not ready", bundle: bundletest.ServiceBundle(api, readySlice(api, false, bundletest.Pod("api-1")), bundletest.WithPods(bundletest.Pod("api-1", bundletest.Labelled("app", "api"), bundletest.NotReadyRunning))),
			faults: []string{"Service api has no ready endpoint: 1 EndpointSlice(s), 0 ready endpoint(s), 1 not ready (api-1)", "Container app is running but not ready"}, state: "ongoing"},
		{name: "service without selector nor EndpointSlice", bundle: bundletest.ServiceBundle(bundletest.Service("legacy", nil)),
			faults: []string{"Service legacy has no ready endpoint: no EndpointSlice lists it"}, state: "ongoing"},
		{name: "ExternalName service has no endpoints by design", bundle: bundletest.ServiceBundle(bundletest.Service("stripe", nil, func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName, s.Spec.Ports = corev1.ServiceTypeExternalName, "api.stripe.com", nil
		})), state: "healthy"},
		{name: "unreadable EndpointSlices: no claim", bundle: bundletest.ServiceBundle(api, func(b *bundle.Bundle) {
			b.Problems = append(b.Problems, bundle.Problem{What: "endpointslices of service api", Error: "forbidden", Forbidden: true})
		}), state: "healthy"},

		// Ingress.
		{name: "ingress with a served backend and an address", bundle: bundletest.IngressBundle(bundletest.Ingress("shop", withAddress), withBackend(bundletest.Service("api", map[string]string{"app": "api"}), true)), state: "healthy"},
		{name: "ingress without an address is only an observation", bundle: bundletest.IngressBundle(bundletest.Ingress("shop"), withBackend(bundletest.Service("api", map[string]string{"app": "api"}), true)),
			notes: []string{"Ingress shop has no address in status.loadBalancer"}, state: "healthy"},
		{name: "ingress backend service missing", bundle: bundletest.IngressBundle(bundletest.Ingress("shop", withAddress), bundletest.MissingObject("Service", "shop", "api")),
			faults: []string{"Ingress shop rule shop.example.com/api routes to service api, which does not exist"}, state: "ongoing"},
		{name: "ingress backend port not exposed", bundle: bundletest.IngressBundle(bundletest.Ingress("shop", withAddress), withBackend(bundletest.Service("api", map[string]string{"app": "api"}, func(s *corev1.Service) { s.Spec.Ports[0].Port = 8080 }), true)),
			faults: []string{"routes to service api port 80, which the Service does not expose (it has http (8080))"}, state: "ongoing"},
		{name: "ingress backend without ready endpoints", bundle: bundletest.IngressBundle(bundletest.Ingress("shop"), withBackend(bundletest.Service("api", map[string]string{"app": "api"}), false)),
			faults: []string{"routes to service api, which has no ready endpoint: 1 EndpointSlice(s), 0 ready endpoint(s), 1 not ready (api-1)"},
			notes:  []string{"no address"}, state: "ongoing"},

		// HorizontalPodAutoscaler.
		{name: "hpa scaling normally", bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaAble, hpaActive, hpaUnlimted})), state: "healthy"},
		{name: "hpa cannot compute metrics", bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaAble,
			bundletest.HPACond(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod web-1")})),
			faults: []string{"Condition ScalingActive=False (FailedGetResourceMetric)"}, state: "ongoing"},
		{name: "hpa cannot read its target's scale", bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{
			bundletest.HPACond(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", `the HPA controller was unable to get the target's current scale: deployments/scale.apps "web" not found`)})),
			faults: []string{"Condition AbleToScale=False (FailedGetScale)"}, state: "ongoing"},
		{name: "hpa at maxReplicas is a limit, not a fault", bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaAble, hpaActive,
			bundletest.HPACond(autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooManyReplicas", "the desired replica count is more than the maximum replica count")})),
			notes: []string{"Condition ScalingLimited=True (TooManyReplicas)", "not a fault"}, state: "ongoing"},
		{name: "hpa of a workload scaled to zero is paused", bundle: bundletest.HPABundle(bundletest.HPA("web", []autoscalingv2.HorizontalPodAutoscalerCondition{hpaAble,
			bundletest.HPACond(autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")})),
			notes: []string{"ScalingActive=False (ScalingDisabled)", "paused, not broken"}, state: "ongoing"},

		// StatefulSet.
		{name: "statefulset all ready", bundle: symStatefulSet(), state: "healthy"},
		{name: "statefulset short of ready replicas", bundle: symStatefulSet(func(s *appsv1.StatefulSet) { s.Status.Replicas, s.Status.ReadyReplicas = 1, 0 }),
			faults: []string{"StatefulSet db has 0/3 replicas ready (1 created, 0 updated)"}, state: "ongoing"},
		{name: "statefulset rolling update is an observation", bundle: symStatefulSet(func(s *appsv1.StatefulSet) { s.Status.UpdateRevision, s.Status.UpdatedReplicas = "db-7d9e1", 1 }),
			notes: []string{"StatefulSet db is rolling from revision db-6c8f7 to db-7d9e1: 1/3 replicas updated"}, state: "healthy"},

		// DaemonSet.
		{name: "daemonset on every node", bundle: symDaemonSet(1, 1, 1), state: "healthy"},
		{name: "daemonset wanted on no node", bundle: symDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"gpu": "true"}
		}), faults: []string{"DaemonSet agent wants 0 pods although the cluster has 1 node(s)"}, state: "ongoing"},
		{name: "daemonset wanting 0 pods with no node known: no claim", bundle: func() *bundle.Bundle { b := symDaemonSet(0, 0, 0); b.Nodes = nil; return b }(), state: "healthy"},
		{name: "daemonset missing and unready pods", bundle: symDaemonSet(3, 2, 1),
			faults: []string{"DaemonSet agent has pods on 2 of the 3 nodes", "DaemonSet agent has 1/3 pods ready (1 available, 2 unavailable)"}, state: "ongoing"},
		{name: "daemonset misscheduled", bundle: symDaemonSet(1, 1, 1, func(ds *appsv1.DaemonSet) { ds.Status.NumberMisscheduled = 1 }),
			faults: []string{"DaemonSet agent runs 1 pod(s) on nodes it no longer selects (misscheduled)"}, state: "ongoing"},

		// ReplicaSet.
		{name: "replicaset all ready", bundle: symReplicaSet(2, 2), state: "healthy"},
		{name: "replicaset short of ready replicas, pods not collected", bundle: symReplicaSet(2, 1), faults: []string{"ReplicaSet web-abc has 1/2 replicas ready (2 created)"}, state: "degraded"},
		{name: "replicaset cannot create pods", bundle: symReplicaSet(0, 0, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
			Message: `pods "web-abc-" is forbidden: error looking up service account shop/web: serviceaccount "web" not found`}),
			faults: []string{"ReplicaSet web-abc has 0/2 replicas ready (0 created)", `Condition ReplicaFailure=True (FailedCreate): pods "web-abc-" is forbidden`}, state: "ongoing"},

		// Job.
		{name: "job complete", bundle: symJob(bundletest.NewJob("report", "", "", 0, symCompleteJob)), state: "healthy"},
		{name: "job failed", bundle: symJob(bundletest.NewJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)),
			faults: []string{"Condition Failed=True (BackoffLimitExceeded) since 2026-11-21 14:50:00 UTC: Job has reached the specified backoff limit"}, state: "ongoing"},
		{name: "job still retrying failed pods", bundle: symJob(bundletest.NewJob("report", "", "", 2, func(j *batchv1.Job) { j.Status.Active = 1 })),
			faults: []string{"Job report has 2 failed pod(s) so far and is still running (backoffLimit 3, 1 active)"}, state: "ongoing"},
		{name: "job suspended", bundle: symJob(bundletest.NewJob("report", "", "", 0, func(j *batchv1.Job) { j.Spec.Suspend = bundletest.BoolPtr(true) })),
			notes: []string{"Job report is suspended"}, state: "healthy"},

		// CronJob.
		{name: "cronjob on schedule, last run complete", bundle: symCronJob(nil, bundletest.CompleteJob("nightly-1", 30*time.Minute, bundletest.CtrlRef("CronJob", "nightly"))), state: "healthy"},
		{name: "cronjob recently suspended is an observation", bundle: symCronJob(func(cj *batchv1.CronJob) { cj.Spec.Suspend = bundletest.BoolPtr(true) }),
			notes: []string{"CronJob nightly is suspended (spec.suspend=true); its last run was scheduled 2026-11-21 14:30:00 UTC"}, state: "healthy"},
		{name: "cronjob suspended for long: the rule's fault, still ongoing", bundle: symCronJob(func(cj *batchv1.CronJob) {
			cj.Spec.Suspend = bundletest.BoolPtr(true)
			cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-50 * time.Hour)}
		}), notes: []string{"CronJob nightly is suspended"}, state: "ongoing"},
		{name: "cronjob last run failed", bundle: symCronJob(nil, symFailedCronRun("nightly-2", 30*time.Minute), bundletest.CompleteJob("nightly-1", 90*time.Minute, bundletest.CtrlRef("CronJob", "nightly"))),
			faults: []string{"The last finished run of CronJob nightly, job nightly-2, failed (BackoffLimitExceeded)"}, state: "ongoing"},
		{name: "cronjob run outlives its period", bundle: symCronJob(func(cj *batchv1.CronJob) {
			cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Namespace: "shop", Name: "nightly-1"}}
		}, symRunningCronRun("nightly-1", 3*time.Hour)),
			faults: []string{"Job nightly-1 of CronJob nightly has been running for 3h, longer than the 1h between its scheduled runs"}, state: "degraded"},
		{name: "cronjob behind its schedule", bundle: symCronJob(func(cj *batchv1.CronJob) {
			cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-5*time.Hour - 10*time.Minute)}
		}),
			faults: []string{"CronJob nightly has started no run since 2026-11-21 09:50:00 UTC: 5 scheduled run(s) of \"0 * * * *\" are missing"}, state: "ongoing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := collectSymptoms(testPass(tt.bundle))
			if s.healthy != (len(tt.faults) == 0) {
				t.Errorf("healthy = %v, want %v: %q", s.healthy, len(tt.faults) == 0, s.lines)
			}
			if len(s.lines) < len(tt.faults) || len(tt.faults)+len(tt.notes) == 0 && len(s.lines) > 0 {
				t.Fatalf("got line(s) %q, want faults %q and observations %q", s.lines, tt.faults, tt.notes)
			}
			for i, w := range tt.faults {
				if !strings.Contains(s.lines[i], w) {
					t.Errorf("fault line %d = %q, want %q", i, s.lines[i], w)
				}
			}
			for _, w := range tt.notes {
				if !strings.Contains(strings.Join(s.lines[len(tt.faults):], "\n"), w) {
					t.Errorf("no observation %q after the faults: %q", w, s.lines)
				}
			}
			r := Investigate(tt.bundle, Options{Now: bundletest.Now})
			got := "historical"
			switch {
			case r.Healthy:
				got = "healthy"
			case r.RootCause.Category == "Unknown":
				got = "degraded"
			case r.Ongoing:
				got = "ongoing"
			}
			if got != tt.state {
				t.Errorf("report state %s, want %s (%s: %q)", got, tt.state, r.RootCause.Category, r.Title)
			}
			if md := r.Markdown(); len(s.lines) > 0 && strings.Contains(md, "No abnormal status was observed") {
				t.Errorf("the report's Symptom section is empty")
			}
		})
	}
}

// testPass is a pass over b as of now with the whole catalogue, for tests
// that call a rule's Check directly.
func testPass(b *bundle.Bundle) *rule.Pass { return rule.NewPass(b, bundletest.Now, Rules) }
