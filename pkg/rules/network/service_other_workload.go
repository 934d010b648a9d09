package network

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceOtherWorkload is the rule network/service-other-workload.
var ServiceOtherWorkload = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-other-workload",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.Pods, rule.Candidates},
		Doc:   "A Service whose selector picks another workload's pods while the workload its own labels (or its name) say it is for runs unselected: a copied selector.",
	},
	Check: checkServiceOtherWorkload,
}

// Misdirected is a Service selecting one workload's pods while it says it
// is for another.
type Misdirected struct {
	Selected, Claimed         string            // the workloads' names
	SelectedPods, ClaimedPods []*corev1.Pod     // claimed: those the claimed selector matches and the Service's does not
	Claim                     map[string]string // the selector the Service says it means
	Term                      string            // the selector's term that differs, key=value
	Want                      string            // the claimed value, key=value
	// PortsAgree: every numeric targetPort is declared by the claimed pods
	// and by none of the selected ones.
	PortsAgree bool
}

// MisdirectedService reads svc (and the claimed workload's pods the
// collector read, bundle.ClaimedSelector); nil when it selects the
// workload it says it is for.
func MisdirectedService(c *rule.Pass, svc *corev1.Service) *Misdirected {
	selected := selectedPods(c, svc)
	claim, ok := bundle.ClaimedSelector(svc, selected)
	if !ok || len(selected) == 0 {
		return nil
	}
	m := &Misdirected{Claim: claim, Selected: bundle.WorkloadName(selected[0]), SelectedPods: selected}
	claimSel, own := labels.SelectorFromSet(claim), labels.SelectorFromSet(svc.Spec.Selector)
	for _, p := range c.B.Candidates {
		if p.Namespace == svc.Namespace && p.DeletionTimestamp == nil && claimSel.Matches(labels.Set(p.Labels)) && !own.Matches(labels.Set(p.Labels)) {
			m.ClaimedPods = append(m.ClaimedPods, p)
		}
	}
	if len(m.ClaimedPods) == 0 {
		return nil
	}
	m.Claimed = bundle.WorkloadName(m.ClaimedPods[0])
	if m.Claimed == m.Selected {
		return nil
	}
	for _, k := range kube.SortedKeys(claim) {
		if claim[k] != svc.Spec.Selector[k] {
			m.Term, m.Want = k+"="+svc.Spec.Selector[k], k+"="+claim[k]
		}
	}
	m.PortsAgree = numericTargetPorts(svc) > 0
	for _, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type != intstr.Int || sp.TargetPort.IntVal == 0 {
			continue
		}
		if declares(m.SelectedPods, sp) || !declares(m.ClaimedPods, sp) {
			m.PortsAgree = false
		}
	}
	return m
}

func numericTargetPorts(svc *corev1.Service) int {
	n := 0
	for _, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal != 0 {
			n++
		}
	}
	return n
}

// declares: one of the pods declares the Service port's numeric targetPort.
func declares(pods []*corev1.Pod, sp corev1.ServicePort) bool {
	for _, p := range pods {
		if _, ok := findContainerPort(p, "", sp.TargetPort.IntVal, sp.Protocol); ok {
			return true
		}
	}
	return false
}

// checkServiceOtherWorkload: the endpoints are ready, but they are the
// wrong pods: traffic meant for one application reaches another, which
// refuses it or answers with something else.
func checkServiceOtherWorkload(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil {
		return nil
	}
	m := MisdirectedService(c, svc)
	if m == nil {
		return nil
	}
	claimed := NamesOfPods(m.ClaimedPods)
	sel := kube.SelectorString(svc.Spec.Selector)
	key, want, _ := strings.Cut(m.Want, "=")
	f := rule.Finding{
		Category: rule.Service.Sub("Selector", "OtherWorkload"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: fmt.Sprintf("Service %s selects the pods of %s instead of those of %s", svc.Name, m.Selected, m.Claimed),
		Evidence: []string{
			c.Evidence(fmt.Sprintf("Service %s (labels {%s}) selects {%s}: the pods of %s (%s)", svc.Name, kube.SelectorString(svc.Labels), sel, m.Selected, kube.NamesUpTo(NamesOfPods(m.SelectedPods), 3)),
				svcRef(svc)+" .spec.selector", fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.metadata.labels} {.spec.selector}'", svc.Name, svcNS(svc))),
			c.Evidence(fmt.Sprintf("The pods of %s carry %s and are not selected: %s", m.Claimed, m.Want, kube.NamesUpTo(claimed, 3)),
				"pods matching "+kube.SelectorString(m.Claim), fmt.Sprintf("kubectl get pods %s -l %s --show-labels", svcNS(svc), kube.SelectorString(m.Claim))),
		},
		Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title:     fmt.Sprintf("service %s selects the pods of %s (%s), not those of %s", svc.Name, m.Selected, m.Term, m.Claimed),
		Summary:   fmt.Sprintf("Service %s says it is for %s, but its selector %s picks the pods of %s; the pods of %s (%s) receive none of its traffic, and what it sends reaches an application that does not expect it.", svc.Name, m.Claimed, sel, m.Selected, m.Claimed, kube.NamesUpTo(claimed, 3)),
		Mechanism: "A Service's endpoints are whatever pods its selector matches, whoever owns them: a selector copied from another Service (or a wrong label value) routes to that workload's pods, which look ready, so nothing reports an error but the clients.",
		Culprit:   fmt.Sprintf("%s .spec.selector %s (selects %s's pods; %s's pods carry %s)", svcRef(svc), m.Term, m.Selected, m.Claimed, m.Want),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Point the selector at %s's pods.", m.Claimed),
			Commands: []string{fmt.Sprintf("kubectl get pods %s -l %s --show-labels", svcNS(svc), kube.SelectorString(m.Claim)),
				fmt.Sprintf(`kubectl patch service %s %s --type=merge -p '{"spec":{"selector":{%q:%q}}}'`, svc.Name, svcNS(svc), key, want)},
			Risk: fmt.Sprintf("traffic moves from %s's pods to %s's at once: check no client relies on the current routing", m.Selected, m.Claimed)}},
	}
	if m.PortsAgree {
		f.Confidence = rule.Strong
		f.Contributing = append(f.Contributing, fmt.Sprintf("Its targetPort %s is declared by %s's pods and by none of %s's: the Service was written for %s.", targetPortsText(svc), m.Claimed, m.Selected, m.Claimed))
	}
	return []rule.Finding{f}
}

func targetPortsText(svc *corev1.Service) string {
	var out []string
	for _, sp := range svc.Spec.Ports {
		out = append(out, sp.TargetPort.String())
	}
	return strings.Join(out, ", ")
}
