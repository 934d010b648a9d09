package network

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceEndpoints is the rule network/service-endpoints.
var ServiceEndpoints = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-endpoints",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.EndpointSlices, rule.Pods, rule.Candidates, rule.Events},
		Doc:   "A Service with no ready endpoint: selector matches nothing, pods not ready, slices not published.",
	},
	Check: checkServiceEndpoints,
}

// checkServiceEndpoints: a Service that has no ready endpoint to send
// traffic to, and why: its selector matches no pod (and which label is
// off), the pods it matches are not ready, or it has no selector at all.
func checkServiceEndpoints(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil {
		return nil
	}
	hyp := fmt.Sprintf("Service %s has no ready endpoint to send traffic to", svc.Name)
	specEv := func() string {
		return c.Evidence(fmt.Sprintf("Service %s is type %s with selector {%s}", svc.Name, kube.ValueOr(string(svc.Spec.Type), "ClusterIP"), kube.SelectorString(svc.Spec.Selector)),
			svcRef(svc)+" .spec.selector",
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.type} {.spec.selector}'", svc.Name, svcNS(svc)))
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return []rule.Finding{{
			Category: rule.Service.Sub("ExternalName"), Verdict: report.Refuted, Confidence: rule.Strong,
			Hypothesis: hyp + " (not applicable: an ExternalName Service is a DNS CNAME to " + svc.Spec.ExternalName + " and never has endpoints)",
			Evidence:   []string{specEv()}, Subject: svc.Name,
		}}
	}
	if kube.CollectionFailed(c, "endpointslices") {
		return nil // no verdict on endpoints that could not be read
	}
	eps := EndpointsOf(c, svc)
	slicesEv := func() string {
		return c.Evidence(fmt.Sprintf("Service %s: %s", svc.Name, eps.Summary()), "EndpointSlices labelled kubernetes.io/service-name="+svc.Name,
			fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name))
	}
	if len(eps.Ready) > 0 {
		return []rule.Finding{{
			Category: rule.Service.Sub("NoEndpoints"), Verdict: report.Refuted, Confidence: rule.Strong,
			Hypothesis: hyp + fmt.Sprintf(" (it has %d ready: %s)", len(eps.Ready), strings.Join(firstNames(eps.Ready, 5), ", ")),
			Evidence:   []string{slicesEv()}, Subject: svc.Name,
		}}
	}
	if len(svc.Spec.Selector) == 0 {
		return []rule.Finding{noSelectorFinding(c, svc, hyp, specEv(), slicesEv())}
	}
	pods := selectedPods(c, svc)
	if len(pods) == 0 {
		return []rule.Finding{selectorMismatchFinding(c, svc, hyp, []string{specEv(), slicesEv()})}
	}
	var ready []*corev1.Pod
	for _, p := range pods {
		if kube.IsPodReady(p) {
			ready = append(ready, p)
		}
	}
	if len(ready) == 0 {
		return []rule.Finding{podsNotReadyFinding(c, svc, hyp, pods, []string{specEv(), slicesEv()})}
	}
	// Ready pods but no ready endpoint. A named targetPort the pods do not
	// declare explains it (checkServiceTargetPort says so); otherwise the
	// EndpointSlice controller has not (yet) published them. The symptom is
	// a fact, its cause a guess: validated at speculation, as a symptom.
	if len(namedPortProblems(svc, pods)) > 0 {
		return nil
	}
	names := NamesOfPods(ready)
	return []rule.Finding{{
		Category: rule.Service.Sub("NoEndpoints", "NotPublished"), Verdict: report.Validated, Confidence: rule.Weak, Strength: rule.Symptom,
		Hypothesis: fmt.Sprintf("The EndpointSlice controller has not published the ready pods %s of service %s", strings.Join(names, ", "), svc.Name),
		Evidence:   []string{specEv(), slicesEv()}, Subject: svc.Name, Current: true,
		Title:     fmt.Sprintf("service %s has no ready endpoints although pods %s are Ready (cause not determined)", svc.Name, strings.Join(names, ", ")),
		Summary:   fmt.Sprintf("Pods %s match the selector of service %s and are Ready, but no EndpointSlice lists them as ready endpoints.", strings.Join(names, ", "), svc.Name),
		Mechanism: "The EndpointSlice controller in kube-controller-manager publishes ready pods as endpoints; if it is not running or lags, kube-proxy has nothing to route to.",
		Culprit:   fmt.Sprintf("EndpointSlices of %s", svcRef(svc)),
		Actions: []report.Action{{Kind: report.Check, Description: "Compare the EndpointSlices with the pods and check that kube-controller-manager is healthy.",
			Commands: []string{fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name), fmt.Sprintf("kubectl get pods %s -l %s -o wide", svcNS(svc), kube.SelectorString(svc.Spec.Selector))}}},
	}}
}

func noSelectorFinding(c *rule.Pass, svc *corev1.Service, hyp, specEv, slicesEv string) rule.Finding {
	return rule.Finding{
		Category: rule.Service.Sub("NoEndpoints", "NoSelector"), Verdict: report.Validated, Confidence: rule.High,
		Hypothesis: hyp + " because it has no selector and no manually managed EndpointSlice",
		Evidence:   []string{specEv, slicesEv}, Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title:   fmt.Sprintf("service %s has no selector and no manual EndpointSlice: it routes to nothing", svc.Name),
		Summary: fmt.Sprintf("Service %s has no spec.selector, so Kubernetes never creates endpoints for it, and no EndpointSlice was created by hand: connections to it have nowhere to go.", svc.Name),
		Mechanism: "A Service without a selector is meant for backends managed by hand: someone must create EndpointSlices (or a legacy Endpoints object, which is mirrored) naming the backend addresses. " +
			"Without them kube-proxy has no endpoint and connections are refused or time out.",
		Culprit: svcRef(svc) + " .spec.selector (empty)",
		Actions: []report.Action{
			{Kind: report.Immediate, Description: "If the Service should front pods, give it the selector of those pods' labels.",
				Commands: []string{
					fmt.Sprintf("kubectl get pods %s --show-labels", svcNS(svc)),
					fmt.Sprintf(`kubectl patch service %s %s --type=merge -p '{"spec":{"selector":{"app":"<pod label value>"}}}'`, svc.Name, svcNS(svc)),
				},
				Risk: "traffic starts flowing to every pod the selector matches"},
			{Kind: report.LongTerm, Description: "If the backends live outside the cluster, create an EndpointSlice labelled kubernetes.io/service-name=" + svc.Name + " with their addresses, or use type ExternalName for a DNS name.",
				Commands: []string{fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name)}},
		},
	}
}

// labelDiff is one selector term a pod does not satisfy.
type labelDiff struct {
	Key, Want string
	Have      string // the pod's value for Key; empty when it has no such label
	OtherKey  string // a different key on the pod carrying the wanted value
}

func (d labelDiff) String() string {
	switch {
	case d.Have != "":
		return fmt.Sprintf("selector wants %s=%s, the pods have %s=%s", d.Key, d.Want, d.Key, d.Have)
	case d.OtherKey != "":
		return fmt.Sprintf("selector wants %s=%s, the pods carry the value under another key: %s=%s", d.Key, d.Want, d.OtherKey, d.Want)
	}
	return fmt.Sprintf("selector wants %s=%s, the pods have no label %s", d.Key, d.Want, d.Key)
}

// closeEnough says a mismatched value looks like a typo of the wanted one
// (check-out vs checkout, v1 vs v2), not an unrelated label.
func (d labelDiff) closeEnough() bool {
	if d.OtherKey != "" {
		return true
	}
	if d.Have == "" {
		return false
	}
	dist := kube.EditDistance(d.Want, d.Have)
	return dist <= 2 || float64(dist) <= 0.34*float64(max(len(d.Want), len(d.Have)))
}

// score orders candidates: a matching term costs nothing, a typo-like value
// a little, an unrelated value more, a missing label most.
func diffScore(diffs []labelDiff) float64 {
	s := 0.0
	for _, d := range diffs {
		switch {
		case d.closeEnough():
			s += 1
		case d.Have != "":
			s += 1.5 + float64(kube.EditDistance(d.Want, d.Have))/float64(max(len(d.Want), len(d.Have), 1))
		default:
			s += 3
		}
	}
	return s
}

func labelDiffs(sel map[string]string, podLabels map[string]string) []labelDiff {
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []labelDiff
	for _, k := range keys {
		want := sel[k]
		have, ok := podLabels[k]
		if ok && have == want {
			continue
		}
		d := labelDiff{Key: k, Want: want, Have: have}
		if !ok {
			for pk, pv := range podLabels {
				if pv == want && (d.OtherKey == "" || pk < d.OtherKey) {
					d.OtherKey = pk
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// ClosestPods groups candidate pods by the way their labels differ from the
// selector and returns the group that differs least.
func ClosestPods(sel map[string]string, cands []*corev1.Pod) (pods []*corev1.Pod, diffs []labelDiff) {
	type group struct {
		pods  []*corev1.Pod
		diffs []labelDiff
		score float64
	}
	groups := map[string]*group{}
	for _, p := range cands {
		d := labelDiffs(sel, p.Labels)
		if len(d) == 0 {
			continue // a match: not a candidate for a mismatch
		}
		key := fmt.Sprint(d)
		g, ok := groups[key]
		if !ok {
			g = &group{diffs: d, score: diffScore(d)}
			groups[key] = g
		}
		g.pods = append(g.pods, p)
	}
	var best *group
	for _, g := range groups {
		if best == nil || g.score < best.score || (g.score == best.score && (len(g.pods) > len(best.pods) ||
			len(g.pods) == len(best.pods) && g.pods[0].Name < best.pods[0].Name)) {
			best = g
		}
	}
	if best == nil {
		return nil, nil
	}
	sort.Slice(best.pods, func(i, j int) bool { return best.pods[i].Name < best.pods[j].Name })
	return best.pods, best.diffs
}

func selectorMismatchFinding(c *rule.Pass, svc *corev1.Service, hyp string, evidence []string) rule.Finding {
	sel := kube.SelectorString(svc.Spec.Selector)
	f := rule.Finding{
		Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: svc.Name,
		Evidence: append(evidence, c.Evidence(fmt.Sprintf("No pod in namespace %s matches selector %s", svc.Namespace, sel),
			"pods of namespace "+svc.Namespace,
			fmt.Sprintf("kubectl get pods %s -l %s", svcNS(svc), sel))),
		Mechanism: "The EndpointSlice controller lists the pods whose labels match every term of the Service's selector; when none does, the Service has no endpoints and connections to it are refused or time out.",
	}
	listPods := fmt.Sprintf("kubectl get pods %s --show-labels", svcNS(svc))
	if len(c.B.Candidates) == 0 && kube.CollectionFailed(c, "pods") {
		// The namespace's pods could not be listed: no claim about them.
		return rule.Finding{Category: rule.Service.Sub("NoEndpoints", "SelectorMismatch"), Verdict: report.Inconclusive, Confidence: rule.Speculative, Subject: svc.Name, Current: true,
			Hypothesis: hyp + fmt.Sprintf(" because its selector %s matches no pod (the namespace's pods could not be read to say which label is off)", sel),
			Evidence:   f.Evidence}
	}
	if len(c.B.Candidates) == 0 {
		f.Category = rule.Service.Sub("NoEndpoints", "NoPods")
		f.Confidence = rule.Likely
		f.Hypothesis = hyp + fmt.Sprintf(" because no pod at all runs in namespace %s", svc.Namespace)
		f.Title = fmt.Sprintf("service %s selects %s but namespace %s has no pods: its backend is not running here", svc.Name, sel, svc.Namespace)
		f.Summary = fmt.Sprintf("Service %s selects pods with %s, and there are no pods in namespace %s at all: the workload behind it is not deployed, scaled to zero, or runs in another namespace.", svc.Name, sel, svc.Namespace)
		f.Culprit = fmt.Sprintf("%s .spec.selector %s (no pod in namespace %s)", svcRef(svc), sel, svc.Namespace)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Find the workload that should back this Service: is it deployed, scaled to zero, or in another namespace?",
			Commands: []string{fmt.Sprintf("kubectl get deployments,statefulsets %s", svcNS(svc)), fmt.Sprintf("kubectl get pods -A -l %s", sel)}}}
		return f
	}
	pods, diffs := ClosestPods(svc.Spec.Selector, c.B.Candidates)
	names := NamesOfPods(pods)
	var diffText []string
	nearMiss := true
	for _, d := range diffs {
		diffText = append(diffText, d.String())
		nearMiss = nearMiss && d.closeEnough()
	}
	f.Category = rule.Service.Sub("NoEndpoints", "SelectorMismatch")
	f.Evidence = append(f.Evidence, c.Evidence(
		fmt.Sprintf("Closest pod(s) %s carry labels {%s}", strings.Join(firstNames(names, 3), ", "), kube.SelectorString(pods[0].Labels)),
		"pod/"+pods[0].Name+" .metadata.labels",
		fmt.Sprintf("kubectl get pod %s %s --show-labels", pods[0].Name, svcNS(svc))))
	// The culprit names each selector term that is off, as the pods spell it.
	var terms, fixes, nulls []string
	for _, d := range diffs {
		switch {
		case d.Have != "":
			terms = append(terms, fmt.Sprintf("%s=%s (pods have %s=%s)", d.Key, d.Want, d.Key, d.Have))
			fixes = append(fixes, fmt.Sprintf("%q:%q", d.Key, d.Have))
		case d.OtherKey != "":
			terms = append(terms, fmt.Sprintf("%s=%s (pods have %s=%s)", d.Key, d.Want, d.OtherKey, d.Want))
			nulls = append(nulls, fmt.Sprintf("%q:null", d.Key))
			fixes = append(fixes, fmt.Sprintf("%q:%q", d.OtherKey, d.Want))
		default:
			terms = append(terms, fmt.Sprintf("%s=%s (pods have no label %s)", d.Key, d.Want, d.Key))
			nulls = append(nulls, fmt.Sprintf("%q:null", d.Key))
		}
	}
	f.Culprit = fmt.Sprintf("%s .spec.selector %s", svcRef(svc), strings.Join(terms, ", "))
	f.Hypothesis = hyp + fmt.Sprintf(" because its selector %s matches no pod: %s", sel, strings.Join(diffText, "; "))
	if nearMiss {
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("service %s selector matches no pod: label %s", svc.Name, strings.Join(terms, ", "))
		f.Summary = fmt.Sprintf("Service %s selects %s, which matches no pod in namespace %s. The closest pods (%s) differ only by: %s. The selector or the pod labels carry a typo or an out-of-date value.",
			svc.Name, sel, svc.Namespace, strings.Join(firstNames(names, 3), ", "), strings.Join(diffText, "; "))
	} else {
		f.Confidence = rule.Plausible
		f.Title = fmt.Sprintf("service %s selector %s matches no pod; the closest pods differ on %s", svc.Name, sel, strings.Join(terms, ", "))
		f.Summary = fmt.Sprintf("Service %s selects %s, which matches none of the %d pod(s) of namespace %s; no pod looks like a near miss. The closest, %s: %s.",
			svc.Name, sel, len(c.B.Candidates), svc.Namespace, strings.Join(firstNames(names, 3), ", "), strings.Join(diffText, "; "))
		f.Contributing = append(f.Contributing, "No pod differs from the selector by a typo only: the intended workload may not be deployed in this namespace.")
	}
	if len(pods) > 1 {
		f.Contributing = append(f.Contributing, fmt.Sprintf("%d pods share the same labels: %s.", len(pods), strings.Join(firstNames(names, 5), ", ")))
	}
	patch := strings.Join(append(nulls, fixes...), ",")
	fix := report.Action{Kind: report.Immediate, Description: "Make the Service's selector match the pods' labels (or fix the labels in the pod template if the Service is right).",
		Commands: []string{listPods},
		Risk:     "traffic starts flowing to every pod the new selector matches: check they are the intended backends"}
	if patch != "" {
		fix.Commands = append(fix.Commands, fmt.Sprintf(`kubectl patch service %s %s --type=merge -p '{"spec":{"selector":{%s}}}'`, svc.Name, svcNS(svc), patch))
	}
	f.Actions = []report.Action{fix}
	return f
}

func podsNotReadyFinding(c *rule.Pass, svc *corev1.Service, hyp string, pods []*corev1.Pod, evidence []string) rule.Finding {
	names := NamesOfPods(pods)
	var states []string
	probe := ""
	for _, p := range pods {
		state := podNotReadyReason(p)
		states = append(states, fmt.Sprintf("%s: %s", p.Name, state))
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Pod %s matches the selector and is not Ready (%s)", p.Name, state),
			kube.PodRef(p)+" .status", fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, kube.NSFlag(p))))
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Readiness probe") {
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Event Unhealthy ×%d: %s", max(e.Count, 1), e.Message), "event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=Unhealthy", kube.NSFlag(p), p.Name)))
				if probe == "" {
					probe = fmt.Sprintf("%s (%s)", e.Message, p.Name)
				}
			}
		}
	}
	f := rule.Finding{
		Category: rule.Service.Sub("NoEndpoints", "PodsNotReady"), Verdict: report.Validated, Confidence: rule.High,
		Hypothesis: hyp + fmt.Sprintf(" because none of the %d pod(s) it selects is Ready", len(pods)),
		Evidence:   evidence, Current: true, Subject: svc.Name,
		Title:     fmt.Sprintf("service %s has no ready endpoints: its pods %s are not Ready", svc.Name, strings.Join(firstNames(names, 3), ", ")),
		Summary:   fmt.Sprintf("Service %s selects %d pod(s), none of them Ready (%s), so the EndpointSlice controller lists them as not ready and kube-proxy sends them no traffic.", svc.Name, len(pods), strings.Join(states, "; ")),
		Mechanism: "Only Ready pods receive Service traffic. The Service itself is correct; why the pods are not Ready is the cause to fix.",
		Culprit:   fmt.Sprintf("pods of %s not Ready: %s", svcRef(svc), strings.Join(states, "; ")),
		// A symptom: a pod rule that explains the pods (crash, image pull,
		// scheduling) is the deeper cause and outranks this.
		Strength: rule.Symptom,
		Actions: []report.Action{{Kind: report.Check, Description: "Find out why the pods are not Ready: their container states, probes and events.",
			Commands: []string{fmt.Sprintf("kubectl describe pods %s -l %s", svcNS(svc), kube.SelectorString(svc.Spec.Selector))}}},
	}
	if probe != "" {
		f.Strength = rule.Observed
		f.Category = rule.Service.Sub("NoEndpoints", "ReadinessProbe")
		f.Title = fmt.Sprintf("service %s has no ready endpoints: its pods fail their readiness probe", svc.Name)
		f.Culprit = fmt.Sprintf("readiness probe of the pods of %s: %s", svcRef(svc), probe)
		f.Mechanism += " The kubelet runs the readiness probe and marks the pod not Ready while it fails; the application is up but answers the probe with an error, or the probe points at the wrong path or port."
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Compare the readiness probe (path, port, timeouts) with what the application serves, and read its logs for why it reports unready.",
			Commands: []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{range .spec.containers[*]}{.name}: {.readinessProbe}{"\n"}{end}'`, pods[0].Name, kube.NSFlag(pods[0])), fmt.Sprintf("kubectl logs %s %s --all-containers --tail=50", pods[0].Name, kube.NSFlag(pods[0]))}}}, f.Actions...)
	}
	return f
}

// podNotReadyReason says in a few words why a pod is not Ready.
func podNotReadyReason(p *corev1.Pod) string {
	if p.DeletionTimestamp != nil {
		return "terminating"
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return "not scheduled: " + kube.ValueOr(cond.Reason, "Pending")
		}
	}
	for _, cs := range kube.AllStatuses(p) {
		st := cs.Status
		switch {
		case st.State.Waiting != nil && st.State.Waiting.Reason != "":
			return fmt.Sprintf("container %s %s", st.Name, st.State.Waiting.Reason)
		case st.State.Terminated != nil && !cs.Init:
			return fmt.Sprintf("container %s terminated (%s)", st.Name, kube.ValueOr(st.State.Terminated.Reason, fmt.Sprint("exit ", st.State.Terminated.ExitCode)))
		case st.State.Running != nil && !st.Ready && !cs.Init:
			return fmt.Sprintf("container %s running but not ready", st.Name)
		}
	}
	return "phase " + kube.ValueOr(string(p.Status.Phase), "unknown")
}

func NamesOfPods(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
