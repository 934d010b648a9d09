package workload_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
)

const quotaMsg = `pods "web-new-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi`

func TestFailedCreate(t *testing.T) {
	quotaDeployment := func(b *bundle.Bundle) {
		d := bundletest.NewDeployment(3, append(bundletest.StuckConditions("web-new"), appsv1.DeploymentCondition{
			Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: quotaMsg, LastUpdateTime: bundletest.TS(-2 * time.Minute)})...)
		big := bundletest.PodTemplate("shop/web:2.4.0", func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
		})
		d.Spec.Template = big
		newRS := bundletest.NewReplicaSet("web-new", 2, 20*time.Minute, big, 1, 0)
		newRS.Status.Replicas = 0
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{bundletest.NewReplicaSet("web-old", 1, 48*time.Hour, bundletest.PodTemplate("shop/web:2.3.1"), 3, 3), newRS}
		b.Pods = []*corev1.Pod{bundletest.OwnedPod("web-old-bbbbb", bundletest.CtrlRef("ReplicaSet", "web-old"), bundletest.Healthy)}
		b.Events = []corev1.Event{bundletest.ObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+quotaMsg, 14, time.Minute)}
		b.ResourceQuotas = []*corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "compute-resources", Namespace: "shop"},
			Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi")}, Used: corev1.ResourceList{"limits.memory": resource.MustParse("7Gi")}}}}
	}
	stsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 0, 0)}
			b.Events = []corev1.Event{bundletest.ObjEvent("StatefulSet", "db", "Warning", "FailedCreate", "create Pod db-0 in StatefulSet db failed error: "+msg, 9, time.Minute)}
		}
	}
	dsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.DaemonSets = []*appsv1.DaemonSet{bundletest.NewDaemonSet(1, 0, 0)}
			b.Events = []corev1.Event{bundletest.ObjEvent("DaemonSet", "agent", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	jobEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.Jobs = []*batchv1.Job{bundletest.NewJob("report", "", "", 0)}
			b.Events = []corev1.Event{bundletest.ObjEvent("Job", "report", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	psa := `pods "agent-" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name:         "quota on a rollout: deployment condition and replicaset event are one finding",
			Bundle:       bundletest.WorkloadBundle("Deployment", "web", quotaDeployment),
			WantCategory: "FailedCreate/Quota",
			WantCulprit:  []string{"resourcequota/compute-resources", "limits.memory"},
			WantTitle:    []string{"compute-resources", "requested 2Gi", "used 7Gi", "limited 8Gi"},
			WantText:     []string{"used 7Gi of hard 8Gi", "maxSurge", "container app 2Gi", `"limits.memory":"9Gi"`},
			WantRule:     "Rollout/Stuck/ReplicasNotCreated",
			MinConf:      0.9,
		},
		{
			Name: "quota requires limits",
			Bundle: bundletest.WorkloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := bundletest.NewReplicaSet("web-new", 1, time.Hour, bundletest.PodTemplate("shop/web:1"), 2, 0)
				rs.OwnerReferences, rs.Status.Replicas = nil, 0
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Events = []corev1.Event{bundletest.ObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", `Error creating: pods "web-new-" is forbidden: failed quota: compute-resources: must specify limits.cpu for: app; requests.cpu for: app`, 3, time.Minute)}
			}),
			WantCategory: "FailedCreate/QuotaMissingLimits",
			WantTitle:    []string{"compute-resources", "limits.cpu for: app"},
			WantText:     []string{"kubectl set resources replicaset/web-new"},
		},
		{
			Name: "pod security on a daemonset names level, container and fields",
			Bundle: bundletest.WorkloadBundle("DaemonSet", "agent", dsEvent(psa), func(b *bundle.Bundle) {
				b.Namespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "team": "x"}}}
			}),
			WantCategory: "FailedCreate/PodSecurity",
			WantCulprit:  []string{"container app", "allowPrivilegeEscalation != false", "seccompProfile"},
			WantTitle:    []string{`"restricted:latest"`},
			WantText: []string{"pod-security.kubernetes.io/enforce=restricted",
				`kubectl patch daemonset/agent -n shop --type=strategic -p '{"spec":{"template":{"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"app","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}}}'`},
			MinConf: 0.9,
		},
		{
			Name:         "webhook denial on a job",
			Bundle:       bundletest.WorkloadBundle("Job", "report", jobEvent(`admission webhook "validation.gatekeeper.sh" denied the request: [require-team-label] you must provide labels: {"team"}`)),
			WantCategory: "FailedCreate/Webhook",
			WantCulprit:  []string{"validation.gatekeeper.sh", "require-team-label"},
		},
		{
			Name:         "webhook without explanation",
			Bundle:       bundletest.WorkloadBundle("Job", "report", jobEvent(`admission webhook "deny.example.com" denied the request without explanation`)),
			WantCategory: "FailedCreate/Webhook",
			WantCulprit:  []string{"deny.example.com", "no explanation"},
		},
		{
			Name:         "webhook backend unreachable",
			Bundle:       bundletest.WorkloadBundle("Job", "report", jobEvent(`Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": dial tcp 10.96.12.7:443: connect: connection refused`)),
			WantCategory: "FailedCreate/WebhookUnavailable",
			WantCulprit:  []string{"validate.kyverno.svc-fail", "kyverno/kyverno-svc"},
			WantText:     []string{"kubectl get endpointslices -n kyverno -l kubernetes.io/service-name=kyverno-svc"},
		},
		{
			Name: "missing service account on a statefulset",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: error looking up service account shop/db-admin: serviceaccount "db-admin" not found`), func(b *bundle.Bundle) {
				b.Missing = []bundle.MissingRef{{Kind: "ServiceAccount", Namespace: "shop", Name: "db-admin"}}
			}),
			WantCategory: "FailedCreate/ServiceAccount",
			WantCulprit:  []string{"serviceAccountName: db-admin"},
			WantText:     []string{"kubectl create serviceaccount db-admin -n shop", "ServiceAccount shop/db-admin does not exist"},
			WantRule:     "StatefulSet/OrdinalBlocked",
		},
		{
			Name:         "limit range maximum",
			Bundle:       bundletest.WorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`)),
			WantCategory: "FailedCreate/LimitRange",
			WantCulprit:  []string{"limits.memory (2Gi)", "maximum 1Gi"},
		},
		{
			Name:         "limit range without a value",
			Bundle:       bundletest.WorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: minimum cpu usage per Container is 100m.  No request is specified`)),
			WantCategory: "FailedCreate/LimitRange",
			WantCulprit:  []string{"requests.cpu (not set)"},
		},
		{
			Name:         "namespace terminating",
			Bundle:       bundletest.WorkloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: unable to create new content in namespace shop because it is being terminated`)),
			WantCategory: "FailedCreate/NamespaceTerminating",
			WantCulprit:  []string{"namespace/shop"},
		},
		{
			Name:         "invalid pod",
			Bundle:       bundletest.WorkloadBundle("StatefulSet", "db", stsEvent(`Pod "db-0" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"`)),
			WantCategory: "FailedCreate/Invalid",
			WantCulprit:  []string{"volumeMounts[0].name"},
		},
		{
			Name:         "other forbidden",
			Bundle:       bundletest.WorkloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: node selector conflicts with its namespace node label selector`)),
			WantCategory: "FailedCreate/Forbidden",
			WantCulprit:  []string{"node selector conflicts"},
		},
		{
			Name:         "unclassified error",
			Bundle:       bundletest.WorkloadBundle("DaemonSet", "agent", dsEvent(`Timeout: request did not complete within requested timeout - context deadline exceeded`)),
			WantCategory: "FailedCreate/Other",
			WantCulprit:  []string{"Timeout"},
		},
		{
			Name: "cronjob cannot create its job",
			Bundle: bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := bundletest.NewCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: bundletest.Now.Add(-time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{bundletest.ObjEvent("CronJob", "nightly", "Warning", "FailedCreate", `Error creating job: jobs.batch "nightly-29412345" is forbidden: exceeded quota: object-counts, requested: count/jobs.batch=1, used: count/jobs.batch=10, limited: count/jobs.batch=10`, 1, 5*time.Minute)}
			}),
			WantCategory: "FailedCreate/Quota",
			WantCulprit:  []string{"object-counts", "count/jobs.batch"},
			WantTitle:    []string{"Jobs cannot be created"},
		},
		{
			Name: "an old refusal on a complete replicaset is history",
			Bundle: bundletest.WorkloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := bundletest.NewReplicaSet("web-new", 1, time.Hour, bundletest.PodTemplate("shop/web:1"), 1, 1)
				rs.OwnerReferences = nil
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("web-new-aaaaa", bundletest.CtrlRef("ReplicaSet", "web-new"), bundletest.Healthy)}
				b.Events = []corev1.Event{bundletest.ObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+quotaMsg, 2, 3*time.Hour)}
			}),
			Healthy: true,
		},
	})
}

func TestStatefulSetOrdinals(t *testing.T) {
	stsPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return bundletest.OwnedPod(name, bundletest.CtrlRef("StatefulSet", "db"), mutate...)
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name: "unready first ordinal blocks the others",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{stsPod("db-0", bundletest.RunningUnready)}
				b.Events = []corev1.Event{bundletest.Event(b.Pods[0], "Warning", "Unhealthy", "Readiness probe failed: pg_isready: no response", 40)}
			}),
			WantCategory: "StatefulSet/OrdinalBlocked",
			WantCulprit:  []string{"pod/db-0 (ordinal 0)", "Running"},
			WantTitle:    []string{"db-1, db-2 cannot be created", "pg_isready"},
			WantText:     []string{"podManagementPolicy: Parallel"},
			MinConf:      0.8,
		},
		{
			Name: "first ordinal held by an init container that never finishes",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{stsPod("db-0", func(p *corev1.Pod) {
					p.Status = corev1.PodStatus{Phase: corev1.PodPending,
						Conditions:            []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}},
						InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait-for-primary", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-40 * time.Minute)}}}},
						ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "db-0", Container: "wait-for-primary", Init: true,
					Text: "2026-11-21T14:59:00Z waiting for db-primary:5432\n2026-11-21T14:59:05Z waiting for db-primary:5432\n"}}
			}),
			WantCategory: "StatefulSet/OrdinalBlocked",
			WantCulprit:  []string{"pod/db-0 (ordinal 0)", "init container wait-for-primary"},
			WantTitle:    []string{"40m ago", `"waiting for db-primary:5432"`, "db-1, db-2 cannot be created"},
			WantText:     []string{"kubectl logs db-0 -n shop -c wait-for-primary --tail=50", "which is not Ready: init container"},
		},
		{
			Name: "crashing ordinal: the pod cause wins",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 2, 1)}
				b.Pods = []*corev1.Pod{stsPod("db-0", bundletest.Healthy), stsPod("db-1", bundletest.Crashing(1, "Error"))}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "db-1", Container: "app", Previous: true, Text: "FATAL: POSTGRES_PASSWORD is not set\n"}}
			}),
			WantCategory: "CrashLoop/Exit1/MissingEnv",
			WantRule:     "StatefulSet/OrdinalBlocked",
			WantText:     []string{"Pod db-1 is not Ready and blocks the creation of db-2"},
		},
		{
			Name: "first ordinal missing",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(2, 0, 0)}
			}),
			WantCategory: "StatefulSet/OrdinalBlocked",
			WantTitle:    []string{"db-0 does not exist", "db-1"},
		},
		{
			Name: "rolling update stuck on a broken pod",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 2, 1, func(s *appsv1.StatefulSet) { s.Status.UpdateRevision = "db-7d9a1" })}
				b.Pods = []*corev1.Pod{stsPod("db-0", bundletest.Healthy), stsPod("db-1", bundletest.RunningUnready)}
			}),
			WantCategory: "StatefulSet/OrdinalBlocked",
			WantText:     []string{"kubectl delete pod db-1 -n shop", "db-6c8f7 to db-7d9a1"},
		},
		{
			Name: "parallel pod management is not ordered",
			Bundle: bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 1, 0, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement })}
				b.Pods = []*corev1.Pod{stsPod("db-0", bundletest.RunningUnready)}
			}),
			NoRule:  "StatefulSet/OrdinalBlocked",
			AnyRoot: true,
		},
	})
}
