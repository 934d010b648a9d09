package network

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceRevisionPinned is the rule network/service-revision-pinned.
var ServiceRevisionPinned = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-revision-pinned",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.Pods, rule.Candidates},
		Doc:   "A Service selector term on a controller's per-revision label (pod-template-hash, controller-revision-hash, rollouts-pod-template-hash) selects one revision of a workload: its pods of every other revision get no traffic.",
	},
	Check: checkServiceRevisionPinned,
}

// annArgoManaged is set by Argo Rollouts on the Services it rewrites itself
// (blue-green active/preview, canary stable/canary): there the per-revision
// selector is the controller's doing and its purpose.
const annArgoManaged = "argo-rollouts.argoproj.io/managed-by-rollouts"

// Pin is a Service selector pinned to one revision of its workload.
type Pin struct {
	Terms    map[string]string // the per-revision terms of the selector
	Selected []*corev1.Pod     // the pods it selects (that revision)
	Left     []*corev1.Pod     // the same workload's pods of other revisions, running or starting
	Others   []string          // the revisions they carry, "key=value"
	Managed  string            // the Rollout that manages the Service, when annotated so
}

// PinnedRevision reads svc's selector for per-revision terms; nil when it
// has none. The bundle keeps the pods of other revisions as Candidates
// (bundle.RevisionFree lists them with the selector's other terms).
func PinnedRevision(c *rule.Pass, svc *corev1.Service) *Pin {
	wide, pinned := bundle.RevisionFree(svc.Spec.Selector)
	if !pinned {
		return nil
	}
	pin := &Pin{Terms: map[string]string{}, Selected: selectedPods(c, svc), Managed: svc.Annotations[annArgoManaged]}
	for k, v := range svc.Spec.Selector {
		if _, ok := wide[k]; !ok {
			pin.Terms[k] = v
		}
	}
	wideSel, full := labels.SelectorFromSet(wide), labels.SelectorFromSet(svc.Spec.Selector)
	for _, p := range c.B.Candidates {
		if p.Namespace != svc.Namespace || p.DeletionTimestamp != nil || !wideSel.Matches(labels.Set(p.Labels)) || full.Matches(labels.Set(p.Labels)) {
			continue
		}
		if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodPending {
			continue
		}
		pin.Left = append(pin.Left, p)
		for k := range pin.Terms {
			if v, ok := p.Labels[k]; ok {
				pin.Others = kube.AppendUnique(pin.Others, k+"="+v)
			}
		}
	}
	sort.Slice(pin.Left, func(i, j int) bool { return pin.Left[i].Name < pin.Left[j].Name })
	sort.Strings(pin.Others)
	return pin
}

// TermsText is the pinned terms, "key=value, …".
func (p *Pin) TermsText() string { return kube.SelectorString(p.Terms) }

// checkServiceRevisionPinned: the Service selects pods of one revision
// while the same workload runs pods of another (a rollout under way, a
// canary, a second ReplicaSet): those get no traffic, and once the pinned
// revision is scaled away the Service has no endpoint at all. A selector
// that selects nothing is network/service-endpoints' finding.
func checkServiceRevisionPinned(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil {
		return nil
	}
	pin := PinnedRevision(c, svc)
	if pin == nil || pin.Managed != "" || len(pin.Selected) == 0 || len(pin.Left) == 0 {
		return nil
	}
	terms := pin.TermsText()
	left := NamesOfPods(pin.Left)
	keys := kube.SortedKeys(pin.Terms)
	var patch []string
	for _, k := range keys {
		patch = append(patch, fmt.Sprintf(`{"op":"remove","path":"/spec/selector/%s"}`, strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")))
	}
	sel := kube.SelectorString(svc.Spec.Selector)
	return []rule.Finding{{
		Category: rule.Service.Sub("Selector", "RevisionPinned"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: fmt.Sprintf("Service %s's selector pins one revision of its pods (%s), so the pods of other revisions get no traffic", svc.Name, terms),
		Evidence: []string{
			c.Evidence(fmt.Sprintf("Service %s selects {%s}: %s is a per-revision label its controller sets from the pod template's hash", svc.Name, sel, strings.Join(keys, ", ")),
				svcRef(svc)+" .spec.selector", fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.selector}'", svc.Name, svcNS(svc))),
			c.Evidence(fmt.Sprintf("It selects %d pod(s) (%s); %d pod(s) with the selector's other labels carry %s and are not selected: %s", len(pin.Selected), kube.NamesUpTo(NamesOfPods(pin.Selected), 3),
				len(pin.Left), strings.Join(pin.Others, ", "), kube.NamesUpTo(left, 3)),
				"pods of namespace "+svc.Namespace, fmt.Sprintf("kubectl get pods %s -l %s -L %s", svcNS(svc), kube.SelectorString(withoutKeys(svc.Spec.Selector, keys)), strings.Join(keys, ","))),
		},
		Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title: fmt.Sprintf("service %s selector pins %s: its pods of revision %s get no traffic", svc.Name, terms, strings.Join(pin.Others, ", ")),
		Summary: fmt.Sprintf("Service %s selects %s, which includes the per-revision label %s. It sends traffic only to the %d pod(s) of that revision; the %d pod(s) of the same workload at %s (%s) receive none, and when the pinned revision is scaled away the Service is left with no endpoint.",
			svc.Name, sel, strings.Join(keys, ", "), len(pin.Selected), len(pin.Left), strings.Join(pin.Others, ", "), kube.NamesUpTo(left, 3)),
		Mechanism: "Controllers label each pod with the hash of the template revision it came from (pod-template-hash for a Deployment's ReplicaSets, controller-revision-hash for StatefulSets and DaemonSets, rollouts-pod-template-hash for Argo Rollouts). " +
			"A Service selector that names such a hash matches one revision only: a new rollout, a canary or a copied `kubectl expose` selector keeps sending traffic to the old revision alone.",
		Culprit: fmt.Sprintf("%s .spec.selector %s (a per-revision label: pods of %s are not selected)", svcRef(svc), terms, strings.Join(pin.Others, ", ")),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Remove the per-revision term %s from the Service's selector so it selects every revision of the workload (or let the controller that owns it, such as Argo Rollouts, manage the Service).", strings.Join(keys, ", ")),
			Commands: []string{
				fmt.Sprintf("kubectl get pods %s -l %s -L %s", svcNS(svc), kube.SelectorString(withoutKeys(svc.Spec.Selector, keys)), strings.Join(keys, ",")),
				fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[%s]'`, svc.Name, svcNS(svc), strings.Join(patch, ",")),
			},
			Risk: "traffic starts flowing to the pods of every revision the remaining selector matches"}},
	}}
}

func withoutKeys(m map[string]string, keys []string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
