package network

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// ServiceNearMiss is the rule network/service-near-miss.
var ServiceNearMiss = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-near-miss",
		Kinds: []string{"Pod", "Deployment"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Pods, rule.NamespaceServices},
		Doc:   "A Service of the pod's namespace whose selector misses the pod by one label (a value off by a character or a version), while no Service selects it.",
	},
	Check: checkServiceNearMiss,
}

// checkServiceNearMiss: the pod runs but nothing routes to it, because the
// Service meant for it selects a label value it does not carry. Only when
// no Service selects the pod at all: a pod some Service reaches is not
// orphaned, and a near miss then more likely belongs to other pods.
func checkServiceNearMiss(c *rule.Pass) []rule.Finding {
	var pod *corev1.Pod
	for _, p := range c.B.Pods {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && (c.B.Target.Kind != "Pod" || string(p.UID) == c.B.Target.UID) {
			pod = p
			break
		}
	}
	if pod == nil || len(pod.Labels) == 0 {
		return nil
	}
	type miss struct {
		svc       *corev1.Service
		key, want string
		have      string // "" when the pod lacks the key
	}
	var misses []miss
	for _, svc := range c.B.Services {
		if svc.Namespace != pod.Namespace || len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			return nil // the pod is reachable through a Service
		}
		var off []miss
		for k, v := range svc.Spec.Selector {
			if have, ok := pod.Labels[k]; !ok || have != v {
				off = append(off, miss{svc: svc, key: k, want: v, have: have})
			}
		}
		if len(off) == 1 && nearValue(off[0].want, off[0].have) {
			misses = append(misses, off[0])
		}
	}
	if len(misses) != 1 {
		return nil // none, or several: no one Service is the one meant for it
	}
	m := misses[0]
	svc := m.svc
	owner := kube.PodRef(pod)
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s selects %s", svc.Name, kube.SelectorString(svc.Spec.Selector)),
			svcRef(svc)+" .spec.selector", fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.selector}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("Pod %s carries %s=%s; no Service of the namespace selects it", pod.Name, m.key, m.have),
			owner+" .metadata.labels", fmt.Sprintf("kubectl get pod %s %s --show-labels", pod.Name, kube.NSFlag(pod))),
	}
	f := rule.Finding{
		Category: rule.Service.Sub("SelectorMismatch", "NearMiss"), Verdict: report.Validated, Confidence: rule.Probable,
		Hypothesis: fmt.Sprintf("Service %s was meant to select pod %s but its selector %s=%s misses the pod's %s=%s", svc.Name, pod.Name, m.key, m.want, m.key, m.have),
		Evidence:   ev, Current: true, Strength: rule.Observed, Subject: pod.Name,
		Title: fmt.Sprintf("service %s selects %s=%s, pod %s carries %s=%s: no traffic reaches it", svc.Name, m.key, m.want, pod.Name, m.key, m.have),
		Summary: fmt.Sprintf("Pod %s runs, but no Service of namespace %s selects it. Service %s matches every label of it but one: it selects %s=%s where the pod carries %s=%s, so the Service has no endpoint for this pod and its callers never reach it.",
			pod.Name, pod.Namespace, svc.Name, m.key, m.want, m.key, m.have),
		Mechanism: "A Service routes only to pods carrying every label of its selector; one value off by a character or a version leaves the pod out of the Service's EndpointSlices.",
		Culprit:   fmt.Sprintf("%s .spec.selector %s=%s (pod has %s=%s)", svcRef(svc), m.key, m.want, m.key, m.have),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Decide which side is wrong: correct Service %s's selector to %s=%s, or the label in the pod template to %s=%s. Check first which pods the Service selects today.", svc.Name, m.key, m.have, m.key, m.want),
			Commands:    []string{fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name), fmt.Sprintf("kubectl get pods %s -l %s", svcNS(svc), kube.SelectorString(svc.Spec.Selector))}}},
	}
	return []rule.Finding{f}
}

var versionRe = regexp.MustCompile(`^(?P<stem>.*?)[-_.]?v?\d+(?:\.\d+)*$`)

// nearValue: a selector value one edit away from the pod's (a typo), or
// the same name at another version (api-v1, api-v2).
func nearValue(want, have string) bool {
	if have == "" || want == have {
		return false
	}
	if d := kube.EditDistance(want, have); d <= 2 && d*3 <= len(want) {
		return true
	}
	a, aok := submatch.Find(versionRe, want)
	b, bok := submatch.Find(versionRe, have)
	// Same stem at another version; two bare versions (v1, v2) are a
	// version label whose value moved on.
	return aok && bok && strings.EqualFold(a.Get("stem"), b.Get("stem"))
}
