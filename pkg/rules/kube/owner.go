package kube

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// OwnerName is the workload to change for a pod: its top controller in the
// bundle, or the pod itself.
func OwnerName(c *rule.Pass, p *corev1.Pod) (kind, name string) {
	b := c.B
	if kind, name := ownerByRefs(b, p); kind != "" {
		return kind, name
	}
	switch {
	case len(b.Deployments) > 0:
		return "deployment", b.Deployments[0].Name
	case len(b.StatefulSets) > 0:
		return "statefulset", b.StatefulSets[0].Name
	case len(b.DaemonSets) > 0:
		return "daemonset", b.DaemonSets[0].Name
	case len(b.CronJobs) > 0:
		return "cronjob", b.CronJobs[0].Name
	case len(b.Jobs) > 0:
		return "job", b.Jobs[0].Name
	}
	// A ReplicaSet triaged directly, with no Deployment over it: its
	// template is what a human changes.
	if rs := TargetOf(c, "ReplicaSet", b.ReplicaSets); rs != nil {
		return "replicaset", rs.Name
	}
	return "pod", p.Name
}

// ownerByRefs walks the pod's own controller references through the
// collected owners (a Namespace target holds several workloads), to the
// topmost one whose template a human changes; "" when they were not
// collected.
func ownerByRefs(b *bundle.Bundle, p *corev1.Pod) (kind, name string) {
	refs := p.OwnerReferences
	for range 3 {
		ref := metav1.GetControllerOfNoCopy(&metav1.ObjectMeta{OwnerReferences: refs})
		if ref == nil {
			return kind, name
		}
		var next []metav1.OwnerReference
		found := false
		for _, o := range ownerObjects(b) {
			if o.GetUID() == ref.UID {
				next, found = o.GetOwnerReferences(), true
			}
		}
		if !found {
			return kind, name
		}
		if ref.Kind != "ReplicaSet" || kind == "" {
			kind, name = strings.ToLower(ref.Kind), ref.Name
		}
		refs = next
	}
	return kind, name
}

func ownerObjects(b *bundle.Bundle) []metav1.Object {
	var out []metav1.Object
	for _, o := range b.ReplicaSets {
		out = append(out, o)
	}
	for _, o := range b.Deployments {
		out = append(out, o)
	}
	for _, o := range b.StatefulSets {
		out = append(out, o)
	}
	for _, o := range b.DaemonSets {
		out = append(out, o)
	}
	for _, o := range b.Jobs {
		out = append(out, o)
	}
	for _, o := range b.CronJobs {
		out = append(out, o)
	}
	return out
}

// Workload is the object a human changes to fix a fault: the top controller
// of what failed, in the form kubectl accepts (deployment/web).
type Workload struct {
	Kind, Name, Namespace string
}

func (w Workload) Ref() string { return w.Kind + "/" + w.Name }

func (w Workload) NS() string { return "-n " + w.Namespace }

// templatePath is where the pod template sits in the workload, for patches.
func (w Workload) TemplatePath() string {
	switch w.Kind {
	case "cronjob":
		return ".spec.jobTemplate.spec.template"
	case "pod":
		return ""
	}
	return ".spec.template"
}

// patchTemplate wraps a pod-spec patch into the workload's template path.
func (w Workload) PatchTemplate(podSpec string) string {
	switch w.Kind {
	case "cronjob":
		return `{"spec":{"jobTemplate":{"spec":{"template":{"spec":` + podSpec + `}}}}}`
	}
	return `{"spec":{"template":{"spec":` + podSpec + `}}}`
}

func ControllerUID(refs []metav1.OwnerReference) types.UID {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

// TopOwner walks controller references through the objects in the bundle:
// a ReplicaSet's Deployment, a Job's CronJob.
func TopOwner(c *rule.Pass, kind string, meta metav1.Object) Workload {
	w := Workload{Kind: strings.ToLower(kind), Name: meta.GetName(), Namespace: meta.GetNamespace()}
	uid := ControllerUID(meta.GetOwnerReferences())
	for range 3 {
		if uid == "" {
			return w
		}
		next := types.UID("")
		found := false
		for _, d := range c.B.Deployments {
			if d.UID == uid {
				w, found = Workload{"deployment", d.Name, d.Namespace}, true
			}
		}
		for _, cj := range c.B.CronJobs {
			if cj.UID == uid {
				w, found = Workload{"cronjob", cj.Name, cj.Namespace}, true
			}
		}
		for _, rs := range c.B.ReplicaSets {
			if rs.UID == uid {
				w, found, next = Workload{"replicaset", rs.Name, rs.Namespace}, true, ControllerUID(rs.OwnerReferences)
			}
		}
		for _, j := range c.B.Jobs {
			if j.UID == uid {
				w, found, next = Workload{"job", j.Name, j.Namespace}, true, ControllerUID(j.OwnerReferences)
			}
		}
		for _, o := range c.B.StatefulSets {
			if o.UID == uid {
				w, found = Workload{"statefulset", o.Name, o.Namespace}, true
			}
		}
		for _, o := range c.B.DaemonSets {
			if o.UID == uid {
				w, found = Workload{"daemonset", o.Name, o.Namespace}, true
			}
		}
		if !found {
			return w
		}
		uid = next
	}
	return w
}

// PodsOf returns the bundle's pods controlled by uid, by name.
func PodsOf(c *rule.Pass, uid types.UID) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range c.B.Pods {
		if ControllerUID(p.OwnerReferences) == uid {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func ReplicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}
