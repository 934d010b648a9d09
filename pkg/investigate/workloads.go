package investigate

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/scheduling"
)

// Workload rules: Deployment rollouts, ReplicaSet/StatefulSet/DaemonSet creation failures, a ReplicaSet's unready pods, StatefulSet ordinals, DaemonSet coverage, Jobs and CronJobs (the ones still retrying or piling up runs in jobs.go).

// ---------------------------------------------------------------------------
// Shared helpers.

// wlProbeFailure returns the kubelet's latest readiness/startup probe failure
// event about the pod.
func wlProbeFailure(c *rule.Pass, p *corev1.Pod) *corev1.Event {
	var out *corev1.Event
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "Unhealthy" && (strings.HasPrefix(e.Message, "Readiness probe failed") || strings.HasPrefix(e.Message, "Startup probe failed")) {
			e := e
			out = &e
		}
	}
	return out
}

// wlDescribePod says in one phrase why a pod is not Ready, from its status
// alone, and registers the evidence for it.
func wlDescribePod(c *rule.Pass, p *corev1.Pod) (string, []string) {
	src := kube.PodRef(p) + " .status"
	cmd := fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, kube.NsFlag(p))
	ev := func(fact string) []string { return []string{c.Evidence(fact, src, cmd)} }
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return "Succeeded", nil
	case corev1.PodFailed:
		s := "Failed"
		if p.Status.Reason != "" {
			s += " (" + p.Status.Reason + ")"
		}
		if p.Status.Message != "" {
			s += ": " + kube.FirstLine(p.Status.Message)
		}
		return s, ev(fmt.Sprintf("Pod %s phase %s", p.Name, s))
	}
	if p.Spec.NodeName == "" {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
				s := fmt.Sprintf("Pending, not scheduled (%s: %s)", cond.Reason, kube.FirstLine(cond.Message))
				return s, ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
			}
		}
		s := "Pending and not scheduled, with no scheduling decision recorded"
		return s, ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
	}
	for _, cs := range kube.AllStatuses(p) {
		st := cs.Status
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			s := fmt.Sprintf("container %s is waiting: %s", st.Name, w.Reason)
			if st.RestartCount > 0 {
				s += fmt.Sprintf(" (%d restarts)", st.RestartCount)
			}
			return s, ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
		}
		if run := st.State.Running; cs.Init && run != nil {
			// An init container that never exits holds the pod before its
			// app containers start: usually a wait-for-dependency loop.
			s := fmt.Sprintf("init container %s has been running since %s without finishing", st.Name, kube.Since(c, run.StartedAt.Time))
			ids := ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
			if line := wlLastLogLine(c, p.Name, st.Name); line != "" {
				s += fmt.Sprintf(" (last log line: %q)", line)
				ids = append(ids, c.Evidence(fmt.Sprintf("Last log line of init container %s: %q", st.Name, line),
					fmt.Sprintf("logs of %s init container %s", kube.PodRef(p), st.Name), kube.LogsCmd(p, st.Name, false)))
			}
			return s, ids
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			s := fmt.Sprintf("container %s terminated with exit code %d (%s)", st.Name, t.ExitCode, kube.OrDash(t.Reason))
			return s, ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
		}
	}
	if kube.IsPodReady(p) {
		return "Ready", nil
	}
	if p.Status.Phase == corev1.PodRunning {
		var notReady []string
		for _, st := range p.Status.ContainerStatuses {
			if !st.Ready {
				notReady = append(notReady, st.Name)
			}
		}
		s := "Running but not Ready"
		if len(notReady) > 0 {
			s = fmt.Sprintf("Running, but container %s is not Ready", strings.Join(notReady, ", "))
		}
		ids := ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
		if e := wlProbeFailure(c, p); e != nil {
			s += ": " + kube.FirstLine(e.Message)
			ids = append(ids, kube.EventEvidence(c, *e))
		}
		return s, ids
	}
	s := "phase " + kube.OrDash(string(p.Status.Phase))
	return s, ev(fmt.Sprintf("Pod %s is in %s", p.Name, s))
}

// wlLastLogLine is the last non-empty line of a container's current log.
func wlLastLogLine(c *rule.Pass, pod, container string) string {
	cur, _ := c.B.LogsFor(pod, container)
	if cur == nil || cur.Error != "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(cur.Text, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if _, line := logs.SplitTimestamp(lines[i]); strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// FailedCreate: a controller that cannot create its pods (or a CronJob its
// Jobs) because the API server refuses them.

// wlCreateDenial is one row of the table of reasons the API server refuses a
// pod; re runs on the error the controller reports.
type wlCreateDenial struct {
	Class string
	re    *regexp.Regexp
	Conf  rule.Confidence
}

var wlCreateDenials = []wlCreateDenial{
	{"Quota", regexp.MustCompile(`exceeded quota: ([^,\s]+), requested: (\S+), used: (\S+), limited: (\S+)`), rule.Definitive},
	{"QuotaMissingLimits", regexp.MustCompile(`failed quota: ([^:\s]+): must specify (.+)`), rule.Definitive},
	{"PodSecurity", regexp.MustCompile(`violates PodSecurity "([^"]+)": (.+)`), rule.Definitive},
	{"Webhook", regexp.MustCompile(`admission webhook "([^"]+)" denied the request(?:: ([\s\S]*)| without explanation)`), rule.Strong},
	{"WebhookUnavailable", regexp.MustCompile(`failed calling webhook "([^"]+)"[:;] ?(.*)`), rule.Strong},
	{"ServiceAccount", regexp.MustCompile(`error looking up service account ([^/\s]+)/([^:\s]+): (.*)`), rule.Definitive},
	{"LimitRange", regexp.MustCompile(`(maximum|minimum) (\S+) usage per (Container|Pod|PersistentVolumeClaim) is (\S+?)(?:, but (limit|request) is (\S+)|\.  No (limit|request) is specified)`), rule.Definitive},
	{"NamespaceTerminating", regexp.MustCompile(`unable to create new content in namespace (\S+) because it is being terminated`), rule.Definitive},
	{"Invalid", regexp.MustCompile(`is invalid: (.+)`), rule.High},
	{"Forbidden", regexp.MustCompile(`is forbidden: (.+)`), rule.Likely},
}

// createPrefixes are what the controllers put before the API error.
var wlCreatePrefix = regexp.MustCompile(`^(?:Error creating(?: job)?: |(?i:create) (?:Pod|Claim) \S+ (?:for Pod \S+ )?in StatefulSet \S+ failed error: )`)

// wlCreateFailure is one refusal reported about a workload.
type wlCreateFailure struct {
	reporter string // "replicaset/web-5d8f9c7b4"
	owner    kube.Workload
	message  string // the API error, without the controller's prefix
	last     time.Time
	count    int32
	evidence []string
	template *corev1.PodTemplateSpec
	want     string // "0 of 3 pods exist"
	deploy   *appsv1.Deployment
}

func wlCheckFailedCreate(c *rule.Pass) []rule.Finding {
	var all []wlCreateFailure
	b := c.B
	add := func(kind string, meta metav1.Object, tmpl *corev1.PodTemplateSpec, want string, msg string, at time.Time, count int32, ev string) {
		owner := kube.TopOwner(c, kind, meta)
		all = append(all, wlCreateFailure{
			reporter: strings.ToLower(kind) + "/" + meta.GetName(), owner: owner,
			message: wlCreatePrefix.ReplaceAllString(strings.TrimSpace(msg), ""), last: at, count: count,
			evidence: []string{ev}, template: tmpl, want: want,
		})
	}
	fromEvents := func(kind string, meta metav1.Object, tmpl *corev1.PodTemplateSpec, want string) {
		for _, e := range kube.EventsWith(c, meta.GetUID(), "FailedCreate") {
			add(kind, meta, tmpl, want, e.Message, bundle.EventTime(&e), max(e.Count, 1), kube.EventEvidence(c, e))
		}
	}
	newest := bundle.NewestReplicaSet(b.ReplicaSets)
	for _, rs := range b.ReplicaSets {
		want, have := kube.ReplicasOf(rs.Spec.Replicas), rs.Status.Replicas
		if have >= want || (rs != newest && want == 0) {
			continue
		}
		tmpl := rs.Spec.Template.DeepCopy()
		status := fmt.Sprintf("%d of %d pods exist", have, want)
		fromEvents("ReplicaSet", rs, tmpl, status)
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue && cond.Reason == "FailedCreate" {
				add("ReplicaSet", rs, tmpl, status, cond.Message, cond.LastTransitionTime.Time, 1, c.Evidence(
					fmt.Sprintf("Condition ReplicaFailure=True (FailedCreate): %s", cond.Message),
					fmt.Sprintf("replicaset/%s .status.conditions[ReplicaFailure]", rs.Name),
					fmt.Sprintf(`kubectl get rs %s -n %s -o jsonpath='{.status.conditions[?(@.type=="ReplicaFailure")]}'`, rs.Name, rs.Namespace)))
			}
		}
	}
	for _, d := range b.Deployments {
		for _, cond := range d.Status.Conditions {
			if cond.Type == appsv1.DeploymentReplicaFailure && cond.Status == corev1.ConditionTrue && cond.Reason == "FailedCreate" {
				add("Deployment", d, d.Spec.Template.DeepCopy(), fmt.Sprintf("%d of %d replicas exist", d.Status.Replicas, kube.ReplicasOf(d.Spec.Replicas)),
					cond.Message, cond.LastUpdateTime.Time, 1, c.Evidence(
						fmt.Sprintf("Condition ReplicaFailure=True (FailedCreate): %s", cond.Message),
						fmt.Sprintf("deployment/%s .status.conditions[ReplicaFailure]", d.Name),
						fmt.Sprintf(`kubectl get deployment %s -n %s -o jsonpath='{.status.conditions[?(@.type=="ReplicaFailure")]}'`, d.Name, d.Namespace)))
			}
		}
	}
	for _, s := range b.StatefulSets {
		if want, have := kube.ReplicasOf(s.Spec.Replicas), s.Status.Replicas; have < want {
			fromEvents("StatefulSet", s, s.Spec.Template.DeepCopy(), fmt.Sprintf("%d of %d pods exist", have, want))
		}
	}
	for _, ds := range b.DaemonSets {
		if want, have := ds.Status.DesiredNumberScheduled, ds.Status.CurrentNumberScheduled; have < want {
			fromEvents("DaemonSet", ds, ds.Spec.Template.DeepCopy(), fmt.Sprintf("pods exist on %d of %d nodes", have, want))
		}
	}
	for _, j := range b.Jobs {
		if _, finished := wlJobFinished(j); finished || j.Spec.Suspend != nil && *j.Spec.Suspend {
			continue
		}
		if j.Status.Active < kube.ReplicasOf(j.Spec.Parallelism) {
			fromEvents("Job", j, j.Spec.Template.DeepCopy(), fmt.Sprintf("%d active pods, %d wanted", j.Status.Active, kube.ReplicasOf(j.Spec.Parallelism)))
		}
	}
	for _, cj := range b.CronJobs {
		for _, e := range kube.EventsWith(c, cj.UID, "FailedCreate") {
			// A CronJob retries only at its next schedule: an old refusal
			// says nothing about today.
			if c.Now.Sub(bundle.EventTime(&e)) <= 2*kube.RecentWarning {
				add("CronJob", cj, cj.Spec.JobTemplate.Spec.Template.DeepCopy(), "its scheduled Job was not created", e.Message, bundle.EventTime(&e), max(e.Count, 1), kube.EventEvidence(c, e))
			}
		}
	}

	// One finding per workload and reason, however many objects report it
	// (the ReplicaSet's events and the Deployment's condition say the same).
	type group struct {
		denial *wlCreateDenial
		match  []string
		fails  []wlCreateFailure
	}
	var order []string
	groups := map[string]*group{}
	for _, f := range all {
		d, m := wlClassifyDenial(f.message)
		class := "Other"
		if d != nil {
			class = d.Class
		}
		key := f.owner.Ref() + "\x00" + class
		g, ok := groups[key]
		if !ok {
			g = &group{denial: d, match: m}
			groups[key] = g
			order = append(order, key)
		}
		g.fails = append(g.fails, f)
		// The most recent refusal is the one quoted.
		if f.last.After(g.fails[0].last) {
			g.fails[0], g.fails[len(g.fails)-1] = g.fails[len(g.fails)-1], g.fails[0]
			g.match = m
		}
	}
	var out []rule.Finding
	for _, key := range order {
		g := groups[key]
		out = append(out, wlCreateFinding(c, g.denial, g.match, g.fails))
	}
	return out
}

func wlClassifyDenial(msg string) (*wlCreateDenial, []string) {
	for i := range wlCreateDenials {
		if m := wlCreateDenials[i].re.FindStringSubmatch(msg); m != nil {
			return &wlCreateDenials[i], m
		}
	}
	return nil, nil
}

// wlParseResourceList reads the quota admission's "limits.cpu=2,limits.memory=2Gi".
func wlParseResourceList(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			out[k] = v
		}
	}
	return out
}

func wlCreateFinding(c *rule.Pass, d *wlCreateDenial, m []string, fails []wlCreateFailure) rule.Finding {
	f0 := fails[0]
	w := f0.owner
	var evidence []string
	var count int32
	reporters := map[string]bool{}
	for _, f := range fails {
		evidence = kube.AppendUnique(evidence, f.evidence...)
		count += f.count
		reporters[f.reporter] = true
	}
	what := "pods"
	if w.Kind == "cronjob" && strings.HasPrefix(f0.reporter, "cronjob/") {
		what = "Jobs"
	}
	f := rule.Finding{
		Category: rule.FailedCreate, Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: w.Name, Confidence: rule.Moderate,
		Mechanism: fmt.Sprintf("The %s controller asks the API server to create %s; admission refuses every request, so none exist and the controller retries with back-off. Nothing runs until the refusal's cause is removed.", strings.SplitN(f0.reporter, "/", 2)[0], what),
	}
	f.Contributing = append(f.Contributing, fmt.Sprintf("%s: %s; the refusal was reported %d time(s), last at %s.", f0.reporter, f0.want, count, kube.Since(c, f0.last)))
	shortMsg := kube.FirstLine(f0.message)
	check := report.Action{Kind: report.Check, Description: "Read the controller's events with the full refusal.",
		Commands: []string{fmt.Sprintf("kubectl describe %s %s", strings.Replace(f0.reporter, "/", " ", 1), w.NS())}}
	class := "Other"
	if d != nil {
		class = d.Class
		f.Confidence = d.Conf
	}
	f.Category = f.Category.Sub(class)
	// A fix of the pod template reaches the pods as the workload's kind
	// allows: a rollout, a recreated Job, a CronJob's next run (after its
	// run refused its pods is deleted).
	stuckRun := ""
	if reporter, name, _ := strings.Cut(f0.reporter, "/"); w.Kind == "cronjob" && reporter == "job" {
		stuckRun = name
	}
	risk := func(rollout string) string {
		if stuckRun != "" {
			return kube.PendingTemplateRisk(w.Kind, rollout)
		}
		return kube.TemplateRisk(w.Kind, rollout)
	}
	fit := func(what string, edit ...string) []string {
		return kube.TemplateCommands(w.Kind, w.Name, w.Namespace, edit, what, stuckRun)
	}
	switch class {
	case "Quota":
		quota, requested, used, limited := m[1], wlParseResourceList(m[2]), wlParseResourceList(m[3]), wlParseResourceList(m[4])
		var parts, names []string
		for _, k := range kube.SortedKeys(requested) {
			parts = append(parts, fmt.Sprintf("%s: requested %s, used %s, limited %s", k, requested[k], kube.OrDash(used[k]), kube.OrDash(limited[k])))
			names = append(names, k)
		}
		detail := strings.Join(parts, "; ")
		f.Title = fmt.Sprintf("%s cannot be created: ResourceQuota %s is exhausted (%s)", what, quota, detail)
		f.Hypothesis = fmt.Sprintf("ResourceQuota %s refuses the %s of %s", quota, what, w.Ref())
		f.Summary = fmt.Sprintf("The API server refuses the %s of %s because they would exceed ResourceQuota %s in namespace %s: %s.", what, w.Ref(), quota, w.Namespace, detail)
		f.Culprit = fmt.Sprintf("resourcequota/%s %s", quota, strings.Join(names, ", "))
		f.Mechanism = "ResourceQuota admission adds what a new object requests to what the namespace already uses and refuses it when the sum exceeds the quota's hard limit. " + f.Mechanism
		for _, q := range c.B.ResourceQuotas {
			if q.Name != quota {
				continue
			}
			var st []string
			for _, k := range names {
				h, u := q.Status.Hard[corev1.ResourceName(k)], q.Status.Used[corev1.ResourceName(k)]
				st = append(st, fmt.Sprintf("%s used %s of hard %s", k, u.String(), h.String()))
			}
			evidence = append(evidence, c.Evidence(fmt.Sprintf("ResourceQuota %s: %s", quota, strings.Join(st, "; ")),
				fmt.Sprintf("resourcequota/%s .status", quota), fmt.Sprintf("kubectl describe resourcequota %s %s", quota, w.NS())))
		}
		if f0.template != nil {
			if per := wlTemplateAmounts(f0.template, names); per != "" {
				f.Contributing = append(f.Contributing, fmt.Sprintf("Each pod of %s asks for %s.", w.Ref(), per))
			}
		}
		if dep := wlDeploymentOf(c, w); dep != nil && wlRolloutInProgress(c, dep) {
			f.Contributing = append(f.Contributing, "A rolling update runs the new pods next to the old ones (maxSurge): near its limit, the quota refuses the surge pods. maxSurge=0 with maxUnavailable≥1 lets the rollout replace pods within the quota.")
		}
		raise := ""
		for _, k := range names {
			if u, err1 := resource.ParseQuantity(used[k]); err1 == nil {
				if r, err2 := resource.ParseQuantity(requested[k]); err2 == nil {
					u.Add(r)
					raise += fmt.Sprintf(`%q:%q,`, k, u.String())
				}
			}
		}
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Make room in ResourceQuota %s: lower what each pod of %s asks for, or scale down or delete something else in the namespace that uses it.", quota, w.Ref()),
				Commands: append([]string{fmt.Sprintf("kubectl describe resourcequota %s %s", quota, w.NS())},
					fit("lower the "+strings.Join(names, ", ")+" of the containers", wlSetResourcesCmd(w, f0.template, names))...),
				Risk: "limits below the workload's real needs cause throttling or OOM kills; " + risk("the change starts a rollout")},
		}
		if raise != "" {
			f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: fmt.Sprintf("If the namespace legitimately needs more, raise the quota's hard limit (at least used + requested)."),
				Commands: []string{fmt.Sprintf(`kubectl patch resourcequota %s %s --type=merge -p '{"spec":{"hard":{%s}}}'`, quota, w.NS(), strings.TrimSuffix(raise, ","))},
				Risk:     "lets the namespace take more of the cluster's capacity; quotas are often owned by a platform team"})
		}
	case "QuotaMissingLimits":
		quota, missing := m[1], m[2]
		f.Title = fmt.Sprintf("%s cannot be created: ResourceQuota %s requires %s", what, quota, missing)
		f.Hypothesis = fmt.Sprintf("ResourceQuota %s refuses pods that do not set the resources it tracks", quota)
		f.Summary = fmt.Sprintf("ResourceQuota %s tracks resources the pod template of %s does not set, so admission refuses every pod: must specify %s.", quota, w.Ref(), missing)
		f.Culprit = fmt.Sprintf("pod template of %s resources (must specify %s)", w.Ref(), missing)
		f.Mechanism = "When a ResourceQuota limits requests or limits of a resource, every new pod must state that resource for each container, or admission refuses it. " + f.Mechanism
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Set the missing requests/limits on every container named in the refusal.",
				Commands: fit("set resources.requests and resources.limits (cpu, memory) on every container",
					fmt.Sprintf("kubectl set resources %s %s --requests=cpu=<cpu>,memory=<memory> --limits=cpu=<cpu>,memory=<memory>", w.Ref(), w.NS())),
				Risk: risk("starts a rollout")},
			{Kind: report.LongTerm, Description: "Give the namespace a LimitRange with default requests and limits so pods that omit them are admitted.",
				Commands: []string{fmt.Sprintf("kubectl get limitrange %s", w.NS())}},
		}
	case "PodSecurity":
		level, details := m[1], wlSplitTopLevel(m[2])
		var reasons []string
		var containers []string
		for _, v := range details {
			reason, _, _ := strings.Cut(v, " (")
			reasons = append(reasons, reason)
			for _, q := range wlQuotedNames.FindAllStringSubmatch(v, -1) {
				containers = kube.AppendUnique(containers, q[1])
			}
		}
		f.Title = fmt.Sprintf("%s cannot be created: namespace %s enforces PodSecurity %q and the pod template violates it (%s)", what, w.Namespace, level, strings.Join(reasons, ", "))
		f.Hypothesis = fmt.Sprintf("Pod Security admission (%s) refuses the pod template of %s", level, w.Ref())
		f.Summary = fmt.Sprintf("Namespace %s enforces the Pod Security Standard %q and the pod template of %s violates it: %s.", w.Namespace, level, w.Ref(), m[2])
		target := "pod template"
		if len(containers) > 0 {
			target = fmt.Sprintf("container %s", strings.Join(containers, ", "))
		}
		f.Culprit = fmt.Sprintf("%s securityContext of %s (%s) vs namespace %s pod-security.kubernetes.io/enforce", target, w.Ref(), strings.Join(reasons, ", "), w.Namespace)
		f.Mechanism = "The PodSecurity admission controller checks every new pod against the level named by the namespace's pod-security.kubernetes.io/enforce label and refuses pods that do not meet it. " + f.Mechanism
		if ns := c.B.Namespace; ns != nil {
			var labels []string
			for _, k := range kube.SortedKeys(ns.Labels) {
				if strings.HasPrefix(k, "pod-security.kubernetes.io/") {
					labels = append(labels, k+"="+ns.Labels[k])
				}
			}
			if len(labels) > 0 {
				evidence = append(evidence, c.Evidence(fmt.Sprintf("Namespace %s has labels %s", ns.Name, strings.Join(labels, ", ")),
					fmt.Sprintf("namespace/%s .metadata.labels", ns.Name), fmt.Sprintf("kubectl get namespace %s --show-labels", ns.Name)))
			}
		}
		patch := wlPodSecurityPatch(reasons, containers)
		fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Make the pod template meet %q: set the securityContext fields the refusal names.", level),
			Risk: "the image must run as a non-root user without extra privileges, or the pods crash after they are admitted; " + risk("starts a rollout")}
		what := "set the securityContext fields the refusal names"
		if patch != "" && w.Kind != "pod" {
			fix.Commands = fit(what+": "+patch, fmt.Sprintf(`kubectl patch %s %s --type=strategic -p '%s'`, w.Ref(), w.NS(), w.PatchTemplate(patch)))
		} else {
			fix.Commands = fit(what, fmt.Sprintf("kubectl edit %s %s", w.Ref(), w.NS()))
		}
		f.Actions = []report.Action{fix,
			{Kind: report.LongTerm, Description: "Only if the workload really needs the privileges: relax the namespace's enforced level (or move the workload to a namespace meant for it).",
				Commands: []string{fmt.Sprintf("kubectl label namespace %s pod-security.kubernetes.io/enforce=baseline --overwrite", w.Namespace)},
				Risk:     "weakens the isolation of every pod in the namespace"},
		}
	case "Webhook":
		hook, msg := m[1], strings.TrimSpace(m[2])
		if msg == "" {
			msg = "no explanation given"
		}
		f.Title = fmt.Sprintf("%s cannot be created: admission webhook %q denies them: %s", what, hook, kube.FirstLine(msg))
		f.Hypothesis = fmt.Sprintf("Admission webhook %s denies the %s of %s", hook, what, w.Ref())
		f.Summary = fmt.Sprintf("The validating admission webhook %q rejects every %s of %s: %s", hook, strings.TrimSuffix(what, "s"), w.Ref(), msg)
		f.Culprit = fmt.Sprintf("admission webhook %s (policy: %s)", hook, kube.FirstLine(msg))
		f.Mechanism = "A ValidatingWebhookConfiguration sends new pods to a policy engine (Kyverno, Gatekeeper, a custom webhook), which answered with a denial. " + f.Mechanism
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Change the pod template so it satisfies the policy the denial names (labels, image registry, resources, securityContext…), or ask the policy's owner for an exception.",
				Commands: fit("change the pod template so the policy admits it", fmt.Sprintf("kubectl edit %s %s", w.Ref(), w.NS())), Risk: risk("starts a rollout")},
			{Kind: report.Check, Description: "Find the webhook configuration and the policy behind it.",
				Commands: []string{"kubectl get validatingwebhookconfigurations -o custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name"}},
		}
	case "WebhookUnavailable":
		hook, why := m[1], m[2]
		svc := wlWebhookHost.FindStringSubmatch(why)
		f.Title = fmt.Sprintf("%s cannot be created: admission webhook %q is unreachable and fails closed", what, hook)
		f.Hypothesis = fmt.Sprintf("Admission webhook %s cannot be called, and its failurePolicy rejects the %s", hook, what)
		f.Summary = fmt.Sprintf("The API server cannot call admission webhook %q (%s); its failurePolicy is Fail, so every %s of %s is rejected.", hook, kube.FirstLine(why), strings.TrimSuffix(what, "s"), w.Ref())
		f.Culprit = fmt.Sprintf("admission webhook %s backend", hook)
		f.Mechanism = "A webhook with failurePolicy: Fail turns its own outage into a refusal of every object it intercepts. " + f.Mechanism
		checkCmds := []string{"kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name,POLICY:.webhooks[*].failurePolicy"}
		if svc != nil {
			name, ns, _ := strings.Cut(svc[1], ".")
			ns, _, _ = strings.Cut(ns, ".")
			f.Culprit = fmt.Sprintf("admission webhook %s backend service %s/%s", hook, ns, name)
			checkCmds = append([]string{fmt.Sprintf("kubectl get endpointslices -n %s -l kubernetes.io/service-name=%s", ns, name), fmt.Sprintf("kubectl get pods -n %s", ns)}, checkCmds...)
		}
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: "Bring the webhook's backend back (its pods, Service endpoints, certificate).", Commands: checkCmds},
			{Kind: report.LongTerm, Description: "If the webhook is not critical for this workload, scope it with a namespaceSelector/objectSelector or set failurePolicy: Ignore.",
				Commands: []string{"kubectl edit validatingwebhookconfiguration <name>"},
				Risk:     "with Ignore, objects are admitted unchecked while the webhook is down"},
		}
	case "ServiceAccount":
		ns, sa := m[1], m[2]
		f.Title = fmt.Sprintf("%s cannot be created: ServiceAccount %q does not exist in namespace %s", what, sa, ns)
		f.Hypothesis = fmt.Sprintf("The pod template of %s names ServiceAccount %s, which does not exist", w.Ref(), sa)
		f.Summary = fmt.Sprintf("The pod template of %s sets serviceAccountName %q, but namespace %s has no such ServiceAccount, so admission refuses every pod.", w.Ref(), sa, ns)
		f.Culprit = fmt.Sprintf("pod template of %s serviceAccountName: %s", w.Ref(), sa)
		f.Mechanism = "The ServiceAccount admission plugin looks up the pod's ServiceAccount to mount its token and refuses the pod when it does not exist. " + f.Mechanism
		if c.B.IsMissing("ServiceAccount", ns, sa) {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("ServiceAccount %s/%s does not exist", ns, sa), "serviceaccount/"+sa, fmt.Sprintf("kubectl get serviceaccount %s -n %s", sa, ns)))
		}
		var have []string
		for _, s := range c.B.ServiceAccounts {
			if s.Namespace == ns {
				have = append(have, s.Name)
			}
		}
		if len(have) > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("ServiceAccounts seen in namespace %s: %s.", ns, strings.Join(have, ", ")))
		}
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Create ServiceAccount %s (with the RoleBindings the workload needs), or point the template at an existing one.", sa),
				Commands: []string{fmt.Sprintf("kubectl create serviceaccount %s -n %s", sa, ns), fmt.Sprintf("kubectl get rolebindings,clusterrolebindings -A -o wide | grep %s", sa)},
				Risk:     "a new ServiceAccount gets whatever bindings already name it; check they are intended"},
		}
		if w.Kind != "pod" {
			f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Or use an existing ServiceAccount in the pod template.",
				Commands: fit("set spec.template.spec.serviceAccountName: <existing>", fmt.Sprintf(`kubectl patch %s %s --type=merge -p '%s'`, w.Ref(), w.NS(), w.PatchTemplate(`{"serviceAccountName":"<existing>"}`))),
				Risk:     risk("starts a rollout") + "; the pods get that account's permissions"})
		}
	case "LimitRange":
		bound, res, scope, enforced, which, actual := m[1], m[2], m[3], m[4], m[5], m[6]
		if which == "" {
			which, actual = m[7], "not set"
		}
		f.Title = fmt.Sprintf("%s cannot be created: a LimitRange sets the %s %s per %s to %s, but the %s is %s", what, bound, res, scope, enforced, which, actual)
		f.Hypothesis = fmt.Sprintf("A LimitRange in namespace %s refuses the resources of %s", w.Namespace, w.Ref())
		f.Summary = fmt.Sprintf("A LimitRange in namespace %s allows a %s %s of %s per %s; the pod template of %s has %s %s, so admission refuses every pod.", w.Namespace, bound, res, enforced, scope, w.Ref(), which, actual)
		f.Culprit = fmt.Sprintf("pod template of %s resources.%ss.%s (%s) vs LimitRange %s %s", w.Ref(), which, res, actual, bound, enforced)
		f.Mechanism = "The LimitRanger admission plugin checks each container's (or pod's) requests and limits against the namespace's LimitRange and refuses values outside it. " + f.Mechanism
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Bring the %s %s within the LimitRange (%s %s).", res, which, bound, enforced),
				Commands: append([]string{fmt.Sprintf("kubectl get limitrange %s -o yaml", w.NS())},
					fit(fmt.Sprintf("set resources.%ss.%s: %s", which, res, enforced), fmt.Sprintf("kubectl set resources %s %s --%ss=%s=%s", w.Ref(), w.NS(), which, res, enforced))...),
				Risk: risk("starts a rollout") + "; a lower limit may not fit the workload"},
		}
	case "NamespaceTerminating":
		f.Title = fmt.Sprintf("%s cannot be created: namespace %s is being deleted", what, m[1])
		f.Hypothesis = fmt.Sprintf("Namespace %s is terminating", m[1])
		f.Summary = fmt.Sprintf("Namespace %s is being deleted; the API server refuses new objects in it, so %s cannot create %s.", m[1], w.Ref(), what)
		f.Culprit = fmt.Sprintf("namespace/%s (Terminating)", m[1])
		f.Actions = []report.Action{{Kind: report.Check, Description: "Find out why the namespace is being deleted and what holds its finalizers.",
			Commands: []string{fmt.Sprintf("kubectl get namespace %s -o jsonpath='{.status}'", m[1])}}}
	case "Invalid":
		f.Title = fmt.Sprintf("%s cannot be created: the API server rejects them as invalid: %s", what, kube.FirstLine(m[1]))
		f.Hypothesis = fmt.Sprintf("The pod template of %s is invalid", w.Ref())
		f.Summary = fmt.Sprintf("Every %s that %s creates fails validation: %s.", strings.TrimSuffix(what, "s"), w.Ref(), shortMsg)
		f.Culprit = fmt.Sprintf("pod template of %s: %s", w.Ref(), kube.FirstLine(m[1]))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Fix the field the validation error names in the pod template.",
			Commands: fit("fix the field the validation error names", fmt.Sprintf("kubectl edit %s %s", w.Ref(), w.NS())), Risk: risk("starts a rollout")}}
	case "Forbidden":
		f.Title = fmt.Sprintf("%s cannot be created: the API server forbids them: %s", what, kube.FirstLine(m[1]))
		f.Hypothesis = fmt.Sprintf("An admission policy forbids the %s of %s", what, w.Ref())
		f.Summary = fmt.Sprintf("Admission refuses every %s of %s: %s.", strings.TrimSuffix(what, "s"), w.Ref(), shortMsg)
		f.Culprit = fmt.Sprintf("admission refusal for %s: %s", w.Ref(), kube.FirstLine(m[1]))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Change the pod template (or the policy) so the refusal no longer applies.",
			Commands: fit("change the pod template so the refusal no longer applies", fmt.Sprintf("kubectl edit %s %s", w.Ref(), w.NS())), Risk: risk("")}}
	default:
		f.Title = fmt.Sprintf("%s cannot be created: %s", what, shortMsg)
		f.Hypothesis = fmt.Sprintf("The controller of %s cannot create its %s", w.Ref(), what)
		f.Summary = fmt.Sprintf("The controller of %s fails to create %s: %s.", w.Ref(), what, shortMsg)
		f.Culprit = fmt.Sprintf("%s: %s", f0.reporter, shortMsg)
	}
	if len(reporters) > 1 {
		var rs []string
		for _, f := range fails {
			rs = kube.AppendUnique(rs, f.reporter)
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("Reported by %s.", strings.Join(rs, " and ")))
	}
	f.Actions = append(f.Actions, check)
	f.Evidence = evidence
	return f
}

var (
	wlQuotedNames = regexp.MustCompile(`containers? "([^"]+)"`)
	wlWebhookHost = regexp.MustCompile(`https://([a-z0-9.-]+\.svc)(?::\d+)?`)
)

// wlSplitTopLevel splits "a (x, y), b, c (z)" on commas outside parentheses.
func wlSplitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// wlPodSecurityPatch builds the strategic-merge patch of a pod spec that
// fixes the restricted-profile violations Pod Security names.
func wlPodSecurityPatch(reasons, containers []string) string {
	pod := map[string]string{}
	ctr := map[string]string{}
	for _, r := range reasons {
		switch r {
		case "allowPrivilegeEscalation != false":
			ctr["allowPrivilegeEscalation"] = "false"
		case "unrestricted capabilities":
			ctr["capabilities"] = `{"drop":["ALL"]}`
		case "runAsNonRoot != true":
			pod["runAsNonRoot"] = "true"
		case "seccompProfile":
			pod["seccompProfile"] = `{"type":"RuntimeDefault"}`
		case "privileged":
			ctr["privileged"] = "false"
		}
	}
	if len(pod) == 0 && len(ctr) == 0 {
		return ""
	}
	obj := func(m map[string]string) string {
		var parts []string
		for _, k := range kube.SortedKeys(m) {
			parts = append(parts, fmt.Sprintf("%q:%s", k, m[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	var parts []string
	if len(pod) > 0 {
		parts = append(parts, `"securityContext":`+obj(pod))
	}
	if len(ctr) > 0 && len(containers) > 0 {
		var cs []string
		for _, name := range containers {
			cs = append(cs, fmt.Sprintf(`{"name":%q,"securityContext":%s}`, name, obj(ctr)))
		}
		parts = append(parts, `"containers":[`+strings.Join(cs, ",")+`]`)
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// wlTemplateAmounts says what one pod of the template asks for of the quota's
// resource names ("limits.memory 2Gi (container app 2Gi)").
func wlTemplateAmounts(t *corev1.PodTemplateSpec, names []string) string {
	var out []string
	for _, n := range names {
		kind, res, ok := strings.Cut(n, ".")
		if !ok {
			if n == "pods" {
				out = append(out, "1 pod")
			}
			continue
		}
		total := resource.Quantity{}
		var per []string
		for _, ctr := range t.Spec.Containers {
			list := ctr.Resources.Requests
			if kind == "limits" {
				list = ctr.Resources.Limits
			}
			if q, ok := list[corev1.ResourceName(res)]; ok {
				total.Add(q)
				per = append(per, fmt.Sprintf("container %s %s", ctr.Name, q.String()))
			}
		}
		if len(per) > 0 {
			out = append(out, fmt.Sprintf("%s %s (%s)", n, total.String(), strings.Join(per, ", ")))
		}
	}
	return strings.Join(out, ", ")
}

// wlSetResourcesCmd proposes `kubectl set resources` for the quota's resources.
func wlSetResourcesCmd(w kube.Workload, t *corev1.PodTemplateSpec, names []string) string {
	var reqs, lims []string
	for _, n := range names {
		kind, res, ok := strings.Cut(n, ".")
		if !ok {
			continue
		}
		if kind == "limits" {
			lims = append(lims, res+"=<less>")
		} else {
			reqs = append(reqs, res+"=<less>")
		}
	}
	cmd := fmt.Sprintf("kubectl set resources %s %s", w.Ref(), w.NS())
	if t != nil && len(t.Spec.Containers) == 1 {
		cmd += " -c " + t.Spec.Containers[0].Name
	}
	if len(reqs) > 0 {
		cmd += " --requests=" + strings.Join(reqs, ",")
	}
	if len(lims) > 0 {
		cmd += " --limits=" + strings.Join(lims, ",")
	}
	return cmd
}

func wlDeploymentOf(c *rule.Pass, w kube.Workload) *appsv1.Deployment {
	if w.Kind != "deployment" {
		return nil
	}
	for _, d := range c.B.Deployments {
		if d.Name == w.Name && d.Namespace == w.Namespace {
			return d
		}
	}
	return nil
}

// wlRolloutInProgress: an older revision still runs pods next to the newest.
func wlRolloutInProgress(c *rule.Pass, d *appsv1.Deployment) bool {
	rss := wlReplicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
	for _, rs := range rss {
		if rs != newest && rs.Status.Replicas > 0 {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Deployment rollouts.

func wlReplicaSetsOf(c *rule.Pass, d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range c.B.ReplicaSets {
		if kube.ControllerUID(rs.OwnerReferences) == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

// wlPreviousRevision is the ReplicaSet with the highest revision below the
// newest one.
func wlPreviousRevision(rss []*appsv1.ReplicaSet, newest *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	var best *appsv1.ReplicaSet
	for _, rs := range rss {
		if rs == newest || bundle.Revision(rs) >= bundle.Revision(newest) {
			continue
		}
		if best == nil || bundle.Revision(rs) > bundle.Revision(best) {
			best = rs
		}
	}
	return best
}

func wlDeploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// wlCheckRollout: a Deployment whose newest revision does not become
// available. It gives the rollout's context (which revision, since when,
// how far it got, what changed from the previous revision) and defers to
// the pods' own cause when there is one.
func wlCheckRollout(c *rule.Pass) []rule.Finding {
	d := kube.TargetOf(c, "Deployment", c.B.Deployments)
	if d == nil {
		return nil
	}
	progressing := wlDeploymentCondition(d, appsv1.DeploymentProgressing)
	available := wlDeploymentCondition(d, appsv1.DeploymentAvailable)
	deadline := progressing != nil && progressing.Status == corev1.ConditionFalse && progressing.Reason == "ProgressDeadlineExceeded"
	unavailable := available != nil && available.Status == corev1.ConditionFalse
	if !deadline && !unavailable && !wlNewRevisionFailing(c, d) {
		return nil
	}
	if f, ok := wlRolloutFinding(c, d, progressing, available, deadline); ok {
		return []rule.Finding{f}
	}
	return nil
}

// wlNewRevisionFailing: pods of the newest revision (a rollout: there is a
// previous one) have a cause of their own. The Deployment's conditions lag
// its pods by a controller round trip, so a new pod can already be in
// CrashLoopBackOff while Available still reads True (seen on the real node);
// the rollout's context is due then too.
func wlNewRevisionFailing(c *rule.Pass, d *appsv1.Deployment) bool {
	rss := wlReplicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
	if newest == nil || wlPreviousRevision(rss, newest) == nil {
		return false
	}
	return len(kube.PodCauses(c, kube.PodsOf(c, newest.UID))) > 0
}

func wlRolloutFinding(c *rule.Pass, d *appsv1.Deployment, progressing, available *appsv1.DeploymentCondition, deadline bool) (rule.Finding, bool) {
	rss := wlReplicaSetsOf(c, d)
	newest := bundle.NewestReplicaSet(rss)
	want := kube.ReplicasOf(d.Spec.Replicas)
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: d.Name}
	var evidence []string
	for _, cond := range []*appsv1.DeploymentCondition{progressing, available} {
		if cond != nil && cond.Status == corev1.ConditionFalse {
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("Condition %s=False (%s) since %s: %s", cond.Type, cond.Reason, kube.Stamp(cond.LastTransitionTime.Time), cond.Message),
				fmt.Sprintf("deployment/%s .status.conditions[%s]", d.Name, cond.Type),
				fmt.Sprintf(`kubectl get deployment %s -n %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, d.Name, d.Namespace, cond.Type)))
		}
	}
	evidence = append(evidence, c.Evidence(
		fmt.Sprintf("Deployment %s: %d desired, %d updated, %d ready, %d available, %d unavailable", d.Name, want, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas),
		fmt.Sprintf("deployment/%s .status", d.Name), fmt.Sprintf("kubectl get deployment %s -n %s", d.Name, d.Namespace)))
	if newest == nil {
		// No ReplicaSet at all: the deployment controller itself has not
		// acted (or could not be read).
		f.Category = rule.Deployment.Sub("Unavailable", "NoReplicaSet")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("Deployment %s has no ReplicaSet", d.Name)
		f.Title = fmt.Sprintf("deployment %s has no ReplicaSet: the deployment controller has not created one", d.Name)
		f.Summary = fmt.Sprintf("Deployment %s is unavailable and no ReplicaSet of it was found: no pod of it can exist.", d.Name)
		f.Mechanism = "The deployment controller creates a ReplicaSet per revision of the pod template; without one there are no pods."
		f.Culprit = "deployment/" + d.Name
		f.Evidence = evidence
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check that the controller manager runs and read the Deployment's events.",
			Commands: []string{fmt.Sprintf("kubectl describe deployment %s -n %s", d.Name, d.Namespace), "kubectl get pods -n kube-system -l component=kube-controller-manager"}}}
		return f, true
	}
	rev := bundle.Revision(newest)
	prev := wlPreviousRevision(rss, newest)
	newPods := kube.PodsOf(c, newest.UID)
	causes := kube.PodCauses(c, newPods)
	rsWant := kube.ReplicasOf(newest.Spec.Replicas)
	rsLine := fmt.Sprintf("ReplicaSet %s is revision %d, created %s: %d/%d pods, %d ready", newest.Name, rev, kube.Stamp(newest.CreationTimestamp.Time), newest.Status.Replicas, rsWant, newest.Status.ReadyReplicas)
	if prev != nil {
		rsLine += fmt.Sprintf("; ReplicaSet %s (revision %d) runs %d pods, %d ready", prev.Name, bundle.Revision(prev), prev.Status.Replicas, prev.Status.ReadyReplicas)
	}
	evidence = append(evidence, c.Evidence(rsLine, fmt.Sprintf("replicasets of deployment/%s", d.Name), fmt.Sprintf("kubectl rollout history deployment/%s -n %s", d.Name, d.Namespace)))

	inRollout := prev != nil && (deadline || d.Status.UpdatedReplicas < want || prev.Status.Replicas > 0)
	subject := fmt.Sprintf("deployment %s is unavailable (%d/%d available)", d.Name, d.Status.AvailableReplicas, want)
	f.Category = rule.Deployment.Sub("Unavailable")
	if inRollout {
		subject = fmt.Sprintf("rollout of deployment %s to revision %d is stuck", d.Name, rev)
		f.Category = rule.Rollout.Sub("Stuck")
	}

	// What changed from the previous revision: the rollout's trigger.
	var diff wlTemplateDiff
	if prev != nil {
		diff = wlDiffTemplates(&prev.Spec.Template, &newest.Spec.Template)
		if len(diff.changes) > 0 {
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("Revision %d changed the pod template of revision %d: %s", rev, bundle.Revision(prev), strings.Join(diff.changes, "; ")),
				fmt.Sprintf("replicaset/%s vs replicaset/%s .spec.template", newest.Name, prev.Name),
				fmt.Sprintf("diff <(kubectl rollout history deployment/%s -n %s --revision=%d) <(kubectl rollout history deployment/%s -n %s --revision=%d)", d.Name, d.Namespace, bundle.Revision(prev), d.Name, d.Namespace, rev)))
		}
	}
	started := newest.CreationTimestamp.Time
	context := fmt.Sprintf("Revision %d (ReplicaSet %s) was rolled out at %s; %d of %d pods are updated, %d ready, %d available.", rev, newest.Name, kube.Since(c, started), d.Status.UpdatedReplicas, want, d.Status.ReadyReplicas, d.Status.AvailableReplicas)
	if progressing != nil && deadline {
		context += fmt.Sprintf(" The rollout hit its progress deadline (%ds) at %s.", wlProgressDeadline(d), kube.Stamp(progressing.LastTransitionTime.Time))
	}
	f.Contributing = append(f.Contributing, context)
	if prev != nil {
		if prev.Status.ReadyReplicas > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Revision %d (ReplicaSet %s) still serves %d ready pod(s): the service is degraded, not down.", bundle.Revision(prev), prev.Name, prev.Status.ReadyReplicas))
		}
		if len(diff.changes) > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Introduced by revision %d (%s), which changed from revision %d: %s.", rev, kube.Stamp(started), bundle.Revision(prev), strings.Join(diff.changes, "; ")))
		} else {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Revision %d's pod template does not differ from revision %d in image, command, env, resources, probes or volumes.", rev, bundle.Revision(prev)))
		}
	}

	failedCreate := len(kube.EventsWith(c, newest.UID, "FailedCreate")) > 0 || wlDeploymentCondition(d, appsv1.DeploymentReplicaFailure) != nil
	pod, cause := kube.FirstCause(causes, newPods)
	var notReady, pending []*corev1.Pod
	for _, p := range newPods {
		switch {
		case kube.IsPodReady(p) || p.Status.Phase == corev1.PodSucceeded:
		case p.Spec.NodeName == "" || p.Status.Phase == corev1.PodPending:
			pending = append(pending, p)
		default:
			notReady = append(notReady, p)
		}
	}
	switch {
	case cause != nil:
		// The pod's own finding is the root cause; this one is its context
		// (which revision, what changed, how to roll back).
		f.Category = f.Category.Sub("PodsFailing")
		f.Confidence = rule.Even
		f.Context = true
		f.Hypothesis = fmt.Sprintf("The pods of revision %d fail, so the rollout cannot progress", rev)
		f.Title = fmt.Sprintf("%s: its pods fail (%s: %s)", subject, pod.Name, cause.Title)
		f.Summary = fmt.Sprintf("The pods of revision %d of deployment %s do not become available: pod %s: %s.", rev, d.Name, pod.Name, cause.Title)
		if match := diff.explains(cause); match != "" {
			// Only the hypotheses table shows this finding when the pod's
			// cause wins: its statement carries the trigger.
			f.Confidence = rule.Fair
			f.Hypothesis = fmt.Sprintf("Revision %d introduced the pods' failure: it changed %s", rev, match)
			f.Contributing = append([]string{fmt.Sprintf("The pod failure matches a change of revision %d (%s): the rollout introduced the fault, and rolling back to revision %d removes it.", rev, match, bundle.Revision(prev))}, f.Contributing...)
		}
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) pods: %s", newest.Name, rev, cause.Culprit)
	case failedCreate:
		f.Category = f.Category.Sub("ReplicasNotCreated")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("ReplicaSet %s cannot create the pods of revision %d", newest.Name, rev)
		f.Title = fmt.Sprintf("%s: ReplicaSet %s cannot create its pods (%d/%d exist)", subject, newest.Name, newest.Status.Replicas, rsWant)
		f.Summary = fmt.Sprintf("Revision %d of deployment %s has %d of %d pods: its ReplicaSet reports FailedCreate.", rev, d.Name, newest.Status.Replicas, rsWant)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) FailedCreate", newest.Name, rev)
	case len(newPods) == 0 && newest.Status.Replicas < rsWant:
		f.Category = f.Category.Sub("NoPods")
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("ReplicaSet %s has not created the pods of revision %d", newest.Name, rev)
		f.Title = fmt.Sprintf("%s: ReplicaSet %s has created %d of %d pods and no event says why", subject, newest.Name, newest.Status.Replicas, rsWant)
		f.Summary = fmt.Sprintf("Revision %d of deployment %s has no pods, and neither its ReplicaSet's events nor its conditions report a refusal: the replicaset controller may not be running, or its events have expired.", rev, d.Name)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d)", newest.Name, rev)
	case len(notReady) > 0:
		f.Category = f.Category.Sub("NotReady")
		f.Confidence = rule.Probable
		p := notReady[0]
		state, ev := wlDescribePod(c, p)
		evidence = append(evidence, ev...)
		f.Hypothesis = fmt.Sprintf("The pods of revision %d run but never become Ready", rev)
		f.Title = fmt.Sprintf("%s: its pods run but never become Ready (%s)", subject, state)
		f.Summary = fmt.Sprintf("%d pod(s) of revision %d of deployment %s are running but not Ready, so the rollout never counts them available: pod %s is %s.", len(notReady), rev, d.Name, p.Name, state)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) readiness", newest.Name, rev)
		if probe := diff.find("readinessProbe", "startupProbe"); probe != "" {
			f.Confidence = rule.High
			f.Title += "; revision " + strconv.FormatInt(rev, 10) + " changed " + probe
			f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) %s", newest.Name, rev, probe)
			f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
				Description: "Point the probe back at an endpoint the new version serves (or make the new version serve the one it probes).",
				Commands: []string{fmt.Sprintf(`kubectl get deployment %s -n %s -o jsonpath='{range .spec.template.spec.containers[*]}{.name}{": "}{.readinessProbe}{"\n"}{end}'`, d.Name, d.Namespace),
					fmt.Sprintf("kubectl describe pod %s -n %s", p.Name, p.Namespace)},
				Risk: "starts a new rollout"})
		} else if len(diff.changes) > 0 {
			f.Title += "; revision " + strconv.FormatInt(rev, 10) + " changed " + diff.changes[0]
		}
		f.Mechanism = "A pod counts as available only once every container is Ready (its readiness probe passes) for minReadySeconds. While the new pods stay unready, the deployment controller keeps the old ReplicaSet's pods and, after progressDeadlineSeconds, marks the rollout ProgressDeadlineExceeded."
	case len(pending) > 0:
		f.Category = f.Category.Sub("Pending")
		f.Confidence = rule.Moderate
		p := pending[0]
		state, ev := wlDescribePod(c, p)
		evidence = append(evidence, ev...)
		f.Hypothesis = fmt.Sprintf("The pods of revision %d stay Pending", rev)
		f.Title = fmt.Sprintf("%s: its pods stay Pending (%s)", subject, state)
		f.Summary = fmt.Sprintf("%d pod(s) of revision %d of deployment %s are Pending: pod %s is %s.", len(pending), rev, d.Name, p.Name, state)
		f.Culprit = fmt.Sprintf("replicaset/%s (revision %d) pods Pending", newest.Name, rev)
	default:
		return rule.Finding{}, false
	}
	if f.Mechanism == "" {
		f.Mechanism = "A Deployment replaces its pods by scaling the new revision's ReplicaSet up and the old one down as new pods become available. When the new pods never become available the rollout stops and, after progressDeadlineSeconds, is marked ProgressDeadlineExceeded; the old pods keep running."
	}
	f.Evidence = evidence
	if prev != nil {
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Roll back to revision %d while the change is fixed.", bundle.Revision(prev)),
			Commands:    []string{fmt.Sprintf("kubectl rollout undo deployment/%s -n %s --to-revision=%d", d.Name, d.Namespace, bundle.Revision(prev))},
			Risk:        fmt.Sprintf("reverts every change of revision %d, not only the faulty one", rev)})
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check,
		Description: "Compare the revisions and follow the rollout.",
		Commands: []string{fmt.Sprintf("kubectl rollout history deployment/%s -n %s --revision=%d", d.Name, d.Namespace, rev),
			fmt.Sprintf("kubectl rollout status deployment/%s -n %s", d.Name, d.Namespace),
			fmt.Sprintf("kubectl get pods -n %s -l %s=%s", d.Namespace, appsv1.DefaultDeploymentUniqueLabelKey, newest.Labels[appsv1.DefaultDeploymentUniqueLabelKey])}})
	return f, true
}

func wlProgressDeadline(d *appsv1.Deployment) int32 {
	if d.Spec.ProgressDeadlineSeconds != nil {
		return *d.Spec.ProgressDeadlineSeconds
	}
	return 600
}

// wlTemplateDiff is what changed between two pod templates, in words, with
// the identifiers each change touches (env names, images, ConfigMaps) so a
// pod's cause can be matched against it.
type wlTemplateDiff struct {
	changes []string
	terms   [][]string // terms[i] are the identifiers of changes[i]
}

func (d *wlTemplateDiff) add(terms []string, format string, a ...any) {
	d.changes = append(d.changes, fmt.Sprintf(format, a...))
	d.terms = append(d.terms, terms)
}

// explains returns the changed identifier a pod cause names, if any.
func (d *wlTemplateDiff) explains(cause *rule.Finding) string {
	text := cause.Title + " " + cause.Culprit + " " + cause.Summary
	for i, terms := range d.terms {
		for _, t := range terms {
			if len(t) >= 3 && strings.Contains(text, t) {
				return d.changes[i]
			}
		}
	}
	return ""
}

// find returns the first change mentioning one of the words.
func (d *wlTemplateDiff) find(words ...string) string {
	for _, ch := range d.changes {
		for _, w := range words {
			if strings.Contains(ch, w) {
				return ch
			}
		}
	}
	return ""
}

type wlNamedContainer struct {
	c    *corev1.Container
	kind string // "container" or "init container"
}

func wlTemplateContainers(t *corev1.PodTemplateSpec) (map[string]wlNamedContainer, []string) {
	out := map[string]wlNamedContainer{}
	var order []string
	for i := range t.Spec.InitContainers {
		ctr := &t.Spec.InitContainers[i]
		out[ctr.Name] = wlNamedContainer{ctr, "init container"}
		order = append(order, ctr.Name)
	}
	for i := range t.Spec.Containers {
		ctr := &t.Spec.Containers[i]
		out[ctr.Name] = wlNamedContainer{ctr, "container"}
		order = append(order, ctr.Name)
	}
	return out, order
}

// wlDiffTemplates lists what a human would check first in a rollout: images,
// command, env, resources, probes, mounts, volumes and the pod's identity.
func wlDiffTemplates(old, cur *corev1.PodTemplateSpec) wlTemplateDiff {
	var d wlTemplateDiff
	oldC, oldOrder := wlTemplateContainers(old)
	curC, curOrder := wlTemplateContainers(cur)
	for _, name := range curOrder {
		nc := curC[name]
		oc, ok := oldC[name]
		if !ok {
			d.add([]string{name, nc.c.Image}, "%s %s added (image %s)", nc.kind, name, nc.c.Image)
			continue
		}
		wlDiffContainer(&d, oc.c, nc.c, nc.kind)
	}
	for _, name := range oldOrder {
		if _, ok := curC[name]; !ok {
			d.add([]string{name}, "%s %s removed", oldC[name].kind, name)
		}
	}
	wlDiffVolumes(&d, old.Spec.Volumes, cur.Spec.Volumes)
	if o, n := old.Spec.ServiceAccountName, cur.Spec.ServiceAccountName; o != n {
		d.add([]string{n}, "serviceAccountName %s → %s", wlOrDefault(o), wlOrDefault(n))
	}
	if !reflect.DeepEqual(old.Spec.NodeSelector, cur.Spec.NodeSelector) {
		d.add(kube.SortedKeys(cur.Spec.NodeSelector), "nodeSelector %s → %s", wlLabelString(old.Spec.NodeSelector), wlLabelString(cur.Spec.NodeSelector))
	}
	if !reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		d.add(nil, "tolerations changed (%d → %d)", len(old.Spec.Tolerations), len(cur.Spec.Tolerations))
	}
	if !reflect.DeepEqual(old.Spec.Affinity, cur.Spec.Affinity) {
		d.add(nil, "affinity changed")
	}
	if !reflect.DeepEqual(old.Spec.SecurityContext, cur.Spec.SecurityContext) {
		d.add([]string{"securityContext"}, "pod securityContext changed")
	}
	if !reflect.DeepEqual(old.Spec.ImagePullSecrets, cur.Spec.ImagePullSecrets) {
		d.add([]string{"imagePullSecrets"}, "imagePullSecrets %s → %s", wlRefNames(old.Spec.ImagePullSecrets), wlRefNames(cur.Spec.ImagePullSecrets))
	}
	return d
}

func wlDiffContainer(d *wlTemplateDiff, o, n *corev1.Container, kind string) {
	name := n.Name
	if o.Image != n.Image {
		d.add([]string{n.Image, wlImageTag(n.Image)}, "%s %s image %s → %s", kind, name, o.Image, n.Image)
	}
	if !reflect.DeepEqual(o.Command, n.Command) {
		d.add(n.Command, "%s %s command %s → %s", kind, name, wlQuoteList(o.Command), wlQuoteList(n.Command))
	}
	if !reflect.DeepEqual(o.Args, n.Args) {
		d.add(n.Args, "%s %s args %s → %s", kind, name, wlQuoteList(o.Args), wlQuoteList(n.Args))
	}
	oldEnv := map[string]corev1.EnvVar{}
	for _, e := range o.Env {
		oldEnv[e.Name] = e
	}
	newEnv := map[string]bool{}
	for _, e := range n.Env {
		newEnv[e.Name] = true
		prev, ok := oldEnv[e.Name]
		switch {
		case !ok:
			d.add([]string{e.Name}, "%s %s env %s added (%s)", kind, name, e.Name, wlEnvSource(e))
		case !reflect.DeepEqual(prev, e):
			d.add([]string{e.Name}, "%s %s env %s changed (%s → %s)", kind, name, e.Name, wlEnvSource(prev), wlEnvSource(e))
		}
	}
	for _, e := range o.Env {
		if !newEnv[e.Name] {
			d.add([]string{e.Name}, "%s %s env %s removed", kind, name, e.Name)
		}
	}
	oldFrom, newFrom := wlEnvFromRefs(o.EnvFrom), wlEnvFromRefs(n.EnvFrom)
	for _, r := range newFrom {
		if !slices.Contains(oldFrom, r) {
			d.add([]string{wlRefName(r)}, "%s %s envFrom %s added", kind, name, r)
		}
	}
	for _, r := range oldFrom {
		if !slices.Contains(newFrom, r) {
			d.add([]string{wlRefName(r)}, "%s %s envFrom %s removed", kind, name, r)
		}
	}
	for _, part := range []struct {
		label    string
		old, cur corev1.ResourceList
	}{{"requests", o.Resources.Requests, n.Resources.Requests}, {"limits", o.Resources.Limits, n.Resources.Limits}} {
		names := map[string]bool{}
		for k := range part.old {
			names[string(k)] = true
		}
		for k := range part.cur {
			names[string(k)] = true
		}
		for _, res := range kube.SortedKeys(names) {
			oq, had := part.old[corev1.ResourceName(res)]
			nq, has := part.cur[corev1.ResourceName(res)]
			switch {
			case had && has && oq.Cmp(nq) != 0:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s → %s", kind, name, part.label, res, oq.String(), nq.String())
			case had && !has:
				d.add([]string{res}, "%s %s %s.%s %s removed", kind, name, part.label, res, oq.String())
			case !had && has:
				d.add([]string{res, nq.String()}, "%s %s %s.%s %s added", kind, name, part.label, res, nq.String())
			}
		}
	}
	for _, pr := range []struct {
		label    string
		old, cur *corev1.Probe
	}{{"livenessProbe", o.LivenessProbe, n.LivenessProbe}, {"readinessProbe", o.ReadinessProbe, n.ReadinessProbe}, {"startupProbe", o.StartupProbe, n.StartupProbe}} {
		if reflect.DeepEqual(pr.old, pr.cur) {
			continue
		}
		ob, nb := wlDescribeProbe(pr.old, false), wlDescribeProbe(pr.cur, false)
		if ob == nb {
			ob, nb = wlDescribeProbe(pr.old, true), wlDescribeProbe(pr.cur, true)
		}
		d.add([]string{pr.label}, "%s %s %s %s → %s", kind, name, pr.label, ob, nb)
	}
	oldMounts, newMounts := wlMountList(o.VolumeMounts), wlMountList(n.VolumeMounts)
	for _, m := range newMounts {
		if !slices.Contains(oldMounts, m) {
			d.add([]string{m}, "%s %s mounts %s", kind, name, m)
		}
	}
	for _, m := range oldMounts {
		if !slices.Contains(newMounts, m) {
			d.add([]string{m}, "%s %s no longer mounts %s", kind, name, m)
		}
	}
	if !reflect.DeepEqual(o.SecurityContext, n.SecurityContext) {
		d.add([]string{"securityContext"}, "%s %s securityContext changed", kind, name)
	}
}

func wlDiffVolumes(d *wlTemplateDiff, old, cur []corev1.Volume) {
	oldV := map[string]string{}
	for _, v := range old {
		oldV[v.Name] = wlVolumeSource(v)
	}
	curV := map[string]bool{}
	for _, v := range cur {
		curV[v.Name] = true
		src := wlVolumeSource(v)
		prev, ok := oldV[v.Name]
		switch {
		case !ok:
			d.add([]string{v.Name, wlRefName(src)}, "volume %s added (%s)", v.Name, src)
		case prev != src:
			d.add([]string{v.Name, wlRefName(src)}, "volume %s now %s (was %s)", v.Name, src, prev)
		}
	}
	for _, v := range old {
		if !curV[v.Name] {
			d.add([]string{v.Name}, "volume %s removed (%s)", v.Name, oldV[v.Name])
		}
	}
}

func wlVolumeSource(v corev1.Volume) string {
	switch {
	case v.ConfigMap != nil:
		return "ConfigMap " + v.ConfigMap.Name
	case v.Secret != nil:
		return "Secret " + v.Secret.SecretName
	case v.PersistentVolumeClaim != nil:
		return "PVC " + v.PersistentVolumeClaim.ClaimName
	case v.EmptyDir != nil:
		return "emptyDir"
	case v.HostPath != nil:
		return "hostPath " + v.HostPath.Path
	case v.Projected != nil:
		var parts []string
		for _, s := range v.Projected.Sources {
			switch {
			case s.ConfigMap != nil:
				parts = append(parts, "ConfigMap "+s.ConfigMap.Name)
			case s.Secret != nil:
				parts = append(parts, "Secret "+s.Secret.Name)
			case s.ServiceAccountToken != nil:
				parts = append(parts, "token")
			}
		}
		return "projected (" + strings.Join(parts, ", ") + ")"
	}
	return "other source"
}

// wlRefName is the object name in "ConfigMap app-config".
func wlRefName(s string) string {
	if _, name, ok := strings.Cut(s, " "); ok {
		return name
	}
	return ""
}

func wlEnvSource(e corev1.EnvVar) string {
	if f := e.ValueFrom; f != nil {
		switch {
		case f.ConfigMapKeyRef != nil:
			return fmt.Sprintf("from ConfigMap %s key %s", f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Key)
		case f.SecretKeyRef != nil:
			return fmt.Sprintf("from Secret %s key %s", f.SecretKeyRef.Name, f.SecretKeyRef.Key)
		case f.FieldRef != nil:
			return "from field " + f.FieldRef.FieldPath
		case f.ResourceFieldRef != nil:
			return "from resource " + f.ResourceFieldRef.Resource
		}
		return "from a reference"
	}
	switch {
	case strings.Contains(e.Value, redact.Mask):
		return "value redacted"
	case e.Value == "":
		return "empty value"
	case len(e.Value) > 40:
		return fmt.Sprintf("%q…", e.Value[:40])
	}
	return strconv.Quote(e.Value)
}

func wlEnvFromRefs(list []corev1.EnvFromSource) []string {
	var out []string
	for _, e := range list {
		switch {
		case e.ConfigMapRef != nil:
			out = append(out, "ConfigMap "+e.ConfigMapRef.Name)
		case e.SecretRef != nil:
			out = append(out, "Secret "+e.SecretRef.Name)
		}
	}
	return out
}

func wlMountList(ms []corev1.VolumeMount) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s at %s", m.Name, m.MountPath))
	}
	return out
}

// wlDescribeProbe renders a probe's handler, and with timing its thresholds.
func wlDescribeProbe(p *corev1.Probe, timing bool) string {
	if p == nil {
		return "none"
	}
	var s string
	switch {
	case p.HTTPGet != nil:
		s = fmt.Sprintf("httpGet %s port %s", wlOrDefault(p.HTTPGet.Path), p.HTTPGet.Port.String())
	case p.TCPSocket != nil:
		s = "tcpSocket port " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		s = "exec " + wlQuoteList(p.Exec.Command)
	case p.GRPC != nil:
		s = fmt.Sprintf("grpc port %d", p.GRPC.Port)
	default:
		s = "no handler"
	}
	if timing {
		s += fmt.Sprintf(" (initialDelaySeconds %d, periodSeconds %d, timeoutSeconds %d, failureThreshold %d)", p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold)
	}
	return s
}

func wlQuoteList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	return "[" + strings.Join(l, " ") + "]"
}

func wlLabelString(m map[string]string) string {
	return "{" + kube.SelectorString(m) + "}"
}

func wlRefNames(refs []corev1.LocalObjectReference) string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return "[" + strings.Join(out, ",") + "]"
}

func wlOrDefault(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}

func wlImageTag(image string) string {
	if i := strings.LastIndexAny(image, ":@"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[i+1:]
	}
	return image
}

// ---------------------------------------------------------------------------
// ReplicaSets.

// wlCheckReplicaSetPods: a ReplicaSet triaged directly whose pods are not
// Ready. The pods' own cause is the root cause when a pod rule explains it;
// this finding gives the ReplicaSet's side: how many replicas are ready,
// who owns it, and how a fixed template reaches the pods.
func wlCheckReplicaSetPods(c *rule.Pass) []rule.Finding {
	rs := kube.TargetOf(c, "ReplicaSet", c.B.ReplicaSets)
	if rs == nil {
		return nil
	}
	want := kube.ReplicasOf(rs.Spec.Replicas)
	if want == 0 || rs.Status.ReadyReplicas >= want {
		return nil
	}
	var unready []*corev1.Pod
	for _, p := range kube.PodsOf(c, rs.UID) {
		if !kube.IsPodReady(p) && p.Status.Phase != corev1.PodSucceeded && p.DeletionTimestamp == nil {
			unready = append(unready, p)
		}
	}
	if len(unready) == 0 {
		return nil // no pod to read: the FailedCreate rule speaks for missing ones
	}
	return []rule.Finding{wlReplicaSetFinding(c, rs, want, unready)}
}

func wlReplicaSetFinding(c *rule.Pass, rs *appsv1.ReplicaSet, want int32, unready []*corev1.Pod) rule.Finding {
	f := rule.Finding{Category: rule.ReplicaSet.Sub("PodsNotReady"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: rs.Name}
	f.Evidence = []string{c.Evidence(
		fmt.Sprintf("ReplicaSet %s: %d desired, %d created, %d ready, %d available", rs.Name, want, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas),
		fmt.Sprintf("replicaset/%s .status", rs.Name), fmt.Sprintf("kubectl get replicaset %s -n %s -o wide", rs.Name, rs.Namespace))}
	var names []string
	for _, p := range unready {
		names = append(names, p.Name)
	}
	ready := fmt.Sprintf("%d/%d replicas ready", rs.Status.ReadyReplicas, want)
	f.Hypothesis = fmt.Sprintf("The pods of ReplicaSet %s do not become Ready", rs.Name)
	f.Contributing = append(f.Contributing, fmt.Sprintf("ReplicaSet %s has %s (%d created); its pods %s are not Ready.", rs.Name, ready, rs.Status.Replicas, strings.Join(names, ", ")))
	w := kube.TopOwner(c, "ReplicaSet", rs)
	pods := "-l " + wlSelectorString(rs.Spec.Selector)
	if wlSelectorString(rs.Spec.Selector) == "" { // matchExpressions only: name the pods
		pods = strings.Join(names, " ")
	}
	if w.Kind != "replicaset" {
		f.Contributing = append(f.Contributing, fmt.Sprintf("It is revision %d of %s: fix the pod template there, which rolls out a new ReplicaSet; the %s's controller reverts a change made to this ReplicaSet.", bundle.Revision(rs), w.Ref(), w.Kind))
	} else {
		f.Contributing = append(f.Contributing, "No Deployment owns it: a ReplicaSet creates pods from its template only when it is short of replicas, so a fixed template reaches the running pods only once they are deleted.")
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Once the pod template of ReplicaSet %s is fixed, delete its pods so it recreates them from the new template: a ReplicaSet does not replace running pods when its template changes.", rs.Name),
			Commands:    []string{fmt.Sprintf("kubectl edit replicaset %s -n %s   # .spec.template", rs.Name, rs.Namespace), fmt.Sprintf("kubectl delete pods -n %s %s", rs.Namespace, pods)},
			Risk:        "deleting every pod at once leaves the ReplicaSet without pods until the new ones are Ready; delete them one by one to keep the ready ones serving"})
	}
	pod, cause := kube.FirstCause(kube.PodCauses(c, unready), unready)
	if cause != nil {
		// The pod's own finding is the root cause; this one is its context.
		f.Category = f.Category.Sub("PodsFailing")
		f.Context = true
		f.Confidence = rule.Even
		f.Title = fmt.Sprintf("replicaset %s has %s: pod %s: %s", rs.Name, ready, pod.Name, cause.Title)
		f.Summary = fmt.Sprintf("The pods of ReplicaSet %s do not become Ready: pod %s: %s.", rs.Name, pod.Name, cause.Title)
		f.Culprit = fmt.Sprintf("replicaset/%s pods: %s", rs.Name, cause.Culprit)
		f.Mechanism = cause.Mechanism
	} else {
		p := unready[0]
		state, ev := wlDescribePod(c, p)
		f.Evidence = append(f.Evidence, ev...)
		f.Confidence = rule.Moderate
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodPending {
			f.Category = f.Category.Sub("Pending")
		} else {
			f.Category = f.Category.Sub("NotReady")
		}
		f.Title = fmt.Sprintf("replicaset %s has %s: pod %s is %s", rs.Name, ready, p.Name, state)
		f.Summary = fmt.Sprintf("%d pod(s) of ReplicaSet %s are not Ready and no rule explains why: pod %s is %s.", len(unready), rs.Name, p.Name, state)
		f.Mechanism = "A ReplicaSet counts a pod ready once every container is Ready (its readiness probe passes); Services send no traffic to the others."
		f.Culprit = fmt.Sprintf("replicaset/%s pod %s (%s)", rs.Name, p.Name, state)
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Read the pods' states and events.",
		Commands: []string{fmt.Sprintf("kubectl get pods -n %s %s -o wide", rs.Namespace, pods), fmt.Sprintf("kubectl describe pod %s -n %s", unready[0].Name, rs.Namespace)}})
	return f
}

// ---------------------------------------------------------------------------
// StatefulSets.

// wlOrdinalOf parses the ordinal of a StatefulSet pod named <set>-<n>.
func wlOrdinalOf(set, pod string) (int32, bool) {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	return int32(n), err == nil
}

// wlCheckStatefulSetOrdinals: with podManagementPolicy OrderedReady the
// controller creates pod N+1 only once pod N is Running and Ready, so one
// unready pod blocks every higher ordinal.
func wlCheckStatefulSetOrdinals(c *rule.Pass) []rule.Finding {
	s := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
	if s == nil || s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
		return nil
	}
	want := kube.ReplicasOf(s.Spec.Replicas)
	if s.Status.ReadyReplicas >= want || s.Status.Replicas >= want {
		// Every pod exists: nothing is blocked from being created; the
		// pods' own findings explain the unready ones.
		return nil
	}
	start := int32(0)
	if s.Spec.Ordinals != nil {
		start = s.Spec.Ordinals.Start
	}
	pods := map[int32]*corev1.Pod{}
	for _, p := range kube.PodsOf(c, s.UID) {
		if n, ok := wlOrdinalOf(s.Name, p.Name); ok {
			pods[n] = p
		}
	}
	blocker := int32(-1)
	for i := start; i < start+want; i++ {
		if p := pods[i]; p == nil || !kube.IsPodReady(p) {
			blocker = i
			break
		}
	}
	if blocker < 0 {
		return nil
	}
	var missing []string
	for i := blocker + 1; i < start+want; i++ {
		if pods[i] == nil {
			missing = append(missing, fmt.Sprintf("%s-%d", s.Name, i))
		}
	}
	return []rule.Finding{wlOrdinalFinding(c, s, blocker, pods[blocker], missing)}
}

func wlOrdinalFinding(c *rule.Pass, s *appsv1.StatefulSet, ordinal int32, p *corev1.Pod, missing []string) rule.Finding {
	want := kube.ReplicasOf(s.Spec.Replicas)
	name := fmt.Sprintf("%s-%d", s.Name, ordinal)
	f := rule.Finding{Category: rule.StatefulSet.Sub("OrdinalBlocked"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: s.Name}
	evidence := []string{c.Evidence(
		fmt.Sprintf("StatefulSet %s: %d desired, %d pods exist, %d ready (podManagementPolicy %s)", s.Name, want, s.Status.Replicas, s.Status.ReadyReplicas, wlOrDefaultPolicy(s.Spec.PodManagementPolicy)),
		fmt.Sprintf("statefulset/%s .status", s.Name), fmt.Sprintf("kubectl get statefulset %s -n %s", s.Name, s.Namespace))}
	blocked := "no further pod"
	if len(missing) > 0 {
		blocked = strings.Join(missing, ", ")
	}
	f.Mechanism = "With podManagementPolicy OrderedReady (the default) the StatefulSet controller creates pods one at a time in ordinal order and waits for each to be Running and Ready before it creates the next; while a pod is unready, every higher ordinal waits."
	f.Actions = []report.Action{
		{Kind: report.Check, Description: fmt.Sprintf("Look at %s, the pod every other one waits for.", name),
			Commands: []string{fmt.Sprintf("kubectl describe pod %s -n %s", name, s.Namespace), fmt.Sprintf("kubectl get pods -n %s -l %s", s.Namespace, wlSelectorString(s.Spec.Selector))}},
		{Kind: report.LongTerm, Description: "If the pods do not need to start in order, podManagementPolicy: Parallel lets them start independently; the field is immutable, so the StatefulSet must be recreated without deleting its pods.",
			Commands: []string{fmt.Sprintf("kubectl get statefulset %s -n %s -o yaml > %s.yaml   # set spec.podManagementPolicy: Parallel", s.Name, s.Namespace, s.Name),
				fmt.Sprintf("kubectl delete statefulset %s -n %s --cascade=orphan && kubectl apply -f %s.yaml", s.Name, s.Namespace, s.Name)},
			Risk: "ordered start-up is often what a clustered database needs; recreating the object briefly leaves the pods unmanaged"},
	}
	if p == nil {
		f.Confidence = rule.Even
		f.Hypothesis = fmt.Sprintf("Pod %s has not been created, so the higher ordinals wait", name)
		f.Title = fmt.Sprintf("statefulset %s is stuck at %d/%d ready: pod %s does not exist, so %s cannot be created", s.Name, s.Status.ReadyReplicas, want, name, blocked)
		f.Summary = fmt.Sprintf("StatefulSet %s has not created pod %s (ordinal %d); with OrderedReady, %s wait for it.", s.Name, name, ordinal, blocked)
		f.Culprit = fmt.Sprintf("statefulset/%s ordinal %d (%s not created)", s.Name, ordinal, name)
		if len(kube.EventsWith(c, s.UID, "FailedCreate")) > 0 {
			f.Contributing = append(f.Contributing, fmt.Sprintf("The StatefulSet reports FailedCreate for its pods: see the creation refusal."))
		}
		f.Evidence = evidence
		return f
	}
	state, ev := wlDescribePod(c, p)
	evidence = append(evidence, ev...)
	causes := kube.PodCauses(c, []*corev1.Pod{p})
	f.Hypothesis = fmt.Sprintf("Pod %s is not Ready and blocks the creation of %s", name, blocked)
	f.Culprit = fmt.Sprintf("pod/%s (ordinal %d): %s", name, ordinal, state)
	f.Title = fmt.Sprintf("statefulset %s is stuck at %d/%d ready: %s is not Ready (%s), so %s cannot be created", s.Name, s.Status.ReadyReplicas, want, name, state, blocked)
	f.Summary = fmt.Sprintf("StatefulSet %s creates its pods in order and waits for %s (ordinal %d), which is not Ready: %s. %s have not been created.", s.Name, name, ordinal, state, blocked)
	f.Confidence = rule.Likely
	fix := report.Action{Kind: report.Immediate, Description: fmt.Sprintf("Make %s Ready: fix what keeps it from starting; the controller then creates the next ordinals by itself.", name),
		Commands: []string{fmt.Sprintf("kubectl describe pod %s -n %s", name, s.Namespace)}}
	for _, cs := range p.Status.InitContainerStatuses {
		if cs.State.Running != nil {
			fix.Description = fmt.Sprintf("Make what init container %s of %s waits for available (its log says what it waits for); the controller then creates the next ordinals by itself.", cs.Name, name)
			fix.Commands = append([]string{kube.LogsCmd(p, cs.Name, false)}, fix.Commands...)
			break
		}
	}
	f.Actions = append([]report.Action{fix}, f.Actions...)
	if cause := causes[p.Name]; cause != nil {
		// The pod's own finding is the root cause; this one gives the
		// StatefulSet's view of it.
		f.Confidence = rule.Even
		f.Context = true
		f.Title = fmt.Sprintf("statefulset %s is stuck at %d/%d ready: %s (%s) blocks %s", s.Name, s.Status.ReadyReplicas, want, name, cause.Title, blocked)
		f.Culprit = fmt.Sprintf("pod/%s (ordinal %d): %s", name, ordinal, cause.Culprit)
		f.Contributing = append(f.Contributing,
			fmt.Sprintf("StatefulSet %s is stuck at %d/%d ready: with podManagementPolicy %s it creates %s only once %s (ordinal %d) is Ready.", s.Name, s.Status.ReadyReplicas, want, wlOrDefaultPolicy(s.Spec.PodManagementPolicy), blocked, name, ordinal),
			fmt.Sprintf("Why %s is not Ready: %s.", name, cause.Title))
		f.Actions = f.Actions[1:] // the pod's own finding says how to fix it
	}
	if s.Status.UpdateRevision != "" && s.Status.CurrentRevision != s.Status.UpdateRevision {
		f.Contributing = append(f.Contributing, fmt.Sprintf("A rolling update from revision %s to %s is in progress: once the template is fixed, delete pod %s by hand — the controller waits for a broken pod to become Ready before it replaces it.", s.Status.CurrentRevision, s.Status.UpdateRevision, name))
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate, Description: fmt.Sprintf("After fixing the template, delete %s so the controller recreates it from the new revision.", name),
			Commands: []string{fmt.Sprintf("kubectl delete pod %s -n %s", name, s.Namespace)},
			Risk:     "the pod restarts; with one replica the service is down until it is Ready"})
	}
	f.Evidence = evidence
	return f
}

func wlOrDefaultPolicy(p appsv1.PodManagementPolicyType) string {
	if p == "" {
		return string(appsv1.OrderedReadyPodManagement)
	}
	return string(p)
}

func wlSelectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	return kube.SelectorString(s.MatchLabels)
}

// ---------------------------------------------------------------------------
// DaemonSets.

// wlDaemonTolerations are added to every DaemonSet pod by its controller, so
// these taints never keep a DaemonSet off a node.
var wlDaemonTolerations = []corev1.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

// wlNodeExclusion says why a DaemonSet's pod template does not belong on a
// node ("" when it does), the way its controller decides.
func wlNodeExclusion(spec *corev1.PodSpec, n *corev1.Node) string {
	for _, k := range kube.SortedKeys(spec.NodeSelector) {
		if v, ok := n.Labels[k]; !ok || v != spec.NodeSelector[k] {
			got := "no such label"
			if ok {
				got = k + "=" + v
			}
			return fmt.Sprintf("nodeSelector %s=%s does not match (%s)", k, spec.NodeSelector[k], got)
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if !wlNodeSelectorMatches(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, n) {
			return "required node affinity does not match its labels"
		}
	}
	tolerations := append(append([]corev1.Toleration(nil), spec.Tolerations...), wlDaemonTolerations...)
	if spec.HostNetwork {
		tolerations = append(tolerations, corev1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	for _, t := range n.Spec.Taints {
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !scheduling.PodToleratesTaint(tolerations, &t) {
			return "untolerated taint " + kube.TaintSpec(t)
		}
	}
	return ""
}

// wlNodeSelectorMatches evaluates required node affinity: terms are ORed,
// the expressions of a term ANDed.
func wlNodeSelectorMatches(sel *corev1.NodeSelector, n *corev1.Node) bool {
	for _, term := range sel.NodeSelectorTerms {
		reqs := scheduling.SelectorTermReqs(term)
		if len(reqs) > 0 && len(scheduling.NodesMatching([]*corev1.Node{n}, reqs)) == 1 {
			return true
		}
	}
	return false
}

// wlDaemonPodNode is the node a DaemonSet pod is for: bound, or still named
// by the node affinity its controller sets.
func wlDaemonPodNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

func wlCheckDaemonSet(c *rule.Pass) []rule.Finding {
	ds := kube.TargetOf(c, "DaemonSet", c.B.DaemonSets)
	if ds == nil {
		return nil
	}
	var out []rule.Finding
	st := ds.Status
	evidence := []string{c.Evidence(
		fmt.Sprintf("DaemonSet %s: %d desired, %d current, %d ready, %d available, %d unavailable, %d misscheduled", ds.Name, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.NumberAvailable, st.NumberUnavailable, st.NumberMisscheduled),
		fmt.Sprintf("daemonset/%s .status", ds.Name), fmt.Sprintf("kubectl get daemonset %s -n %s -o wide", ds.Name, ds.Namespace))}
	excluded := map[string]string{}
	for _, n := range c.B.Nodes {
		if why := wlNodeExclusion(&ds.Spec.Template.Spec, n); why != "" {
			excluded[n.Name] = why
		}
	}
	pods := kube.PodsOf(c, ds.UID)
	if st.DesiredNumberScheduled == 0 {
		out = append(out, wlDaemonNoNodes(c, ds, excluded, evidence))
	}
	if st.DesiredNumberScheduled > 0 && (st.CurrentNumberScheduled < st.DesiredNumberScheduled || st.NumberUnavailable > 0 || st.NumberReady < st.DesiredNumberScheduled) {
		out = append(out, wlDaemonUnavailable(c, ds, pods, excluded, evidence))
	}
	if st.NumberMisscheduled > 0 {
		out = append(out, wlDaemonMisscheduled(c, ds, pods, excluded, evidence))
	}
	return out
}

func wlDaemonNoNodes(c *rule.Pass, ds *appsv1.DaemonSet, excluded map[string]string, evidence []string) rule.Finding {
	spec := &ds.Spec.Template.Spec
	f := rule.Finding{Category: rule.DaemonSet.Sub("NoEligibleNodes"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name}
	constraints := []string{}
	if len(spec.NodeSelector) > 0 {
		constraints = append(constraints, "nodeSelector "+wlLabelString(spec.NodeSelector))
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		constraints = append(constraints, "required node affinity")
	}
	f.Mechanism = "The DaemonSet controller runs one pod on each node that matches the pod template's nodeSelector and node affinity and whose NoSchedule/NoExecute taints the template tolerates; when no node qualifies it wants 0 pods and creates none."
	f.Actions = []report.Action{
		{Kind: report.Check, Description: "Compare the DaemonSet's nodeSelector and tolerations with the nodes' labels and taints.",
			Commands: []string{fmt.Sprintf(`kubectl get daemonset %s -n %s -o jsonpath='{.spec.template.spec.nodeSelector}{"\n"}{.spec.template.spec.tolerations}'`, ds.Name, ds.Namespace),
				"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints --show-labels"}},
	}
	if len(c.B.Nodes) > 0 && len(excluded) == len(c.B.Nodes) {
		reasons := map[string][]string{}
		for _, n := range kube.SortedKeys(excluded) {
			reasons[excluded[n]] = append(reasons[excluded[n]], n)
		}
		var parts, taints []string
		for _, why := range kube.SortedKeys(reasons) {
			if t, ok := strings.CutPrefix(why, "untolerated taint "); ok {
				taints = append(taints, t)
			}
			parts = append(parts, fmt.Sprintf("%s on %s", why, strings.Join(reasons[why], ", ")))
			evidence = append(evidence, c.Evidence(fmt.Sprintf("DaemonSet %s does not fit node(s) %s: %s", ds.Name, strings.Join(reasons[why], ", "), why),
				"node/"+reasons[why][0]+" .metadata.labels/.spec.taints", "kubectl get nodes --show-labels -o wide"))
		}
		f.Confidence = rule.Strong
		f.Strength = rule.Explained
		f.Hypothesis = fmt.Sprintf("No node qualifies for DaemonSet %s", ds.Name)
		f.Title = fmt.Sprintf("daemonset %s runs nowhere: none of the %d nodes qualifies (%s)", ds.Name, len(c.B.Nodes), strings.Join(parts, "; "))
		f.Summary = fmt.Sprintf("DaemonSet %s wants 0 pods because every node is excluded: %s.", ds.Name, strings.Join(parts, "; "))
		f.Culprit = fmt.Sprintf("daemonset/%s %s", ds.Name, kube.ValueOr(strings.Join(constraints, " and "), "tolerations"))
		// Nodes excluded by a taint passed the selector: the missing
		// toleration is what keeps the DaemonSet off the nodes it selects.
		if len(taints) > 0 {
			f.Category = f.Category.Sub("Taint")
			f.Culprit = fmt.Sprintf("daemonset/%s tolerations (no toleration for %s)", ds.Name, strings.Join(taints, ", "))
		} else {
			f.Category = f.Category.Sub("NodeSelector")
		}
	} else if len(constraints) > 0 {
		f.Confidence = rule.Plausible
		f.Hypothesis = fmt.Sprintf("The %s of DaemonSet %s matches no node", strings.Join(constraints, " and "), ds.Name)
		f.Title = fmt.Sprintf("daemonset %s runs nowhere: its %s matches no node (desiredNumberScheduled is 0)", ds.Name, strings.Join(constraints, " and "))
		f.Summary = fmt.Sprintf("DaemonSet %s wants 0 pods: no node carries the labels its %s asks for, or the nodes that do carry taints it does not tolerate.", ds.Name, strings.Join(constraints, " and "))
		f.Culprit = fmt.Sprintf("daemonset/%s %s", ds.Name, strings.Join(constraints, " and "))
		f.Category = f.Category.Sub("NodeSelector")
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Label the nodes the DaemonSet is meant for, or fix its nodeSelector.",
			Commands: []string{fmt.Sprintf("kubectl get nodes -l %s", strings.ReplaceAll(strings.Trim(wlLabelString(spec.NodeSelector), "{}"), " ", "")),
				"kubectl label node <node> " + strings.ReplaceAll(strings.Trim(wlLabelString(spec.NodeSelector), "{}"), ",", " ")},
			Risk: "other workloads selecting those labels may move onto the newly labelled nodes"}}, f.Actions...)
	} else {
		f.Verdict = report.Inconclusive
		f.Confidence = rule.Weak
		f.Hypothesis = fmt.Sprintf("Every node carries a taint DaemonSet %s does not tolerate", ds.Name)
		f.Title = fmt.Sprintf("daemonset %s wants 0 pods", ds.Name)
		f.Culprit = "daemonset/" + ds.Name + " tolerations"
	}
	f.Evidence = evidence
	return f
}

func wlDaemonUnavailable(c *rule.Pass, ds *appsv1.DaemonSet, pods []*corev1.Pod, excluded map[string]string, evidence []string) rule.Finding {
	st := ds.Status
	f := rule.Finding{Category: rule.DaemonSet.Sub("Unavailable"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name, Confidence: rule.Plausible}
	causes := kube.PodCauses(c, pods)
	var problems, failing []string
	var culprit string
	withPod := map[string]bool{}
	for _, p := range pods {
		node := wlDaemonPodNode(p)
		withPod[node] = true
		if kube.IsPodReady(p) {
			continue
		}
		failing = append(failing, fmt.Sprintf("%s (node %s)", p.Name, kube.OrDash(node)))
		state, ev := wlDescribePod(c, p)
		evidence = append(evidence, ev...)
		if cause := causes[p.Name]; cause != nil {
			state = cause.Title
			f.Confidence = rule.Even
			f.Context = true
			culprit = kube.ValueOr(culprit, cause.Culprit)
		}
		problems = append(problems, fmt.Sprintf("node %s: pod %s %s", kube.OrDash(node), p.Name, state))
		culprit = kube.ValueOr(culprit, fmt.Sprintf("pod/%s on node %s: %s", p.Name, kube.OrDash(node), state))
	}
	var noPod []string
	for _, n := range c.B.Nodes {
		if excluded[n.Name] == "" && !withPod[n.Name] {
			noPod = append(noPod, n.Name)
		}
	}
	if len(noPod) > 0 {
		problems = append(problems, fmt.Sprintf("no pod on node(s) %s", strings.Join(noPod, ", ")))
	}
	missing := st.DesiredNumberScheduled - st.CurrentNumberScheduled
	if missing > 0 {
		if len(kube.EventsWith(c, ds.UID, "FailedCreate")) > 0 {
			f.Confidence = rule.Even
			f.Contributing = append(f.Contributing, "The DaemonSet reports FailedCreate: see the creation refusal.")
		}
		if len(noPod) == 0 {
			problems = append(problems, fmt.Sprintf("%d node(s) have no pod", missing))
		}
	}
	if len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("%d pod(s) unavailable", st.NumberUnavailable))
	}
	unavailable := st.DesiredNumberScheduled - st.NumberAvailable
	if unavailable <= 0 {
		unavailable = st.NumberUnavailable
	}
	if f.Context {
		f.Contributing = append([]string{fmt.Sprintf("DaemonSet %s is available on %d of its %d nodes; its failing pods: %s.", ds.Name, st.NumberAvailable, st.DesiredNumberScheduled, strings.Join(failing, ", "))}, f.Contributing...)
	}
	f.Hypothesis = fmt.Sprintf("DaemonSet %s is missing or unready on %d of its %d nodes", ds.Name, unavailable, st.DesiredNumberScheduled)
	f.Title = fmt.Sprintf("daemonset %s is unavailable on %d of %d nodes: %s", ds.Name, unavailable, st.DesiredNumberScheduled, strings.Join(problems, "; "))
	f.Summary = fmt.Sprintf("DaemonSet %s should run on %d node(s) but only %d pod(s) are available: %s.", ds.Name, st.DesiredNumberScheduled, st.NumberAvailable, strings.Join(problems, "; "))
	f.Culprit = kube.ValueOr(culprit, "daemonset/"+ds.Name)
	f.Mechanism = "A DaemonSet is available on a node once its pod there is Ready for minReadySeconds; a node without a pod, or with a failing one, counts as unavailable. Whatever keeps that pod from running (its container, its node, admission) is the cause."
	if len(excluded) > 0 {
		var names []string
		for _, n := range kube.SortedKeys(excluded) {
			names = append(names, fmt.Sprintf("%s (%s)", n, excluded[n]))
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("Not counted, by design of its selector and tolerations: %s.", strings.Join(names, ", ")))
	}
	f.Actions = []report.Action{{Kind: report.Check, Description: "List the DaemonSet's pods per node and describe the failing ones.",
		Commands: []string{fmt.Sprintf("kubectl get pods -n %s -l %s -o wide", ds.Namespace, wlSelectorString(ds.Spec.Selector)), fmt.Sprintf("kubectl describe daemonset %s -n %s", ds.Name, ds.Namespace)}}}
	f.Evidence = evidence
	return f
}

func wlDaemonMisscheduled(c *rule.Pass, ds *appsv1.DaemonSet, pods []*corev1.Pod, excluded map[string]string, evidence []string) rule.Finding {
	f := rule.Finding{Category: rule.DaemonSet.Sub("Misscheduled"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: ds.Name, Confidence: rule.Moderate}
	var where []string
	var taint bool
	for _, p := range pods {
		node := wlDaemonPodNode(p)
		if why := excluded[node]; why != "" {
			where = append(where, fmt.Sprintf("pod %s on node %s (%s)", p.Name, node, why))
			taint = taint || strings.Contains(why, "taint")
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Node %s no longer qualifies for DaemonSet %s: %s", node, ds.Name, why),
				"node/"+node+" .metadata.labels/.spec.taints", fmt.Sprintf("kubectl get node %s -o jsonpath='{.metadata.labels}{\"\\n\"}{.spec.taints}'", node)))
		}
	}
	f.Hypothesis = fmt.Sprintf("DaemonSet %s runs pods on nodes it no longer selects", ds.Name)
	f.Mechanism = "The DaemonSet controller counts a pod as misscheduled when it runs on a node the pod template no longer selects or tolerates: a NoSchedule taint added after the pod started, or a nodeSelector/toleration removed from the template. The pod keeps running, but once it is deleted or updated it is not recreated there."
	if len(where) > 0 {
		f.Confidence = rule.High
		if taint {
			f.Category = f.Category.Sub("Taint")
		} else {
			f.Category = f.Category.Sub("NodeSelector")
		}
		f.Title = fmt.Sprintf("daemonset %s has %d misscheduled pod(s): %s", ds.Name, ds.Status.NumberMisscheduled, strings.Join(where, "; "))
		f.Summary = fmt.Sprintf("DaemonSet %s still runs on nodes it no longer qualifies for: %s. These pods will not come back once they are deleted or the DaemonSet is updated.", ds.Name, strings.Join(where, "; "))
		f.Culprit = fmt.Sprintf("daemonset/%s tolerations/nodeSelector vs %s", ds.Name, where[0])
	} else {
		f.Title = fmt.Sprintf("daemonset %s has %d misscheduled pod(s) on nodes it no longer selects", ds.Name, ds.Status.NumberMisscheduled)
		f.Summary = f.Title + "; the nodes were not collected, so which label or taint changed is not known."
		f.Culprit = fmt.Sprintf("daemonset/%s tolerations/nodeSelector", ds.Name)
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "If the DaemonSet belongs on those nodes, add the toleration (or label) back to its template; otherwise delete the leftover pods.",
			Commands: []string{fmt.Sprintf(`kubectl get daemonset %s -n %s -o jsonpath='{.spec.template.spec.tolerations}'`, ds.Name, ds.Namespace), "kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"},
			Risk:     "a toleration lets the pod onto nodes reserved for other work"},
	}
	f.Evidence = evidence
	return f
}

// ---------------------------------------------------------------------------
// Jobs.

// wlJobFinished returns the condition that ended the Job, if any.
func wlJobFinished(j *batchv1.Job) (*batchv1.JobCondition, bool) {
	for i := range j.Status.Conditions {
		cond := &j.Status.Conditions[i]
		if (cond.Type == batchv1.JobFailed || cond.Type == batchv1.JobComplete) && cond.Status == corev1.ConditionTrue {
			return cond, true
		}
	}
	return nil, false
}

func wlJobFailedCondition(j *batchv1.Job) *batchv1.JobCondition {
	if cond, ok := wlJobFinished(j); ok && cond.Type == batchv1.JobFailed {
		return cond
	}
	return nil
}

// wlPodExit is how a failed pod's container ended, with its decisive log line.
type wlPodExit struct {
	pod       *corev1.Pod
	container string
	term      *corev1.ContainerStateTerminated
	line      *logs.Decisive
}

// wlFailedExit finds the most recent non-zero container exit among the pods.
func wlFailedExit(c *rule.Pass, pods []*corev1.Pod) *wlPodExit {
	var best *wlPodExit
	for _, p := range pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			term := st.State.Terminated
			if term == nil || term.ExitCode == 0 {
				term = st.LastTerminationState.Terminated
			}
			if term == nil || term.ExitCode == 0 {
				continue
			}
			if best == nil || term.FinishedAt.After(best.term.FinishedAt.Time) {
				best = &wlPodExit{pod: p, container: st.Name, term: term}
			}
		}
	}
	if best == nil {
		return nil
	}
	cur, prev := c.B.LogsFor(best.pod.Name, best.container)
	for _, l := range []*bundle.ContainerLog{cur, prev} {
		if l != nil && l.Error == "" {
			if d := logs.FindDecisive(l.Text); d != nil {
				best.line = d
				break
			}
		}
	}
	return best
}

// wlJobAnalysis is what a failed Job's status and pods say about why it failed.
type wlJobAnalysis struct {
	cond     *batchv1.JobCondition
	pods     []*corev1.Pod
	failed   []*corev1.Pod
	cause    *rule.Finding // a pod-level finding about one of its pods
	causePod *corev1.Pod
	exit     *wlPodExit
	evidence []string
	// detail is the cause in words ("container app exits with code 1: …"),
	// suffix the category refinement ("MissingEnv", "Exit1").
	detail, suffix, culprit string
	confident               bool // the pods say why (not only the Job status)
}

// podConfidence is how sure the pods make the cause: a decisive log line
// behind the exit makes it verified.
func (a wlJobAnalysis) podConfidence() rule.Confidence {
	if a.exit != nil && a.exit.line != nil && a.exit.line.Pattern.Priority > 10 {
		return rule.Strong
	}
	return rule.High
}

func wlAnalyzeJob(c *rule.Pass, j *batchv1.Job) wlJobAnalysis {
	a := wlJobAnalysis{cond: wlJobFailedCondition(j), pods: kube.PodsOf(c, j.UID)}
	for _, p := range a.pods {
		if p.Status.Phase == corev1.PodFailed || !kube.IsPodReady(p) && p.Status.Phase != corev1.PodSucceeded {
			a.failed = append(a.failed, p)
		}
	}
	if a.cond != nil {
		a.evidence = append(a.evidence, c.Evidence(
			fmt.Sprintf("Job %s condition Failed=True (%s) at %s: %s", j.Name, a.cond.Reason, kube.Stamp(a.cond.LastTransitionTime.Time), a.cond.Message),
			fmt.Sprintf("job/%s .status.conditions[Failed]", j.Name),
			fmt.Sprintf(`kubectl get job %s -n %s -o jsonpath='{.status.conditions[?(@.type=="Failed")]}'`, j.Name, j.Namespace)))
	}
	a.evidence = append(a.evidence, c.Evidence(
		fmt.Sprintf("Job %s: %d failed, %d succeeded, %d active pods (completions %d, parallelism %d, backoffLimit %d%s)", j.Name, j.Status.Failed, j.Status.Succeeded, j.Status.Active,
			kube.ReplicasOf(j.Spec.Completions), kube.ReplicasOf(j.Spec.Parallelism), wlBackoffLimit(j), wlDeadlineText(j)),
		fmt.Sprintf("job/%s .status", j.Name), fmt.Sprintf("kubectl get job %s -n %s -o wide", j.Name, j.Namespace)))
	a.causePod, a.cause = kube.FirstCause(kube.PodCauses(c, a.failed), a.failed)
	if a.cause != nil {
		a.detail, a.culprit, a.confident = fmt.Sprintf("pod %s: %s", a.causePod.Name, a.cause.Title), a.cause.Culprit, true
		return a
	}
	if a.exit = wlFailedExit(c, a.failed); a.exit != nil {
		e := a.exit
		code := kube.ExplainExit(e.term.ExitCode)
		a.evidence = append(a.evidence, c.Evidence(
			fmt.Sprintf("Pod %s container %s terminated with exit code %d (%s, reason %s) at %s", e.pod.Name, e.container, e.term.ExitCode, code.Meaning, kube.OrDash(e.term.Reason), kube.Stamp(e.term.FinishedAt.Time)),
			fmt.Sprintf("%s .status.containerStatuses[%s].state.terminated", kube.PodRef(e.pod), e.container),
			kube.StatusCmd(e.pod, e.container, "state.terminated")))
		a.suffix = fmt.Sprintf("Exit%d", e.term.ExitCode)
		a.detail = fmt.Sprintf("container %s exits with code %d (%s)", e.container, e.term.ExitCode, code.Meaning)
		a.culprit = fmt.Sprintf("%s container %s (exit code %d)", kube.PodRef(e.pod), e.container, e.term.ExitCode)
		if e.term.Reason == "OOMKilled" {
			a.suffix, a.detail = "OOMKilled", fmt.Sprintf("container %s is OOMKilled", e.container)
		}
		if d := e.line; d != nil && d.Pattern.Priority > 10 {
			a.evidence = append(a.evidence, c.Evidence(fmt.Sprintf("Log line: %q", d.Line),
				fmt.Sprintf("logs of %s container %s", kube.PodRef(e.pod), e.container), fmt.Sprintf("kubectl logs %s %s -c %s --tail=50", e.pod.Name, kube.NsFlag(e.pod), e.container)))
			a.suffix = d.Pattern.Class
			detail := ""
			if subj := logs.SubjectOf(d.Pattern.Class, d.Line); subj != "" {
				detail = " (" + subj + ")"
			}
			a.detail += fmt.Sprintf(": %s%s", d.Pattern.Explains, detail)
			a.culprit = fmt.Sprintf("log line of %s container %s: %s", kube.PodRef(e.pod), e.container, d.Line)
		}
		a.confident = true
		return a
	}
	for _, p := range a.failed {
		if p.Status.Phase == corev1.PodFailed && p.Status.Reason != "" {
			state, ev := wlDescribePod(c, p)
			a.evidence = append(a.evidence, ev...)
			a.suffix = p.Status.Reason
			a.detail = fmt.Sprintf("pod %s %s", p.Name, state)
			a.culprit = fmt.Sprintf("%s (%s)", kube.PodRef(p), p.Status.Reason)
			a.confident = true
			return a
		}
	}
	return a
}

func wlBackoffLimit(j *batchv1.Job) int32 {
	if j.Spec.BackoffLimit != nil {
		return *j.Spec.BackoffLimit
	}
	return 6
}

func wlDeadlineText(j *batchv1.Job) string {
	if j.Spec.ActiveDeadlineSeconds != nil {
		return fmt.Sprintf(", activeDeadlineSeconds %d", *j.Spec.ActiveDeadlineSeconds)
	}
	return ""
}

// wlCheckJobFailed: a Job that gave up. The pods' own cause is the root when
// a pod rule explains it; otherwise this finding reads the pods' exit and
// logs, or, when the pods are gone, what the Job's status still says.
func wlCheckJobFailed(c *rule.Pass) []rule.Finding {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil || wlJobFailedCondition(j) == nil {
		return nil
	}
	return []rule.Finding{wlJobFinding(c, j)}
}

func wlJobFinding(c *rule.Pass, j *batchv1.Job) rule.Finding {
	a := wlAnalyzeJob(c, j)
	w := kube.TopOwner(c, "Job", j)
	reason := a.cond.Reason
	if reason == "" {
		reason = "Failed"
	}
	f := rule.Finding{Category: rule.Job.Sub(reason), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: j.Name, Evidence: a.evidence}
	if a.suffix != "" && a.cause == nil {
		f.Category = f.Category.Sub(a.suffix)
	}
	why, mechanism := wlJobWhy(j, a.cond)
	f.Mechanism = mechanism
	f.Hypothesis = fmt.Sprintf("Job %s failed because %s", j.Name, why)
	switch {
	case a.cause != nil:
		// The pod's own finding is the root cause: this one gives the Job's
		// side of the story and ranks below it.
		f.Confidence = rule.Even
		f.Context = true
		f.Contributing = append(f.Contributing, fmt.Sprintf("Job %s failed (%s) because %s; a failed Job creates no more pods, so it must be run again once the cause is fixed.", j.Name, reason, why))
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, a.detail)
		f.Summary = fmt.Sprintf("Job %s failed because %s; %s.", j.Name, why, a.detail)
		f.Culprit = a.culprit
	case a.confident:
		f.Strength = rule.Explained
		f.Confidence = a.podConfidence()
		if reason == "DeadlineExceeded" {
			// A deadline is the Job's own limit: the pods' failure is
			// context, the deadline the direct cause.
			f.Strength = rule.Observed
		}
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, a.detail)
		f.Summary = fmt.Sprintf("Job %s failed because %s; %s.", j.Name, why, a.detail)
		f.Culprit = a.culprit
	default:
		f.Confidence = rule.Likely
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, why)
		f.Summary = fmt.Sprintf("Job %s failed because %s.", j.Name, why)
		f.Culprit = fmt.Sprintf("job/%s %s", j.Name, wlJobLimitField(reason))
		if len(a.pods) == 0 {
			f.Contributing = append(f.Contributing, "Its pods are gone (deleted by the controller or a TTL), so their exit codes and logs could not be read; the Job's status is all that remains.")
		} else if len(a.failed) > 0 {
			state, ev := wlDescribePod(c, a.failed[0])
			f.Evidence = append(f.Evidence, ev...)
			f.Contributing = append(f.Contributing, fmt.Sprintf("Pod %s is %s.", a.failed[0].Name, state))
		}
	}
	// With a pod cause, the root cause already names the pods it covers.
	if a.cause == nil && len(a.pods) > 0 && len(a.failed) > 1 {
		var names []string
		for _, p := range a.failed {
			names = append(names, p.Name)
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("Failed pods collected: %s.", strings.Join(names, ", ")))
	}
	rerun := fmt.Sprintf("kubectl get job %s -n %s -o yaml > %s.yaml   # remove status, metadata.uid/resourceVersion and the controller-uid labels, then: kubectl replace --force -f %s.yaml", j.Name, j.Namespace, j.Name, j.Name)
	if w.Kind == "cronjob" {
		rerun = kube.RunCronJobNow(w.Name, j.Namespace)
	}
	fix := report.Action{Kind: report.Immediate, Description: "Fix what makes the pods fail (see the exit code and log line), then run the Job again: a failed Job never retries.",
		Commands: []string{rerun}, Risk: "re-runs the Job's work; make sure it is safe to repeat"}
	if a.exit != nil {
		fix.Commands = append([]string{fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", a.exit.pod.Name, j.Namespace, a.exit.container)}, fix.Commands...)
	}
	if reason == "DeadlineExceeded" {
		fix.Description = "Find out what made the run slow (pods Pending, a stuck dependency, more data than usual), or raise activeDeadlineSeconds, then run the Job again."
	}
	f.Actions = []report.Action{fix,
		{Kind: report.Check, Description: "Read the Job's events and its pods' states.",
			Commands: []string{fmt.Sprintf("kubectl describe job %s -n %s", j.Name, j.Namespace), fmt.Sprintf("kubectl get pods -n %s -l batch.kubernetes.io/job-name=%s", j.Namespace, j.Name)}}}
	return f
}

// wlJobWhy says, from the Job's own status, why it failed and how the Job
// controller gets there.
func wlJobWhy(j *batchv1.Job, cond *batchv1.JobCondition) (why, mechanism string) {
	switch cond.Reason {
	case "BackoffLimitExceeded":
		return fmt.Sprintf("its pods failed %d time(s), more than its backoffLimit of %d", j.Status.Failed, wlBackoffLimit(j)),
			"A Job retries failed pods with exponential back-off (10s, 20s, 40s… capped at 6 minutes) and gives up once more pods failed than spec.backoffLimit allows; it is then Failed for good and creates no more pods."
	case "DeadlineExceeded":
		ran := "longer than"
		if j.Status.StartTime != nil {
			ran = fmt.Sprintf("from %s until %s, longer than", kube.Stamp(j.Status.StartTime.Time), kube.Stamp(cond.LastTransitionTime.Time))
		}
		why = fmt.Sprintf("it ran %s its activeDeadlineSeconds", ran)
		if j.Spec.ActiveDeadlineSeconds != nil {
			why += fmt.Sprintf(" (%ds)", *j.Spec.ActiveDeadlineSeconds)
		}
		why += fmt.Sprintf(" with %d of %d completions", j.Status.Succeeded, kube.ReplicasOf(j.Spec.Completions))
		return why, "spec.activeDeadlineSeconds bounds the Job's whole run, retries included; when it passes, the controller terminates the running pods and marks the Job Failed with reason DeadlineExceeded, whatever the backoffLimit."
	case "PodFailurePolicy":
		return "a pod failure matched a FailJob rule of its podFailurePolicy: " + cond.Message,
			"A podFailurePolicy rule with action FailJob ends the Job at the first matching pod failure, without retries."
	}
	return fmt.Sprintf("%s: %s", kube.ValueOr(cond.Reason, "Failed"), cond.Message), "The Job controller marked the Job Failed; it creates no more pods."
}

func wlJobLimitField(reason string) string {
	switch reason {
	case "BackoffLimitExceeded":
		return "spec.backoffLimit"
	case "DeadlineExceeded":
		return "spec.activeDeadlineSeconds"
	case "PodFailurePolicy":
		return "spec.podFailurePolicy"
	}
	return "status"
}

// ---------------------------------------------------------------------------
// CronJobs.

// cronEvents are the CronJob controller's warnings about its schedule.
var wlCronScheduleEvents = []string{"TooManyMissedTimes", "FailedNeedsStart", "MissSchedule", "UnparseableSchedule", "InvalidSchedule", "UnknownTimeZone"}

func wlCheckCronJob(c *rule.Pass) []rule.Finding {
	cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
	if cj == nil {
		return nil
	}
	var out []rule.Finding
	sched, schedErr := wlParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	evidence := []string{wlCronEvidence(c, cj)}
	if f, ok := wlCronFailingJobs(c, cj, evidence); ok {
		out = append(out, f)
	}
	if f, ok := wlCronSuspended(c, cj, sched, evidence); ok {
		out = append(out, f)
	}
	if f, ok := wlCronBlocked(c, cj, sched, evidence); ok {
		out = append(out, f)
	} else if f, ok := wlCronMissed(c, cj, sched, schedErr, evidence); ok {
		out = append(out, f)
	}
	return out
}

func wlTzText(tz *string) string {
	if tz == nil || *tz == "" {
		return ""
	}
	return " in " + *tz
}

func wlStampPtr(t *metav1.Time) string {
	if t == nil {
		return "never"
	}
	return kube.Stamp(t.Time)
}

func wlOrDefaultConcurrency(p batchv1.ConcurrencyPolicy) string {
	if p == "" {
		return string(batchv1.AllowConcurrent)
	}
	return string(p)
}

// wlJobsOf are the CronJob's Jobs in the bundle, newest first.
func wlJobsOf(c *rule.Pass, cj *batchv1.CronJob) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range c.B.Jobs {
		if kube.ControllerUID(j.OwnerReferences) == cj.UID {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return bundle.RunTime(out[i]).After(bundle.RunTime(out[k])) })
	return out
}

// wlCronFailingJobs: the CronJob's most recent finished runs failed.
func wlCronFailingJobs(c *rule.Pass, cj *batchv1.CronJob, evidence []string) (rule.Finding, bool) {
	var failed []*batchv1.Job
	var lastOK *batchv1.Job
	for _, j := range wlJobsOf(c, cj) {
		cond, done := wlJobFinished(j)
		if !done {
			continue
		}
		if cond.Type == batchv1.JobComplete {
			lastOK = j
			break
		}
		failed = append(failed, j)
	}
	if len(failed) == 0 {
		return rule.Finding{}, false
	}
	newest := failed[0]
	a := wlAnalyzeJob(c, newest)
	f := rule.Finding{Category: rule.CronJob.Sub("FailingJobs"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: cj.Name}
	f.Evidence = append(append([]string(nil), evidence...), a.evidence...)
	var names []string
	for _, j := range failed {
		cond := wlJobFailedCondition(j)
		names = append(names, fmt.Sprintf("%s (%s)", j.Name, cond.Reason))
	}
	runs := fmt.Sprintf("the last %d run(s) failed", len(failed))
	if lastOK == nil {
		runs += " and no successful run was collected"
	} else {
		runs += fmt.Sprintf(", the last success was %s", lastOK.Name)
	}
	if cj.Status.LastSuccessfulTime != nil {
		runs += fmt.Sprintf(" (last successful completion %s)", kube.Since(c, cj.Status.LastSuccessfulTime.Time))
	}
	reason := wlJobFailedCondition(newest).Reason
	detail := a.detail
	if detail == "" {
		why, _ := wlJobWhy(newest, a.cond)
		detail = why
		if len(a.pods) == 0 {
			detail += "; its pods are gone, so only the Job's status tells"
		}
	}
	f.Hypothesis = fmt.Sprintf("The Jobs of CronJob %s fail", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s: %s; newest run %s failed (%s): %s", cj.Name, runs, newest.Name, reason, detail)
	f.Summary = fmt.Sprintf("CronJob %s starts its Jobs on schedule, but %s: %s. Newest failure: %s.", cj.Name, runs, strings.Join(names, ", "), detail)
	f.Mechanism = "Each scheduled run is a Job; a Job fails when its pods keep failing (backoffLimit) or it runs past activeDeadlineSeconds. The CronJob keeps scheduling new runs, which fail the same way until the cause is fixed."
	switch {
	case a.cause != nil:
		f.Confidence = rule.Even
		f.Context = true
		f.Contributing = append(f.Contributing, fmt.Sprintf("CronJob %s: %s (%s).", cj.Name, runs, strings.Join(names, ", ")))
		f.Culprit = a.culprit
	case a.confident:
		f.Strength, f.Confidence = rule.Explained, rule.High
		if a.suffix != "" {
			f.Category = f.Category.Sub(a.suffix)
		}
		f.Culprit = a.culprit
	default:
		f.Confidence = rule.Probable
		f.Culprit = fmt.Sprintf("job/%s (%s)", newest.Name, reason)
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Fix what makes the runs fail, then start one run by hand to check it before the next schedule.",
			Commands: []string{fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", cj.Name, cj.Namespace, cj.Name)},
			Risk:     "runs the job's work once more, outside its schedule"},
		{Kind: report.Check, Description: "Read the failed Job and its pods.",
			Commands: []string{fmt.Sprintf("kubectl describe job %s -n %s", newest.Name, cj.Namespace), fmt.Sprintf("kubectl get pods -n %s -l batch.kubernetes.io/job-name=%s", cj.Namespace, newest.Name)}},
	}
	if a.exit != nil {
		f.Actions[1].Commands = append(f.Actions[1].Commands, fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", a.exit.pod.Name, cj.Namespace, a.exit.container))
	}
	return f, true
}

// wlLastRun is when the CronJob last started a Job (or was created).
func wlLastRun(cj *batchv1.CronJob) time.Time {
	if cj.Status.LastScheduleTime != nil {
		return cj.Status.LastScheduleTime.Time
	}
	return cj.CreationTimestamp.Time
}

// wlCronSuspended: spec.suspend is true and runs have been skipped for a while.
func wlCronSuspended(c *rule.Pass, cj *batchv1.CronJob, sched *wlCronSchedule, evidence []string) (rule.Finding, bool) {
	if cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		return rule.Finding{}, false
	}
	last := wlLastRun(cj)
	skipped, period := 0, time.Duration(0)
	if sched != nil {
		skipped = sched.count(last, c.Now, 1000)
		period = sched.period(c.Now)
	}
	// Recently paused (fewer than two runs skipped) is someone's deliberate
	// pause, not a fault.
	if sched != nil && skipped < 2 || sched == nil && c.Now.Sub(last) < 24*time.Hour {
		return rule.Finding{}, false
	}
	f := rule.Finding{Category: rule.CronJob.Sub("Suspended"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name, Confidence: rule.Strong, Evidence: evidence}
	count := ""
	if sched != nil {
		count = fmt.Sprintf(", %s%d scheduled run(s) skipped", wlAtLeast(skipped, 1000), skipped)
	}
	last0 := "it has never run"
	if cj.Status.LastScheduleTime != nil {
		last0 = "its last run was scheduled " + kube.Since(c, cj.Status.LastScheduleTime.Time)
	}
	f.Hypothesis = fmt.Sprintf("CronJob %s is suspended", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s is suspended (spec.suspend=true): %s%s", cj.Name, last0, count)
	f.Summary = fmt.Sprintf("CronJob %s does not start Jobs because spec.suspend is true; %s%s.", cj.Name, last0, count)
	if period > 0 {
		f.Summary += fmt.Sprintf(" Its schedule %q would run about every %s.", cj.Spec.Schedule, kube.HumanDuration(period))
	}
	f.Mechanism = "While spec.suspend is true the CronJob controller starts no Job; the schedules that pass are not made up when it is resumed, except the most recent one if it is still within startingDeadlineSeconds."
	f.Culprit = fmt.Sprintf("cronjob/%s spec.suspend: true", cj.Name)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Resume the CronJob if the pause was not meant to last (check with whoever suspended it first).",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"suspend":false}}'`, cj.Name, cj.Namespace)},
			Risk:     "the next run starts at the next schedule, possibly immediately if startingDeadlineSeconds allows the missed one"},
		{Kind: report.Check, Description: "Find who suspended it and when.",
			Commands: []string{fmt.Sprintf("kubectl get cronjob %s -n %s --show-managed-fields -o yaml", cj.Name, cj.Namespace)}},
	}
	return f, true
}

func wlAtLeast(n, limit int) string {
	if n >= limit {
		return "at least "
	}
	return ""
}

// wlCronBlocked: concurrencyPolicy Forbid and a run that does not finish, so
// every later schedule is skipped.
func wlCronBlocked(c *rule.Pass, cj *batchv1.CronJob, sched *wlCronSchedule, evidence []string) (rule.Finding, bool) {
	if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || len(cj.Status.Active) == 0 {
		return rule.Finding{}, false
	}
	ref := cj.Status.Active[0]
	var job *batchv1.Job
	for _, j := range c.B.Jobs {
		if j.Name == ref.Name {
			job = j
		}
	}
	started := wlLastRun(cj)
	if job != nil {
		started = job.CreationTimestamp.Time
		if job.Status.StartTime != nil {
			started = job.Status.StartTime.Time
		}
	}
	skipped := 0
	if sched != nil {
		skipped = sched.count(started, c.Now, 1000)
	}
	events := kube.EventsWith(c, cj.UID, "JobAlreadyActive")
	if skipped < 1 && len(events) == 0 {
		return rule.Finding{}, false
	}
	f := rule.Finding{Category: rule.CronJob.Sub("ConcurrencyBlocked"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name, Confidence: rule.High}
	f.Evidence = append([]string(nil), evidence...)
	for _, e := range events {
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, e))
	}
	why := "it has not finished"
	if job != nil {
		pods := kube.PodsOf(c, job.UID)
		causes := kube.PodCauses(c, pods)
		if p, cause := kube.FirstCause(causes, pods); cause != nil {
			why = fmt.Sprintf("pod %s: %s", p.Name, cause.Title)
			f.Strength, f.Confidence, f.Context = rule.Observed, rule.Even, true
		} else if len(pods) > 0 {
			p := pods[0]
			state, ev := wlDescribePod(c, p)
			f.Evidence = append(f.Evidence, ev...)
			verb := "is"
			if p.Status.Phase == corev1.PodRunning && p.Status.StartTime != nil {
				verb, state = "has been", fmt.Sprintf("running since %s", kube.Since(c, p.Status.StartTime.Time))
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s of job %s has been running since %s", p.Name, job.Name, kube.Stamp(p.Status.StartTime.Time)),
					kube.PodRef(p)+" .status.startTime", fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, kube.NsFlag(p))))
			}
			why = fmt.Sprintf("its pod %s %s %s and has not completed", p.Name, verb, state)
			for _, cs := range kube.AllStatuses(p) {
				if line := wlLastLogLine(c, p.Name, cs.Status.Name); line != "" && cs.Status.State.Running != nil {
					why += fmt.Sprintf(" (last log line of %s: %q)", cs.Status.Name, line)
					f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Last log line of %s container %s: %q", p.Name, cs.Status.Name, line),
						fmt.Sprintf("logs of %s container %s", kube.PodRef(p), cs.Status.Name), kube.LogsCmd(p, cs.Status.Name, false)))
					break
				}
			}
		}
		if job.Spec.ActiveDeadlineSeconds == nil {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Job %s has no activeDeadlineSeconds, so nothing stops a run that hangs.", job.Name))
		}
	}
	f.Hypothesis = fmt.Sprintf("A running Job of CronJob %s blocks every new run (concurrencyPolicy Forbid)", cj.Name)
	if f.Context {
		f.Contributing = append([]string{fmt.Sprintf("CronJob %s skips its runs: job %s has been active since %s and concurrencyPolicy Forbid starts no other (%d schedule(s) skipped).", cj.Name, ref.Name, kube.Since(c, started), skipped)}, f.Contributing...)
	}
	f.Title = fmt.Sprintf("cronjob %s skips its runs: job %s has been running since %s and concurrencyPolicy Forbid starts no other (%d schedule(s) skipped); %s", cj.Name, ref.Name, kube.Since(c, started), skipped, why)
	f.Summary = fmt.Sprintf("Job %s of CronJob %s started %s and is still active; with concurrencyPolicy Forbid the controller skips every schedule while it runs (%d so far). Why it does not finish: %s.", ref.Name, cj.Name, kube.Since(c, started), skipped, why)
	f.Mechanism = "With concurrencyPolicy: Forbid the CronJob controller starts no new Job while one is active; a run that hangs therefore silently stops the schedule."
	f.Culprit = fmt.Sprintf("job/%s (active since %s) with cronjob/%s concurrencyPolicy: Forbid", ref.Name, kube.Stamp(started), cj.Name)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: fmt.Sprintf("Find out why job %s hangs, then delete it so the next schedule can start.", ref.Name),
			Commands: []string{fmt.Sprintf("kubectl logs -n %s job/%s --tail=50", cj.Namespace, ref.Name), fmt.Sprintf("kubectl delete job %s -n %s", ref.Name, cj.Namespace)},
			Risk:     "deleting the Job kills its pods and their unfinished work"},
		{Kind: report.LongTerm, Description: "Bound each run with activeDeadlineSeconds shorter than the schedule's interval.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"jobTemplate":{"spec":{"activeDeadlineSeconds":<seconds>}}}}'`, cj.Name, cj.Namespace)}},
	}
	return f, true
}

// wlCronMissed: the controller did not start runs it should have, per its
// own events or per how far lastScheduleTime lags behind the schedule.
func wlCronMissed(c *rule.Pass, cj *batchv1.CronJob, sched *wlCronSchedule, schedErr error, evidence []string) (rule.Finding, bool) {
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return rule.Finding{}, false
	}
	events := kube.EventsWith(c, cj.UID, wlCronScheduleEvents...)
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name}
	f.Evidence = append([]string(nil), evidence...)
	reasons := map[string]bool{}
	for _, e := range events {
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, e))
		reasons[e.Reason] = true
	}
	if reasons["UnparseableSchedule"] || reasons["InvalidSchedule"] || reasons["UnknownTimeZone"] || (schedErr != nil && len(events) > 0) {
		f.Category = rule.CronJob.Sub("InvalidSchedule")
		f.Confidence = rule.Strong
		f.Hypothesis = fmt.Sprintf("The CronJob controller cannot interpret the schedule of %s", cj.Name)
		f.Title = fmt.Sprintf("cronjob %s never runs: the controller rejects its schedule %q%s", cj.Name, cj.Spec.Schedule, wlTzText(cj.Spec.TimeZone))
		f.Summary = fmt.Sprintf("The CronJob controller cannot compute the next run of %s from schedule %q%s, so it starts no Job.", cj.Name, cj.Spec.Schedule, wlTzText(cj.Spec.TimeZone))
		f.Mechanism = "The controller parses spec.schedule (and spec.timeZone) on every sync; when that fails it records a warning and skips the CronJob until the spec changes."
		f.Culprit = fmt.Sprintf("cronjob/%s spec.schedule %q%s", cj.Name, cj.Spec.Schedule, wlTzText(cj.Spec.TimeZone))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Write the schedule in standard cron syntax (minute hour day-of-month month day-of-week) and use an IANA time zone name.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"schedule":"<m h dom mon dow>"}}'`, cj.Name, cj.Namespace)}}}
		return f, true
	}
	last := wlLastRun(cj)
	missed := 0
	var period time.Duration
	if sched != nil {
		missed = sched.missed(last, c.Now)
		period = sched.period(c.Now)
	}
	tooMany := reasons["TooManyMissedTimes"] || reasons["FailedNeedsStart"]
	if !tooMany && !reasons["MissSchedule"] && missed < 2 {
		return rule.Finding{}, false
	}
	f.Category = rule.CronJob.Sub("MissedSchedules")
	deadline := "no startingDeadlineSeconds"
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		deadline = fmt.Sprintf("startingDeadlineSeconds %d", *d)
	}
	lastText := "it has never run"
	if cj.Status.LastScheduleTime != nil {
		lastText = "its last run was scheduled " + kube.Since(c, cj.Status.LastScheduleTime.Time)
	}
	count := ""
	if sched != nil {
		count = fmt.Sprintf("; %s%d run(s) of schedule %q were missed since then", wlAtLeast(missed, 1000), missed, cj.Spec.Schedule)
	}
	f.Hypothesis = fmt.Sprintf("The CronJob controller missed the start times of %s", cj.Name)
	f.Culprit = fmt.Sprintf("cronjob/%s spec.startingDeadlineSeconds (%s)", cj.Name, deadline)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Start the missed run by hand if it is still needed.",
			Commands: []string{fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", cj.Name, cj.Namespace, cj.Name)},
			Risk:     "runs the job's work outside its schedule"},
	}
	switch {
	case tooMany:
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("cronjob %s stopped starting runs: more than 100 start times were missed and it has %s (%s%s)", cj.Name, deadline, lastText, count)
		f.Summary = fmt.Sprintf("The CronJob controller found more than 100 unmet start times for %s since its last run and, with %s, refuses to guess which to start; %s.", cj.Name, deadline, lastText)
		f.Mechanism = "On every sync the controller counts the schedule times since the last run (or, with startingDeadlineSeconds, only those within the deadline). Past 100 it records TooManyMissedTimes and starts nothing: a controller that was down, a clock skew, or a schedule that fires every minute without startingDeadlineSeconds."
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Set startingDeadlineSeconds so the controller only looks back a bounded window and resumes the schedule.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"startingDeadlineSeconds":%d}}'`, cj.Name, cj.Namespace, wlSuggestedDeadline(period))},
			Risk:     "runs missed longer ago than the deadline are skipped for good"}}, f.Actions...)
	case reasons["MissSchedule"]:
		f.Confidence = rule.High
		f.Title = fmt.Sprintf("cronjob %s misses its runs: each start came later than its %s (%s%s)", cj.Name, deadline, lastText, count)
		f.Summary = fmt.Sprintf("The CronJob controller reached the scheduled times of %s only after %s had passed, so it skipped them; %s.", cj.Name, deadline, lastText)
		f.Mechanism = "A run whose scheduled time is older than startingDeadlineSeconds when the controller looks at it is skipped (MissSchedule). A deadline of a few seconds is shorter than the controller's normal latency under load."
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Raise startingDeadlineSeconds well above the controller's latency (minutes, not seconds).",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"startingDeadlineSeconds":%d}}'`, cj.Name, cj.Namespace, wlSuggestedDeadline(period))}}}, f.Actions...)
	default:
		f.Confidence = rule.Moderate
		f.Strength = rule.Observed
		f.Title = fmt.Sprintf("cronjob %s is not running on schedule: %s%s, and no event says why", cj.Name, lastText, count)
		f.Summary = fmt.Sprintf("CronJob %s should have started %d run(s) since %s but started none, and the controller recorded no reason: the CronJob controller (kube-controller-manager) may be down or lagging.", cj.Name, missed, kube.Stamp(last))
		f.Mechanism = "The CronJob controller in kube-controller-manager starts each run; when it is not running (or far behind), runs are not started and no event is recorded. With startingDeadlineSeconds unset, more than 100 missed runs also stop the CronJob for good."
		f.Culprit = fmt.Sprintf("cronjob/%s status.lastScheduleTime (%s)", cj.Name, kube.Stamp(last))
		f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Check that kube-controller-manager runs and is not reporting errors for CronJobs.",
			Commands: []string{"kubectl get pods -n kube-system -l component=kube-controller-manager", fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.kind=CronJob", cj.Namespace)}})
	}
	return f, true
}

func wlSuggestedDeadline(period time.Duration) int {
	if period <= 0 {
		return 300
	}
	s := int(period.Seconds() / 2)
	return min(max(s, 60), 3600)
}

// wlCronSchedule is a parsed five-field cron expression, the dialect the
// CronJob controller accepts (robfig/cron's standard parser).
type wlCronSchedule struct {
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
	loc                           *time.Location
}

var wlCronMacros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

var wlCronNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
}

func wlParseCron(expr string, tz *string) (*wlCronSchedule, error) {
	loc := time.UTC
	if tz != nil && *tz != "" {
		l, err := time.LoadLocation(*tz)
		if err != nil {
			return nil, fmt.Errorf("time zone %q: %w", *tz, err)
		}
		loc = l
	}
	expr = strings.TrimSpace(expr)
	for _, prefix := range []string{"CRON_TZ=", "TZ="} {
		if rest, ok := strings.CutPrefix(expr, prefix); ok {
			name, spec, _ := strings.Cut(rest, " ")
			l, err := time.LoadLocation(name)
			if err != nil {
				return nil, fmt.Errorf("time zone %q: %w", name, err)
			}
			loc, expr = l, strings.TrimSpace(spec)
		}
	}
	if m, ok := wlCronMacros[expr]; ok {
		expr = m
	}
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return nil, fmt.Errorf("schedule %q: want 5 fields, got %d", expr, len(fields))
	}
	s := &wlCronSchedule{loc: loc}
	var err error
	if s.minute, _, err = wlCronField(fields[0], 0, 59); err != nil {
		return nil, err
	}
	if s.hour, _, err = wlCronField(fields[1], 0, 23); err != nil {
		return nil, err
	}
	if s.dom, s.domStar, err = wlCronField(fields[2], 1, 31); err != nil {
		return nil, err
	}
	if s.month, _, err = wlCronField(fields[3], 1, 12); err != nil {
		return nil, err
	}
	if s.dow, s.dowStar, err = wlCronField(fields[4], 0, 7); err != nil {
		return nil, err
	}
	if s.dow&(1<<7) != 0 { // 7 is Sunday too
		s.dow |= 1
	}
	return s, nil
}

// wlCronField parses one field into a bitset; star reports an unrestricted
// field ("*" or "?"), which changes how day-of-month and day-of-week combine.
func wlCronField(field string, lo, hi int) (bits uint64, star bool, err error) {
	for _, part := range strings.Split(field, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			if step, err = strconv.Atoi(stepText); err != nil || step <= 0 {
				return 0, false, fmt.Errorf("cron field %q: bad step", field)
			}
		}
		start, end := lo, hi
		switch {
		case rng == "*" || rng == "?":
			if step == 1 {
				star = true
			}
		default:
			a, b, isRange := strings.Cut(rng, "-")
			if start, err = wlCronValue(a, lo, hi); err != nil {
				return 0, false, err
			}
			end = start
			if isRange {
				if end, err = wlCronValue(b, lo, hi); err != nil {
					return 0, false, err
				}
			} else if hasStep {
				end = hi
			}
		}
		if start > end {
			return 0, false, fmt.Errorf("cron field %q: empty range", field)
		}
		for v := start; v <= end; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, star, nil
}

func wlCronValue(s string, lo, hi int) (int, error) {
	if v, ok := wlCronNames[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("cron value %q out of range %d-%d", s, lo, hi)
	}
	return v, nil
}

func (s *wlCronSchedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// next returns the first scheduled time after t (zero if none within five
// years, e.g. February 30th).
func (s *wlCronSchedule) next(t time.Time) time.Time {
	t = t.In(s.loc)
	t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, s.loc).Add(time.Minute)
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, s.loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, s.loc)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, s.loc)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// count returns how many scheduled times fall in (from, to], up to limit.
func (s *wlCronSchedule) count(from, to time.Time, limit int) int {
	n := 0
	for t := s.next(from); !t.IsZero() && !t.After(to) && n < limit; t = s.next(t) {
		n++
	}
	return n
}

// period is the interval between the next two scheduled times after t.
// missed counts the start times after last that are due by now (at most
// 1000), with two minutes of grace: the controller starts a run shortly
// after its time, not on the second.
func (s *wlCronSchedule) missed(last, now time.Time) int {
	return s.count(last, now.Add(-2*time.Minute), 1000)
}

func (s *wlCronSchedule) period(t time.Time) time.Duration {
	a := s.next(t)
	if a.IsZero() {
		return 0
	}
	b := s.next(a)
	if b.IsZero() {
		return 0
	}
	return b.Sub(a)
}
