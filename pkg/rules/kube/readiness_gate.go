package kube

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// A pod readiness gate (spec.readinessGates) adds a condition the kubelet
// does not set: the pod is Ready only once every container is Ready and an
// outside controller has set each gate's condition True
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-readiness-gate).
// A pod whose containers are all Ready but whose gate is not True waits for
// that controller, never for a probe.

// UnsetGate is a readiness gate whose condition is not True.
type UnsetGate struct {
	Type    string
	Status  string // "absent" when the controller never set it, else False or Unknown
	Reason  string
	Message string
}

// UnsetGates lists the pod's readiness gates whose condition is not True.
func UnsetGates(p *corev1.Pod) []UnsetGate {
	var out []UnsetGate
	for _, g := range p.Spec.ReadinessGates {
		u := UnsetGate{Type: string(g.ConditionType), Status: "absent"}
		set := false
		for _, cond := range p.Status.Conditions {
			if cond.Type != g.ConditionType {
				continue
			}
			set = cond.Status == corev1.ConditionTrue
			u.Status, u.Reason, u.Message = string(cond.Status), cond.Reason, cond.Message
		}
		if !set {
			out = append(out, u)
		}
	}
	return out
}

// GatedOnly: a running pod whose containers are all Ready and which is not
// Ready only for its gates.
func GatedOnly(p *corev1.Pod) ([]UnsetGate, bool) {
	if p.Status.Phase != corev1.PodRunning || IsPodReady(p) || len(p.Status.ContainerStatuses) == 0 {
		return nil, false
	}
	for _, st := range p.Status.ContainerStatuses {
		if !st.Ready {
			return nil, false
		}
	}
	gates := UnsetGates(p)
	return gates, len(gates) > 0
}

// Owner is the gate condition's domain, which names the controller that
// sets it: "target-health.elbv2.k8s.aws" of
// "target-health.elbv2.k8s.aws/k8s-default-web-3c2b1d9e8f".
func (g UnsetGate) Owner() string {
	if dom, _, ok := strings.Cut(g.Type, "/"); ok {
		return dom
	}
	return g.Type
}

// Describe says what the gate is missing: "readiness gate X is not True:
// its condition is absent (the controller that owns
// target-health.elbv2.k8s.aws has not set it)".
func (g UnsetGate) Describe() string {
	state := "its condition is absent"
	if g.Status != "absent" {
		state = "its condition is " + g.Status
		if g.Reason != "" {
			state += " (" + g.Reason + ")"
		}
	}
	return fmt.Sprintf("readiness gate %s is not True: %s; the controller that owns %s has not set it True", g.Type, state, g.Owner())
}

// knownGateOwners are the controllers behind the domains their readiness
// gates carry, with the object that ties the pod to them.
type gateOwner struct{ domain, controller, check string }

var knownGateOwners = []gateOwner{
	// https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/deploy/pod_readiness_gate/
	{"elbv2.k8s.aws", "the AWS Load Balancer Controller (it sets the condition once the pod is a healthy target of its target group)", "kubectl get targetgroupbindings -n %s"},
	// https://cloud.google.com/kubernetes-engine/docs/concepts/container-native-load-balancing#pod_readiness
	{"cloud.google.com", "GKE's NEG controller (it sets the condition once the pod's endpoint is healthy in its network endpoint group)", "kubectl get svcneg -n %s"},
}

// knownOwner is the entry of knownGateOwners the gate's domain falls
// under, or nil.
func (g UnsetGate) knownOwner() *gateOwner {
	d := g.Owner()
	for i, k := range knownGateOwners {
		if d == k.domain || strings.HasSuffix(d, "."+k.domain) {
			return &knownGateOwners[i]
		}
	}
	return nil
}

// GateController names the controller behind a gate when its domain is a
// known one, else "".
func (g UnsetGate) GateController() string {
	if k := g.knownOwner(); k != nil {
		return k.controller
	}
	return ""
}

// Who is the controller behind a gate: the known one, else the one its
// domain names.
func (g UnsetGate) Who() string {
	if who := g.GateController(); who != "" {
		return who
	}
	return "the controller that owns " + g.Owner()
}

// GateActions are what a human checks and does about a gate left unset:
// the controller's view first, then replacing the pod so that the
// controller registers it again.
func GateActions(p *corev1.Pod, g UnsetGate) []report.Action {
	cmds := []string{fmt.Sprintf(`kubectl get pod %s -n %s -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason} {.message}{"\n"}{end}'`, p.Name, p.Namespace)}
	if k := g.knownOwner(); k != nil {
		cmds = append(cmds, fmt.Sprintf(k.check, p.Namespace))
	}
	cmds = append(cmds, fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.name=%s", p.Namespace, p.Name))
	return []report.Action{
		{Kind: report.Check, Description: fmt.Sprintf("Find out why %s has not set condition %s on the pod: read its logs and whether it still targets this pod (the Service or Ingress it serves, its registration).", g.Who(), g.Type),
			Commands: cmds},
		{Kind: report.Immediate, Description: "Once the controller runs and targets the pod, delete the stuck pod so that a new one is registered from the start.",
			Commands: []string{fmt.Sprintf("kubectl delete pod %s -n %s", p.Name, p.Namespace)},
			Risk:     "the pod's replacement starts from scratch; with a single replica the workload has no pod until it runs"},
	}
}
