package workload

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// StatefulSetBrokenRevision is the rule workload/statefulset-broken-revision.
var StatefulSetBrokenRevision = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/statefulset-broken-revision",
		Kinds:    []string{"StatefulSet"},
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    Needs,
		Doc:      "A StatefulSet rollout stuck behind a pod of a revision other than the update revision that never becomes Ready (forced rollback).",
	},
	Check: checkStatefulSetBrokenRevision,
}

// checkStatefulSetBrokenRevision: with the OrderedReady policy and the
// RollingUpdate strategy, the controller replaces a pod only once every
// pod is Running and Ready. A pod created from a broken revision (a bad
// image) never is, so a fixed template never reaches it: the rollout waits
// forever, and the pod must be deleted by hand (the documentation's
// "forced rollback").
func checkStatefulSetBrokenRevision(c *rule.Pass) []rule.Finding {
	s := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
	if s == nil || s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement || s.Status.UpdateRevision == "" || s.Status.CurrentRevision == s.Status.UpdateRevision {
		return nil
	}
	if s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return nil
	}
	pods := kube.PodsOf(c, s.UID)
	causes := kube.PodCauses(c, pods)
	for _, p := range pods {
		rev := p.Labels[appsv1.ControllerRevisionHashLabelKey]
		if rev == "" || rev == s.Status.UpdateRevision || kube.IsPodReady(p) {
			continue
		}
		stale := podImagesNotIn(p, &s.Spec.Template.Spec)
		if len(stale) == 0 {
			continue
		}
		state, ev := kube.DescribePod(c, p)
		if cause := causes[p.Name]; cause != nil {
			state = cause.Title
			ev = kube.AppendUnique(ev, cause.Evidence...)
		}
		f := rule.Finding{Category: rule.Rollout.Sub("Stuck"), Verdict: report.Validated, Current: true, Strength: rule.Traced, Subject: s.Name, Confidence: rule.High}
		f.Evidence = append([]string{c.Evidence(fmt.Sprintf("StatefulSet %s: currentRevision %s, updateRevision %s, %d/%d updated; pod %s is on revision %s", s.Name, s.Status.CurrentRevision, s.Status.UpdateRevision, s.Status.UpdatedReplicas, kube.ReplicasOf(s.Spec.Replicas), p.Name, rev),
			fmt.Sprintf("statefulset/%s .status and pod/%s .metadata.labels[controller-revision-hash]", s.Name, p.Name),
			fmt.Sprintf("kubectl get pods -n %s -L controller-revision-hash", s.Namespace))}, ev...)
		f.Hypothesis = fmt.Sprintf("The rollout of StatefulSet %s waits for pod %s of a broken revision, which never becomes Ready", s.Name, p.Name)
		f.Title = fmt.Sprintf("statefulset %s rollout to %s is stuck: pod %s is still on revision %s (%s) and never becomes Ready: %s", s.Name, s.Status.UpdateRevision, p.Name, rev, strings.Join(stale, ", "), state)
		f.Summary = fmt.Sprintf("StatefulSet %s was updated to revision %s, but with podManagementPolicy OrderedReady it replaces a pod only when every pod is Running and Ready. Pod %s runs revision %s (%s), which can never become Ready, so the fixed template never reaches it.", s.Name, s.Status.UpdateRevision, p.Name, rev, strings.Join(stale, ", "))
		f.Mechanism = "With the OrderedReady policy and RollingUpdate, the StatefulSet controller waits for a broken pod to become Running and Ready before it replaces it; a pod created from a bad revision never does, so reverting the template is not enough: the pod must be deleted (forced rollback, kubernetes.io/docs/concepts/workloads/controllers/statefulset/#forced-rollback)."
		f.Culprit = fmt.Sprintf("pod/%s on revision %s (%s), blocking statefulset/%s", p.Name, rev, strings.Join(stale, ", "), s.Name)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Delete pod %s so the controller recreates it from revision %s (forced rollback).", p.Name, s.Status.UpdateRevision),
			Commands: []string{fmt.Sprintf("kubectl delete pod %s -n %s", p.Name, s.Namespace), fmt.Sprintf("kubectl rollout status statefulset/%s -n %s", s.Name, s.Namespace)},
			Risk:     "the pod is not serving (never Ready); its PersistentVolumeClaims are kept"}}
		return []rule.Finding{f}
	}
	return nil
}

// podImagesNotIn lists the pod's container images the template no longer
// has: "nginx:1.7.9-a (template: nginx:1.8.1)".
func podImagesNotIn(p *corev1.Pod, tpl *corev1.PodSpec) []string {
	now := map[string]string{}
	for _, ctr := range tpl.Containers {
		now[ctr.Name] = ctr.Image
	}
	var out []string
	for _, ctr := range p.Spec.Containers {
		if img, ok := now[ctr.Name]; ok && img != ctr.Image {
			out = append(out, fmt.Sprintf("image %s, the template now has %s", ctr.Image, img))
		}
	}
	return out
}
