package investigate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Builders for workload bundles: objects linked by controller references
// as the controllers leave them.

func ctrlRef(kind, name string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &yes}
}

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

func objMeta(name string, age time.Duration, owner ...metav1.OwnerReference) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), CreationTimestamp: ts(-age), OwnerReferences: owner}
}

func podTemplate(image string, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image,
			Env:       []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://db:5432/shop"}, {Name: "LOG_LEVEL", Value: "info"}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
				PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3},
		}}},
	}
	for _, m := range mutate {
		m(&t.Spec)
	}
	return t
}

func newDeployment(replicas int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: objMeta("web", 48*time.Hour),
		Spec: appsv1.DeploymentSpec{Replicas: i32(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate("shop/web:2.4.0")},
		Status: appsv1.DeploymentStatus{Replicas: replicas, Conditions: conds},
	}
}

func stuckConditions(rs string) []appsv1.DeploymentCondition {
	return []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
		{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
			Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", rs), LastTransitionTime: ts(-5 * time.Minute), LastUpdateTime: ts(-5 * time.Minute)},
	}
}

func newReplicaSet(name string, rev int64, age time.Duration, tmpl corev1.PodTemplateSpec, replicas, ready int32) *appsv1.ReplicaSet {
	m := objMeta(name, age, ctrlRef("Deployment", "web"))
	m.Annotations = map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)}
	m.Labels = map[string]string{"app": "web", "pod-template-hash": strings.TrimPrefix(name, "web-")}
	return &appsv1.ReplicaSet{ObjectMeta: m, Spec: appsv1.ReplicaSetSpec{Replicas: i32(replicas), Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}}
}

func ownedPod(name string, owner metav1.OwnerReference, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return pod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{owner} }}, mutate...)...)
}

func runningUnready(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: false,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-20 * time.Minute)}}}}
}

func pendingNoDecision(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
}

func workloadBundle(kind, name string, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:  fault.Resource{Kind: kind, Name: name, Namespace: "shop", UID: "uid-" + name},
		Cluster: bundle.ClusterInfo{Context: "prod", Cluster: "prod-east"},
		Nodes:   []*corev1.Node{node("node-1", "4")},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func objEvent(kind, name, typ, reason, msg string, count int32, last time.Duration) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name + "." + strings.ToLower(reason), Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: "shop", UID: types.UID("uid-" + name)},
		Type:           typ, Reason: reason, Message: msg, Count: count,
		FirstTimestamp: ts(-last - 10*time.Minute), LastTimestamp: ts(-last),
	}
}

// twoRevisions is a Deployment rolled from revision 1 (2 ready pods left)
// to revision 2 (newTmpl), whose pod is built by newPod.
func twoRevisions(newTmpl corev1.PodTemplateSpec, newPod ...func(*corev1.Pod)) *bundle.Bundle {
	return workloadBundle("Deployment", "web", func(b *bundle.Bundle) {
		d := newDeployment(3, stuckConditions("web-new")...)
		d.Spec.Template = newTmpl
		d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 1, 2, 2, 1
		oldRS := newReplicaSet("web-old", 1, 48*time.Hour, podTemplate("shop/web:2.3.1"), 2, 2)
		newRS := newReplicaSet("web-new", 2, 20*time.Minute, newTmpl, 1, 0)
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{oldRS, newRS}
		b.Pods = []*corev1.Pod{
			ownedPod("web-new-aaaaa", ctrlRef("ReplicaSet", "web-new"), newPod...),
			ownedPod("web-old-bbbbb", ctrlRef("ReplicaSet", "web-old"), healthy),
		}
	})
}

func withoutEnv(name string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		var kept []corev1.EnvVar
		for _, e := range s.Containers[0].Env {
			if e.Name != name {
				kept = append(kept, e)
			}
		}
		s.Containers[0].Env = kept
	}
}

func readinessPath(path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) { s.Containers[0].ReadinessProbe.HTTPGet.Path = path }
}

func newStatefulSet(replicas, existing, ready int32, mutate ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: objMeta("db", 24*time.Hour),
		Spec: appsv1.StatefulSetSpec{Replicas: i32(replicas), ServiceName: "db",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: podTemplate("postgres:16")},
		Status: appsv1.StatefulSetStatus{Replicas: existing, ReadyReplicas: ready, CurrentRevision: "db-6c8f7", UpdateRevision: "db-6c8f7"},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func newDaemonSet(desired, current, ready int32, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: objMeta("agent", 24*time.Hour),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: podTemplate("shop/agent:1.0")},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: current, NumberReady: ready,
			NumberAvailable: ready, NumberUnavailable: desired - ready},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

func labeledNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	n := node(name, "4")
	n.Labels = labels
	n.Spec.Taints = taints
	return n
}

func newJob(name string, reason, msg string, failed int32, mutate ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: objMeta(name, time.Hour),
		Spec: batchv1.JobSpec{BackoffLimit: i32(3), Completions: i32(1), Parallelism: i32(1),
			Template: podTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })},
		Status: batchv1.JobStatus{Failed: failed, StartTime: &metav1.Time{Time: now.Add(-time.Hour)}},
	}
	if reason != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: ts(-10 * time.Minute)}}
	}
	for _, m := range mutate {
		m(j)
	}
	return j
}

func completeJob(name string, age time.Duration, owner metav1.OwnerReference) *batchv1.Job {
	j := newJob(name, "", "", 0)
	j.OwnerReferences = []metav1.OwnerReference{owner}
	j.CreationTimestamp = ts(-age)
	j.Status.StartTime = &metav1.Time{Time: now.Add(-age)}
	j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: now.Add(-age).Format(time.RFC3339)}
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	j.Status.Succeeded = 1
	return j
}

func failedPod(code int32, reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, StartTime: &metav1.Time{Time: now.Add(-20 * time.Minute)},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: ts(-19 * time.Minute), FinishedAt: ts(-18 * time.Minute)}}}}}
	}
}

func podLogs(pod, text string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: pod, Container: "app", Text: text})
	}
}

func newCronJob(schedule string, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: objMeta("nightly", 30*24*time.Hour),
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: podTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })}}},
	}
	for _, m := range mutate {
		m(cj)
	}
	return cj
}

// workloadCase is one bundle and what its report must say.
type workloadCase struct {
	name         string
	bundle       *bundle.Bundle
	wantCategory string   // prefix of the root cause category
	wantCulprit  []string // substrings of the culprit
	wantTitle    []string // substrings of the title
	wantText     []string // substrings anywhere in the rendered report
	wantRule     string   // a validated hypothesis of this category prefix must exist
	noRule       string   // no hypothesis of this category prefix may exist
	minConf      float64
	healthy      bool
	// isolated runs only this area's rules, with no pod-level rule to defer
	// to: it tests the branch where the workload finding explains the pods
	// itself, whatever the other areas' catalogue holds.
	isolated bool
	// anyRoot skips the root-cause checks (another area's finding wins).
	anyRoot bool
}

func runWorkloadCases(t *testing.T, cases []workloadCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if tt.isolated {
				saved := Rules
				Rules = workloadRules
				defer func() { Rules = saved }()
			}
			r := Investigate(tt.bundle, Options{IncidentID: "test", Agent: "builtin", Now: now})
			md := r.Markdown()
			if err := report.Validate(md); err != nil {
				t.Fatalf("rendered report is invalid: %v", err)
			}
			c := testPass(tt.bundle)
			var cats []string
			for _, rule := range workloadRules {
				for _, f := range rule.Check(c.For(rule)) {
					cats = append(cats, fmt.Sprintf("%s:%s(%.2f,d%d)", f.Verdict, f.Category, f.Confidence, f.Strength))
				}
			}
			if tt.healthy {
				if !r.Healthy {
					t.Fatalf("want healthy, got %q (%s); workload findings %v", r.Title, r.RootCause.Category, cats)
				}
				return
			}
			if tt.wantRule != "" && !strings.Contains(strings.Join(cats, " "), "validated:"+tt.wantRule) {
				t.Errorf("no validated %s finding among %v", tt.wantRule, cats)
			}
			if tt.noRule != "" && strings.Contains(strings.Join(cats, " "), tt.noRule) {
				t.Errorf("unexpected %s finding among %v", tt.noRule, cats)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(md, s) {
					t.Errorf("report lacks %q:\n%s", s, md)
				}
			}
			if tt.anyRoot {
				return
			}
			checkRootCause(t, r, rootCauseWant{tt.wantCategory, tt.wantCulprit, tt.wantTitle, tt.minConf}, fmt.Sprintf("; workload findings %v", cats))
		})
	}
}

const quotaMsg = `pods "web-new-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi`

func TestFailedCreate(t *testing.T) {
	quotaDeployment := func(b *bundle.Bundle) {
		d := newDeployment(3, append(stuckConditions("web-new"), appsv1.DeploymentCondition{
			Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: quotaMsg, LastUpdateTime: ts(-2 * time.Minute)})...)
		big := podTemplate("shop/web:2.4.0", func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
		})
		d.Spec.Template = big
		newRS := newReplicaSet("web-new", 2, 20*time.Minute, big, 1, 0)
		newRS.Status.Replicas = 0
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{newReplicaSet("web-old", 1, 48*time.Hour, podTemplate("shop/web:2.3.1"), 3, 3), newRS}
		b.Pods = []*corev1.Pod{ownedPod("web-old-bbbbb", ctrlRef("ReplicaSet", "web-old"), healthy)}
		b.Events = []corev1.Event{objEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+quotaMsg, 14, time.Minute)}
		b.ResourceQuotas = []*corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "compute-resources", Namespace: "shop"},
			Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi")}, Used: corev1.ResourceList{"limits.memory": resource.MustParse("7Gi")}}}}
	}
	stsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 0, 0)}
			b.Events = []corev1.Event{objEvent("StatefulSet", "db", "Warning", "FailedCreate", "create Pod db-0 in StatefulSet db failed error: "+msg, 9, time.Minute)}
		}
	}
	dsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.DaemonSets = []*appsv1.DaemonSet{newDaemonSet(1, 0, 0)}
			b.Events = []corev1.Event{objEvent("DaemonSet", "agent", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	jobEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.Jobs = []*batchv1.Job{newJob("report", "", "", 0)}
			b.Events = []corev1.Event{objEvent("Job", "report", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	psa := `pods "agent-" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	runWorkloadCases(t, []workloadCase{
		{
			name:         "quota on a rollout: deployment condition and replicaset event are one finding",
			bundle:       workloadBundle("Deployment", "web", quotaDeployment),
			wantCategory: "FailedCreate/Quota",
			wantCulprit:  []string{"resourcequota/compute-resources", "limits.memory"},
			wantTitle:    []string{"compute-resources", "requested 2Gi", "used 7Gi", "limited 8Gi"},
			wantText:     []string{"used 7Gi of hard 8Gi", "maxSurge", "container app 2Gi", `"limits.memory":"9Gi"`},
			wantRule:     "Rollout/Stuck/ReplicasNotCreated",
			minConf:      0.9,
		},
		{
			name: "quota requires limits",
			bundle: workloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := newReplicaSet("web-new", 1, time.Hour, podTemplate("shop/web:1"), 2, 0)
				rs.OwnerReferences, rs.Status.Replicas = nil, 0
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Events = []corev1.Event{objEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", `Error creating: pods "web-new-" is forbidden: failed quota: compute-resources: must specify limits.cpu for: app; requests.cpu for: app`, 3, time.Minute)}
			}),
			wantCategory: "FailedCreate/QuotaMissingLimits",
			wantTitle:    []string{"compute-resources", "limits.cpu for: app"},
			wantText:     []string{"kubectl set resources replicaset/web-new"},
		},
		{
			name: "pod security on a daemonset names level, container and fields",
			bundle: workloadBundle("DaemonSet", "agent", dsEvent(psa), func(b *bundle.Bundle) {
				b.Namespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "team": "x"}}}
			}),
			wantCategory: "FailedCreate/PodSecurity",
			wantCulprit:  []string{"container app", "allowPrivilegeEscalation != false", "seccompProfile"},
			wantTitle:    []string{`"restricted:latest"`},
			wantText: []string{"pod-security.kubernetes.io/enforce=restricted",
				`kubectl patch daemonset/agent -n shop --type=strategic -p '{"spec":{"template":{"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"app","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}}}'`},
			minConf: 0.9,
		},
		{
			name:         "webhook denial on a job",
			bundle:       workloadBundle("Job", "report", jobEvent(`admission webhook "validation.gatekeeper.sh" denied the request: [require-team-label] you must provide labels: {"team"}`)),
			wantCategory: "FailedCreate/Webhook",
			wantCulprit:  []string{"validation.gatekeeper.sh", "require-team-label"},
		},
		{
			name:         "webhook without explanation",
			bundle:       workloadBundle("Job", "report", jobEvent(`admission webhook "deny.example.com" denied the request without explanation`)),
			wantCategory: "FailedCreate/Webhook",
			wantCulprit:  []string{"deny.example.com", "no explanation"},
		},
		{
			name:         "webhook backend unreachable",
			bundle:       workloadBundle("Job", "report", jobEvent(`Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": dial tcp 10.96.12.7:443: connect: connection refused`)),
			wantCategory: "FailedCreate/WebhookUnavailable",
			wantCulprit:  []string{"validate.kyverno.svc-fail", "kyverno/kyverno-svc"},
			wantText:     []string{"kubectl get endpointslices -n kyverno -l kubernetes.io/service-name=kyverno-svc"},
		},
		{
			name: "missing service account on a statefulset",
			bundle: workloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: error looking up service account shop/db-admin: serviceaccount "db-admin" not found`), func(b *bundle.Bundle) {
				b.Missing = []bundle.MissingRef{{Kind: "ServiceAccount", Namespace: "shop", Name: "db-admin"}}
			}),
			wantCategory: "FailedCreate/ServiceAccount",
			wantCulprit:  []string{"serviceAccountName: db-admin"},
			wantText:     []string{"kubectl create serviceaccount db-admin -n shop", "ServiceAccount shop/db-admin does not exist"},
			wantRule:     "StatefulSet/OrdinalBlocked",
		},
		{
			name:         "limit range maximum",
			bundle:       workloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`)),
			wantCategory: "FailedCreate/LimitRange",
			wantCulprit:  []string{"limits.memory (2Gi)", "maximum 1Gi"},
		},
		{
			name:         "limit range without a value",
			bundle:       workloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: minimum cpu usage per Container is 100m.  No request is specified`)),
			wantCategory: "FailedCreate/LimitRange",
			wantCulprit:  []string{"requests.cpu (not set)"},
		},
		{
			name:         "namespace terminating",
			bundle:       workloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: unable to create new content in namespace shop because it is being terminated`)),
			wantCategory: "FailedCreate/NamespaceTerminating",
			wantCulprit:  []string{"namespace/shop"},
		},
		{
			name:         "invalid pod",
			bundle:       workloadBundle("StatefulSet", "db", stsEvent(`Pod "db-0" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"`)),
			wantCategory: "FailedCreate/Invalid",
			wantCulprit:  []string{"volumeMounts[0].name"},
		},
		{
			name:         "other forbidden",
			bundle:       workloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: node selector conflicts with its namespace node label selector`)),
			wantCategory: "FailedCreate/Forbidden",
			wantCulprit:  []string{"node selector conflicts"},
		},
		{
			name:         "unclassified error",
			bundle:       workloadBundle("DaemonSet", "agent", dsEvent(`Timeout: request did not complete within requested timeout - context deadline exceeded`)),
			wantCategory: "FailedCreate/Other",
			wantCulprit:  []string{"Timeout"},
		},
		{
			name: "cronjob cannot create its job",
			bundle: workloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := newCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{objEvent("CronJob", "nightly", "Warning", "FailedCreate", `Error creating job: jobs.batch "nightly-29412345" is forbidden: exceeded quota: object-counts, requested: count/jobs.batch=1, used: count/jobs.batch=10, limited: count/jobs.batch=10`, 1, 5*time.Minute)}
			}),
			wantCategory: "FailedCreate/Quota",
			wantCulprit:  []string{"object-counts", "count/jobs.batch"},
			wantTitle:    []string{"Jobs cannot be created"},
		},
		{
			name: "an old refusal on a complete replicaset is history",
			bundle: workloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := newReplicaSet("web-new", 1, time.Hour, podTemplate("shop/web:1"), 1, 1)
				rs.OwnerReferences = nil
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Pods = []*corev1.Pod{ownedPod("web-new-aaaaa", ctrlRef("ReplicaSet", "web-new"), healthy)}
				b.Events = []corev1.Event{objEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+quotaMsg, 2, 3*time.Hour)}
			}),
			healthy: true,
		},
	})
}

func TestStatefulSetOrdinals(t *testing.T) {
	stsPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return ownedPod(name, ctrlRef("StatefulSet", "db"), mutate...)
	}
	runWorkloadCases(t, []workloadCase{
		{
			name: "unready first ordinal blocks the others",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{stsPod("db-0", runningUnready)}
				b.Events = []corev1.Event{event(b.Pods[0], "Warning", "Unhealthy", "Readiness probe failed: pg_isready: no response", 40)}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantCulprit:  []string{"pod/db-0 (ordinal 0)", "Running"},
			wantTitle:    []string{"db-1, db-2 cannot be created", "pg_isready"},
			wantText:     []string{"podManagementPolicy: Parallel"},
			minConf:      0.8,
		},
		{
			name: "first ordinal held by an init container that never finishes",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{stsPod("db-0", func(p *corev1.Pod) {
					p.Status = corev1.PodStatus{Phase: corev1.PodPending,
						Conditions:            []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}},
						InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait-for-primary", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-40 * time.Minute)}}}},
						ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "db-0", Container: "wait-for-primary", Init: true,
					Text: "2026-11-21T14:59:00Z waiting for db-primary:5432\n2026-11-21T14:59:05Z waiting for db-primary:5432\n"}}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantCulprit:  []string{"pod/db-0 (ordinal 0)", "init container wait-for-primary"},
			wantTitle:    []string{"40m ago", `"waiting for db-primary:5432"`, "db-1, db-2 cannot be created"},
			wantText:     []string{"kubectl logs db-0 -n shop -c wait-for-primary --tail=50", "which is not Ready: init container"},
		},
		{
			name: "crashing ordinal: the pod cause wins",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 2, 1)}
				b.Pods = []*corev1.Pod{stsPod("db-0", healthy), stsPod("db-1", crashing(1, "Error"))}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "db-1", Container: "app", Previous: true, Text: "FATAL: POSTGRES_PASSWORD is not set\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantRule:     "StatefulSet/OrdinalBlocked",
			wantText:     []string{"Pod db-1 is not Ready and blocks the creation of db-2"},
		},
		{
			name: "first ordinal missing",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(2, 0, 0)}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantTitle:    []string{"db-0 does not exist", "db-1"},
		},
		{
			name: "rolling update stuck on a broken pod",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 2, 1, func(s *appsv1.StatefulSet) { s.Status.UpdateRevision = "db-7d9a1" })}
				b.Pods = []*corev1.Pod{stsPod("db-0", healthy), stsPod("db-1", runningUnready)}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantText:     []string{"kubectl delete pod db-1 -n shop", "db-6c8f7 to db-7d9a1"},
		},
		{
			name: "parallel pod management is not ordered",
			bundle: workloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{newStatefulSet(3, 1, 0, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement })}
				b.Pods = []*corev1.Pod{stsPod("db-0", runningUnready)}
			}),
			noRule:  "StatefulSet/OrdinalBlocked",
			anyRoot: true,
		},
	})
}
