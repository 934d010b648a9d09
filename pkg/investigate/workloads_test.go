package investigate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"

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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Builders for workload bundles: objects linked by controller references
// as the controllers leave them.

func wlCtrlRef(kind, name string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &yes}
}

func wlI32(v int32) *int32 { return &v }
func wlI64(v int64) *int64 { return &v }

func wlMeta(name string, age time.Duration, owner ...metav1.OwnerReference) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-" + name), CreationTimestamp: ts(-age), OwnerReferences: owner}
}

func wlTemplate(image string, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
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

func wlDeployment(replicas int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: wlMeta("web", 48*time.Hour),
		Spec: appsv1.DeploymentSpec{Replicas: wlI32(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: wlTemplate("shop/web:2.4.0")},
		Status: appsv1.DeploymentStatus{Replicas: replicas, Conditions: conds},
	}
}

func wlStuckConditions(rs string) []appsv1.DeploymentCondition {
	return []appsv1.DeploymentCondition{
		{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
		{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
			Message: fmt.Sprintf("ReplicaSet %q has timed out progressing.", rs), LastTransitionTime: ts(-5 * time.Minute), LastUpdateTime: ts(-5 * time.Minute)},
	}
}

func wlReplicaSet(name string, rev int64, age time.Duration, tmpl corev1.PodTemplateSpec, replicas, ready int32) *appsv1.ReplicaSet {
	m := wlMeta(name, age, wlCtrlRef("Deployment", "web"))
	m.Annotations = map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)}
	m.Labels = map[string]string{"app": "web", "pod-template-hash": strings.TrimPrefix(name, "web-")}
	return &appsv1.ReplicaSet{ObjectMeta: m, Spec: appsv1.ReplicaSetSpec{Replicas: wlI32(replicas), Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}}
}

func wlOwnedPod(name string, owner metav1.OwnerReference, mutate ...func(*corev1.Pod)) *corev1.Pod {
	return pod(name, append([]func(*corev1.Pod){func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{owner} }}, mutate...)...)
}

func wlRunningNotReady(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: false,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-20 * time.Minute)}}}}
}

func wlPendingNoDecision(p *corev1.Pod) {
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
}

func wlWorkloadBundle(kind, name string, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
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

func wlObjEvent(kind, name, typ, reason, msg string, count int32, last time.Duration) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name + "." + strings.ToLower(reason), Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: "shop", UID: types.UID("uid-" + name)},
		Type:           typ, Reason: reason, Message: msg, Count: count,
		FirstTimestamp: ts(-last - 10*time.Minute), LastTimestamp: ts(-last),
	}
}

// wlTwoRevisions is a Deployment rolled from revision 1 (2 ready pods left)
// to revision 2 (newTmpl), whose pod is built by newPod.
func wlTwoRevisions(newTmpl corev1.PodTemplateSpec, newPod ...func(*corev1.Pod)) *bundle.Bundle {
	return wlWorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
		d := wlDeployment(3, wlStuckConditions("web-new")...)
		d.Spec.Template = newTmpl
		d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 1, 2, 2, 1
		oldRS := wlReplicaSet("web-old", 1, 48*time.Hour, wlTemplate("shop/web:2.3.1"), 2, 2)
		newRS := wlReplicaSet("web-new", 2, 20*time.Minute, newTmpl, 1, 0)
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{oldRS, newRS}
		b.Pods = []*corev1.Pod{
			wlOwnedPod("web-new-aaaaa", wlCtrlRef("ReplicaSet", "web-new"), newPod...),
			wlOwnedPod("web-old-bbbbb", wlCtrlRef("ReplicaSet", "web-old"), healthy),
		}
	})
}

func wlWithoutEnv(name string) func(*corev1.PodSpec) {
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

func wlReadinessPath(path string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) { s.Containers[0].ReadinessProbe.HTTPGet.Path = path }
}

func wlStatefulSet(replicas, existing, ready int32, mutate ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: wlMeta("db", 24*time.Hour),
		Spec: appsv1.StatefulSetSpec{Replicas: wlI32(replicas), ServiceName: "db",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: wlTemplate("postgres:16")},
		Status: appsv1.StatefulSetStatus{Replicas: existing, ReadyReplicas: ready, CurrentRevision: "db-6c8f7", UpdateRevision: "db-6c8f7"},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func wlDaemonSet(desired, current, ready int32, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: wlMeta("agent", 24*time.Hour),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: wlTemplate("shop/agent:1.0")},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: current, NumberReady: ready,
			NumberAvailable: ready, NumberUnavailable: desired - ready},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

func wlLabeledNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	n := node(name, "4")
	n.Labels = labels
	n.Spec.Taints = taints
	return n
}

func wlJob(name string, reason, msg string, failed int32, mutate ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: wlMeta(name, time.Hour),
		Spec: batchv1.JobSpec{BackoffLimit: wlI32(3), Completions: wlI32(1), Parallelism: wlI32(1),
			Template: wlTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })},
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

func wlCompleteJob(name string, age time.Duration, owner metav1.OwnerReference) *batchv1.Job {
	j := wlJob(name, "", "", 0)
	j.OwnerReferences = []metav1.OwnerReference{owner}
	j.CreationTimestamp = ts(-age)
	j.Status.StartTime = &metav1.Time{Time: now.Add(-age)}
	j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: now.Add(-age).Format(time.RFC3339)}
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	j.Status.Succeeded = 1
	return j
}

func wlFailedPod(code int32, reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, StartTime: &metav1.Time{Time: now.Add(-20 * time.Minute)},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: ts(-19 * time.Minute), FinishedAt: ts(-18 * time.Minute)}}}}}
	}
}

func wlPodLogs(pod, text string) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "shop", Pod: pod, Container: "app", Text: text})
	}
}

func wlCronJob(schedule string, mutate ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: wlMeta("nightly", 30*24*time.Hour),
		Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: wlTemplate("shop/report:1.0", func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyNever })}}},
	}
	for _, m := range mutate {
		m(cj)
	}
	return cj
}

// wlWorkloadCase is one bundle and what its report must say.
type wlWorkloadCase struct {
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

func wlRunWorkloadCases(t *testing.T, cases []wlWorkloadCase) {
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

const wlQuotaMsg = `pods "web-new-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi`

func TestFailedCreate(t *testing.T) {
	quotaDeployment := func(b *bundle.Bundle) {
		d := wlDeployment(3, append(wlStuckConditions("web-new"), appsv1.DeploymentCondition{
			Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: wlQuotaMsg, LastUpdateTime: ts(-2 * time.Minute)})...)
		big := wlTemplate("shop/web:2.4.0", func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
		})
		d.Spec.Template = big
		newRS := wlReplicaSet("web-new", 2, 20*time.Minute, big, 1, 0)
		newRS.Status.Replicas = 0
		b.Deployments = []*appsv1.Deployment{d}
		b.ReplicaSets = []*appsv1.ReplicaSet{wlReplicaSet("web-old", 1, 48*time.Hour, wlTemplate("shop/web:2.3.1"), 3, 3), newRS}
		b.Pods = []*corev1.Pod{wlOwnedPod("web-old-bbbbb", wlCtrlRef("ReplicaSet", "web-old"), healthy)}
		b.Events = []corev1.Event{wlObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+wlQuotaMsg, 14, time.Minute)}
		b.ResourceQuotas = []*corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "compute-resources", Namespace: "shop"},
			Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi")}, Used: corev1.ResourceList{"limits.memory": resource.MustParse("7Gi")}}}}
	}
	stsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 0, 0)}
			b.Events = []corev1.Event{wlObjEvent("StatefulSet", "db", "Warning", "FailedCreate", "create Pod db-0 in StatefulSet db failed error: "+msg, 9, time.Minute)}
		}
	}
	dsEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(1, 0, 0)}
			b.Events = []corev1.Event{wlObjEvent("DaemonSet", "agent", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	jobEvent := func(msg string) func(*bundle.Bundle) {
		return func(b *bundle.Bundle) {
			b.Jobs = []*batchv1.Job{wlJob("report", "", "", 0)}
			b.Events = []corev1.Event{wlObjEvent("Job", "report", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}
	}
	psa := `pods "agent-" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name:         "quota on a rollout: deployment condition and replicaset event are one finding",
			bundle:       wlWorkloadBundle("Deployment", "web", quotaDeployment),
			wantCategory: "FailedCreate/Quota",
			wantCulprit:  []string{"resourcequota/compute-resources", "limits.memory"},
			wantTitle:    []string{"compute-resources", "requested 2Gi", "used 7Gi", "limited 8Gi"},
			wantText:     []string{"used 7Gi of hard 8Gi", "maxSurge", "container app 2Gi", `"limits.memory":"9Gi"`},
			wantRule:     "Rollout/Stuck/ReplicasNotCreated",
			minConf:      0.9,
		},
		{
			name: "quota requires limits",
			bundle: wlWorkloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := wlReplicaSet("web-new", 1, time.Hour, wlTemplate("shop/web:1"), 2, 0)
				rs.OwnerReferences, rs.Status.Replicas = nil, 0
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Events = []corev1.Event{wlObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", `Error creating: pods "web-new-" is forbidden: failed quota: compute-resources: must specify limits.cpu for: app; requests.cpu for: app`, 3, time.Minute)}
			}),
			wantCategory: "FailedCreate/QuotaMissingLimits",
			wantTitle:    []string{"compute-resources", "limits.cpu for: app"},
			wantText:     []string{"kubectl set resources replicaset/web-new"},
		},
		{
			name: "pod security on a daemonset names level, container and fields",
			bundle: wlWorkloadBundle("DaemonSet", "agent", dsEvent(psa), func(b *bundle.Bundle) {
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
			bundle:       wlWorkloadBundle("Job", "report", jobEvent(`admission webhook "validation.gatekeeper.sh" denied the request: [require-team-label] you must provide labels: {"team"}`)),
			wantCategory: "FailedCreate/Webhook",
			wantCulprit:  []string{"validation.gatekeeper.sh", "require-team-label"},
		},
		{
			name:         "webhook without explanation",
			bundle:       wlWorkloadBundle("Job", "report", jobEvent(`admission webhook "deny.example.com" denied the request without explanation`)),
			wantCategory: "FailedCreate/Webhook",
			wantCulprit:  []string{"deny.example.com", "no explanation"},
		},
		{
			name:         "webhook backend unreachable",
			bundle:       wlWorkloadBundle("Job", "report", jobEvent(`Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": dial tcp 10.96.12.7:443: connect: connection refused`)),
			wantCategory: "FailedCreate/WebhookUnavailable",
			wantCulprit:  []string{"validate.kyverno.svc-fail", "kyverno/kyverno-svc"},
			wantText:     []string{"kubectl get endpointslices -n kyverno -l kubernetes.io/service-name=kyverno-svc"},
		},
		{
			name: "missing service account on a statefulset",
			bundle: wlWorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: error looking up service account shop/db-admin: serviceaccount "db-admin" not found`), func(b *bundle.Bundle) {
				b.Missing = []bundle.MissingRef{{Kind: "ServiceAccount", Namespace: "shop", Name: "db-admin"}}
			}),
			wantCategory: "FailedCreate/ServiceAccount",
			wantCulprit:  []string{"serviceAccountName: db-admin"},
			wantText:     []string{"kubectl create serviceaccount db-admin -n shop", "ServiceAccount shop/db-admin does not exist"},
			wantRule:     "StatefulSet/OrdinalBlocked",
		},
		{
			name:         "limit range maximum",
			bundle:       wlWorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`)),
			wantCategory: "FailedCreate/LimitRange",
			wantCulprit:  []string{"limits.memory (2Gi)", "maximum 1Gi"},
		},
		{
			name:         "limit range without a value",
			bundle:       wlWorkloadBundle("StatefulSet", "db", stsEvent(`pods "db-0" is forbidden: minimum cpu usage per Container is 100m.  No request is specified`)),
			wantCategory: "FailedCreate/LimitRange",
			wantCulprit:  []string{"requests.cpu (not set)"},
		},
		{
			name:         "namespace terminating",
			bundle:       wlWorkloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: unable to create new content in namespace shop because it is being terminated`)),
			wantCategory: "FailedCreate/NamespaceTerminating",
			wantCulprit:  []string{"namespace/shop"},
		},
		{
			name:         "invalid pod",
			bundle:       wlWorkloadBundle("StatefulSet", "db", stsEvent(`Pod "db-0" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"`)),
			wantCategory: "FailedCreate/Invalid",
			wantCulprit:  []string{"volumeMounts[0].name"},
		},
		{
			name:         "other forbidden",
			bundle:       wlWorkloadBundle("DaemonSet", "agent", dsEvent(`pods "agent-" is forbidden: node selector conflicts with its namespace node label selector`)),
			wantCategory: "FailedCreate/Forbidden",
			wantCulprit:  []string{"node selector conflicts"},
		},
		{
			name:         "unclassified error",
			bundle:       wlWorkloadBundle("DaemonSet", "agent", dsEvent(`Timeout: request did not complete within requested timeout - context deadline exceeded`)),
			wantCategory: "FailedCreate/Other",
			wantCulprit:  []string{"Timeout"},
		},
		{
			name: "cronjob cannot create its job",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Warning", "FailedCreate", `Error creating job: jobs.batch "nightly-29412345" is forbidden: exceeded quota: object-counts, requested: count/jobs.batch=1, used: count/jobs.batch=10, limited: count/jobs.batch=10`, 1, 5*time.Minute)}
			}),
			wantCategory: "FailedCreate/Quota",
			wantCulprit:  []string{"object-counts", "count/jobs.batch"},
			wantTitle:    []string{"Jobs cannot be created"},
		},
		{
			name: "an old refusal on a complete replicaset is history",
			bundle: wlWorkloadBundle("ReplicaSet", "web-new", func(b *bundle.Bundle) {
				rs := wlReplicaSet("web-new", 1, time.Hour, wlTemplate("shop/web:1"), 1, 1)
				rs.OwnerReferences = nil
				b.ReplicaSets = []*appsv1.ReplicaSet{rs}
				b.Pods = []*corev1.Pod{wlOwnedPod("web-new-aaaaa", wlCtrlRef("ReplicaSet", "web-new"), healthy)}
				b.Events = []corev1.Event{wlObjEvent("ReplicaSet", "web-new", "Warning", "FailedCreate", "Error creating: "+wlQuotaMsg, 2, 3*time.Hour)}
			}),
			healthy: true,
		},
	})
}

func TestRollout(t *testing.T) {
	probeEvent := func(b *bundle.Bundle) {
		b.Events = append(b.Events, event(b.Pods[0], "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 404", 60))
	}
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name:         "readiness probe changed: the rollout is the root cause",
			bundle:       wlTwoRevisions(wlTemplate("shop/web:2.4.0", wlReadinessPath("/ready")), wlRunningNotReady),
			wantCategory: "Rollout/Stuck/NotReady",
			wantCulprit:  []string{"web-new", "revision 2", "readinessProbe httpGet /healthz port 8080 → httpGet /ready port 8080"},
			wantTitle:    []string{"never become Ready"},
			wantText:     []string{"kubectl rollout undo deployment/web -n shop --to-revision=1", "still serves 2 ready pod(s)", "image shop/web:2.3.1 → shop/web:2.4.0"},
			minConf:      0.8,
		},
		{
			name: "probe failure message is quoted",
			bundle: func() *bundle.Bundle {
				b := wlTwoRevisions(wlTemplate("shop/web:2.4.0", wlReadinessPath("/ready")), wlRunningNotReady)
				probeEvent(b)
				return b
			}(),
			wantCategory: "Rollout/Stuck/NotReady",
			wantTitle:    []string{"statuscode: 404"},
		},
		{
			name: "crash introduced by the rollout: the pod cause wins, the rollout is context",
			bundle: func() *bundle.Bundle {
				b := wlTwoRevisions(wlTemplate("shop/web:2.4.0", wlWithoutEnv("DATABASE_URL")), crashing(1, "Error"))
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-new-aaaaa", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}
				return b
			}(),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantCulprit:  []string{"DATABASE_URL"},
			wantRule:     "Rollout/Stuck/PodsFailing",
			wantText:     []string{"Revision 2 introduced the pods' failure: it changed container app env DATABASE_URL removed"},
		},
		{
			name:         "new pods pending with no scheduling decision",
			bundle:       wlTwoRevisions(wlTemplate("shop/web:2.4.0"), wlPendingNoDecision),
			wantCategory: "Rollout/Stuck/Pending",
			wantTitle:    []string{"no scheduling decision"},
			isolated:     true,
		},
		{
			name:     "new pods pending: a pod-level finding explains them",
			bundle:   wlTwoRevisions(wlTemplate("shop/web:2.4.0"), wlPendingNoDecision),
			wantRule: "Rollout/Stuck/",
			anyRoot:  true,
		},
		{
			name: "new replicaset created no pod and no event says why",
			bundle: func() *bundle.Bundle {
				b := wlTwoRevisions(wlTemplate("shop/web:2.4.0"))
				b.Pods = b.Pods[1:]
				b.ReplicaSets[1].Status.Replicas = 0
				return b
			}(),
			wantCategory: "Rollout/Stuck/NoPods",
			wantTitle:    []string{"0 of 1 pods"},
		},
		{
			name: "single revision unavailable",
			bundle: wlWorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := wlDeployment(1,
					appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."})
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{wlReplicaSet("web-one", 1, time.Hour, wlTemplate("shop/web:2.4.0"), 1, 0)}
				b.Pods = []*corev1.Pod{wlOwnedPod("web-one-aaaaa", wlCtrlRef("ReplicaSet", "web-one"), wlRunningNotReady)}
			}),
			wantCategory: "Deployment/Unavailable/NotReady",
			wantTitle:    []string{"deployment web is unavailable"},
		},
		{
			name: "no replicaset at all",
			bundle: wlWorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				b.Deployments = []*appsv1.Deployment{wlDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable"})}
			}),
			wantCategory: "Deployment/Unavailable/NoReplicaSet",
		},
		{
			name: "healthy deployment",
			bundle: wlWorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := wlDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue},
					appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"})
				d.Status.AvailableReplicas, d.Status.ReadyReplicas, d.Status.UpdatedReplicas = 1, 1, 1
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{wlReplicaSet("web-one", 1, time.Hour, wlTemplate("shop/web:2.4.0"), 1, 1)}
				b.Pods = []*corev1.Pod{wlOwnedPod("web-one-aaaaa", wlCtrlRef("ReplicaSet", "web-one"), healthy)}
			}),
			healthy: true,
		},
	})
}

func TestDiffTemplates(t *testing.T) {
	old := wlTemplate("shop/web:2.3.1", func(s *corev1.PodSpec) {
		s.Containers[0].Command = []string{"/app", "serve"}
		s.Containers[0].Env = append(s.Containers[0].Env,
			corev1.EnvVar{Name: "API_TOKEN", Value: "[REDACTED]"},
			corev1.EnvVar{Name: "OLD_FLAG", Value: "1"},
			corev1.EnvVar{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-v1"}, Key: "password"}}})
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config-v1"}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web"}}
		s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 1}
		s.Containers = append(s.Containers, corev1.Container{Name: "sidecar", Image: "envoy:1.30"})
		s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-files-v1"}}}},
			{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	})
	cur := wlTemplate("shop/web:2.4.0", wlWithoutEnv("DATABASE_URL"), func(s *corev1.PodSpec) {
		s.Containers[0].Command = []string{"/app", "serve", "--fast"}
		s.Containers[0].Args = []string{"-v"}
		s.Containers[0].Env = append(s.Containers[0].Env,
			corev1.EnvVar{Name: "API_TOKEN", Value: "[REDACTED]x"},
			corev1.EnvVar{Name: "NEW_FLAG", Value: "yes"},
			corev1.EnvVar{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-v2"}, Key: "password"}}})
		s.Containers[0].Env[0].Value = "debug"
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config-v2"}}}}
		s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi"), corev1.ResourceCPU: resource.MustParse("500m")}
		s.Containers[0].ReadinessProbe.HTTPGet.Path = "/ready"
		s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 5}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web/conf.d"}}
		s.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/migrate:2.4.0"}}
		s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-files-v2"}}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}}}
		s.ServiceAccountName = "web"
		s.NodeSelector = map[string]string{"pool": "fast"}
		s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: boolPtr(true)}
		s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	})
	d := workload.DiffTemplates(&old, &cur)
	got := strings.Join(d.Changes, "\n")
	for _, want := range []string{
		"container app image shop/web:2.3.1 → shop/web:2.4.0",
		"container app command [/app serve] → [/app serve --fast]",
		"container app args [] → [-v]",
		`container app env LOG_LEVEL changed ("info" → "debug")`,
		"container app env API_TOKEN changed (value redacted → value redacted)",
		`container app env NEW_FLAG added ("yes")`,
		"container app env DB_PASSWORD changed (from Secret db-v1 key password → from Secret db-v2 key password)",
		"container app env DATABASE_URL removed",
		"container app env OLD_FLAG removed",
		"container app envFrom ConfigMap web-config-v2 added",
		"container app envFrom ConfigMap web-config-v1 removed",
		"container app limits.cpu 500m added",
		"container app limits.memory 512Mi → 128Mi",
		"container app livenessProbe tcpSocket port 8080 (initialDelaySeconds 0, periodSeconds 0, timeoutSeconds 1, failureThreshold 0) → tcpSocket port 8080 (initialDelaySeconds 0, periodSeconds 0, timeoutSeconds 5, failureThreshold 0)",
		"container app readinessProbe httpGet /healthz port 8080 → httpGet /ready port 8080",
		"container app mounts config at /etc/web/conf.d",
		"container app no longer mounts config at /etc/web",
		"init container migrate added (image shop/migrate:2.4.0)",
		"container sidecar removed",
		"volume config now ConfigMap web-files-v2 (was ConfigMap web-files-v1)",
		"volume data added (PVC web-data)",
		"volume cache removed (emptyDir)",
		"serviceAccountName (default) → web",
		"nodeSelector {} → {pool=fast}",
		"tolerations changed (0 → 1)",
		"pod securityContext changed",
		"imagePullSecrets [] → [regcred]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	cause := &rule.Finding{Title: "container app crashes: environment variable DATABASE_URL"}
	if m := d.Explains(cause); !strings.Contains(m, "DATABASE_URL removed") {
		t.Errorf("explains = %q, want the DATABASE_URL change", m)
	}
	if m := d.Explains(&rule.Finding{Title: "unrelated"}); m != "" {
		t.Errorf("explains an unrelated cause: %q", m)
	}
	if same := workload.DiffTemplates(&old, &old); len(same.Changes) != 0 {
		t.Errorf("identical templates differ: %v", same.Changes)
	}
}

func TestStatefulSetOrdinals(t *testing.T) {
	stsPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return wlOwnedPod(name, wlCtrlRef("StatefulSet", "db"), mutate...)
	}
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name: "unready first ordinal blocks the others",
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 1, 0)}
				b.Pods = []*corev1.Pod{stsPod("db-0", wlRunningNotReady)}
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
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 1, 0)}
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
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 2, 1)}
				b.Pods = []*corev1.Pod{stsPod("db-0", healthy), stsPod("db-1", crashing(1, "Error"))}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "db-1", Container: "app", Previous: true, Text: "FATAL: POSTGRES_PASSWORD is not set\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantRule:     "StatefulSet/OrdinalBlocked",
			wantText:     []string{"Pod db-1 is not Ready and blocks the creation of db-2"},
		},
		{
			name: "first ordinal missing",
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(2, 0, 0)}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantTitle:    []string{"db-0 does not exist", "db-1"},
		},
		{
			name: "rolling update stuck on a broken pod",
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 2, 1, func(s *appsv1.StatefulSet) { s.Status.UpdateRevision = "db-7d9a1" })}
				b.Pods = []*corev1.Pod{stsPod("db-0", healthy), stsPod("db-1", wlRunningNotReady)}
			}),
			wantCategory: "StatefulSet/OrdinalBlocked",
			wantText:     []string{"kubectl delete pod db-1 -n shop", "db-6c8f7 to db-7d9a1"},
		},
		{
			name: "parallel pod management is not ordered",
			bundle: wlWorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
				b.StatefulSets = []*appsv1.StatefulSet{wlStatefulSet(3, 1, 0, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement })}
				b.Pods = []*corev1.Pod{stsPod("db-0", wlRunningNotReady)}
			}),
			noRule:  "StatefulSet/OrdinalBlocked",
			anyRoot: true,
		},
	})
}

func TestDaemonSet(t *testing.T) {
	gpuTaint := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name: "node selector matches no node",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{wlLabeledNode("node-1", map[string]string{"disktype": "hdd"}), wlLabeledNode("node-2", nil)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			wantCulprit:  []string{"nodeSelector {disktype=ssd}"},
			wantTitle:    []string{"disktype=hdd", "no such label", "node-1", "node-2"},
			minConf:      0.9,
		},
		{
			name: "selector mismatch on nodes whose names say taint",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = []*corev1.Node{wlLabeledNode("taint-test-1", nil)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
		},
		{
			name: "selected nodes are tainted",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "gpu"} })}
				b.Nodes = []*corev1.Node{wlLabeledNode("cpu-1", map[string]string{"pool": "cpu"}), wlLabeledNode("gpu-1", map[string]string{"pool": "gpu"}, gpuTaint)}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/Taint",
			wantCulprit:  []string{"no toleration for dedicated=gpu:NoSchedule"},
		},
		{
			name: "every node tainted",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(0, 0, 0)}
				b.Nodes = []*corev1.Node{wlLabeledNode("gpu-1", nil, gpuTaint),
					wlLabeledNode("cp-1", nil, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})}
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/Taint",
			wantTitle:    []string{"dedicated=gpu:NoSchedule", "node-role.kubernetes.io/control-plane:NoSchedule"},
		},
		{
			name: "node selector and no node collected",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(0, 0, 0, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"} })}
				b.Nodes = nil
			}),
			wantCategory: "DaemonSet/NoEligibleNodes/NodeSelector",
			wantText:     []string{"kubectl label node <node> disktype=ssd"},
		},
		{
			name: "unready pod on one node, a tainted node excluded by design",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(2, 2, 1)}
				b.Nodes = []*corev1.Node{node("node-1", "4"), wlLabeledNode("node-2", nil), wlLabeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					wlOwnedPod("agent-aaaaa", wlCtrlRef("DaemonSet", "agent"), wlRunningNotReady),
					wlOwnedPod("agent-bbbbb", wlCtrlRef("DaemonSet", "agent"), healthy, func(p *corev1.Pod) { p.Spec.NodeName = "node-2" }),
				}
			}),
			wantCategory: "DaemonSet/Unavailable",
			wantCulprit:  []string{"agent-aaaaa", "node-1"},
			wantTitle:    []string{"1 of 2 nodes"},
			wantText:     []string{"gpu-1 (untolerated taint dedicated=gpu:NoSchedule)"},
		},
		{
			name: "node without a pod and a FailedCreate",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(1, 0, 0)}
				b.Events = []corev1.Event{wlObjEvent("DaemonSet", "agent", "Warning", "FailedCreate", `Error creating: pods "agent-" is forbidden: error looking up service account shop/agent: serviceaccount "agent" not found`, 4, time.Minute)}
			}),
			wantCategory: "FailedCreate/ServiceAccount",
			wantRule:     "DaemonSet/Unavailable",
		},
		{
			name: "crashing daemon pod: the pod cause wins",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(1, 1, 0)}
				b.Pods = []*corev1.Pod{wlOwnedPod("agent-aaaaa", wlCtrlRef("DaemonSet", "agent"), crashing(137, "OOMKilled"))}
			}),
			wantCategory: "OOMKilled",
			wantRule:     "DaemonSet/Unavailable",
		},
		{
			name: "misscheduled pod on a node it no longer tolerates",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				ds := wlDaemonSet(1, 1, 1)
				ds.Status.NumberMisscheduled = 1
				b.DaemonSets = []*appsv1.DaemonSet{ds}
				b.Nodes = []*corev1.Node{node("node-1", "4"), wlLabeledNode("gpu-1", nil, gpuTaint)}
				b.Pods = []*corev1.Pod{
					wlOwnedPod("agent-aaaaa", wlCtrlRef("DaemonSet", "agent"), healthy),
					wlOwnedPod("agent-ggggg", wlCtrlRef("DaemonSet", "agent"), healthy, func(p *corev1.Pod) { p.Spec.NodeName = "gpu-1" }),
				}
			}),
			wantCategory: "DaemonSet/Misscheduled/Taint",
			wantCulprit:  []string{"agent-ggggg on node gpu-1", "dedicated=gpu:NoSchedule"},
		},
		{
			name: "healthy daemonset",
			bundle: wlWorkloadBundle("DaemonSet", "agent", func(b *bundle.Bundle) {
				b.DaemonSets = []*appsv1.DaemonSet{wlDaemonSet(1, 1, 1)}
				b.Pods = []*corev1.Pod{wlOwnedPod("agent-aaaaa", wlCtrlRef("DaemonSet", "agent"), healthy)}
			}),
			healthy: true,
		},
	})
}

func TestNodeExclusion(t *testing.T) {
	spec := func(mutate func(*corev1.PodSpec)) *corev1.PodSpec {
		s := &corev1.PodSpec{}
		mutate(s)
		return s
	}
	n := wlLabeledNode("n", map[string]string{"zone": "a", "gen": "5"},
		corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule})
	affinity := func(reqs ...corev1.NodeSelectorRequirement) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}}}
		}
	}
	tests := []struct {
		name string
		spec *corev1.PodSpec
		node *corev1.Node
		want string
	}{
		{"cordoned node is tolerated by default", spec(func(*corev1.PodSpec) {}), n, ""},
		{"selector matches", spec(func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"zone": "a"} }), n, ""},
		{"selector mismatch", spec(func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"zone": "b"} }), n, "nodeSelector zone=b does not match (zone=a)"},
		{"affinity In", spec(affinity(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}})), n, ""},
		{"affinity NotIn", spec(affinity(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}})), n, "required node affinity"},
		{"affinity Exists", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpExists})), n, ""},
		{"affinity DoesNotExist", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpDoesNotExist})), n, "required node affinity"},
		{"affinity Gt", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}})), n, ""},
		{"affinity Lt", spec(affinity(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}})), n, "required node affinity"},
		{"untolerated taint", spec(func(*corev1.PodSpec) {}), wlLabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), "untolerated taint dedicated=db:NoExecute"},
		{"tolerated by Equal", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}}
		}), wlLabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}), ""},
		{"Equal with another value", spec(func(s *corev1.PodSpec) {
			s.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "web"}}
		}), wlLabeledNode("t", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
		{"tolerate everything", spec(func(s *corev1.PodSpec) { s.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} }),
			wlLabeledNode("t", nil, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable tolerated with hostNetwork", spec(func(s *corev1.PodSpec) { s.HostNetwork = true }),
			wlLabeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), ""},
		{"network-unavailable without hostNetwork", spec(func(*corev1.PodSpec) {}),
			wlLabeledNode("t", nil, corev1.Taint{Key: "node.kubernetes.io/network-unavailable", Effect: corev1.TaintEffectNoSchedule}), "untolerated taint"},
	}
	for _, tt := range tests {
		got := workload.NodeExclusion(tt.spec, tt.node)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	p := pod("agent-x", func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-9"}}}}}}}}
	})
	if got := workload.DaemonPodNode(p); got != "node-9" {
		t.Errorf("daemon pod node = %q, want node-9 from its affinity", got)
	}
}

func TestJobFailed(t *testing.T) {
	jobPod := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return wlOwnedPod(name, wlCtrlRef("Job", "report"), mutate...)
	}
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name: "backoff limit: failed pods exit with a missing env line",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", wlFailedPod(1, "Error")), jobPod("report-bbbbb", wlFailedPod(1, "Error"))}
			}, wlPodLogs("report-aaaaa", "2026-11-21T14:40:00Z loading\n2026-11-21T14:40:01Z FATAL: S3_BUCKET is not set\n"), wlPodLogs("report-bbbbb", "FATAL: S3_BUCKET is not set\n")),
			wantCategory: "Job/BackoffLimitExceeded/MissingEnv",
			wantCulprit:  []string{"S3_BUCKET"},
			wantTitle:    []string{"exits with code 1", "environment variable S3_BUCKET"},
			wantText:     []string{"more than its backoffLimit of 3", "report-aaaaa, report-bbbbb"},
			minConf:      0.9,
			isolated:     true,
		},
		{
			name: "backoff limit: a pod-level finding explains the failed pods",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", wlFailedPod(1, "Error"))}
			}, wlPodLogs("report-aaaaa", "FATAL: S3_BUCKET is not set\n")),
			wantRule: "Job/BackoffLimitExceeded",
			anyRoot:  true,
		},
		{
			name: "backoff limit with the exit code only",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", wlFailedPod(2, "Error"))}
			}),
			wantCategory: "Job/BackoffLimitExceeded/Exit2",
			wantTitle:    []string{"code 2 (misuse or invalid arguments)"},
			isolated:     true,
		},
		{
			name: "backoff limit, pods gone",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
			}),
			wantCategory: "Job/BackoffLimitExceeded",
			wantCulprit:  []string{"job/report spec.backoffLimit"},
			wantText:     []string{"4 failed", "pods are gone"},
		},
		{
			name: "deadline exceeded, pods gone",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "DeadlineExceeded", "Job was active longer than specified deadline", 1, func(j *batchv1.Job) {
					j.Spec.ActiveDeadlineSeconds = wlI64(600)
				})}
			}),
			wantCategory: "Job/DeadlineExceeded",
			wantCulprit:  []string{"spec.activeDeadlineSeconds"},
			wantTitle:    []string{"(600s)", "0 of 1 completions"},
		},
		{
			name: "evicted pod",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", func(p *corev1.Pod) {
					p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi."}
				})}
			}),
			wantCategory: "Job/BackoffLimitExceeded/Evicted",
			wantTitle:    []string{"ephemeral-storage"},
			isolated:     true,
		},
		{
			name: "pod failure policy",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "PodFailurePolicy", `Container app for pod shop/report-aaaaa failed with exit code 42 matching FailJob rule at index 0`, 1)}
			}),
			wantCategory: "Job/PodFailurePolicy",
			wantTitle:    []string{"exit code 42"},
		},
		{
			name: "OnFailure job crash-looping: the pod cause wins",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				b.Jobs = []*batchv1.Job{wlJob("report", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 0)}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", crashing(1, "Error"), func(p *corev1.Pod) {
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
				})}
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "report-aaaaa", Container: "app", Previous: true, Text: "dial tcp 10.0.0.5:5432: connect: connection refused\n"}}
			}),
			wantCategory: "CrashLoop/Exit1/ConnectionRefused",
			wantRule:     "Job/BackoffLimitExceeded",
		},
		{
			name: "running job is not failed",
			bundle: wlWorkloadBundle("Job", "report", func(b *bundle.Bundle) {
				j := wlJob("report", "", "", 0)
				j.Status.Active = 1
				b.Jobs = []*batchv1.Job{j}
				b.Pods = []*corev1.Pod{jobPod("report-aaaaa", healthy)}
			}),
			healthy: true,
		},
	})
}

func TestCronJob(t *testing.T) {
	cjRef := wlCtrlRef("CronJob", "nightly")
	cronPod := func(jobName, name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		return wlOwnedPod(name, wlCtrlRef("Job", jobName), mutate...)
	}
	failedRun := func(name string, age time.Duration) *batchv1.Job {
		j := wlJob(name, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4)
		j.OwnerReferences = []metav1.OwnerReference{cjRef}
		j.CreationTimestamp = ts(-age)
		j.Annotations = map[string]string{batchv1.CronJobScheduledTimestampAnnotation: now.Add(-age).Format(time.RFC3339)}
		return j
	}
	wlRunWorkloadCases(t, []wlWorkloadCase{
		{
			name: "last runs failed",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				cj.Status.LastSuccessfulTime = &metav1.Time{Time: now.Add(-61 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				older := failedRun("nightly-1", 37*time.Hour)
				older.CreationTimestamp = ts(-13 * time.Hour) // recreated: only the scheduled time orders the runs
				b.Jobs = []*batchv1.Job{older, failedRun("nightly-2", 13*time.Hour), wlCompleteJob("nightly-0", 61*time.Hour, cjRef)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", wlFailedPod(1, "Error"))}
			}, wlPodLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			wantCategory: "CronJob/FailingJobs/MissingFile",
			wantCulprit:  []string{"/etc/report/config.yaml"},
			wantTitle:    []string{"last 2 run(s) failed", "nightly-0", "nightly-2"},
			minConf:      0.8,
			isolated:     true,
		},
		{
			name: "last runs failed: a pod-level finding explains the pod",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
				b.Pods = []*corev1.Pod{cronPod("nightly-2", "nightly-2-aaaaa", wlFailedPod(1, "Error"))}
			}, wlPodLogs("nightly-2-aaaaa", "open /etc/report/config.yaml: no such file or directory\n")),
			wantRule: "CronJob/FailingJobs",
			anyRoot:  true,
		},
		{
			name: "failed run whose pods are gone",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 2 * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-13 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{failedRun("nightly-2", 13*time.Hour)}
			}),
			wantCategory: "CronJob/FailingJobs",
			wantTitle:    []string{"no successful run", "pods are gone"},
		},
		{
			name: "suspended for days",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = boolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-72 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			wantCategory: "CronJob/Suspended",
			wantCulprit:  []string{"spec.suspend: true"},
			wantTitle:    []string{"72 scheduled run(s) skipped", "3d ago"},
			wantText:     []string{`kubectl patch cronjob nightly -n shop -p '{"spec":{"suspend":false}}'`, "about every 1h"},
		},
		{
			name: "suspended a moment ago is deliberate",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = boolPtr(true) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-30 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			healthy: true,
		},
		{
			name: "too many missed start times",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew", 12, time.Minute)}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantCulprit:  []string{"startingDeadlineSeconds"},
			wantTitle:    []string{"more than 100", "119 run(s)"},
			wantText:     []string{`{"spec":{"startingDeadlineSeconds":150}}`},
		},
		{
			name: "old controller wording",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("*/5 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-10 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Warning", "FailedNeedsStart", "Cannot determine if job needs to be started: too many missed start time (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.", 3, time.Minute)}
			}),
			wantCategory: "CronJob/MissedSchedules",
		},
		{
			name: "start deadline too short",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 * * * *", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = wlI64(5) })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-3 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Warning", "MissSchedule", "Missed scheduled time to start a job: Sat, 21 Nov 2026 14:00:00 +0000", 3, time.Hour)}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantTitle:    []string{"startingDeadlineSeconds 5"},
		},
		{
			name: "schedule lags with no event",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("*/15 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-2 * time.Hour)}
				b.CronJobs = []*batchv1.CronJob{cj}
			}),
			wantCategory: "CronJob/MissedSchedules",
			wantTitle:    []string{"7 run(s)", "no event says why"},
			wantText:     []string{"kube-controller-manager"},
		},
		{
			name: "forbid blocked by a hung run",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("*/15 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent })
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "nightly-5", Namespace: "shop"}}
				b.CronJobs = []*batchv1.CronJob{cj}
				running := wlJob("nightly-5", "", "", 0)
				running.OwnerReferences = []metav1.OwnerReference{cjRef}
				running.Status.Active = 1
				running.Status.StartTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				b.Jobs = []*batchv1.Job{running}
				b.Pods = []*corev1.Pod{cronPod("nightly-5", "nightly-5-aaaaa", func(p *corev1.Pod) {
					p.Status.StartTime = &metav1.Time{Time: now.Add(-6 * time.Hour)}
				}, healthy)}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid", 23, time.Minute)}
			}),
			wantCategory: "CronJob/ConcurrencyBlocked",
			wantCulprit:  []string{"job/nightly-5", "concurrencyPolicy: Forbid"},
			wantTitle:    []string{"24 schedule(s) skipped", "nightly-5-aaaaa has been running since", "has not completed"},
			wantText:     []string{"has no activeDeadlineSeconds", "kubectl delete job nightly-5 -n shop"},
		},
		{
			name: "invalid time zone",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				b.CronJobs = []*batchv1.CronJob{wlCronJob("0 2 * * *", func(cj *batchv1.CronJob) { tz := "Mars/Olympus"; cj.Spec.TimeZone = &tz })}
				b.Events = []corev1.Event{wlObjEvent("CronJob", "nightly", "Warning", "UnknownTimeZone", `invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`, 30, time.Minute)}
			}),
			wantCategory: "CronJob/InvalidSchedule",
			wantCulprit:  []string{"Mars/Olympus"},
		},
		{
			name: "healthy cronjob",
			bundle: wlWorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
				cj := wlCronJob("0 * * * *")
				cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-40 * time.Minute)}
				b.CronJobs = []*batchv1.CronJob{cj}
				b.Jobs = []*batchv1.Job{wlCompleteJob("nightly-9", 40*time.Minute, cjRef)}
			}),
			healthy: true,
		},
	})
}
