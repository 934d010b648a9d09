package workload

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// FailedCreate is the rule workload/failed-create.
var FailedCreate = &rule.Rule{
	Meta: rule.Meta{
		ID:    "workload/failed-create",
		Layer: rule.WorkloadLayer,
		Needs: append([]rule.Need{rule.Quotas, rule.ServiceAccounts}, Needs...),
		Doc:   "A controller that cannot create its pods (FailedCreate): quota, LimitRange, admission, service account.",
	},
	Check: checkFailedCreate,
}

// denialClass is why the API server refuses a workload's pods: the
// category suffix ("FailedCreate/Quota").
type denialClass string

const (
	denialQuota                denialClass = "Quota"
	denialQuotaMissingLimits   denialClass = "QuotaMissingLimits"
	denialPodSecurity          denialClass = "PodSecurity"
	denialWebhook              denialClass = "Webhook"
	denialWebhookUnavailable   denialClass = "WebhookUnavailable"
	denialServiceAccount       denialClass = "ServiceAccount"
	denialLimitRange           denialClass = "LimitRange"
	denialNamespaceTerminating denialClass = "NamespaceTerminating"
	denialPriorityClass        denialClass = "PriorityClass"
	denialRuntimeClass         denialClass = "RuntimeClass"
	denialInvalid              denialClass = "Invalid"
	denialForbidden            denialClass = "Forbidden"
	// denialOther: a refusal no row recognises.
	denialOther denialClass = "Other"
)

// createDenial is one row of the table of reasons the API server refuses a
// pod; re runs on the error the controller reports, and its named groups
// are what createFinding reads.
type createDenial struct {
	Class denialClass
	re    *regexp.Regexp
	Conf  rule.Confidence
}

var createDenials = []createDenial{
	{denialQuota, regexp.MustCompile(`exceeded quota: (?P<quota>[^,\s]+), requested: (?P<requested>\S+), used: (?P<used>\S+), limited: (?P<limited>\S+)`), rule.Definitive},
	{denialQuotaMissingLimits, regexp.MustCompile(`failed quota: (?P<quota>[^:\s]+): must specify (?P<missing>.+)`), rule.Definitive},
	{denialPodSecurity, regexp.MustCompile(`violates PodSecurity "(?P<level>[^"]+)": (?P<details>.+)`), rule.Definitive},
	{denialWebhook, regexp.MustCompile(`admission webhook "(?P<hook>[^"]+)" denied the request(?:: (?P<msg>[\s\S]*)| without explanation)`), rule.Strong},
	{denialWebhookUnavailable, regexp.MustCompile(`failed calling (?:admission )?webhook "(?P<hook>[^"]+)"[:;] ?(?P<why>.*)`), rule.Strong},
	{denialServiceAccount, regexp.MustCompile(`error looking up service account (?P<ns>[^/\s]+)/(?P<sa>[^:\s]+): (?P<err>.*)`), rule.Definitive},
	{denialLimitRange, regexp.MustCompile(`(?P<bound>maximum|minimum) (?P<res>\S+) usage per (?P<scope>Container|Pod|PersistentVolumeClaim) is (?P<enforced>\S+?)(?:, but (?P<which>limit|request) is (?P<actual>\S+)|\.  No (?P<unset>limit|request) is specified)`), rule.Definitive},
	{denialNamespaceTerminating, regexp.MustCompile(`unable to create new content in namespace (?P<ns>\S+) because it is being terminated`), rule.Definitive},
	{denialPriorityClass, regexp.MustCompile(`no PriorityClass with name (?P<class>\S+) was found`), rule.Definitive},
	{denialRuntimeClass, regexp.MustCompile(`pod rejected: RuntimeClass "(?P<class>[^"]+)" not found`), rule.Definitive},
	{denialInvalid, regexp.MustCompile(`is invalid: (?P<detail>.+)`), rule.High},
	{denialForbidden, regexp.MustCompile(`is forbidden: (?P<detail>.+)`), rule.Likely},
}

// webhookTimedOut is a webhook call that got no answer in time: Go's
// context and client timeouts as the API server reports them.
var webhookTimedOut = regexp.MustCompile(`context deadline exceeded|i/o timeout|Client\.Timeout exceeded|net/http: request canceled|timed out`)

// createPrefixes are what the controllers put before the API error.
var createPrefix = regexp.MustCompile(`^(?:Error creating(?: job)?: |(?i:create) (?:Pod|Claim) \S+ (?:for Pod \S+ )?in StatefulSet \S+ failed error: )`)

// createFailure is one refusal reported about a workload.
type createFailure struct {
	reporter string // "replicaset/web-5d8f9c7b4"
	owner    kube.Workload
	message  string // the API error, without the controller's prefix
	last     time.Time
	count    int32
	evidence []string
	template *corev1.PodTemplateSpec
	want     string // "0 of 3 pods exist"
	deploy   *appsv1.Deployment
	// object is what the controller failed to create, when not its pods
	// (a StatefulSet's claim: "create Claim data-web-2 for Pod web-2 ...").
	object string
}

// claimCreate is the StatefulSet controller's prefix for a claim it could
// not create.
var claimCreate = regexp.MustCompile(`^(?i:create) Claim \S+ for Pod \S+ in StatefulSet \S+ failed error: `)

func checkFailedCreate(c *rule.Pass) []rule.Finding {
	var all []createFailure
	b := c.B
	add := func(kind string, meta metav1.Object, tmpl *corev1.PodTemplateSpec, want string, msg string, at time.Time, count int32, ev string) {
		owner := kube.TopOwner(c, kind, meta)
		object := ""
		if claimCreate.MatchString(strings.TrimSpace(msg)) {
			object = "PersistentVolumeClaims"
		}
		all = append(all, createFailure{object: object,
			reporter: strings.ToLower(kind) + "/" + meta.GetName(), owner: owner,
			message: createPrefix.ReplaceAllString(strings.TrimSpace(msg), ""), last: at, count: count,
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
		if _, finished := kube.JobFinished(j); finished || j.Spec.Suspend != nil && *j.Spec.Suspend {
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
		denial *createDenial
		match  submatch.Match
		fails  []createFailure
	}
	var order []string
	groups := map[string]*group{}
	for _, f := range all {
		d, m := classifyDenial(f.message)
		class := denialOther
		if d != nil {
			class = d.Class
		}
		key := f.owner.Ref() + "\x00" + string(class) + "\x00" + f.object
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
		out = append(out, createFinding(c, g.denial, g.match, g.fails))
	}
	return out
}

func classifyDenial(msg string) (*createDenial, submatch.Match) {
	for i := range createDenials {
		if m, ok := submatch.Find(createDenials[i].re, msg); ok {
			return &createDenials[i], m
		}
	}
	return nil, submatch.Match{}
}

// parseResourceList reads the quota admission's "limits.cpu=2,limits.memory=2Gi".
func parseResourceList(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			out[k] = v
		}
	}
	return out
}

func createFinding(c *rule.Pass, d *createDenial, m submatch.Match, fails []createFailure) rule.Finding {
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
	switch {
	case f0.object != "":
		what = f0.object
	case w.Kind == "cronjob" && strings.HasPrefix(f0.reporter, "cronjob/"):
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
	class := denialOther
	if d != nil {
		class = d.Class
		f.Confidence = d.Conf
	}
	f.Category = f.Category.Sub(string(class))
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
	case denialQuota:
		quota, requested, used, limited := m.Get("quota"), parseResourceList(m.Get("requested")), parseResourceList(m.Get("used")), parseResourceList(m.Get("limited"))
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
			if per := templateAmounts(f0.template, names); per != "" {
				f.Contributing = append(f.Contributing, fmt.Sprintf("Each pod of %s asks for %s.", w.Ref(), per))
			}
		}
		if dep := deploymentOf(c, w); dep != nil && rolloutInProgress(c, dep) {
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
					fit("lower the "+strings.Join(names, ", ")+" of the containers", setResourcesCmd(w, f0.template, names))...),
				Risk: "limits below the workload's real needs cause throttling or OOM kills; " + risk("the change starts a rollout")},
		}
		if raise != "" {
			f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: fmt.Sprintf("If the namespace legitimately needs more, raise the quota's hard limit (at least used + requested)."),
				Commands: []string{fmt.Sprintf(`kubectl patch resourcequota %s %s --type=merge -p '{"spec":{"hard":{%s}}}'`, quota, w.NS(), strings.TrimSuffix(raise, ","))},
				Risk:     "lets the namespace take more of the cluster's capacity; quotas are often owned by a platform team"})
		}
	case denialQuotaMissingLimits:
		quota, missing := m.Get("quota"), m.Get("missing")
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
	case denialPodSecurity:
		level, details := m.Get("level"), splitTopLevel(m.Get("details"))
		var reasons []string
		var containers []string
		for _, v := range details {
			reason, _, _ := strings.Cut(v, " (")
			reasons = append(reasons, reason)
			for _, q := range submatch.FindAll(quotedNames, v, -1) {
				containers = kube.AppendUnique(containers, q.Get("name"))
			}
		}
		f.Title = fmt.Sprintf("%s cannot be created: namespace %s enforces PodSecurity %q and the pod template violates it (%s)", what, w.Namespace, level, strings.Join(reasons, ", "))
		f.Hypothesis = fmt.Sprintf("Pod Security admission (%s) refuses the pod template of %s", level, w.Ref())
		f.Summary = fmt.Sprintf("Namespace %s enforces the Pod Security Standard %q and the pod template of %s violates it: %s.", w.Namespace, level, w.Ref(), m.Get("details"))
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
		patch := podSecurityPatch(reasons, containers)
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
	case denialWebhook:
		hook, msg := m.Get("hook"), strings.TrimSpace(m.Get("msg"))
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
	case denialWebhookUnavailable:
		hook, why := m.Get("hook"), m.Get("why")
		svc, svcFound := submatch.Find(webhookHost, why)
		f.Title = fmt.Sprintf("%s cannot be created: admission webhook %q is unreachable and fails closed", what, hook)
		if webhookTimedOut.MatchString(why) {
			// The backend accepted the call (or the network dropped it) but
			// never answered: a slow or overloaded webhook, not a missing one.
			f.Title = fmt.Sprintf("%s cannot be created: admission webhook %q does not answer within its timeout and fails closed", what, hook)
			f.Contributing = append(f.Contributing, fmt.Sprintf("The call timed out (%s): the webhook's pods may be overloaded or its port blocked between the API server and them; its timeoutSeconds bounds the wait.", webhookTimedOut.FindString(why)))
		}
		f.Hypothesis = fmt.Sprintf("Admission webhook %s cannot be called, and its failurePolicy rejects the %s", hook, what)
		f.Summary = fmt.Sprintf("The API server cannot call admission webhook %q (%s); its failurePolicy is Fail, so every %s of %s is rejected.", hook, kube.FirstLine(why), strings.TrimSuffix(what, "s"), w.Ref())
		f.Culprit = fmt.Sprintf("admission webhook %s backend", hook)
		f.Mechanism = "A webhook with failurePolicy: Fail turns its own outage into a refusal of every object it intercepts. " + f.Mechanism
		checkCmds := []string{"kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name,POLICY:.webhooks[*].failurePolicy"}
		if svcFound {
			name, ns, _ := strings.Cut(svc.Get("host"), ".")
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
		webhookCertificate(&f, what, hook, why, strings.TrimPrefix(f.Culprit, "admission webhook "+hook+" "))
	case denialServiceAccount:
		ns, sa := m.Get("ns"), m.Get("sa")
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
	case denialLimitRange:
		bound, res, scope, enforced, which, actual := m.Get("bound"), m.Get("res"), m.Get("scope"), m.Get("enforced"), m.Get("which"), m.Get("actual")
		if which == "" {
			which, actual = m.Get("unset"), "not set"
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
	case denialNamespaceTerminating:
		ns := m.Get("ns")
		f.Title = fmt.Sprintf("%s cannot be created: namespace %s is being deleted", what, ns)
		f.Hypothesis = fmt.Sprintf("Namespace %s is terminating", ns)
		f.Summary = fmt.Sprintf("Namespace %s is being deleted; the API server refuses new objects in it, so %s cannot create %s.", ns, w.Ref(), what)
		f.Culprit = fmt.Sprintf("namespace/%s (Terminating)", ns)
		// The namespace lifecycle admission's own words are what a reader
		// searches for.
		f.Contributing = append(f.Contributing, "The API server says: "+shortMsg)
		f.Actions = []report.Action{{Kind: report.Check, Description: "Find out why the namespace is being deleted and what holds its finalizers.",
			Commands: []string{fmt.Sprintf("kubectl get namespace %s -o jsonpath='{.status}'", ns)}}}
	case denialPriorityClass:
		// PriorityClasses are cluster-scoped: a chart written for one
		// cluster (or distribution) often names a class another lacks.
		class := m.Get("class")
		f.Title = fmt.Sprintf("%s cannot be created: PriorityClass %q does not exist", what, class)
		f.Hypothesis = fmt.Sprintf("The pod template of %s names PriorityClass %s, which the cluster does not have", w.Ref(), class)
		f.Summary = fmt.Sprintf("The pod template of %s sets priorityClassName %q, but no PriorityClass has that name, so admission refuses every pod.", w.Ref(), class)
		f.Culprit = fmt.Sprintf("pod template of %s priorityClassName: %s (no such PriorityClass)", w.Ref(), class)
		f.Mechanism = "The Priority admission plugin resolves each new pod's priorityClassName to a cluster-scoped PriorityClass and refuses the pod when none has that name. " + f.Mechanism
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Create PriorityClass %s, or point the pod template at one the cluster has.", class),
				Commands: []string{"kubectl get priorityclasses", fmt.Sprintf("kubectl create priorityclass %s --value=<priority> --description=<why>", class)},
				Risk:     "a new class's value decides which pods it may preempt"},
		}
		if w.Kind != "pod" {
			f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Or use an existing PriorityClass in the pod template.",
				Commands: fit("set spec.template.spec.priorityClassName: <existing>", fmt.Sprintf(`kubectl patch %s %s --type=merge -p '%s'`, w.Ref(), w.NS(), w.PatchTemplate(`{"priorityClassName":"<existing>"}`))),
				Risk:     risk("starts a rollout")})
		}
	case denialRuntimeClass:
		// A RuntimeClass names a handler the nodes' runtime must have (the
		// NVIDIA container runtime, gVisor, Kata): it exists once that
		// runtime is installed, usually by its operator.
		class := m.Get("class")
		f.Title = fmt.Sprintf("%s cannot be created: RuntimeClass %q does not exist (runtimeClassName of the pod template)", what, class)
		f.Hypothesis = fmt.Sprintf("The pod template of %s sets runtimeClassName %s, and the cluster has no RuntimeClass of that name", w.Ref(), class)
		f.Summary = fmt.Sprintf("The pod template of %s sets runtimeClassName %q, but no RuntimeClass has that name, so the RuntimeClass admission plugin refuses every pod.", w.Ref(), class)
		f.Culprit = fmt.Sprintf("pod template of %s runtimeClassName: %s (no such RuntimeClass)", w.Ref(), class)
		f.Mechanism = "The RuntimeClass admission plugin resolves each new pod's runtimeClassName to a cluster-scoped RuntimeClass (its handler, overhead and scheduling) and refuses the pod when none has that name. " + f.Mechanism
		f.Actions = []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Install the runtime that RuntimeClass %s stands for on the nodes meant to run the pod (for nvidia: the NVIDIA container toolkit, or the GPU operator, which creates the RuntimeClass), or remove runtimeClassName from the pod template if the default runtime will do.", class),
			Commands:    []string{"kubectl get runtimeclasses", fmt.Sprintf(`kubectl get %s %s -o jsonpath='{.spec.template.spec.runtimeClassName}'`, w.Ref(), w.NS())}}}
	case denialInvalid:
		if d := limitRangeDefault(c, f0.template, m.Get("detail")); d != nil {
			f.Category = rule.FailedCreate.Sub(string(denialLimitRange), "DefaultLimit")
			f.Title = d.title(what)
			f.Hypothesis = fmt.Sprintf("LimitRange %s's default %s limit is below what %s requests", d.limitRange, d.resource, w.Ref())
			f.Summary = fmt.Sprintf("The pod template of %s sets a %s request of %s on container %s and no %s limit. Admission gives such a container the default limit of LimitRange %s, %s, and a request above its limit is invalid: %s.", w.Ref(), d.resource, d.request, d.container, d.resource, d.limitRange, d.limit, shortMsg)
			f.Culprit = fmt.Sprintf("limitrange/%s default %s limit %s vs container %s request %s", d.limitRange, d.resource, d.limit, d.container, d.request)
			evidence = append(evidence, c.Evidence(fmt.Sprintf("LimitRange %s: default %s limit %s for a container; container %s of the pod template requests %s and sets no %s limit", d.limitRange, d.resource, d.limit, d.container, d.request, d.resource),
				fmt.Sprintf("limitrange/%s .spec.limits[type=Container].default and the pod template's resources", d.limitRange), fmt.Sprintf("kubectl get limitrange %s %s -o yaml", d.limitRange, w.NS())))
			f.Mechanism = "The LimitRanger admission plugin fills in a container's missing limits with the LimitRange's default (not its max) before validation; validation then refuses a request above the limit. " + f.Mechanism
			f.Actions = []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Set a %s limit on container %s at or above its request %s (within the LimitRange's max).", d.resource, d.container, d.request),
					Commands: fit("set the container's limit", fmt.Sprintf("kubectl set resources %s %s -c %s --limits=%s=%s", w.Ref(), w.NS(), d.container, d.resource, d.request)), Risk: risk("starts a rollout")},
				{Kind: report.LongTerm, Description: fmt.Sprintf("Or raise LimitRange %s's default %s limit, which every container without a limit in the namespace gets.", d.limitRange, d.resource),
					Commands: []string{fmt.Sprintf("kubectl get limitrange %s %s -o yaml", d.limitRange, w.NS())}, Risk: "changes the limit of every new container in the namespace that sets none"},
			}
			break
		}
		f.Title = fmt.Sprintf("%s cannot be created: the API server rejects them as invalid: %s", what, kube.FirstLine(m.Get("detail")))
		f.Hypothesis = fmt.Sprintf("The pod template of %s is invalid", w.Ref())
		f.Summary = fmt.Sprintf("Every %s that %s creates fails validation: %s.", strings.TrimSuffix(what, "s"), w.Ref(), shortMsg)
		f.Culprit = fmt.Sprintf("pod template of %s: %s", w.Ref(), kube.FirstLine(m.Get("detail")))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Fix the field the validation error names in the pod template.",
			Commands: fit("fix the field the validation error names", fmt.Sprintf("kubectl edit %s %s", w.Ref(), w.NS())), Risk: risk("starts a rollout")}}
	case denialForbidden:
		f.Title = fmt.Sprintf("%s cannot be created: the API server forbids them: %s", what, kube.FirstLine(m.Get("detail")))
		f.Hypothesis = fmt.Sprintf("An admission policy forbids the %s of %s", what, w.Ref())
		f.Summary = fmt.Sprintf("Admission refuses every %s of %s: %s.", strings.TrimSuffix(what, "s"), w.Ref(), shortMsg)
		f.Culprit = fmt.Sprintf("admission refusal for %s: %s", w.Ref(), kube.FirstLine(m.Get("detail")))
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
