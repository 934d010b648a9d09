package investigate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Network rules: Services without endpoints, Ingress backends and classes.

// Labels and annotations the Kubernetes components set or read.
const (
	labelServiceName         = discoveryv1.LabelServiceName // kubernetes.io/service-name on EndpointSlices
	annIngressClassDefault   = networkingv1.AnnotationIsDefaultIngressClass
	annIngressClassLegacy    = "kubernetes.io/ingress.class"
	ingressClassesCommand    = "kubectl get ingressclass -o custom-columns=NAME:.metadata.name,CONTROLLER:.spec.controller,DEFAULT:.metadata.annotations.ingressclass\\.kubernetes\\.io/is-default-class"
	serviceEndpointsSelector = "kubectl get endpointslices -n %s -l kubernetes.io/service-name=%s -o wide"
)

// serviceEndpoints is what a Service's EndpointSlices say.
type serviceEndpoints struct {
	slices   int
	ready    []string // endpoint names (pod or address) ready to serve
	notReady []string
	portless int // endpoints in slices that carry no port: the controller could not resolve the targetPort
}

func endpointsOf(c *rule.Pass, svc *corev1.Service) serviceEndpoints {
	var out serviceEndpoints
	for _, s := range c.B.EndpointSlices {
		if s.Namespace != svc.Namespace || s.Labels[labelServiceName] != svc.Name {
			continue
		}
		out.slices++
		for _, e := range s.Endpoints {
			name := endpointName(e)
			// Ports only matter when the Service declares some: a slice
			// without ports for such a Service carries no traffic.
			if len(s.Ports) == 0 && len(svc.Spec.Ports) > 0 {
				out.portless++
				continue
			}
			// A nil ready condition means unknown, which consumers treat as ready.
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				out.ready = append(out.ready, name)
			} else {
				out.notReady = append(out.notReady, name)
			}
		}
	}
	return out
}

// summary counts what the slices hold, naming a few unready endpoints.
func (e serviceEndpoints) summary() string {
	if e.slices == 0 {
		return "no EndpointSlice lists it"
	}
	s := fmt.Sprintf("%d EndpointSlice(s), %d ready endpoint(s), %d not ready", e.slices, len(e.ready), len(e.notReady))
	if len(e.notReady) > 0 {
		s += " (" + strings.Join(firstNames(e.notReady, 3), ", ") + ")"
	}
	if e.portless > 0 {
		s += fmt.Sprintf(", %d without any port", e.portless)
	}
	return s
}

func endpointName(e discoveryv1.Endpoint) string {
	if e.TargetRef != nil && e.TargetRef.Name != "" {
		return e.TargetRef.Name
	}
	if len(e.Addresses) > 0 {
		return e.Addresses[0]
	}
	return "?"
}

// selectedPods are the bundle's pods the Service's selector matches.
func selectedPods(c *rule.Pass, svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for _, p := range c.B.Pods {
		if p.Namespace == svc.Namespace && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

func svcRef(svc *corev1.Service) string { return "service/" + svc.Name }

func svcNS(svc *corev1.Service) string { return "-n " + svc.Namespace }

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
	eps := endpointsOf(c, svc)
	slicesEv := func() string {
		return c.Evidence(fmt.Sprintf("Service %s: %s", svc.Name, eps.summary()), "EndpointSlices labelled kubernetes.io/service-name="+svc.Name,
			fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name))
	}
	if len(eps.ready) > 0 {
		return []rule.Finding{{
			Category: rule.Service.Sub("NoEndpoints"), Verdict: report.Refuted, Confidence: rule.Strong,
			Hypothesis: hyp + fmt.Sprintf(" (it has %d ready: %s)", len(eps.ready), strings.Join(firstNames(eps.ready, 5), ", ")),
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
	names := namesOfPods(ready)
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
	dist := editDistance(d.Want, d.Have)
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
			s += 1.5 + float64(editDistance(d.Want, d.Have))/float64(max(len(d.Want), len(d.Have), 1))
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

// closestPods groups candidate pods by the way their labels differ from the
// selector and returns the group that differs least.
func closestPods(sel map[string]string, cands []*corev1.Pod) (pods []*corev1.Pod, diffs []labelDiff) {
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
	pods, diffs := closestPods(svc.Spec.Selector, c.B.Candidates)
	names := namesOfPods(pods)
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
	names := namesOfPods(pods)
	var states []string
	probe := ""
	for _, p := range pods {
		state := podNotReadyReason(p)
		states = append(states, fmt.Sprintf("%s: %s", p.Name, state))
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Pod %s matches the selector and is not Ready (%s)", p.Name, state),
			kube.PodRef(p)+" .status", fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, kube.NsFlag(p))))
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "Unhealthy" && strings.HasPrefix(e.Message, "Readiness probe") {
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Event Unhealthy ×%d: %s", max(e.Count, 1), e.Message), "event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=Unhealthy", kube.NsFlag(p), p.Name)))
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
			Commands: []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{range .spec.containers[*]}{.name}: {.readinessProbe}{"\n"}{end}'`, pods[0].Name, kube.NsFlag(pods[0])), fmt.Sprintf("kubectl logs %s %s --all-containers --tail=50", pods[0].Name, kube.NsFlag(pods[0]))}}}, f.Actions...)
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

// portProblem is a Service port whose targetPort the selected pods do not
// serve.
type portProblem struct {
	Index    int
	Port     corev1.ServicePort
	Lacking  []string // pods that do not declare it
	Declared []string // what their containers declare, name:port/proto
}

// namedPortProblems lists Service ports whose named targetPort is not
// declared by the pods: the EndpointSlice controller cannot resolve it.
func namedPortProblems(svc *corev1.Service, pods []*corev1.Pod) []portProblem {
	var out []portProblem
	for i, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type != intstr.String || sp.TargetPort.StrVal == "" {
			continue
		}
		pp := portProblem{Index: i, Port: sp}
		for _, p := range pods {
			if _, ok := findContainerPort(p, sp.TargetPort.StrVal, 0, sp.Protocol); !ok {
				pp.Lacking = append(pp.Lacking, p.Name)
			}
		}
		if len(pp.Lacking) > 0 {
			pp.Declared = declaredPorts(pods)
			out = append(out, pp)
		}
	}
	return out
}

// findContainerPort finds a container port by name (if name is set) or
// number, with the Service port's protocol (TCP when unset).
func findContainerPort(p *corev1.Pod, name string, number int32, proto corev1.Protocol) (string, bool) {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, ctr := range p.Spec.Containers {
		for _, cp := range ctr.Ports {
			cpProto := cp.Protocol
			if cpProto == "" {
				cpProto = corev1.ProtocolTCP
			}
			if cpProto != proto {
				continue
			}
			if (name != "" && cp.Name == name) || (name == "" && cp.ContainerPort == number) {
				return ctr.Name, true
			}
		}
	}
	return "", false
}

func declaredPorts(pods []*corev1.Pod) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pods {
		for _, ctr := range p.Spec.Containers {
			for _, cp := range ctr.Ports {
				proto := cp.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				s := fmt.Sprintf("%d/%s", cp.ContainerPort, proto)
				if cp.Name != "" {
					s = fmt.Sprintf("%q %s", cp.Name, s)
				}
				s = fmt.Sprintf("container %s port %s", ctr.Name, s)
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// checkServiceTargetPort: the Service sends traffic to a port the pods do
// not serve. A named targetPort must be declared by the containers (else no
// endpoint gets that port); a numeric one need not be declared, so a
// mismatch there is only probable.
func checkServiceTargetPort(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return nil
	}
	pods := selectedPods(c, svc)
	if len(pods) == 0 {
		return nil
	}
	var out []rule.Finding
	for _, pp := range namedPortProblems(svc, pods) {
		out = append(out, namedPortFinding(c, svc, pods, pp))
	}
	declared := declaredPorts(pods)
	for i, sp := range svc.Spec.Ports {
		if sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "" {
			continue
		}
		target := sp.TargetPort.IntVal
		if target == 0 {
			target = sp.Port // targetPort defaults to port
		}
		var lacking []string
		for _, p := range pods {
			if _, ok := findContainerPort(p, "", target, sp.Protocol); !ok {
				lacking = append(lacking, p.Name)
			}
		}
		if len(lacking) == 0 || len(declared) == 0 {
			// Declared, or nothing declared to compare with: containers need
			// not declare the ports they listen on.
			continue
		}
		out = append(out, numericPortFinding(c, svc, i, sp, target, lacking, declared))
	}
	if len(out) == 0 && len(svc.Spec.Ports) > 0 && len(declared) > 0 {
		out = append(out, rule.Finding{
			Category: rule.Service.Sub("TargetPort"), Verdict: report.Refuted, Confidence: rule.Likely, Subject: svc.Name,
			Hypothesis: fmt.Sprintf("Service %s sends traffic to a port its pods do not declare", svc.Name),
			Evidence: []string{c.Evidence(fmt.Sprintf("Selected pods declare %s", strings.Join(declared, ", ")),
				kube.PodRef(pods[0])+" .spec.containers[*].ports",
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NsFlag(pods[0])))},
		})
	}
	return out
}

func servicePortLabel(sp corev1.ServicePort) string {
	if sp.Name != "" {
		return fmt.Sprintf("%s (%d)", sp.Name, sp.Port)
	}
	return fmt.Sprint(sp.Port)
}

func namedPortFinding(c *rule.Pass, svc *corev1.Service, pods []*corev1.Pod, pp portProblem) rule.Finding {
	name := pp.Port.TargetPort.StrVal
	declared := "no port at all"
	if len(pp.Declared) > 0 {
		declared = strings.Join(pp.Declared, ", ")
	}
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s port %s has targetPort %q (a container port name)", svc.Name, servicePortLabel(pp.Port), name),
			fmt.Sprintf("%s .spec.ports[%d].targetPort", svcRef(svc), pp.Index),
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("The selected pods declare %s; none is named %q", declared, name),
			kube.PodRef(pods[0])+" .spec.containers[*].ports",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NsFlag(pods[0]))),
	}
	f := rule.Finding{
		Category: rule.Service.Sub("TargetPort", "NamedPortMissing"), Verdict: report.Validated, Confidence: rule.Strong,
		Hypothesis: fmt.Sprintf("Service %s targets port name %q, which its pods do not declare", svc.Name, name),
		Evidence:   ev, Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title: fmt.Sprintf("service %s targetPort %q is not a port name of its pods (they declare %s)", svc.Name, name, declared),
		Summary: fmt.Sprintf("Service %s port %s sends traffic to the container port named %q, but the pods it selects (%s) declare %s. No endpoint gets that port, so the Service forwards nothing on it.",
			svc.Name, servicePortLabel(pp.Port), name, strings.Join(firstNames(pp.Lacking, 3), ", "), declared),
		Mechanism: "A named targetPort is resolved per pod against the names in spec.containers[*].ports; the EndpointSlice controller leaves out a pod that has no port of that name, so the Service has no endpoint for that port.",
		Culprit:   fmt.Sprintf("%s .spec.ports[%d].targetPort %q (containers declare %s)", svcRef(svc), pp.Index, name, declared),
	}
	if len(pp.Lacking) < len(pods) {
		f.Confidence = rule.Likely
		f.Contributing = append(f.Contributing, fmt.Sprintf("Only some pods lack the port name (%s): a rollout may have renamed it.", strings.Join(pp.Lacking, ", ")))
	}
	fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Point targetPort at a port the containers declare (or name the container port %q in the pod template).", name),
		Risk: "traffic starts flowing to the new port at once"}
	if suggestion := suggestPort(pods, pp.Port.Protocol); suggestion != "" {
		fix.Commands = []string{fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[{"op":"replace","path":"/spec/ports/%d/targetPort","value":%s}]'`, svc.Name, svcNS(svc), pp.Index, suggestion)}
	} else {
		fix.Commands = []string{fmt.Sprintf("kubectl get service %s %s -o yaml", svc.Name, svcNS(svc))}
	}
	f.Actions = []report.Action{fix}
	return f
}

// suggestPort proposes the JSON value of a targetPort the pods declare: the
// only port of the protocol, by name when it has one.
func suggestPort(pods []*corev1.Pod, proto corev1.Protocol) string {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	var found []corev1.ContainerPort
	for _, ctr := range pods[0].Spec.Containers {
		for _, cp := range ctr.Ports {
			if cp.Protocol == proto || (cp.Protocol == "" && proto == corev1.ProtocolTCP) {
				found = append(found, cp)
			}
		}
	}
	if len(found) != 1 {
		return ""
	}
	if found[0].Name != "" {
		return fmt.Sprintf("%q", found[0].Name)
	}
	return fmt.Sprint(found[0].ContainerPort)
}

func numericPortFinding(c *rule.Pass, svc *corev1.Service, index int, sp corev1.ServicePort, target int32, lacking, declared []string) rule.Finding {
	pods := selectedPods(c, svc)
	ev := []string{
		c.Evidence(fmt.Sprintf("Service %s port %s forwards to targetPort %d", svc.Name, servicePortLabel(sp), target),
			fmt.Sprintf("%s .spec.ports[%d].targetPort", svcRef(svc), index),
			fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, svcNS(svc))),
		c.Evidence(fmt.Sprintf("The selected pods declare %s, not %d", strings.Join(declared, ", "), target),
			kube.PodRef(pods[0])+" .spec.containers[*].ports",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].ports}'`, pods[0].Name, kube.NsFlag(pods[0]))),
	}
	f := rule.Finding{
		Category: rule.Service.Sub("TargetPort", "NotDeclared"), Verdict: report.Validated, Confidence: rule.Even,
		Hypothesis: fmt.Sprintf("Service %s forwards to port %d, which its pods do not declare (%s)", svc.Name, target, strings.Join(declared, ", ")),
		Evidence:   ev, Current: true, Strength: rule.Observed, Subject: svc.Name,
		Title: fmt.Sprintf("service %s forwards to targetPort %d but its pods declare %s", svc.Name, target, strings.Join(declared, ", ")),
		Summary: fmt.Sprintf("Service %s port %s forwards to port %d of its pods, but their containers declare %s. If the application listens only on a declared port, connections through the Service are refused.",
			svc.Name, servicePortLabel(sp), target, strings.Join(declared, ", ")),
		Mechanism: "kube-proxy forwards to the numeric targetPort whether or not a container declares it; declaring ports is optional, so this is probable rather than certain: the application may listen on the undeclared port.",
		Culprit:   fmt.Sprintf("%s .spec.ports[%d].targetPort %d (pods declare %s)", svcRef(svc), index, target, strings.Join(declared, ", ")),
		Contributing: []string{fmt.Sprintf("Pods without a container port %d: %s.", target, strings.Join(firstNames(lacking, 5), ", ")),
			"Containers need not declare the ports they listen on: confirm the listening port from inside a pod before changing the Service."},
		Actions: []report.Action{
			{Kind: report.Check, Description: "Confirm which port the application listens on.",
				Commands: []string{fmt.Sprintf("kubectl exec %s %s -- sh -c 'netstat -tln 2>/dev/null || ss -tln'", pods[0].Name, kube.NsFlag(pods[0]))}},
		},
	}
	if s := suggestPort(pods, sp.Protocol); s != "" {
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Point targetPort at the port the containers declare.",
			Commands: []string{fmt.Sprintf(`kubectl patch service %s %s --type=json -p '[{"op":"replace","path":"/spec/ports/%d/targetPort","value":%s}]'`, svc.Name, svcNS(svc), index, s)},
			Risk:     "traffic moves to the new port at once; wrong if the application really listens on the undeclared port"}}, f.Actions...)
	}
	return f
}

// ingressBackend is one Service an Ingress routes to, and where.
type ingressBackend struct {
	Where   string // "default backend" or "rule shop.example.com/api"
	Field   string // JSON path of the backend
	Service string
	Port    networkingv1.ServiceBackendPort
}

func ingressBackends(ing *networkingv1.Ingress) []ingressBackend {
	var out []ingressBackend
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		out = append(out, ingressBackend{Where: "default backend", Field: ".spec.defaultBackend", Service: b.Service.Name, Port: b.Service.Port})
	}
	for i, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for j, p := range r.HTTP.Paths {
			if p.Backend.Service == nil {
				continue
			}
			host := r.Host
			if host == "" {
				host = "*"
			}
			out = append(out, ingressBackend{
				Where: fmt.Sprintf("rule %s%s", host, kube.ValueOr(p.Path, "/")),
				Field: fmt.Sprintf(".spec.rules[%d].http.paths[%d].backend", i, j), Service: p.Backend.Service.Name, Port: p.Backend.Service.Port,
			})
		}
	}
	return out
}

func portText(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return fmt.Sprintf("port name %q", p.Name)
	}
	return fmt.Sprintf("port %d", p.Number)
}

func serviceNamed(c *rule.Pass, ns, name string) *corev1.Service {
	for _, s := range c.B.Services {
		if s.Namespace == ns && s.Name == name {
			return s
		}
	}
	return nil
}

func servicePortsText(svc *corev1.Service) string {
	var ports []string
	for _, sp := range svc.Spec.Ports {
		ports = append(ports, servicePortLabel(sp))
	}
	if len(ports) == 0 {
		return "no port"
	}
	return strings.Join(ports, ", ")
}

// checkIngressBackends: each Service an Ingress routes to must exist, expose
// the port the Ingress names and have ready endpoints.
func checkIngressBackends(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	ns := "-n " + ing.Namespace
	ingRef := "ingress/" + ing.Name
	var out []rule.Finding
	checked := 0
	for _, be := range ingressBackends(ing) {
		beEv := c.Evidence(fmt.Sprintf("Ingress %s %s routes to service %s %s", ing.Name, be.Where, be.Service, portText(be.Port)),
			ingRef+" "+be.Field,
			fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{%s}'", ing.Name, ns, be.Field))
		svc := serviceNamed(c, ing.Namespace, be.Service)
		switch {
		case c.B.IsMissing("Service", ing.Namespace, be.Service):
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "ServiceMissing"), Verdict: report.Validated, Confidence: rule.Definitive,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s, which does not exist", ing.Name, be.Where, be.Service),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s/%s does not exist (404)", ing.Namespace, be.Service), "service/"+be.Service,
					fmt.Sprintf("kubectl get service %s %s", be.Service, ns))},
				Current: true, Strength: rule.Explained, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s routes %s to service %s, which does not exist", ing.Name, be.Where, be.Service),
				Summary:   fmt.Sprintf("Ingress %s sends %s to service %s in namespace %s, but no such Service exists: the ingress controller answers those requests with 503 (or its default backend).", ing.Name, be.Where, be.Service, ing.Namespace),
				Mechanism: "The ingress controller resolves each backend to the Service's endpoints; a missing Service has none, so requests for that host/path fail.",
				Culprit:   fmt.Sprintf("%s %s service.name %q (service not found)", ingRef, be.Field, be.Service),
				Actions: []report.Action{
					{Kind: report.Immediate, Description: "Point the backend at the Service that exists (a typo or a rename), or create the missing Service.",
						Commands: []string{fmt.Sprintf("kubectl get services %s", ns), fmt.Sprintf("kubectl edit ingress %s %s", ing.Name, ns)},
						Risk:     "changes routing for that host/path as soon as the controller reloads"},
				},
			})
		case svc == nil:
			continue // not collected: nothing to say
		case !serviceHasPort(svc, be.Port):
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "PortMissing"), Verdict: report.Validated, Confidence: rule.Strong,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s %s, which the Service does not expose", ing.Name, be.Where, be.Service, portText(be.Port)),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s exposes %s", svc.Name, servicePortsText(svc)), svcRef(svc)+" .spec.ports",
					fmt.Sprintf("kubectl get service %s %s -o jsonpath='{.spec.ports}'", svc.Name, ns))},
				Current: true, Strength: rule.Explained, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s routes %s to service %s %s, which it does not expose (it has %s)", ing.Name, be.Where, be.Service, portText(be.Port), servicePortsText(svc)),
				Summary:   fmt.Sprintf("Ingress %s sends %s to %s of service %s, but the Service exposes %s: the controller finds no endpoint for that port and answers 503.", ing.Name, be.Where, portText(be.Port), be.Service, servicePortsText(svc)),
				Mechanism: "An Ingress backend names a Service port (the Service's port, not the container's targetPort) by number or name; a port the Service does not list resolves to no endpoint.",
				Culprit:   fmt.Sprintf("%s %s service.port (%s; service %s exposes %s)", ingRef, be.Field, portText(be.Port), be.Service, servicePortsText(svc)),
				Actions: []report.Action{{Kind: report.Immediate, Description: "Set the backend port to one the Service exposes (the Service port, not the container port).",
					Commands: []string{fmt.Sprintf("kubectl edit ingress %s %s", ing.Name, ns)},
					Risk:     "changes routing for that host/path as soon as the controller reloads"}},
			})
		default:
			checked++
			if svc.Spec.Type == corev1.ServiceTypeExternalName || kube.CollectionFailed(c, "endpointslices") {
				continue
			}
			eps := endpointsOf(c, svc)
			if len(eps.ready) > 0 {
				continue
			}
			why := "no EndpointSlice lists a ready endpoint"
			if len(eps.notReady) > 0 {
				why = fmt.Sprintf("its %d endpoint(s) are not ready (%s)", len(eps.notReady), strings.Join(firstNames(eps.notReady, 3), ", "))
			} else if len(svc.Spec.Selector) == 0 {
				why = "it has no selector and no manual EndpointSlice"
			}
			out = append(out, rule.Finding{
				Category: rule.Ingress.Sub("Backend", "NoEndpoints"), Verdict: report.Validated, Confidence: rule.Likely,
				Hypothesis: fmt.Sprintf("Ingress %s routes %s to service %s, which has no ready endpoints", ing.Name, be.Where, be.Service),
				Evidence: []string{beEv, c.Evidence(fmt.Sprintf("Service %s: %s", svc.Name, eps.summary()),
					"EndpointSlices labelled kubernetes.io/service-name="+svc.Name, fmt.Sprintf(serviceEndpointsSelector, svc.Namespace, svc.Name))},
				Current: true, Strength: rule.Observed, Subject: ing.Name + "/" + be.Service,
				Title:     fmt.Sprintf("ingress %s backend service %s has no ready endpoints: %s", ing.Name, be.Service, why),
				Summary:   fmt.Sprintf("Ingress %s sends %s to service %s, which exists and exposes the port, but %s: the controller answers 503.", ing.Name, be.Where, be.Service, why),
				Mechanism: "The Ingress is correct; the Service behind it has no ready pod to send requests to. Why is a question about that Service and its pods.",
				Culprit:   fmt.Sprintf("service/%s behind %s %s (no ready endpoints)", be.Service, ingRef, be.Where),
				Actions: []report.Action{{Kind: report.Check, Description: fmt.Sprintf("Triage the Service %s to find why it has no ready endpoints.", be.Service),
					Commands: []string{fmt.Sprintf("kubectl triage service/%s %s", be.Service, ns), fmt.Sprintf(serviceEndpointsSelector, ing.Namespace, be.Service)}}},
			})
		}
	}
	if len(out) == 0 && checked > 0 {
		out = append(out, rule.Finding{
			Category: rule.Ingress.Sub("Backend"), Verdict: report.Refuted, Confidence: rule.High, Subject: ing.Name,
			Hypothesis: fmt.Sprintf("A backend Service of ingress %s is missing, lacks the port or has no ready endpoints", ing.Name),
		})
	}
	return out
}

func serviceHasPort(svc *corev1.Service, p networkingv1.ServiceBackendPort) bool {
	for _, sp := range svc.Spec.Ports {
		if (p.Name != "" && sp.Name == p.Name) || (p.Name == "" && sp.Port == p.Number) {
			return true
		}
	}
	return false
}

// checkIngressClass: an Ingress no controller claims, because its class does
// not exist, or it names none and no class is the default.
func checkIngressClass(c *rule.Pass) []rule.Finding {
	ing := kube.TargetOf(c, "Ingress", c.B.Ingresses)
	if ing == nil {
		return nil
	}
	ns := "-n " + ing.Namespace
	var names, defaults []string
	for _, ic := range c.B.IngressClasses {
		names = append(names, fmt.Sprintf("%s (%s)", ic.Name, ic.Spec.Controller))
		if ic.Annotations[annIngressClassDefault] == "true" {
			defaults = append(defaults, ic.Name)
		}
	}
	have := "no IngressClass exists"
	if len(names) > 0 {
		have = "the cluster has " + strings.Join(names, ", ")
	}
	classesEv := func() string {
		return c.Evidence(fmt.Sprintf("IngressClasses: %s; default: %s", kube.ValueOr(strings.Join(names, ", "), "none"), kube.ValueOr(strings.Join(defaults, ", "), "none")),
			"ingressclasses (cluster-scoped)", ingressClassesCommand)
	}
	if classProblem(c) {
		return nil // could not list the classes: no verdict either way
	}
	addr := ""
	if len(ing.Status.LoadBalancer.Ingress) == 0 {
		addr = "The Ingress has no address in status.loadBalancer: no controller has admitted it."
	}
	hyp := fmt.Sprintf("No ingress controller serves ingress %s because of its class", ing.Name)
	if name := ing.Spec.IngressClassName; name != nil && *name != "" {
		for _, ic := range c.B.IngressClasses {
			if ic.Name == *name {
				return []rule.Finding{{Category: rule.Ingress.Sub("Class"), Verdict: report.Refuted, Confidence: rule.High, Subject: ing.Name,
					Hypothesis: hyp + fmt.Sprintf(" (class %s exists, controller %s)", ic.Name, ic.Spec.Controller), Evidence: []string{classesEv()}}}
			}
		}
		f := rule.Finding{
			Category: rule.Ingress.Sub("Class", "Missing"), Verdict: report.Validated, Confidence: rule.Strong,
			Hypothesis: hyp + fmt.Sprintf(": it names IngressClass %q, which does not exist", *name),
			Evidence: []string{c.Evidence(fmt.Sprintf("Ingress %s has spec.ingressClassName %q", ing.Name, *name), "ingress/"+ing.Name+" .spec.ingressClassName",
				fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.ingressClassName}'", ing.Name, ns)), classesEv()},
			Current: true, Strength: rule.Explained, Subject: ing.Name,
			Title:     fmt.Sprintf("ingress %s names IngressClass %q, which does not exist (%s)", ing.Name, *name, have),
			Summary:   fmt.Sprintf("Ingress %s asks for IngressClass %q, but %s. No ingress controller claims it, so none routes its traffic.", ing.Name, *name, have),
			Mechanism: "Each ingress controller only serves Ingresses whose class points at an IngressClass with its controller name; a class that does not exist is served by nobody.",
			Culprit:   fmt.Sprintf("ingress/%s .spec.ingressClassName %q (not found; %s)", ing.Name, *name, have),
			Actions: []report.Action{{Kind: report.Immediate, Description: "Set ingressClassName to a class that exists (or install the controller and its IngressClass).",
				Commands: []string{ingressClassesCommand, fmt.Sprintf(`kubectl patch ingress %s %s --type=merge -p '{"spec":{"ingressClassName":"<existing class>"}}'`, ing.Name, ns)},
				Risk:     "the chosen controller starts serving the Ingress's hosts at once"}},
		}
		if addr != "" {
			f.Contributing = append(f.Contributing, addr)
		}
		return []rule.Finding{f}
	}
	if legacy := ing.Annotations[annIngressClassLegacy]; legacy != "" {
		// The deprecated annotation is read by the controllers themselves,
		// not matched against IngressClass objects: nothing to check.
		return nil
	}
	if len(defaults) > 0 {
		return []rule.Finding{{Category: rule.Ingress.Sub("Class"), Verdict: report.Refuted, Confidence: rule.Moderate, Subject: ing.Name,
			Hypothesis: hyp + fmt.Sprintf(" (it names no class; %s is the default)", strings.Join(defaults, ", ")), Evidence: []string{classesEv()}}}
	}
	f := rule.Finding{
		Category: rule.Ingress.Sub("Class", "NoDefault"), Verdict: report.Validated, Confidence: rule.Likely,
		Hypothesis: hyp + ": it names no IngressClass and no class is marked default",
		Evidence: []string{c.Evidence(fmt.Sprintf("Ingress %s has no spec.ingressClassName and no kubernetes.io/ingress.class annotation", ing.Name),
			"ingress/"+ing.Name+" .spec.ingressClassName", fmt.Sprintf("kubectl get ingress %s %s -o jsonpath='{.spec.ingressClassName}'", ing.Name, ns)), classesEv()},
		Current: true, Strength: rule.Explained, Subject: ing.Name,
		Title:     fmt.Sprintf("ingress %s names no IngressClass and there is no default class (%s)", ing.Name, have),
		Summary:   fmt.Sprintf("Ingress %s has no ingressClassName, and no IngressClass carries %s=true; %s. Controllers ignore Ingresses without a class unless told otherwise, so nobody routes its traffic.", ing.Name, annIngressClassDefault, have),
		Mechanism: "An Ingress without a class is assigned the default IngressClass at creation; with no default, it stays classless and most controllers skip it.",
		Culprit:   fmt.Sprintf("ingress/%s .spec.ingressClassName (unset; no default IngressClass)", ing.Name),
		Actions: []report.Action{
			{Kind: report.Immediate, Description: "Name the class of the controller that should serve it.",
				Commands: []string{ingressClassesCommand, fmt.Sprintf(`kubectl patch ingress %s %s --type=merge -p '{"spec":{"ingressClassName":"<class>"}}'`, ing.Name, ns)},
				Risk:     "the chosen controller starts serving the Ingress's hosts at once"},
			{Kind: report.LongTerm, Description: "Mark one IngressClass as the cluster default so classless Ingresses get it.",
				Commands: []string{fmt.Sprintf(`kubectl annotate ingressclass <class> %s=true`, annIngressClassDefault)},
				Risk:     "every new Ingress without a class goes to that controller"},
		},
	}
	if addr != "" {
		f.Contributing = append(f.Contributing, addr)
	}
	return []rule.Finding{f}
}

// classProblem reports that the IngressClasses could not be read.
func classProblem(c *rule.Pass) bool {
	return kube.CollectionFailed(c, "ingressclass") || kube.CollectionFailed(c, "ingress class")
}

func namesOfPods(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func firstNames(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("… (%d more)", len(s)-n))
}

// editDistance is the Levenshtein distance, for telling a typo from an
// unrelated label value.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
