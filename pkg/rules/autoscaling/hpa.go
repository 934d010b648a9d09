package autoscaling

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// HPA is the rule autoscaling/hpa.
var HPA = &rule.Rule{
	Meta: rule.Meta{
		ID:    "autoscaling/hpa",
		Kinds: []string{"HorizontalPodAutoscaler", "Deployment", "StatefulSet", "ReplicaSet"},
		Layer: rule.WorkloadLayer,
		Needs: []rule.Need{rule.HPAs, rule.Pods, rule.Events},
		Doc:   "An HPA that cannot compute a replica count or scale its target, or is only at a limit it was given.",
	},
	Check: checkHPAs,
}

// hpaClass is why an HPA cannot compute a replica count: the category
// suffix ("HPA/NoMetrics"); hpaMetricsFailed when no row recognises the
// message.
type hpaClass string

const (
	hpaMissingRequest           hpaClass = "MissingRequest"
	hpaMetricsAPIUnavailable    hpaClass = "MetricsAPIUnavailable"
	hpaNoMetrics                hpaClass = "NoMetrics"
	hpaCustomMetricsUnavailable hpaClass = "CustomMetricsUnavailable"
	hpaMetricsFailed            hpaClass = "MetricsFailed"
)

// hpaProblem is one row of the HPA metric-failure table, matched against
// the ScalingActive=False message and the controller's warning events.
type hpaProblem struct {
	Class hpaClass
	re    *regexp.Regexp // its named groups are what the finding reads
	Title string         // %[1]s hpa name, %[2]s the matched detail
	Mech  string
	Conf  rule.Confidence
}

var hpaProblems = []hpaProblem{
	// Controllers before 1.25 print only "missing request for cpu"; the
	// container and pod are then read from the target's template.
	{hpaMissingRequest, regexp.MustCompile(`missing request for (?P<res>[a-z.\-/]+)(?: in container "?(?P<ctr>[^" ]+)"? of Pod "?(?P<pod>[^" ]+)"?)?`),
		"", // built from the groups
		"Resource utilization is usage divided by request; the HPA controller cannot compute it for a container that has no request for that resource, so it does not scale at all.", rule.Definitive},
	{hpaMetricsAPIUnavailable, regexp.MustCompile(`unable to fetch metrics from resource metrics API: (?P<detail>[^\n]*(?:could not find the requested resource|currently unable to handle the request|no endpoints available|service unavailable|connection refused)[^\n]*)`),
		"HPA %[1]s cannot read pod metrics: the resource metrics API (metrics.k8s.io) is not served — metrics-server is missing or down (%[2]s)",
		"The HPA controller reads CPU/memory usage from the metrics.k8s.io API, which metrics-server provides through an APIService; without it no utilization can be computed.", rule.Strong},
	{hpaNoMetrics, regexp.MustCompile(`(?P<detail>did not receive metrics for (?:targeted|any ready) pods[^\n]*|no metrics returned from resource metrics API[^\n]*)`),
		"HPA %[1]s gets no metrics for its pods: %[2]s",
		"The metrics API answers but holds no samples for the target's pods: they are not running or not ready yet, or metrics-server cannot scrape their node's kubelet.", rule.Plausible},
	{hpaCustomMetricsUnavailable, regexp.MustCompile(`(?P<detail>unable to (?:fetch|get) (?:external )?metrics? (?:from|for) (?:custom|external) metrics API[^\n]*|unable to get external metric[^\n]*|unable to get metric [^\n]+)`),
		"HPA %[1]s cannot read its custom/external metric: %[2]s",
		"Custom and external metrics come from an adapter (prometheus-adapter, KEDA, a cloud adapter) registered as an APIService; it is missing, down, or does not know the metric.", rule.High},
}

func hpaRef(h *autoscalingv2.HorizontalPodAutoscaler) string { return "hpa/" + h.Name }

func hpaNS(h *autoscalingv2.HorizontalPodAutoscaler) string { return "-n " + h.Namespace }

func hpaCondition(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range h.Status.Conditions {
		if h.Status.Conditions[i].Type == t {
			return &h.Status.Conditions[i]
		}
	}
	return nil
}

// hpasToCheck: the HPA target, or the HPAs scaling a workload target (their
// faults matter to it, their limits do not).
func hpasToCheck(c *rule.Pass) (list []*autoscalingv2.HorizontalPodAutoscaler, isTarget bool) {
	if h := kube.TargetOf(c, "HorizontalPodAutoscaler", c.B.HPAs); h != nil {
		return []*autoscalingv2.HorizontalPodAutoscaler{h}, true
	}
	t := c.B.Target
	for _, h := range c.B.HPAs {
		if h.Namespace == t.Namespace && h.Spec.ScaleTargetRef.Kind == t.Kind && h.Spec.ScaleTargetRef.Name == t.Name {
			list = append(list, h)
		}
	}
	return list, false
}

// checkHPAs: an HPA that cannot compute a replica count or cannot scale its
// target, and, honestly, an HPA that is only at a limit it was given.
func checkHPAs(c *rule.Pass) []rule.Finding {
	hpas, isTarget := hpasToCheck(c)
	var out []rule.Finding
	for _, h := range hpas {
		fs := hpaFindings(c, h, isTarget)
		if !isTarget {
			for i := range fs {
				fs[i].Strength = rule.Symptom // context for the workload, not the cause of its pods' trouble
			}
		}
		out = append(out, fs...)
	}
	return out
}

func hpaFindings(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, isTarget bool) []rule.Finding {
	condEv := func(cond *autoscalingv2.HorizontalPodAutoscalerCondition) string {
		return c.Evidence(fmt.Sprintf("Condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message), hpaRef(h)+" .status.conditions["+string(cond.Type)+"]",
			fmt.Sprintf(`kubectl get hpa %s %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, h.Name, hpaNS(h), cond.Type))
	}
	target := fmt.Sprintf("%s/%s", strings.ToLower(h.Spec.ScaleTargetRef.Kind), h.Spec.ScaleTargetRef.Name)
	base := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: h.Name}
	var out []rule.Finding

	if cond := hpaCondition(h, autoscalingv2.AbleToScale); cond != nil && cond.Status == corev1.ConditionFalse {
		switch cond.Reason {
		case "FailedGetScale":
			f := base
			f.Category = rule.HPA.Sub("ScaleTargetMissing")
			f.Confidence = rule.High
			f.Evidence = []string{condEv(cond)}
			if c.B.IsMissing(h.Spec.ScaleTargetRef.Kind, h.Namespace, h.Spec.ScaleTargetRef.Name) || strings.Contains(cond.Message, "not found") {
				f.Confidence = rule.Definitive
			}
			f.Hypothesis = fmt.Sprintf("HPA %s cannot read the scale of its target %s", h.Name, target)
			f.Title = fmt.Sprintf("HPA %s cannot scale: its target %s cannot be read (%s)", h.Name, target, cond.Message)
			f.Summary = fmt.Sprintf("HPA %s points at %s, whose scale subresource the controller cannot read: %s. It does nothing until the target exists.", h.Name, target, cond.Message)
			f.Mechanism = "The HPA controller reads and writes the target's /scale subresource; a wrong kind, name or apiVersion in scaleTargetRef, or a deleted workload, makes every attempt fail."
			f.Culprit = fmt.Sprintf("%s .spec.scaleTargetRef %s (%s)", hpaRef(h), target, cond.Message)
			f.Actions = []report.Action{{Kind: report.Immediate, Description: "Point scaleTargetRef at the workload that exists (kind, name and apiVersion), or delete the HPA if the workload is gone.",
				Commands: []string{fmt.Sprintf("kubectl get deployments,statefulsets %s", hpaNS(h)), fmt.Sprintf("kubectl edit hpa %s %s", h.Name, hpaNS(h))}}}
			if near := scaleTargetNearMisses(c, h); len(near) > 0 {
				kind, name, _ := strings.Cut(near[0], "/")
				kind = map[string]string{"deployment": "Deployment", "statefulset": "StatefulSet"}[kind]
				has := strings.Join(near, ", ")
				if name == h.Spec.ScaleTargetRef.Name && kind != h.Spec.ScaleTargetRef.Kind {
					// The name is right and the kind is not: say which kind it is.
					has = fmt.Sprintf("%s (a %s named %s, where scaleTargetRef says %s)", has, kind, name, h.Spec.ScaleTargetRef.Kind)
				}
				f.Culprit += fmt.Sprintf("; the namespace has %s, likely the intended target", has)
				f.Summary += fmt.Sprintf(" The namespace has %s: scaleTargetRef probably means it.", has)
				f.Actions = append([]report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Point scaleTargetRef at %s, the existing workload it nearly names.", near[0]),
					Commands: []string{fmt.Sprintf(`kubectl patch hpa %s %s --type=merge -p '{"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"%s","name":"%s"}}}'`, h.Name, hpaNS(h), kind, name)},
					Risk:     "the HPA starts scaling that workload at once, within its min/max replicas"}}, f.Actions...)
			}
			out = append(out, f)
		case "FailedUpdateScale":
			f := base
			f.Category = rule.HPA.Sub("FailedUpdateScale")
			f.Confidence = rule.High
			f.Evidence = []string{condEv(cond)}
			f.Hypothesis = fmt.Sprintf("HPA %s cannot update the replica count of %s", h.Name, target)
			f.Title = fmt.Sprintf("HPA %s cannot update the scale of %s: %s", h.Name, target, cond.Message)
			f.Summary = f.Title + "."
			f.Mechanism = "The HPA computed a replica count but writing it to the target's /scale subresource failed (admission webhook, quota, RBAC of the controller)."
			f.Culprit = fmt.Sprintf("%s scale update of %s: %s", hpaRef(h), target, cond.Message)
			f.Actions = []report.Action{{Kind: report.Check, Description: "Read the error: an admission webhook or policy rejecting replica changes is the usual cause.",
				Commands: []string{fmt.Sprintf("kubectl describe hpa %s %s", h.Name, hpaNS(h))}}}
			out = append(out, f)
		}
	}

	if cond := hpaCondition(h, autoscalingv2.ScalingActive); cond != nil && cond.Status == corev1.ConditionFalse {
		if cond.Reason == "ScalingDisabled" {
			if isTarget {
				f := base
				f.Category = rule.HPA.Sub("ScalingDisabled")
				f.Confidence = rule.High
				f.Strength = rule.Symptom
				f.Evidence = []string{condEv(cond)}
				f.Hypothesis = fmt.Sprintf("HPA %s is disabled because %s was scaled to zero", h.Name, target)
				f.Title = fmt.Sprintf("not a fault: HPA %s is paused because %s has 0 replicas", h.Name, target)
				f.Summary = fmt.Sprintf("HPA %s does nothing while its target %s is scaled to 0 (%s). Someone scaled it down on purpose, or another tool did; the HPA resumes when replicas > 0.", h.Name, target, cond.Message)
				f.Mechanism = "The HPA controller never scales a target up from zero replicas: zero means 'off'."
				f.Culprit = fmt.Sprintf("%s replicas 0 (HPA %s disabled)", target, h.Name)
				f.Actions = []report.Action{{Kind: report.Check, Description: "If the workload should run, scale it back to at least minReplicas.",
					Commands: []string{fmt.Sprintf("kubectl scale %s %s --replicas=%d", target, hpaNS(h), minReplicas(h))},
					Risk:     "starts the workload's pods"}}
				out = append(out, f)
			}
		} else {
			out = append(out, metricFinding(c, h, cond, condEv(cond), base, target))
		}
	}

	if cond := hpaCondition(h, autoscalingv2.ScalingLimited); isTarget && len(out) == 0 && cond != nil && cond.Status == corev1.ConditionTrue {
		f := base
		f.Strength = rule.Symptom
		f.Confidence = rule.High
		f.Evidence = []string{condEv(cond)}
		metrics := hpaMetricsText(h)
		if metrics != "" {
			f.Evidence = append(f.Evidence, c.Evidence("Current metrics: "+metrics, hpaRef(h)+" .status.currentMetrics",
				fmt.Sprintf("kubectl get hpa %s %s", h.Name, hpaNS(h))))
		}
		switch cond.Reason {
		case "TooManyReplicas":
			f.Category = rule.HPA.Sub("Limited", "MaxReplicas")
			f.Hypothesis = fmt.Sprintf("HPA %s wants more replicas than its maxReplicas %d allows", h.Name, h.Spec.MaxReplicas)
			f.Title = fmt.Sprintf("not a fault: HPA %s is capped at maxReplicas %d and wants more", h.Name, h.Spec.MaxReplicas)
			f.Summary = fmt.Sprintf("HPA %s works: it computed a desired replica count above its maxReplicas (%d) and runs %d replicas. That is the limit it was given, not a failure. %s",
				h.Name, h.Spec.MaxReplicas, h.Status.CurrentReplicas, kube.ValueOr(metricsSentence(metrics), ""))
			f.Mechanism = "ScalingLimited=True/TooManyReplicas means the metric is above target even at the maximum; more pods would be created if the limit allowed. If latency or errors rise, the limit, the per-pod capacity or the target value needs a decision."
			f.Culprit = fmt.Sprintf("%s .spec.maxReplicas %d (limit reached)", hpaRef(h), h.Spec.MaxReplicas)
			f.Actions = []report.Action{{Kind: report.Check, Description: "If the load is real and the cluster has room, raise maxReplicas; otherwise look at why each pod uses so much (kubectl top).",
				Commands: []string{fmt.Sprintf(`kubectl patch hpa %s %s --type=merge -p '{"spec":{"maxReplicas":%d}}'`, h.Name, hpaNS(h), h.Spec.MaxReplicas*2), fmt.Sprintf("kubectl top pods %s", hpaNS(h))},
				Risk:     "more replicas consume more cluster capacity and may hit quotas"}}
		case "TooFewReplicas":
			f.Category = rule.HPA.Sub("Limited", "MinReplicas")
			f.Hypothesis = fmt.Sprintf("HPA %s would scale below its minReplicas %d", h.Name, minReplicas(h))
			f.Title = fmt.Sprintf("not a fault: HPA %s stays at minReplicas %d while load is low", h.Name, minReplicas(h))
			// Its resting state only when what it reads agrees: it runs its
			// floor and every metric is at or below its target.
			f.Resting = h.Status.CurrentReplicas == minReplicas(h) && metricsAtOrBelowTarget(h)
			f.Summary = fmt.Sprintf("HPA %s would run fewer pods than minReplicas (%d) for the current load; it keeps the minimum it was given. Nothing is broken.", h.Name, minReplicas(h))
			f.Mechanism = "ScalingLimited=True/TooFewReplicas means the metric is below target even at the minimum."
			f.Culprit = fmt.Sprintf("%s .spec.minReplicas %d (floor reached)", hpaRef(h), minReplicas(h))
			f.Actions = []report.Action{{Kind: report.Check, Description: "Lower minReplicas only if fewer pods are acceptable for availability.",
				Commands: []string{fmt.Sprintf("kubectl get hpa %s %s", h.Name, hpaNS(h))}}}
		default:
			f.Category = rule.HPA.Sub("Limited", "Rate")
			f.Hypothesis = fmt.Sprintf("HPA %s is held back by its scaling rate limits", h.Name)
			f.Title = fmt.Sprintf("not a fault: HPA %s is limited by its scaling rate (%s)", h.Name, cond.Reason)
			f.Summary = fmt.Sprintf("HPA %s is scaling, but no faster than its behavior policies allow (%s: %s).", h.Name, cond.Reason, cond.Message)
			f.Mechanism = "Scale-up and scale-down rates are bounded by spec.behavior (or the defaults) so a noisy metric does not thrash the workload."
			f.Culprit = fmt.Sprintf("%s .spec.behavior (%s)", hpaRef(h), cond.Reason)
			f.Actions = []report.Action{{Kind: report.Check, Description: "Widen spec.behavior's policies if the workload must react faster.",
				Commands: []string{fmt.Sprintf("kubectl get hpa %s %s -o jsonpath='{.spec.behavior}'", h.Name, hpaNS(h))}}}
		}
		out = append(out, f)
	}

	if len(out) == 0 && isTarget {
		if cond := hpaCondition(h, autoscalingv2.ScalingActive); cond != nil && cond.Status == corev1.ConditionTrue {
			out = append(out, rule.Finding{Category: rule.HPA.Sub("MetricsFailed"), Verdict: report.Refuted, Confidence: rule.Strong, Subject: h.Name,
				Hypothesis: fmt.Sprintf("HPA %s cannot compute a replica count", h.Name), Evidence: []string{condEv(cond)}})
		}
	}
	return out
}

func minReplicas(h *autoscalingv2.HorizontalPodAutoscaler) int32 {
	if h.Spec.MinReplicas != nil {
		return *h.Spec.MinReplicas
	}
	return 1
}

func metricsSentence(m string) string {
	if m == "" {
		return ""
	}
	return "Current metrics: " + m + "."
}

// hpaMetricsText renders current vs target for resource metrics.
func hpaMetricsText(h *autoscalingv2.HorizontalPodAutoscaler) string {
	targets := map[corev1.ResourceName]string{}
	for _, m := range h.Spec.Metrics {
		if m.Resource != nil && m.Resource.Target.AverageUtilization != nil {
			targets[m.Resource.Name] = fmt.Sprintf("%d%%", *m.Resource.Target.AverageUtilization)
		}
	}
	var parts []string
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource == nil || m.Resource.Current.AverageUtilization == nil {
			continue
		}
		s := fmt.Sprintf("%s %d%%", m.Resource.Name, *m.Resource.Current.AverageUtilization)
		if t, ok := targets[m.Resource.Name]; ok {
			s += " (target " + t + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// metricFinding explains ScalingActive=False from its message and the
// controller's warning events.
func metricFinding(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, cond *autoscalingv2.HorizontalPodAutoscalerCondition, condEv string, base rule.Finding, target string) rule.Finding {
	f := base
	f.Evidence = []string{condEv}
	text := cond.Message
	for _, e := range c.B.EventsFor(string(h.UID)) {
		if e.Type == corev1.EventTypeWarning && strings.HasPrefix(e.Reason, "Failed") {
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Event %s ×%d: %s", e.Reason, max(e.Count, 1), e.Message), "event on "+hpaRef(h),
				fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=%s", hpaNS(h), h.Name, e.Reason)))
			text += "\n" + e.Message
		}
	}
	var match *hpaProblem
	var m submatch.Match
	for i := range hpaProblems {
		var ok bool
		if m, ok = submatch.Find(hpaProblems[i].re, text); ok {
			match = &hpaProblems[i]
			break
		}
	}
	describe := fmt.Sprintf("kubectl describe hpa %s %s", h.Name, hpaNS(h))
	if cond.Reason == "AmbiguousSelector" {
		return ambiguousFinding(h, cond, f, target)
	}
	if match == nil {
		f.Category = rule.HPA.Sub(string(hpaMetricsFailed))
		f.Confidence = rule.Moderate
		f.Hypothesis = fmt.Sprintf("HPA %s cannot compute a replica count (%s)", h.Name, cond.Reason)
		f.Title = fmt.Sprintf("HPA %s cannot compute a replica count: %s", h.Name, cond.Message)
		f.Summary = fmt.Sprintf("HPA %s does not scale %s because it cannot compute a replica count (%s): %s.", h.Name, target, cond.Reason, cond.Message)
		f.Mechanism = "Without a valid metric the HPA keeps the current replica count and retries every sync period."
		f.Culprit = fmt.Sprintf("%s metrics (%s)", hpaRef(h), cond.Reason)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the HPA's events and its metric sources.", Commands: []string{describe}}}
		return f
	}
	group := m.Get
	f.Category = rule.HPA.Sub(string(match.Class))
	f.Confidence = match.Conf
	f.Mechanism = match.Mech
	switch match.Class {
	case hpaMissingRequest:
		res, ctr, pod := group("res"), group("ctr"), group("pod")
		f.Hypothesis = fmt.Sprintf("HPA %s cannot compute %s utilization because container %s has no %s request", h.Name, res, ctr, res)
		workload, lacking, ev := templateRequests(c, h, corev1.ResourceName(res))
		if ev != "" {
			f.Evidence = append(f.Evidence, ev)
		} else {
			f.Confidence = rule.Strong // the controller's message alone
		}
		if ctr == "" && len(lacking) > 0 {
			ctr = lacking[0]
		}
		if ctr == "" {
			ctr = "<container>"
		}
		if len(lacking) == 0 {
			lacking = []string{ctr}
		}
		inPod := ""
		if pod != "" {
			inPod = " (pod " + pod + ")"
		}
		f.Title = fmt.Sprintf("HPA %s cannot scale: container %s of %s has no %s request, so %s utilization cannot be computed", h.Name, ctr, target, res, res)
		f.Summary = fmt.Sprintf("HPA %s scales %s on %s utilization, but container %s%s sets no resources.requests.%s. Utilization is a percentage of the request, so the controller gives up and never scales.", h.Name, target, res, ctr, inPod, res)
		f.Culprit = fmt.Sprintf("%s container %s resources.requests.%s (unset)", kube.ValueOr(workload, target), ctr, res)
		if len(lacking) > 1 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Containers without a %s request: %s; each needs one.", res, strings.Join(lacking, ", ")))
		}
		var cmds []string
		for _, name := range lacking {
			cmds = append(cmds, fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=<typical usage, e.g. 100m>", target, hpaNS(h), name, res))
		}
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Give every container of %s a %s request (its typical usage).", target, res),
			Commands: cmds, Risk: kube.TemplateRisk(strings.ToLower(h.Spec.ScaleTargetRef.Kind), "starts a rollout") + "; requests also reserve capacity on the nodes"}}
	case hpaMetricsAPIUnavailable:
		f.Hypothesis = fmt.Sprintf("HPA %s cannot read pod metrics because the resource metrics API is not available", h.Name)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s cannot fetch CPU/memory usage from metrics.k8s.io (%s), so it never scales %s. The cluster needs a running metrics-server.", h.Name, group("detail"), target)
		f.Culprit = "APIService v1beta1.metrics.k8s.io (metrics-server): " + group("detail")
		f.Actions = []report.Action{
			{Kind: report.Check, Description: "Check whether the metrics API is registered and available.",
				Commands: []string{"kubectl get apiservice v1beta1.metrics.k8s.io", "kubectl get deployment metrics-server -n kube-system"}},
			{Kind: report.Immediate, Description: "Install (or repair) metrics-server.",
				Commands: []string{"kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml"},
				Risk:     "installs a cluster-wide component; review the manifest and its flags (e.g. kubelet TLS) for your cluster"},
		}
		f = withMetricsAPI(c, f, h, group("detail"))
	case hpaNoMetrics:
		f.Hypothesis = fmt.Sprintf("HPA %s receives no metrics for the pods of %s", h.Name, target)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s reaches the metrics API but gets no samples for the pods of %s (%s): they may not be running or ready, or metrics-server cannot scrape them.", h.Name, target, group("detail"))
		f.Culprit = fmt.Sprintf("metrics of the pods of %s: %s", target, group("detail"))
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check the pods are Running and Ready, and that metrics-server reports them.",
			Commands: []string{fmt.Sprintf("kubectl top pods %s", hpaNS(h)), "kubectl logs -n kube-system deployment/metrics-server --tail=50"}}}
	case hpaCustomMetricsUnavailable:
		f.Hypothesis = fmt.Sprintf("HPA %s cannot read a custom or external metric", h.Name)
		f.Title = fmt.Sprintf(match.Title, h.Name, group("detail"))
		f.Summary = fmt.Sprintf("HPA %s scales %s on a metric served by an adapter, and reading it fails: %s.", h.Name, target, group("detail"))
		f.Culprit = fmt.Sprintf("%s .spec.metrics (custom/external metric): %s", hpaRef(h), group("detail"))
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check the metrics adapter's APIService and that it exposes the metric name the HPA asks for.",
			Commands: []string{"kubectl get apiservices | grep -E 'custom.metrics|external.metrics'", "kubectl get --raw /apis/custom.metrics.k8s.io/v1beta1 | head -c 2000"}}}
		f = withMetricsAPI(c, f, h, group("detail"))
	}
	return f
}

// templateRequests reads the scale target's pod template: which containers
// lack a request for res.
func templateRequests(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler, res corev1.ResourceName) (workload string, lacking []string, evidence string) {
	ref := h.Spec.ScaleTargetRef
	var spec *corev1.PodSpec
	switch ref.Kind {
	case "Deployment":
		for _, d := range c.B.Deployments {
			if d.Name == ref.Name && d.Namespace == h.Namespace {
				spec = &d.Spec.Template.Spec
			}
		}
	case "StatefulSet":
		for _, s := range c.B.StatefulSets {
			if s.Name == ref.Name && s.Namespace == h.Namespace {
				spec = &s.Spec.Template.Spec
			}
		}
	case "ReplicaSet":
		for _, rs := range c.B.ReplicaSets {
			if rs.Name == ref.Name && rs.Namespace == h.Namespace {
				spec = &rs.Spec.Template.Spec
			}
		}
	}
	if spec == nil {
		return "", nil, ""
	}
	workload = fmt.Sprintf("%s/%s", strings.ToLower(ref.Kind), ref.Name)
	var have []string
	for _, ctr := range spec.Containers {
		if q, ok := ctr.Resources.Requests[res]; ok {
			have = append(have, fmt.Sprintf("%s=%s", ctr.Name, q.String()))
		} else {
			lacking = append(lacking, ctr.Name)
		}
	}
	fact := fmt.Sprintf("%s pod template: containers without a %s request: %s", workload, res, kube.ValueOr(strings.Join(lacking, ", "), "none"))
	if len(have) > 0 {
		fact += fmt.Sprintf("; with: %s", strings.Join(have, ", "))
	}
	evidence = c.Evidence(fact, workload+" .spec.template.spec.containers[*].resources.requests",
		fmt.Sprintf(`kubectl get %s -n %s -o jsonpath='{range .spec.template.spec.containers[*]}{.name}: {.resources.requests}{"\n"}{end}'`, workload, h.Namespace))
	return workload, lacking, evidence
}

// ambiguousFinding: the HPA controller refuses to scale pods that more than
// one HPA selects (its message names them, "e.g. [ns/a ns/b]"); each of
// them stops, so neither scales.
func ambiguousFinding(h *autoscalingv2.HorizontalPodAutoscaler, cond *autoscalingv2.HorizontalPodAutoscalerCondition, f rule.Finding, target string) rule.Finding {
	var others []string
	if _, list, ok := strings.Cut(cond.Message, "["); ok {
		list, _, _ = strings.Cut(list, "]")
		for _, ref := range strings.Fields(list) {
			if _, name, _ := strings.Cut(ref, "/"); name != h.Name {
				others = append(others, "hpa/"+name)
			}
		}
	}
	f.Category = rule.HPA.Sub("AmbiguousSelector")
	f.Confidence = rule.Definitive
	f.Hypothesis = fmt.Sprintf("HPA %s shares its pods with another HPA", h.Name)
	f.Title = fmt.Sprintf("HPA %s does not scale: its pods are also selected by %s (AmbiguousSelector)", h.Name, kube.OrDash(strings.Join(others, ", ")))
	f.Summary = fmt.Sprintf("HPA %s and %s select the same pods of %s: the HPA controller refuses to scale pods more than one HPA controls, so none of them scales: %s.", h.Name, kube.OrDash(strings.Join(others, ", ")), target, cond.Message)
	f.Mechanism = "Each sync the HPA controller checks that no other HPA's target selects the same pods; when one does, it sets ScalingActive=False (AmbiguousSelector) on every HPA involved and leaves the replica count alone."
	f.Culprit = fmt.Sprintf("%s and %s select the same pods (%s)", hpaRef(h), kube.OrDash(strings.Join(others, ", ")), cond.Message)
	f.Actions = []report.Action{{Kind: report.Immediate, Description: "Keep one HPA per workload: merge the metrics and behaviour of the others into it, then delete them.",
		Commands: []string{fmt.Sprintf("kubectl get hpa %s -o wide", hpaNS(h))}}}
	return f
}

// scaleTargetNearMisses are the workloads whose name nearly matches the
// missing scale target, or equals it under the other kind (the collector
// reads them only when the target is not found), as kind/name, nearest
// first.
func scaleTargetNearMisses(c *rule.Pass, h *autoscalingv2.HorizontalPodAutoscaler) []string {
	ref := h.Spec.ScaleTargetRef
	type cand struct {
		kind, name string
	}
	var cands []cand
	for _, d := range c.B.Deployments {
		if d.Namespace == h.Namespace {
			cands = append(cands, cand{"Deployment", d.Name})
		}
	}
	for _, s := range c.B.StatefulSets {
		if s.Namespace == h.Namespace {
			cands = append(cands, cand{"StatefulSet", s.Name})
		}
	}
	var near []cand
	for _, n := range cands {
		if bundle.NearName(ref.Name, n.name) || (n.kind != ref.Kind && n.name == ref.Name) {
			near = append(near, n)
		}
	}
	sort.SliceStable(near, func(i, j int) bool {
		return kube.EditDistance(ref.Name, near[i].name) < kube.EditDistance(ref.Name, near[j].name)
	})
	var out []string
	for _, n := range near {
		out = append(out, strings.ToLower(n.kind)+"/"+n.name)
	}
	return out
}

// metricsAtOrBelowTarget reports whether every metric of h is a resource
// utilization whose current value is at or below its target (other metric
// kinds are not compared: false).
func metricsAtOrBelowTarget(h *autoscalingv2.HorizontalPodAutoscaler) bool {
	if len(h.Spec.Metrics) == 0 {
		return false
	}
	for _, m := range h.Spec.Metrics {
		if m.Type != autoscalingv2.ResourceMetricSourceType || m.Resource == nil || m.Resource.Target.AverageUtilization == nil {
			return false
		}
		ok := false
		for _, cur := range h.Status.CurrentMetrics {
			if cur.Type == autoscalingv2.ResourceMetricSourceType && cur.Resource != nil && cur.Resource.Name == m.Resource.Name && cur.Resource.Current.AverageUtilization != nil {
				ok = *cur.Resource.Current.AverageUtilization <= *m.Resource.Target.AverageUtilization
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
