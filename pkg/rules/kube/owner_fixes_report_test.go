package kube_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	noderules "github.com/kubectl-triage/kubectl-triage/pkg/rules/node"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

func TestTemplateCommandsPerOwner(t *testing.T) {
	const what = "set resources.limits.memory: 1Gi for container app"
	for _, tt := range []struct {
		name, kind, owner, stuckRun string
		edit                        string
		want                        []string
	}{
		{name: "deployment", kind: "deployment", owner: "web",
			edit: "kubectl set resources deployment/web -n shop -c app --limits=memory=1Gi",
			want: []string{"kubectl set resources deployment/web -n shop -c app --limits=memory=1Gi"}},
		{name: "statefulset", kind: "statefulset", owner: "db",
			edit: "kubectl set resources statefulset/db -n shop -c app --limits=memory=1Gi",
			want: []string{"kubectl set resources statefulset/db -n shop -c app --limits=memory=1Gi"}},
		{name: "replicaset", kind: "replicaset", owner: "web-abc",
			edit: "kubectl set resources replicaset/web-abc -n shop -c app --limits=memory=1Gi",
			want: []string{"kubectl set resources replicaset/web-abc -n shop -c app --limits=memory=1Gi"}},
		{name: "job: its template is immutable, so it is recreated", kind: "job", owner: "once",
			edit: "kubectl set resources job/once -n shop -c app --limits=memory=1Gi",
			want: []string{
				"kubectl get job once -n shop -o yaml > once.yaml   # " + what + "; remove status, metadata.uid/resourceVersion, spec.selector and the controller-uid labels",
				"kubectl replace --force -f once.yaml",
			}},
		{name: "cronjob: the change, then a run now", kind: "cronjob", owner: "nightly",
			edit: "kubectl set resources cronjob/nightly -n shop -c app --limits=memory=1Gi",
			want: []string{
				"kubectl set resources cronjob/nightly -n shop -c app --limits=memory=1Gi",
				"kubectl create job nightly-manual-$(date +%s) -n shop --from=cronjob/nightly",
			}},
		{name: "cronjob with a stuck run: deleted before the new run", kind: "cronjob", owner: "nightly", stuckRun: "nightly-29000000",
			edit: "kubectl set resources cronjob/nightly -n shop -c app --limits=memory=1Gi",
			want: []string{
				"kubectl set resources cronjob/nightly -n shop -c app --limits=memory=1Gi",
				"kubectl delete job nightly-29000000 -n shop",
				"kubectl create job nightly-manual-$(date +%s) -n shop --from=cronjob/nightly",
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			edit := []string{tt.edit}
			got := kube.TemplateCommands(tt.kind, tt.owner, "shop", edit, what, tt.stuckRun)
			if !slices.Equal(got, tt.want) {
				t.Errorf("commands\n%q\nwant\n%q", got, tt.want)
			}
			if edit[0] != tt.edit || len(edit) != 1 {
				t.Errorf("templateCommands changed its input: %q", edit)
			}
		})
	}
}

// ownerFixKind is an owner of the failing pod and what a fix of its pod
// template must look like.
type ownerFixKind struct {
	kind    string // the bundle's target kind
	inPlace string // a fragment of the command that changes the template in place
	bundle  func(pod ...func(*corev1.Pod)) *bundle.Bundle
}

var ownerFixKinds = []ownerFixKind{
	{"Deployment", "deployment/web ", func(pod ...func(*corev1.Pod)) *bundle.Bundle {
		return bundletest.WorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
			d := bundletest.NewDeployment(1)
			b.Deployments = []*appsv1.Deployment{d}
			b.ReplicaSets = []*appsv1.ReplicaSet{bundletest.NewReplicaSet("web-abc", 1, time.Hour, d.Spec.Template, 1, 0)}
			b.Pods = []*corev1.Pod{bundletest.OwnedPod("web-abc-x1", bundletest.CtrlRef("ReplicaSet", "web-abc"), pod...)}
		})
	}},
	{"StatefulSet", "statefulset/db ", func(pod ...func(*corev1.Pod)) *bundle.Bundle {
		return bundletest.WorkloadBundle("StatefulSet", "db", func(b *bundle.Bundle) {
			b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(1, 1, 0)}
			b.Pods = []*corev1.Pod{bundletest.OwnedPod("db-0", bundletest.CtrlRef("StatefulSet", "db"), pod...)}
		})
	}},
	{"Job", "", func(pod ...func(*corev1.Pod)) *bundle.Bundle {
		return bundletest.WorkloadBundle("Job", "once", func(b *bundle.Bundle) {
			j := bundletest.NewJob("once", "", "", 0)
			j.Status.Active = 1
			b.Jobs = []*batchv1.Job{j}
			b.Pods = []*corev1.Pod{bundletest.OwnedPod("once-x1", bundletest.CtrlRef("Job", "once"), pod...)}
		})
	}},
	{"CronJob", "cronjob/nightly ", func(pod ...func(*corev1.Pod)) *bundle.Bundle {
		return bundletest.WorkloadBundle("CronJob", "nightly", func(b *bundle.Bundle) {
			run := bundletest.NewJob("nightly-1", "", "", 0)
			run.OwnerReferences = []metav1.OwnerReference{bundletest.CtrlRef("CronJob", "nightly")}
			run.Status.Active = 1
			b.CronJobs = []*batchv1.CronJob{bundletest.NewCronJob("0 3 * * *", func(cj *batchv1.CronJob) {
				cj.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "nightly-1", Namespace: "shop", UID: run.UID}}
			})}
			b.Jobs = []*batchv1.Job{run}
			b.Pods = []*corev1.Pod{bundletest.OwnedPod("nightly-1-x1", bundletest.CtrlRef("Job", "nightly-1"), pod...)}
		})
	}},
}

// checkOwnerFix checks the fix of the pod template that an owner of kind
// gets: the change in place, which rolls out, for a Deployment or
// StatefulSet; for a Job, whose
// template is immutable, an edit of its manifest and a recreate; for a
// CronJob, the change in place and a run started now, after deleting the
// stuck run when the pods cannot start (pending).
func checkOwnerFix(t *testing.T, o ownerFixKind, a report.Action, pending bool) {
	t.Helper()
	cmds := strings.Join(a.Commands, "\n")
	switch o.kind {
	case "Deployment", "StatefulSet":
		if !strings.Contains(cmds, o.inPlace) || strings.Contains(cmds, "create job") {
			t.Errorf("fix %q: commands %q; want a change of %s alone", a.Description, a.Commands, o.inPlace)
		}
		for _, other := range []string{kube.ReplicaSetTemplateRisk, kube.ReplicaSetPendingRisk, kube.JobTemplateRisk, kube.CronJobTemplateRisk, kube.CronJobPendingRisk} {
			if strings.Contains(a.Risk, other) {
				t.Errorf("fix %q of a %s: risk %q", a.Description, o.kind, a.Risk)
			}
		}
	case "Job":
		recreate := []string{"kubectl get job once -n shop -o yaml > once.yaml   # ", "spec.selector and the controller-uid labels", "kubectl replace --force -f once.yaml"}
		for _, want := range recreate {
			if !strings.Contains(cmds, want) {
				t.Errorf("fix %q: commands %q lack %q", a.Description, a.Commands, want)
			}
		}
		if strings.Contains(cmds, "job/once") {
			t.Errorf("fix %q changes the Job's immutable template in place: %q", a.Description, a.Commands)
		}
		if !strings.Contains(a.Risk, kube.JobTemplateRisk) {
			t.Errorf("fix %q: risk %q lacks %q", a.Description, a.Risk, kube.JobTemplateRisk)
		}
	case "CronJob":
		want := []string{"kubectl create job nightly-manual-$(date +%s) -n shop --from=cronjob/nightly"}
		risk := kube.CronJobTemplateRisk
		if pending {
			want = append([]string{"kubectl delete job nightly-1 -n shop"}, want...)
			risk = kube.CronJobPendingRisk
		}
		if !strings.Contains(cmds, o.inPlace) || len(a.Commands) < len(want) || !slices.Equal(a.Commands[len(a.Commands)-len(want):], want) {
			t.Errorf("fix %q: commands %q; want a change of %s, then %q", a.Description, a.Commands, o.inPlace, want)
		}
		if !strings.Contains(a.Risk, risk) {
			t.Errorf("fix %q: risk %q lacks %q", a.Description, a.Risk, risk)
		}
	}
}

// noRolloutFor: neither a Job nor a CronJob rolls anything out, and kubectl
// rollout knows neither.
func noRolloutFor(t *testing.T, kind string, actions []report.Action) {
	t.Helper()
	if kind != "Job" && kind != "CronJob" {
		return
	}
	for _, a := range actions {
		if strings.Contains(a.Risk, "rollout") || strings.Contains(strings.Join(a.Commands, "\n"), "rollout") {
			t.Errorf("action %q of a %s's pod speaks of a rollout: risk %q, commands %q", a.Description, kind, a.Risk, a.Commands)
		}
	}
}

func findAction(actions []report.Action, desc string) (report.Action, bool) {
	i := slices.IndexFunc(actions, func(a report.Action) bool { return strings.Contains(a.Description, desc) })
	if i < 0 {
		return report.Action{}, false
	}
	return actions[i], true
}

func TestPodTemplateFixesPerOwner(t *testing.T) {
	const image = "registry.example.com/shop/web:9.9.9"
	pullFails := func(class string) func(*bundle.Bundle) {
		msg := `failed to pull and unpack image "` + image + `": not found`
		if class == "Auth" {
			msg = `failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized`
		}
		return func(b *bundle.Bundle) {
			b.Events = append(b.Events, bundletest.ObjEvent("Pod", b.Pods[0].Name, "Warning", "Failed", `Failed to pull image "`+image+`": rpc error: code = NotFound desc = `+msg, 3, time.Minute))
			b.ServiceAccounts = []*corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "shop"}}}
		}
	}
	imagePending := func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}}}}
	}
	for _, tt := range []struct {
		name     string
		pod      []func(*corev1.Pod)
		bundle   []func(*bundle.Bundle)
		category string // root cause category prefix
		fix      string // a fragment of the fix's description
		pending  bool
	}{
		{
			name:     "request larger than every node",
			pod:      []func(*corev1.Pod){bundletest.Unscheduled("0/2 nodes are available: 2 Insufficient memory.", "100m"), bundletest.ScRequest(corev1.ResourceMemory, "64Gi")},
			bundle:   []func(*bundle.Bundle){bundletest.ScNodes(bundletest.ScNode("a"), bundletest.ScNode("b"))},
			category: "Unschedulable/InsufficientMemory", fix: "Lower the memory request", pending: true,
		},
		{
			name:     "untolerated taint",
			pod:      []func(*corev1.Pod){bundletest.Unscheduled("0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}.", "100m")},
			bundle:   []func(*bundle.Bundle){bundletest.ScNodes(bundletest.ScNode("gpu-1", bundletest.ScTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)), bundletest.ScNode("gpu-2", bundletest.ScTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule)))},
			category: "Unschedulable/Taint", fix: "add a toleration", pending: true,
		},
		{
			name: "nodeSelector no node carries",
			pod: []func(*corev1.Pod){bundletest.Unscheduled("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", "100m"),
				func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "nvme"} }},
			bundle:   []func(*bundle.Bundle){bundletest.ScNodes(bundletest.ScNode("a", bundletest.ScLabels("disktype", "ssd")), bundletest.ScNode("b", bundletest.ScLabels("disktype", "ssd")))},
			category: "Unschedulable/NodeSelector", fix: "Correct nodeSelector", pending: true,
		},
		{
			name:     "image tag that does not exist",
			pod:      []func(*corev1.Pod){imagePending},
			bundle:   []func(*bundle.Bundle){pullFails("NotFound")},
			category: "ImagePull/NotFound", fix: "", pending: true,
		},
		{
			name:     "registry refuses the anonymous pull",
			pod:      []func(*corev1.Pod){imagePending},
			bundle:   []func(*bundle.Bundle){pullFails("Auth")},
			category: "ImagePull/Auth", fix: "", pending: true,
		},
		{
			name:     "OOM killed at its limit",
			pod:      []func(*corev1.Pod){bundletest.Crashing(137, "OOMKilled")},
			category: "OOMKilled", fix: "Raise the memory limit",
		},
	} {
		for _, o := range ownerFixKinds {
			t.Run(tt.name+"/"+o.kind, func(t *testing.T) {
				b := o.bundle(tt.pod...)
				for _, m := range tt.bundle {
					m(b)
				}
				r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
				if !strings.HasPrefix(r.RootCause.Category, tt.category) {
					t.Fatalf("root cause %q, want %q: %s", r.RootCause.Category, tt.category, r.Title)
				}
				a, ok := findAction(r.Actions, tt.fix)
				if tt.fix == "" && len(r.Actions) > 0 {
					a, ok = r.Actions[0], true
				}
				if !ok {
					t.Fatalf("no action %q: %+v", tt.fix, r.Actions)
				}
				checkOwnerFix(t, o, a, tt.pending)
				noRolloutFor(t, o.kind, r.Actions)
			})
		}
	}
}

// A pod evicted for using more than it requested: the request is raised
// in the owner's template (the eviction is past, so its own finding is
// read).
func TestEvictionFixPerOwner(t *testing.T) {
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi. Container app was using 1200Mi, request is 128Mi, has larger consumption of memory. "
	for _, o := range ownerFixKinds {
		t.Run(o.kind, func(t *testing.T) {
			b := o.bundle(bundletest.NtEvicted(msg))
			fs := noderules.PodNode.Check(investigatetest.Pass(b))
			if len(fs) == 0 || !strings.HasPrefix(string(fs[0].Category), "Node/MemoryPressure/Evicted") {
				t.Fatalf("findings %+v, want an eviction", fs)
			}
			a, ok := findAction(fs[0].Actions, "request what it really uses")
			if !ok {
				t.Fatalf("no fix raises the request: %+v", fs[0].Actions)
			}
			checkOwnerFix(t, o, a, false)
			if o.kind == "Job" && !strings.Contains(a.Commands[0], "# set resources.requests.memory: 1200Mi for container app;") {
				t.Errorf("the Job's manifest edit does not say what to change: %q", a.Commands[0])
			}
			noRolloutFor(t, o.kind, fs[0].Actions)
		})
	}
}

// A crash on a key a ConfigMap lacks: once the ConfigMap is fixed, a
// Deployment's pods are restarted with kubectl rollout restart, which
// knows neither Jobs nor CronJobs; a CronJob's run can be started now.
func TestConfigMapFixRestartPerOwner(t *testing.T) {
	for _, tt := range []struct {
		kind, want string
	}{
		{"Deployment", "kubectl rollout restart deployment/web -n shop"},
		{"StatefulSet", "kubectl rollout restart statefulset/db -n shop"},
		{"Job", ""},
		{"CronJob", "kubectl create job nightly-manual-$(date +%s) -n shop --from=cronjob/nightly"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			o := ownerFixKinds[slices.IndexFunc(ownerFixKinds, func(o ownerFixKind) bool { return o.kind == tt.kind })]
			b := o.bundle(bundletest.Crashing(1, "Error"), func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-env"}}}}
			})
			bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n")(b)
			bundletest.WithCMs(bundletest.CMWith("api-env", map[string]string{"DATABASE_HOST": "db"}))(b)
			r := investigate.Investigate(b, investigate.Options{Now: bundletest.Now})
			if !strings.HasPrefix(r.RootCause.Category, "ConfigMap/MissingKey") {
				t.Fatalf("root cause %q, want ConfigMap/MissingKey: %s", r.RootCause.Category, r.Title)
			}
			var restarts []string
			for _, a := range r.Actions {
				for _, c := range a.Commands {
					if strings.Contains(c, "rollout restart") || strings.Contains(c, "create job") {
						restarts = append(restarts, c)
					}
				}
			}
			if want := []string{tt.want}; tt.want == "" && len(restarts) > 0 || tt.want != "" && !slices.Equal(restarts, want) {
				t.Errorf("restart commands %q, want %q", restarts, tt.want)
			}
			noRolloutFor(t, tt.kind, r.Actions)
		})
	}
}

// Admission refuses the pods of a workload: the fix of its pod template
// reaches them as the owner allows. A CronJob's run that was refused its
// pods is the stuck run.
func TestFailedCreateFixesPerOwner(t *testing.T) {
	const quota = `pods "x-" is forbidden: exceeded quota: compute-resources, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi`
	const missing = `pods "x-" is forbidden: failed quota: compute-resources: must specify limits.cpu for: app; requests.cpu for: app`
	const invalid = `Pod "x-1" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"`
	const psa = `pods "x-" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false)`
	const sa = `pods "x-" is forbidden: error looking up service account shop/builder: serviceaccount "builder" not found`
	owners := []struct {
		kind string
		o    ownerFixKind
		add  func(b *bundle.Bundle, msg string)
	}{
		{"StatefulSet", ownerFixKinds[1], func(b *bundle.Bundle, msg string) {
			b.StatefulSets = []*appsv1.StatefulSet{bundletest.NewStatefulSet(3, 0, 0)}
			b.Events = []corev1.Event{bundletest.ObjEvent("StatefulSet", "db", "Warning", "FailedCreate", "create Pod db-0 in StatefulSet db failed error: "+msg, 9, time.Minute)}
		}},
		{"Job", ownerFixKinds[2], func(b *bundle.Bundle, msg string) {
			b.Jobs = []*batchv1.Job{bundletest.NewJob("once", "", "", 0)}
			b.Events = []corev1.Event{bundletest.ObjEvent("Job", "once", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}},
		{"CronJob", ownerFixKinds[3], func(b *bundle.Bundle, msg string) {
			run := bundletest.NewJob("nightly-1", "", "", 0)
			run.OwnerReferences = []metav1.OwnerReference{bundletest.CtrlRef("CronJob", "nightly")}
			b.CronJobs = []*batchv1.CronJob{bundletest.NewCronJob("0 3 * * *")}
			b.Jobs = []*batchv1.Job{run}
			b.Events = []corev1.Event{bundletest.ObjEvent("Job", "nightly-1", "Warning", "FailedCreate", "Error creating: "+msg, 5, time.Minute)}
		}},
	}
	for _, tt := range []struct {
		name, msg, category, fix string
	}{
		{"quota exhausted", quota, "FailedCreate/Quota", "Make room in ResourceQuota"},
		{"quota needs limits", missing, "FailedCreate/QuotaMissingLimits", "Set the missing requests/limits"},
		{"invalid template", invalid, "FailedCreate/Invalid", "Fix the field"},
		{"PodSecurity", psa, "FailedCreate/PodSecurity", "securityContext fields"},
		{"ServiceAccount missing", sa, "FailedCreate/ServiceAccount", "existing ServiceAccount"},
	} {
		for _, ow := range owners {
			t.Run(tt.name+"/"+ow.kind, func(t *testing.T) {
				b := bundletest.WorkloadBundle(ow.kind, map[string]string{"StatefulSet": "db", "Job": "once", "CronJob": "nightly"}[ow.kind], func(b *bundle.Bundle) {
					ow.add(b, tt.msg)
					b.ResourceQuotas = []*corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "compute-resources", Namespace: "shop"},
						Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"limits.memory": resource.MustParse("8Gi")}, Used: corev1.ResourceList{"limits.memory": resource.MustParse("7Gi")}}}}
				})
				var f *rule.Finding
				for _, x := range workload.FailedCreate.Check(investigatetest.Pass(b)) {
					if string(x.Category) == tt.category {
						f = &x
					}
				}
				if f == nil {
					t.Fatalf("no %s finding", tt.category)
				}
				a, ok := findAction(f.Actions, tt.fix)
				if !ok {
					t.Fatalf("no action %q: %+v", tt.fix, f.Actions)
				}
				checkOwnerFix(t, ow.o, a, true)
				noRolloutFor(t, ow.kind, f.Actions)
			})
		}
	}
}
