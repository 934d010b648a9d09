package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ReadinessGate is the rule pod/readiness-gate.
var ReadinessGate = &rule.Rule{
	Meta: rule.Meta{
		ID: "pod/readiness-gate",
		// Not a workload rule's pod cause (workload.PodLevel): a rollout
		// reads the gate itself (kube.GatedOnly) and names it as its own
		// reason, which a pod cause would turn into context.
		Kinds: rule.PodKinds,
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A running pod whose containers are all Ready but whose readiness gate (spec.readinessGates) the controller that owns it has not set True.",
	},
	Check: checkReadinessGates,
}

// checkReadinessGates: the pod is not Ready only because of a gate; no
// probe is to blame. The finding is Observed: the bundle shows the gate
// unset, not why its controller left it so, and a workload's rollout
// carries it as the reason its new pods never become available.
func checkReadinessGates(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		gates, ok := kube.GatedOnly(p)
		if !ok {
			continue
		}
		out = append(out, readinessGateFinding(c, p, gates))
	}
	return out
}

// readinessGateCategory refines the category by what the condition is:
// never set (the controller did not act on the pod) or set False.
func readinessGateCategory(g kube.UnsetGate) rule.Category {
	if g.Status == "absent" {
		return rule.ReadinessGate.Sub("ConditionMissing")
	}
	return rule.ReadinessGate.Sub("ConditionNotTrue")
}

func readinessGateFinding(c *rule.Pass, p *corev1.Pod, gates []kube.UnsetGate) rule.Finding {
	g := gates[0]
	var types []string
	for _, u := range gates {
		types = append(types, u.Type)
	}
	evidence := []string{c.Evidence(fmt.Sprintf("Pod %s declares readiness gate(s) %s", p.Name, strings.Join(types, ", ")),
		fmt.Sprintf("%s .spec.readinessGates", kube.PodRef(p)), fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.readinessGates}'", p.Name, kube.NSFlag(p)))}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Condition Ready=%s (%s): %s; every container is Ready", cond.Status, kube.OrDash(cond.Reason), cond.Message),
				fmt.Sprintf("%s .status.conditions[Ready]", kube.PodRef(p)), fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.conditions[?(@.type=="Ready")]}'`, p.Name, kube.NSFlag(p))))
		}
	}
	who := g.Who()
	f := rule.Finding{
		Category: readinessGateCategory(g), Verdict: report.Validated, Confidence: rule.High, Current: true, Strength: rule.Observed,
		Subject: p.Name, Evidence: evidence,
		Hypothesis: fmt.Sprintf("Pod %s waits for readiness gate %s, which %s has not set True", p.Name, g.Type, who),
		Title:      fmt.Sprintf("pod %s runs with every container Ready, but its %s", p.Name, g.Describe()),
		Summary:    fmt.Sprintf("Every container of pod %s is Ready, yet the pod is not: %s. The pod gets no Service traffic until %s sets it.", p.Name, g.Describe(), who),
		Mechanism:  "A pod with readinessGates is Ready only when all its containers are Ready and each gate's condition is True; the kubelet never sets a gate's condition, the controller named by its domain does (a load balancer controller once the pod is a healthy target). Its probes pass: nothing in the pod itself is failing.",
		Culprit:    fmt.Sprintf("%s readinessGates %s (condition %s: %s has not set it True)", kube.PodRef(p), g.Type, g.Status, who),
		Actions:    kube.GateActions(p, g),
	}
	if g.Message != "" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("The gate's condition says: %q.", g.Message))
	}
	return f
}
