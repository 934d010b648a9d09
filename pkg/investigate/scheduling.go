package investigate

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/storage"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// schedReason is one part of a scheduler message: "2 Insufficient cpu".
type schedReason struct {
	Nodes int
	Text  string
}

var schedCountRe = regexp.MustCompile(`^(\d+)\s+(.+)$`)

// parseSchedulerMessage splits "0/3 nodes are available: 1 Insufficient cpu,
// 2 node(s) had untolerated taint {a: b}. preemption: …" into its parts. The
// reasons end at the first ". " outside braces: what follows is commentary of
// the post-filter plugins (preemption, "no new claims to deallocate").
func parseSchedulerMessage(msg string) (total int, parts []schedReason) {
	msg = strings.TrimSpace(msg)
	head, rest, ok := strings.Cut(msg, " nodes are available: ")
	if !ok {
		if msg != "" {
			return 0, []schedReason{{Text: strings.TrimSuffix(msg, ".")}}
		}
		return 0, nil
	}
	if _, after, ok := strings.Cut(head, "/"); ok {
		total, _ = strconv.Atoi(strings.TrimSpace(after))
	}
	add := func(s string) {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case strings.HasPrefix(s, "that the pod didn't tolerate") && len(parts) > 0:
			// Before 1.25: "had taint {k: v}, that the pod didn't tolerate".
			parts[len(parts)-1].Text += ", " + s
		default:
			parts = append(parts, schedPart(s))
		}
	}
	// Taints print as {key: value}: commas and dots inside braces are theirs.
	depth, start := 0, 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				add(rest[start:i])
				start = i + 1
			}
		case '.':
			if depth == 0 && (i+1 == len(rest) || rest[i+1] == ' ') {
				add(rest[start:i])
				return total, parts
			}
		}
	}
	add(rest[start:])
	return total, parts
}

func schedPart(s string) schedReason {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if m := schedCountRe.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return schedReason{Nodes: n, Text: m[2]}
	}
	return schedReason{Text: s}
}

// withCount is the part as the scheduler wrote it: "3 node(s) had …".
func withCount(part schedReason) string {
	if part.Nodes > 0 {
		return fmt.Sprintf("%d %s", part.Nodes, part.Text)
	}
	return part.Text
}

// podRequests sums what the scheduler reserves: containers and sidecars
// (restartable init containers) add up; ordinary init containers run one at a
// time, each next to the sidecars started before it, so their peak counts;
// the runtime class overhead comes on top.
func podRequests(p *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	add := func(dst, src corev1.ResourceList) {
		for name, q := range src {
			sum := dst[name]
			sum.Add(q)
			dst[name] = sum
		}
	}
	for _, c := range p.Spec.Containers {
		add(out, c.Resources.Requests)
	}
	sidecars, initPeak := corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(sidecars, c.Resources.Requests)
			continue
		}
		for name, q := range c.Resources.Requests {
			peak := q.DeepCopy()
			if s, ok := sidecars[name]; ok {
				peak.Add(s)
			}
			if cur, ok := initPeak[name]; !ok || peak.Cmp(cur) > 0 {
				initPeak[name] = peak
			}
		}
	}
	add(out, sidecars)
	for name, q := range initPeak {
		if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
			out[name] = q
		}
	}
	add(out, p.Spec.Overhead)
	return out
}

// checkUnschedulable: a pod the scheduler cannot place, split into the
// scheduler's reasons, each compared with the nodes, claims and pod spec it
// is about; a pod held by scheduling gates; a pod no scheduler looks at.
func checkUnschedulable(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		var cond *corev1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodScheduled {
				cond = &p.Status.Conditions[i]
			}
		}
		if cond != nil && cond.Status != corev1.ConditionFalse {
			continue
		}
		if len(p.Spec.SchedulingGates) > 0 {
			out = append(out, gatedFinding(c, p, cond))
			continue
		}
		var evidence []string
		msg := ""
		if cond != nil {
			msg = cond.Message
			evidence = append(evidence, c.Evidence(
				fmt.Sprintf("PodScheduled=False (%s): %s", cond.Reason, cond.Message),
				kube.PodRef(p)+" .status.conditions[PodScheduled]",
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")]}'`, p.Name, kube.NsFlag(p))))
		}
		for _, e := range c.B.EventsFor(string(p.UID)) {
			if e.Reason == "FailedScheduling" {
				evidence = append(evidence, c.Evidence(
					fmt.Sprintf("Event FailedScheduling ×%d: %s", max(e.Count, 1), e.Message),
					"event on "+kube.PodRef(p),
					fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=FailedScheduling", kube.NsFlag(p), p.Name)))
				if msg == "" || cond == nil {
					msg = e.Message // the newest event: events are sorted oldest first
				}
			}
		}
		switch {
		case len(evidence) > 0:
			out = append(out, schedulingFinding(c, p, msg, evidence)...)
		case p.Status.Phase == corev1.PodPending:
			if f, ok := noSchedulerFinding(c, p); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// schedClass is one row of the scheduler-reason table: what a reason means,
// how hard a constraint it is, and how to explain it from the bundle.
type schedClass struct {
	Class string
	re    *regexp.Regexp
	// Strength breaks ties between reasons that block as many nodes: a
	// deliberate constraint of the pod spec outranks a capacity shortage.
	Strength  int
	Mechanism string
	explain   func(e *schedContext, part schedReason, m []string) schedCause
	// Why and Fix serve the reasons explained by the table alone.
	Why, Fix string
}

// schedClasses are matched against each part of a scheduler message, in
// order. The wording is kube-scheduler's (plugins noderesources,
// tainttoleration, nodeaffinity, interpodaffinity, podtopologyspread,
// volumebinding, nodeunschedulable, nodeports), old wordings included.
var schedClasses = []schedClass{
	{Class: "MissingPVC", re: regexp.MustCompile(`persistentvolumeclaim "([^"]+)" not found`), Strength: 100,
		Mechanism: "The VolumeBinding plugin rejects the pod before looking at any node when a claim it mounts does not exist.",
		explain:   (*schedContext).missingPVC},
	{Class: "UnboundPVC", re: regexp.MustCompile(`unbound immediate PersistentVolumeClaims`), Strength: 95,
		Mechanism: "A claim with volumeBindingMode Immediate must be bound before the pod is scheduled; until the PV controller or the provisioner binds it, no node is considered.",
		explain:   (*schedContext).unboundPVC},
	{Class: "NodeSelector", re: regexp.MustCompile(`didn't match (Pod's node affinity|node selector)`), Strength: 90,
		Mechanism: "A pod runs only on nodes whose labels satisfy its nodeSelector and every requiredDuringScheduling node affinity term; no label change on the pod side is made automatically.",
		explain:   (*schedContext).nodeAffinity},
	{Class: "VolumeNodeAffinity", re: regexp.MustCompile(`volume node affinity conflict|didn't match PersistentVolume's node affinity`), Strength: 85,
		Mechanism: "A bound PersistentVolume can only be attached on nodes matching its nodeAffinity (its zone, or the node of a local volume); the pod follows its volume.",
		explain:   (*schedContext).volumeNodeAffinity},
	{Class: "Taint", re: regexp.MustCompile(`untolerated taint|had taints?\b`), Strength: 80,
		Mechanism: "A NoSchedule or NoExecute taint on a node repels every pod that has no matching toleration.",
		explain:   (*schedContext).taint},
	{Class: "PodAffinity", re: regexp.MustCompile(`didn't match pod affinity rules`), Strength: 75,
		Mechanism: "Required pod affinity only admits nodes whose topology domain already runs a pod matching the term's selector.",
		explain:   (*schedContext).podAffinity},
	{Class: "PodAntiAffinity", re: regexp.MustCompile(`didn't match pod anti-affinity rules`), Strength: 74,
		Mechanism: "Required pod anti-affinity excludes every node whose topology domain already runs a pod matching the term's selector.",
		explain:   (*schedContext).podAntiAffinity},
	{Class: "ExistingPodsAntiAffinity", re: regexp.MustCompile(`didn't satisfy existing pods anti-affinity rules`), Strength: 73,
		Mechanism: "Pods already running carry required anti-affinity terms that match this pod's labels: the scheduler keeps this pod out of their topology domains.",
		explain:   (*schedContext).existingAntiAffinity},
	{Class: "PodAffinity", re: regexp.MustCompile(`didn't match pod affinity/anti-affinity`), Strength: 72,
		Mechanism: "Required pod affinity or anti-affinity terms exclude these nodes.",
		explain:   (*schedContext).podAffinity},
	{Class: "TopologySpread", re: regexp.MustCompile(`didn't match pod topology spread constraints`), Strength: 70,
		Mechanism: "A topology spread constraint with whenUnsatisfiable DoNotSchedule admits only nodes where adding the pod keeps the difference between the most and least loaded domains within maxSkew.",
		explain:   (*schedContext).topologySpread},
	{Class: "HostPort", re: regexp.MustCompile(`didn't have free ports`), Strength: 65,
		Mechanism: "A hostPort can be bound by one pod per node: nodes where another pod already holds it are excluded.",
		explain:   (*schedContext).hostPort},
	{Class: "NoPersistentVolume", re: regexp.MustCompile(`didn't find available persistent volumes to bind`), Strength: 64,
		Mechanism: "With volumeBindingMode WaitForFirstConsumer and no provisioner, a claim binds to an existing PV reachable from the chosen node; there is none.",
		Why:       "no available PersistentVolume matches the claim's class, size and access modes on those nodes",
		Fix:       "Create a PersistentVolume that matches the claim (class, size, access modes, node affinity) or give the StorageClass a provisioner."},
	{Class: "StorageCapacity", re: regexp.MustCompile(`did not have enough free storage`), Strength: 63,
		Mechanism: "The CSI driver publishes storage capacity per topology segment; the scheduler skips nodes whose segment cannot hold the claim.",
		Why:       "the storage reachable from those nodes has less free capacity than the claim requests",
		Fix:       "Free or add capacity in the storage pool, or request a smaller volume."},
	{Class: "VolumeLimit", re: regexp.MustCompile(`max volume count`), Strength: 62,
		Mechanism: "Each node can attach a bounded number of volumes of a driver (CSINode allocatable count); full nodes are skipped.",
		Why:       "those nodes already have as many volumes attached as their driver allows",
		Fix:       "Spread the volumes over more nodes (more nodes, or node types that attach more volumes)."},
	{Class: "Insufficient", re: regexp.MustCompile(`^Insufficient (\S+)`), Strength: 60,
		Mechanism: "The scheduler places a pod only where its requests fit in the node's allocatable minus the requests of the pods already there (actual usage does not count).",
		explain:   (*schedContext).insufficient},
	{Class: "TooManyPods", re: regexp.MustCompile(`^Too many pods`), Strength: 55,
		Mechanism: "A node accepts at most its allocatable pods (the kubelet's maxPods); a full node is skipped whatever its free cpu and memory.",
		explain:   (*schedContext).tooManyPods},
	{Class: "Cordoned", re: regexp.MustCompile(`were unschedulable`), Strength: 50,
		Mechanism: "A cordoned node (spec.unschedulable=true) accepts no new pod unless the pod tolerates node.kubernetes.io/unschedulable.",
		explain:   (*schedContext).cordoned},
}

const schedMechanism = "The scheduler filtered out every node for the reasons it lists; the pod stays Pending until one node passes every filter."

// schedCause is one part of the scheduler's message, explained.
type schedCause struct {
	Class      string
	Text       string // the part with its node count, and what the bundle adds
	Culprit    string
	Mechanism  string
	Evidence   []string
	Actions    []report.Action
	Notes      []string
	Confidence rule.Confidence
	// Definitive is set when the bundle shows the constraint alone rules
	// out every known node (a selector no node matches, a request larger
	// than every node): it names the culprit whatever the counts say.
	Definitive bool
	// Narrowing is set when the constraint leaves some nodes and the other
	// reasons exclude those: the other reasons are the blockers.
	Narrowing bool
	strength  int
	blocked   int
}

// schedContext is what the explainers share about one pending pod.
type schedContext struct {
	c           *rule.Pass
	p           *corev1.Pod
	kind, owner string // where fixes go: the workload, or the bare pod
	total       int
	reqs        corev1.ResourceList
}

// spec names a field of the pod spec where a fix goes: the workload's pod
// template, or the bare pod.
func (e *schedContext) spec(field string) string {
	if e.kind == "pod" {
		return fmt.Sprintf("pod/%s .spec.%s", e.p.Name, field)
	}
	return fmt.Sprintf("%s/%s %s.%s", e.kind, e.owner, podTemplatePath(e.kind), field)
}

func podTemplatePath(kind string) string {
	if kind == "cronjob" {
		return ".spec.jobTemplate.spec.template.spec"
	}
	return ".spec.template.spec"
}

func (e *schedContext) workload() string { return e.kind + "/" + e.owner }

// TemplateRisk is what a change to the owner's pod template does: rollout
// (e.g. "starts a rollout") for a controller that rolls its pods; a bare
// ReplicaSet and a CronJob's run leave their pending pods as they are, and
// a Job is recreated.
func (e *schedContext) templateRisk(rollout string) string {
	return kube.PendingTemplateRisk(e.kind, rollout)
}

// TemplateCommands fits edit, the commands that change the owner's pod
// template in place, to the owner: see TemplateCommands. what says the
// change in words.
func (e *schedContext) templateCommands(edit []string, what string) []string {
	return kube.TemplateCommands(e.kind, e.owner, e.p.Namespace, edit, what, kube.PodRun(e.p))
}

// replacePendingPods adds to each fix of a bare ReplicaSet's template the
// command that makes the ReplicaSet recreate its pending pods from it.
func (e *schedContext) replacePendingPods(actions []report.Action) {
	rs := kube.TargetOf(e.c, "ReplicaSet", e.c.B.ReplicaSets)
	if e.kind != "replicaset" || rs == nil || rs.Spec.Selector == nil {
		return
	}
	cmd := fmt.Sprintf("kubectl delete pods %s -l '%s' --field-selector=status.phase=Pending", kube.NsFlag(e.p), metav1.FormatLabelSelector(rs.Spec.Selector))
	for i := range actions {
		if strings.Contains(actions[i].Risk, kube.ReplicaSetPendingRisk) && !slices.Contains(actions[i].Commands, cmd) {
			actions[i].Commands = append(slices.Clip(actions[i].Commands), cmd)
		}
	}
}

// template is the pod template of the workload that owns the pod, nil for a
// bare pod.
func (e *schedContext) template() *corev1.PodTemplateSpec {
	b := e.c.B
	switch e.kind {
	case "deployment":
		return &b.Deployments[0].Spec.Template
	case "statefulset":
		return &b.StatefulSets[0].Spec.Template
	case "daemonset":
		return &b.DaemonSets[0].Spec.Template
	case "cronjob":
		return &b.CronJobs[0].Spec.JobTemplate.Spec.Template
	case "job":
		return &b.Jobs[0].Spec.Template
	case "replicaset":
		if rs := kube.TargetOf(e.c, "ReplicaSet", b.ReplicaSets); rs != nil {
			return &rs.Spec.Template
		}
	}
	return nil
}

// replicas is how many pods the owning workload wants, 0 when unknown.
func (e *schedContext) replicas() int32 {
	b := e.c.B
	switch {
	case e.kind == "deployment" && b.Deployments[0].Spec.Replicas != nil:
		return *b.Deployments[0].Spec.Replicas
	case e.kind == "statefulset" && b.StatefulSets[0].Spec.Replicas != nil:
		return *b.StatefulSets[0].Spec.Replicas
	case (e.kind == "pod" || e.kind == "replicaset") && len(b.ReplicaSets) > 0 && b.ReplicaSets[0].Spec.Replicas != nil:
		return *b.ReplicaSets[0].Spec.Replicas
	}
	return 0
}

// recreate is the fix for a field of a bare pod that cannot change in place.
func (e *schedContext) recreate(what string) []string {
	return []string{
		fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # %s", e.p.Name, kube.NsFlag(e.p), e.p.Name, what),
		fmt.Sprintf("kubectl replace --force -f %s.yaml", e.p.Name),
	}
}

func schedulingFinding(c *rule.Pass, p *corev1.Pod, msg string, evidence []string) []rule.Finding {
	kind, owner := kube.OwnerName(c, p)
	e := &schedContext{c: c, p: p, kind: kind, owner: owner, reqs: podRequests(p)}
	total, parts := parseSchedulerMessage(msg)
	e.total = total
	var causes []schedCause
	for _, part := range dropGenericAffinity(parts) {
		causes = append(causes, e.explain(part))
	}
	f := rule.Finding{
		Category: rule.Unschedulable, Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name,
		Mechanism: schedMechanism,
	}
	of := ""
	if total > 0 {
		of = fmt.Sprintf(" (0/%d nodes fit)", total)
	}
	if len(causes) == 0 {
		f.Category = f.Category.Sub("Other")
		f.Hypothesis = "The pod cannot be placed on any node: the scheduler gave no reason"
		f.Title = "pod cannot be scheduled: the scheduler gave no reason"
		f.Summary = fmt.Sprintf("Pod %s stays Pending and the scheduler's message names no reason.", p.Name)
		f.Culprit = kube.PodRef(p) + " scheduling constraints"
		f.Confidence = rule.Even
		f.Evidence = evidence
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler's full message and compare the pod's constraints with the nodes.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p)), "kubectl describe nodes"}}}
		return []rule.Finding{f}
	}
	sort.SliceStable(causes, func(i, j int) bool {
		a, b := causes[i], causes[j]
		if a.Definitive != b.Definitive {
			return a.Definitive
		}
		if a.Narrowing != b.Narrowing {
			return b.Narrowing
		}
		if a.blocked != b.blocked {
			return a.blocked > b.blocked
		}
		return a.strength > b.strength
	})
	top := causes[0]
	var texts []string
	for _, cz := range causes {
		texts = append(texts, cz.Text)
		evidence = kube.AppendUnique(evidence, cz.Evidence...)
	}
	f.Category = f.Category.Sub(top.Class)
	f.Hypothesis = "The pod cannot be placed on any node: " + strings.Join(texts, "; ")
	f.Title = fmt.Sprintf("pod cannot be scheduled%s: %s", of, top.Text)
	f.Summary = fmt.Sprintf("Pod %s stays Pending because no node can run it%s: %s.", p.Name, of, top.Text)
	if len(causes) > 1 {
		f.Title += fmt.Sprintf(" (and %d more reason(s))", len(causes)-1)
		f.Summary = fmt.Sprintf("Pod %s stays Pending because no node can run it%s. The scheduler gives %d reasons: %s. The decisive one is: %s.",
			p.Name, of, len(causes), strings.Join(texts, "; "), top.Text)
	}
	if top.Mechanism != "" {
		f.Mechanism += " " + top.Mechanism
	}
	f.Culprit = top.Culprit
	f.Confidence = top.Confidence
	f.Contributing = append(f.Contributing, top.Notes...)
	for _, cz := range causes[1:] {
		f.Contributing = append(f.Contributing, "Also blocking: "+cz.Text+".")
	}
	f.Actions = append(f.Actions, top.Actions...)
	for _, cz := range causes[1:] {
		if len(cz.Actions) > 0 && !actionListed(f.Actions, cz.Actions[0]) {
			f.Actions = append(f.Actions, cz.Actions[0])
		}
	}
	if len(f.Actions) == 0 {
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler's full message and compare the pod's constraints with the nodes.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NsFlag(p)), "kubectl describe nodes"}}}
	}
	e.replacePendingPods(f.Actions)
	f.Evidence = evidence
	out := []rule.Finding{f}
	if r, ok := e.sizeRuledOut(causes); ok {
		out = append(out, r)
	}
	return out
}

func actionListed(list []report.Action, a report.Action) bool {
	for _, have := range list {
		if have.Description == a.Description {
			return true
		}
	}
	return false
}

// dropGenericAffinity removes the pre-1.22 catch-all "didn't match pod
// affinity/anti-affinity" when the specific reason is also listed: both are
// recorded for the same nodes.
func dropGenericAffinity(parts []schedReason) []schedReason {
	specific := false
	for _, p := range parts {
		if strings.Contains(p.Text, "affinity rules") {
			specific = true
		}
	}
	if !specific {
		return parts
	}
	var out []schedReason
	for _, p := range parts {
		if !strings.Contains(p.Text, "pod affinity/anti-affinity") {
			out = append(out, p)
		}
	}
	return out
}

func (e *schedContext) explain(part schedReason) schedCause {
	for i := range schedClasses {
		cl := &schedClasses[i]
		m := cl.re.FindStringSubmatch(part.Text)
		if m == nil {
			continue
		}
		var cause schedCause
		if cl.explain != nil {
			cause = cl.explain(e, part, m)
		} else {
			cause = e.tableOnly(cl, part)
		}
		if cause.Class == "" {
			cause.Class = cl.Class
		}
		if cause.strength == 0 {
			cause.strength = cl.Strength
		}
		if cause.Confidence == 0 {
			cause.Confidence = rule.Likely
		}
		if cause.Mechanism == "" {
			cause.Mechanism = cl.Mechanism
		}
		cause.blocked = part.Nodes
		if cause.blocked == 0 {
			cause.blocked = e.total // a pre-filter rejection blocks every node
		}
		return cause
	}
	return schedCause{
		Class: "Other", Text: withCount(part), Confidence: rule.Plausible, blocked: part.Nodes,
		Culprit: kube.PodRef(e.p) + " scheduling constraints (" + part.Text + ")",
		Actions: []report.Action{{Kind: report.Check, Description: "Compare the pod's scheduling constraints with the nodes the scheduler rejected.",
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", e.p.Name, kube.NsFlag(e.p)), "kubectl describe nodes"}}},
	}
}

// tableOnly explains a reason from its table row alone.
func (e *schedContext) tableOnly(cl *schedClass, part schedReason) schedCause {
	claims := claimsOfPod(e.p)
	return schedCause{
		Text:       withCount(part) + " — " + cl.Why,
		Culprit:    fmt.Sprintf("%s volumes (claims %s)", e.spec("volumes"), strings.Join(claims, ", ")),
		Confidence: rule.Probable,
		Actions: []report.Action{{Kind: report.Immediate, Description: cl.Fix,
			Commands: []string{fmt.Sprintf("kubectl describe pvc %s", kube.NsFlag(e.p)), "kubectl get pv,storageclass"}}},
	}
}

// sizeRuledOut refutes "the pod is bigger than any node" when the scheduler
// names no resource shortage and every request fits the largest node: a
// resize would not help.
func (e *schedContext) sizeRuledOut(causes []schedCause) (rule.Finding, bool) {
	if len(e.c.B.Nodes) == 0 || len(e.reqs) == 0 {
		return rule.Finding{}, false
	}
	for _, cz := range causes {
		if strings.HasPrefix(cz.Class, "Insufficient") || cz.Class == "TooManyPods" {
			return rule.Finding{}, false
		}
	}
	var fits []string
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		q, ok := e.reqs[res]
		if !ok {
			continue
		}
		largest, largestQ := largestAllocatable(e.c.B.Nodes, res)
		if largest == nil || largestQ.Cmp(q) < 0 {
			return rule.Finding{}, false
		}
		fits = append(fits, fmt.Sprintf("%s %s ≤ %s on %s", res, q.String(), largestQ.String(), largest.Name))
	}
	if len(fits) == 0 {
		return rule.Finding{}, false
	}
	ev := e.c.Evidence(fmt.Sprintf("Pod requests fit the largest node: %s", strings.Join(fits, ", ")),
		kube.PodRef(e.p)+" .spec.containers[*].resources.requests vs node .status.allocatable",
		"kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory")
	return rule.Finding{
		Category: rule.Unschedulable.Sub("Size"), Verdict: report.Refuted, Confidence: rule.Strong, Evidence: []string{ev},
		Hypothesis: "The pod requests more cpu or memory than any node can allocate",
		Subject:    e.p.Name,
	}, true
}

// requestCulprit names the request field(s) behind a resource total.
func (e *schedContext) requestCulprit(res corev1.ResourceName, total resource.Quantity) string {
	var names []string
	for _, ctr := range containersWithInit(e.p) {
		if _, ok := ctr.Resources.Requests[res]; ok {
			names = append(names, ctr.Name)
		}
	}
	parts := containerRequests(e.p, res)
	switch len(names) {
	case 0:
		return fmt.Sprintf("%s resources.requests.%s (%s)", e.spec("containers[*]"), res, total.String())
	case 1:
		return fmt.Sprintf("%s.resources.requests.%s (%s)", e.spec("containers["+names[0]+"]"), res, total.String())
	}
	return fmt.Sprintf("%s.resources.requests.%s (%s in total: %s)", e.spec("containers["+strings.Join(names, ",")+"]"), res, total.String(), strings.Join(parts, ", "))
}

// allContainers lists init containers (sidecars included) then containers.
func containersWithInit(p *corev1.Pod) []corev1.Container {
	return append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...)
}

// containerRequests is "name amount" for each container requesting res.
func containerRequests(p *corev1.Pod, res corev1.ResourceName) []string {
	var out []string
	for _, ctr := range containersWithInit(p) {
		if q, ok := ctr.Resources.Requests[res]; ok {
			out = append(out, ctr.Name+" "+q.String())
		}
	}
	return out
}

// biggestRequester is the container asking for the most of res.
func biggestRequester(p *corev1.Pod, res corev1.ResourceName) string {
	best, name := resource.Quantity{}, p.Spec.Containers[0].Name
	for _, ctr := range containersWithInit(p) {
		if q, ok := ctr.Resources.Requests[res]; ok && q.Cmp(best) > 0 {
			best, name = q, ctr.Name
		}
	}
	return name
}

func (e *schedContext) lowerRequest(res corev1.ResourceName) report.Action {
	ctr := biggestRequester(e.p, res)
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Lower the %s request of container %s to what the workload needs and a node can offer.", res, ctr),
		Commands:    []string{fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=<amount that fits>", e.workload(), kube.NsFlag(e.p), ctr, res)},
		Risk:        "a request below real usage lets the node overcommit; " + e.templateRisk("the change starts a rollout")}
	a.Commands = e.templateCommands(a.Commands, fmt.Sprintf("lower resources.requests.%s of container %s to an amount that fits", res, ctr))
	if e.kind == "pod" {
		a.Description += " A bare pod's requests cannot be changed while it is pending: edit the manifest and recreate it."
		a.Commands = e.recreate(fmt.Sprintf("lower resources.requests.%s of container %s", res, ctr))
		a.Risk = kube.RecreateRisk + "; a request below real usage lets the node overcommit"
	}
	return a
}

func largestAllocatable(nodes []*corev1.Node, res corev1.ResourceName) (*corev1.Node, resource.Quantity) {
	var best *corev1.Node
	var bestQ resource.Quantity
	for _, n := range nodes {
		if q, ok := n.Status.Allocatable[res]; ok && !q.IsZero() && (best == nil || q.Cmp(bestQ) > 0) {
			best, bestQ = n, q
		}
	}
	return best, bestQ
}

func (e *schedContext) allocatableEvidence(n *corev1.Node, res corev1.ResourceName, q resource.Quantity, note string) string {
	return e.c.Evidence(fmt.Sprintf("Node %s has allocatable %s %s%s", n.Name, res, q.String(), note),
		"node/"+n.Name+" .status.allocatable",
		fmt.Sprintf("kubectl get node %s -o jsonpath='{.status.allocatable}'", n.Name))
}

// insufficient compares the pod's request with what the known nodes can
// allocate. Other pods' requests on those nodes are not in the bundle, so a
// node that is big enough when empty is "full", not measured.
func (e *schedContext) insufficient(part schedReason, m []string) schedCause {
	res := corev1.ResourceName(m[1])
	cause := schedCause{Class: "Insufficient" + resourceWord(string(res))}
	if strings.Contains(string(res), "/") {
		cause.Class = "InsufficientExtendedResource"
	}
	q, ok := e.reqs[res]
	if !ok {
		cause.Text = withCount(part)
		cause.Culprit = fmt.Sprintf("%s resources.requests.%s", e.spec("containers[*]"), res)
		cause.Confidence = rule.Plausible
		cause.Actions = []report.Action{{Kind: report.Check, Description: fmt.Sprintf("Compare the %s requested by the pod with what the nodes have left.", res),
			Commands: []string{fmt.Sprintf("kubectl describe pod %s %s", e.p.Name, kube.NsFlag(e.p)), "kubectl describe nodes"}}}
		return cause
	}
	breakdown := ""
	if parts := containerRequests(e.p, res); len(parts) > 1 {
		breakdown = " (" + strings.Join(parts, ", ") + ")"
	}
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requests %s %s in total%s", res, q.String(), breakdown),
		kube.PodRef(e.p)+" .spec.containers[*].resources.requests",
		fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[*].resources.requests}'`, e.p.Name, kube.NsFlag(e.p))))
	nodes := e.c.B.Nodes
	largest, largestQ := largestAllocatable(nodes, res)
	// The scheduler checks resources only on nodes that passed its
	// earlier filters: those are the ones worth quoting.
	eligible := e.eligibleNodes()
	var fits []*corev1.Node
	for _, n := range eligible {
		if a, has := n.Status.Allocatable[res]; has && a.Cmp(q) >= 0 {
			fits = append(fits, n)
		}
	}
	req := fmt.Sprintf("%s %s", res, q.String())
	addNodes := report.Action{Kind: report.LongTerm,
		Description: fmt.Sprintf("Add capacity: nodes with more allocatable %s (a larger node type, or a cluster-autoscaler node group that can fit the pod).", res),
		Commands:    []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory,PODS:.status.allocatable.pods"}}
	switch {
	case len(nodes) == 0:
		cause.Text = fmt.Sprintf("%s — the pod requests %s; the nodes could not be read to compare", withCount(part), req)
		cause.Culprit = e.requestCulprit(res, q)
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	case largest == nil:
		cause.Text = fmt.Sprintf("%s — the pod requests %s and none of the %d node(s) offers %s at all", withCount(part), req, len(nodes), res)
		cause.Culprit = fmt.Sprintf("%s: no node advertises %s", e.requestCulprit(res, q), res)
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("None of the %d node(s) has %s in its allocatable resources", len(nodes), res),
			"nodes .status.allocatable", "kubectl get nodes -o custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable"))
		cause.Notes = append(cause.Notes, fmt.Sprintf("Extended resources such as %s appear in a node's allocatable only while their device plugin runs on it.", res))
		cause.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Make sure nodes with the device exist and run its device plugin (the DaemonSet that advertises %s), or drop the request if the workload does not need it.", res),
				Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable", "kubectl get daemonsets -A"}},
			e.lowerRequest(res),
		}
	case largestQ.Cmp(q) < 0:
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(largest, res, largestQ, fmt.Sprintf(" (the largest of %d node(s) seen)", len(nodes))))
		cause.Text = fmt.Sprintf("%s — the pod requests %s, more than the largest node (%s) can allocate (%s)", withCount(part), req, largest.Name, largestQ.String())
		cause.Culprit = e.requestCulprit(res, q)
		cause.Definitive, cause.Confidence = true, rule.Definitive
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	case len(fits) == 0:
		// Big nodes exist, but not among those the pod may use.
		bigEligible, bigQ := largestAllocatable(eligible, res)
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(largest, res, largestQ, " (a node the pod's taints/selector rule out)"))
		cause.Text = fmt.Sprintf("%s — the pod requests %s; only nodes it may not use (taints, selector, cordon) are that big, such as %s (%s)", withCount(part), req, largest.Name, largestQ.String())
		if bigEligible != nil {
			cause.Evidence = append(cause.Evidence, e.allocatableEvidence(bigEligible, res, bigQ, " (the largest node the pod may use)"))
			cause.Text += fmt.Sprintf("; the largest node it may use, %s, allocates %s", bigEligible.Name, bigQ.String())
		}
		cause.Culprit = fmt.Sprintf("%s, more than any node the pod may use can allocate", e.requestCulprit(res, q))
		cause.Confidence = rule.High
		cause.Actions = []report.Action{e.lowerRequest(res), addNodes}
	default:
		for _, n := range fits[:min(len(fits), 3)] {
			a := n.Status.Allocatable[res]
			cause.Evidence = append(cause.Evidence, e.allocatableEvidence(n, res, a, fmt.Sprintf(", enough for the request of %s when empty", q.String())))
		}
		cause.Text = fmt.Sprintf("%s — the pod requests %s; %s could hold that much when empty (%s allocates %s) but the pods already placed there reserve too much of it",
			withCount(part), req, nodesCount(len(fits)), fits[0].Name, allocatableOf(fits[0], res))
		cause.Culprit = fmt.Sprintf("free %s on %s (already reserved by the pods running there) is less than %s", res, kube.NamesUpTo(namesOfNodes(fits), 3), e.requestCulprit(res, q))
		cause.Confidence = rule.High
		cause.Notes = append(cause.Notes, e.ownRequests(fits, res)...)
		cause.Notes = append(cause.Notes, "The requests of the other pods on those nodes were not collected; `kubectl describe node` shows them under \"Allocated resources\".")
		cause.Actions = []report.Action{
			{Kind: report.Check, Description: fmt.Sprintf("See how much %s the pods on the nodes already request.", res),
				Commands: []string{fmt.Sprintf("kubectl describe node %s | grep -A 12 'Allocated resources'", fits[0].Name),
					fmt.Sprintf("kubectl get pods -A --field-selector spec.nodeName=%s,status.phase=Running -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,REQUESTS:.spec.containers[*].resources.requests", fits[0].Name)}},
			e.lowerRequest(res),
			addNodes,
		}
	}
	return cause
}

// ownRequests states what the workload's own pods seen in the bundle already
// reserve on the nodes that are big enough: a lower bound, said as such.
func (e *schedContext) ownRequests(nodes []*corev1.Node, res corev1.ResourceName) []string {
	var out []string
	for _, n := range nodes {
		sum := resource.Quantity{}
		var names []string
		for _, p := range e.c.B.Pods {
			if p.Spec.NodeName != n.Name {
				continue
			}
			if q, ok := podRequests(p)[res]; ok {
				sum.Add(q)
				names = append(names, p.Name)
			}
		}
		if len(names) > 0 {
			out = append(out, fmt.Sprintf("At least %s of %s's %s %s is requested by %d pod(s) of this workload seen here (%s).",
				sum.String(), n.Name, allocatableOf(n, res), res, len(names), strings.Join(names, ", ")))
		}
	}
	return out
}

// wantedNodes are the nodes matching the pod's nodeSelector and required
// node affinity.
func (e *schedContext) wantedNodes() map[string]bool {
	sel, terms := podNodeTerms(e.p)
	out := map[string]bool{}
	for _, n := range nodesMatching(e.c.B.Nodes, sel.Reqs) {
		ok := len(terms) == 0
		for _, t := range terms {
			ok = ok || len(nodesMatching([]*corev1.Node{n}, t.Reqs)) > 0
		}
		if ok {
			out[n.Name] = true
		}
	}
	return out
}

func countIn(nodes []*corev1.Node, set map[string]bool) int {
	n := 0
	for _, node := range nodes {
		if set[node.Name] {
			n++
		}
	}
	return n
}

// eligibleNodes are the nodes that pass the filters kube-scheduler runs
// before NodeResourcesFit and that the bundle can evaluate: cordon, taints,
// nodeSelector and required node affinity. All nodes when none passes (the
// bundle and the scheduler disagree: better quote every node than none).
func (e *schedContext) eligibleNodes() []*corev1.Node {
	sel, terms := podNodeTerms(e.p)
	unschedulable := corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}
	var out []*corev1.Node
	for _, n := range e.c.B.Nodes {
		if n.Spec.Unschedulable && !podToleratesTaint(e.p.Spec.Tolerations, &unschedulable) {
			continue
		}
		if len(untoleratedTaints(e.p, []*corev1.Node{n})) > 0 || len(nodesMatching([]*corev1.Node{n}, sel.Reqs)) == 0 {
			continue
		}
		ok := len(terms) == 0
		for _, t := range terms {
			if len(nodesMatching([]*corev1.Node{n}, t.Reqs)) > 0 {
				ok = true
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return e.c.B.Nodes
	}
	return out
}

func allocatableOf(n *corev1.Node, res corev1.ResourceName) string {
	q := n.Status.Allocatable[res]
	return q.String()
}

func (e *schedContext) tooManyPods(part schedReason, _ []string) schedCause {
	caps := map[string][]string{}
	var order []string
	eligible := e.eligibleNodes()
	for _, n := range eligible {
		q := n.Status.Allocatable[corev1.ResourcePods]
		if _, ok := caps[q.String()]; !ok {
			order = append(order, q.String())
		}
		caps[q.String()] = append(caps[q.String()], n.Name)
	}
	var desc []string
	for _, v := range order {
		desc = append(desc, fmt.Sprintf("%s on %s", v, kube.NamesUpTo(caps[v], 2)))
	}
	cause := schedCause{Confidence: rule.Strong}
	cause.Text = withCount(part) + " — those nodes already run as many pods as their allocatable pods allow"
	cause.Culprit = "node pod capacity (allocatable pods)"
	if len(desc) > 0 {
		cause.Text += " (" + strings.Join(desc, "; ") + ")"
		cause.Culprit += ": " + strings.Join(desc, "; ")
		n := eligible[0]
		q := n.Status.Allocatable[corev1.ResourcePods]
		cause.Evidence = append(cause.Evidence, e.allocatableEvidence(n, corev1.ResourcePods, q, ""))
	}
	node := "<node>"
	if len(eligible) > 0 {
		node = eligible[0].Name
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "Count the pods on a node against its allocatable pods.",
			Commands: []string{fmt.Sprintf("kubectl get pods -A --field-selector spec.nodeName=%s --no-headers | wc -l", node),
				"kubectl get nodes -o custom-columns=NAME:.metadata.name,PODS:.status.allocatable.pods"}},
		{Kind: report.LongTerm, Description: "Add nodes, or raise the kubelet's maxPods where the pod network has addresses for more pods (on EKS the ENI/IP limits of the instance type bound it).",
			Commands: []string{"kubectl get nodes -o wide"},
			Risk:     "more pods per node means more pods lost when one node fails"},
	}
	return cause
}

// camelCase turns a resource name into a category word: "ephemeral-storage"
// → "EphemeralStorage".
func resourceWord(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '.' || r == '/' || r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func nodesCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

func namesOfNodes(nodes []*corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

// Taints.

// knownTaint explains a taint that Kubernetes components put on nodes.
type knownTaint struct {
	Why string
	// Expected taints keep pods off nodes by design (control plane): they
	// are context, not a culprit, unless nothing else blocks the pod.
	Expected bool
	// NodeProblem taints come from a node condition: the fix is the node.
	NodeProblem bool
}

var knownTaints = map[string]knownTaint{
	"node-role.kubernetes.io/control-plane":          {Why: "installers such as kubeadm keep ordinary workloads off control-plane nodes with this taint, by design", Expected: true},
	"node-role.kubernetes.io/master":                 {Why: "older installers keep ordinary workloads off control-plane nodes with this taint, by design", Expected: true},
	"node.kubernetes.io/not-ready":                   {Why: "the node lifecycle controller taints a node whose Ready condition is False", NodeProblem: true},
	"node.kubernetes.io/unreachable":                 {Why: "the node lifecycle controller taints a node whose kubelet stopped posting status (Ready Unknown)", NodeProblem: true},
	"node.kubernetes.io/unschedulable":               {Why: "the node is cordoned (spec.unschedulable=true)"},
	"node.kubernetes.io/memory-pressure":             {Why: "the kubelet reports MemoryPressure", NodeProblem: true},
	"node.kubernetes.io/disk-pressure":               {Why: "the kubelet reports DiskPressure", NodeProblem: true},
	"node.kubernetes.io/pid-pressure":                {Why: "the kubelet reports PIDPressure", NodeProblem: true},
	"node.kubernetes.io/network-unavailable":         {Why: "the node's network is not configured (NetworkUnavailable=True)", NodeProblem: true},
	"node.cloudprovider.kubernetes.io/uninitialized": {Why: "the cloud controller manager has not initialized the node yet", NodeProblem: true},
	"node.kubernetes.io/out-of-service":              {Why: "an operator declared the node out of service"},
}

// tolerates reports whether any toleration of the pod tolerates the taint,
// with the API's own matching rules.
func podToleratesTaint(tols []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tols {
		if tols[i].ToleratesTaint(logr.Discard(), t, true) {
			return true
		}
	}
	return false
}

// taintGroup is one untolerated taint and the nodes it keeps the pod off.
type taintGroup struct {
	Taint corev1.Taint
	Nodes []*corev1.Node
}

// untoleratedTaints groups the nodes by the taint the scheduler reports for
// them: the first NoSchedule/NoExecute taint the pod does not tolerate.
// Largest group first.
func untoleratedTaints(p *corev1.Pod, nodes []*corev1.Node) []*taintGroup {
	index := map[string]*taintGroup{}
	var out []*taintGroup
	for _, n := range nodes {
		for _, t := range n.Spec.Taints {
			if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
				continue
			}
			if podToleratesTaint(p.Spec.Tolerations, &t) {
				continue
			}
			key := kube.TaintSpec(t)
			g, ok := index[key]
			if !ok {
				g = &taintGroup{Taint: t}
				index[key] = g
				out = append(out, g)
			}
			g.Nodes = append(g.Nodes, n)
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Nodes) > len(out[j].Nodes) })
	return out
}

var taintInMessageRe = regexp.MustCompile(`\{([^:{}]+):\s?([^{}]*)\}`)

func (e *schedContext) taint(part schedReason, _ []string) schedCause {
	groups := untoleratedTaints(e.p, e.c.B.Nodes)
	var chosen *taintGroup
	if m := taintInMessageRe.FindStringSubmatch(part.Text); m != nil {
		key, value := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		for _, g := range groups {
			if g.Taint.Key == key && g.Taint.Value == value {
				chosen = g
				break
			}
		}
		if chosen == nil {
			return schedCause{
				Text:       withCount(part) + " — no node seen now carries that taint (it may have been removed since the scheduler's last attempt)",
				Culprit:    fmt.Sprintf("taint {%s: %s} named by the scheduler, not tolerated by %s", key, value, e.spec("tolerations")),
				Confidence: rule.Probable,
				Actions:    []report.Action{e.listTaintsAction()},
			}
		}
	} else {
		// Since 1.34 the message no longer names the taint: the nodes do.
		// The taint on the nodes the pod asks for (selector, affinity) is
		// the one in its way; the control-plane taint only if nothing else.
		wanted := e.wantedNodes()
		best := -1
		for _, g := range groups {
			if knownTaints[g.Taint.Key].Expected {
				continue
			}
			if score := len(g.Nodes) + 1000*countIn(g.Nodes, wanted); score > best {
				chosen, best = g, score
			}
		}
		if chosen == nil && len(groups) > 0 {
			chosen = groups[0]
		}
		if chosen == nil {
			return schedCause{
				Text:       withCount(part),
				Culprit:    fmt.Sprintf("%s vs the taints of the nodes", e.spec("tolerations")),
				Confidence: rule.Plausible,
				Actions:    []report.Action{e.listTaintsAction()},
			}
		}
	}
	t := chosen.Taint
	names := namesOfNodes(chosen.Nodes)
	cause := schedCause{Confidence: rule.Strong}
	cause.Text = fmt.Sprintf("%s — %s on %s", withCount(part), kube.TaintSpec(t), kube.NamesUpTo(names, 3))
	cause.Culprit = fmt.Sprintf("taint %s on node(s) %s, not tolerated by %s", kube.TaintSpec(t), kube.NamesUpTo(names, 3), e.spec("tolerations"))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node %s has taint %s", names[0], kube.TaintSpec(t)),
		"node/"+names[0]+" .spec.taints", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.taints}'", names[0])))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod tolerations: %s", tolerationsText(e.p.Spec.Tolerations)),
		kube.PodRef(e.p)+" .spec.tolerations", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.tolerations}'", e.p.Name, kube.NsFlag(e.p))))
	known, isKnown := knownTaints[t.Key]
	switch {
	case known.Expected:
		cause.strength = 10
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		cause.Actions = []report.Action{{Kind: report.Immediate,
			Description: "Only the control plane can run the pod: on a single-node or lab cluster, let workloads run there by removing the taint; on a production cluster add worker nodes instead.",
			Commands:    []string{fmt.Sprintf("kubectl taint nodes %s %s-", names[0], kube.TaintSpec(t))},
			Risk:        "workloads then compete with the control plane's components for the node"}}
	case known.NodeProblem:
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s; it goes away when the node recovers.", t.Key, known.Why))
		cause.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Repair node %s: the taint reflects its condition, not a choice.", names[0]),
			Commands: []string{fmt.Sprintf("kubectl describe node %s", names[0]), fmt.Sprintf("kubectl triage node/%s", names[0])}}}
	case t.Key == "node.kubernetes.io/unschedulable":
		cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		cause.Actions = []report.Action{kube.UncordonAction(names)}
	default:
		if isKnown {
			cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s: %s.", t.Key, known.Why))
		} else {
			cause.Notes = append(cause.Notes, fmt.Sprintf("Taint %s reserves %s for pods that tolerate it; the pod has no matching toleration.", kube.TaintSpec(t), kube.NamesUpTo(names, 3)))
		}
		var untaint []string
		for _, n := range names[:min(len(names), 3)] {
			untaint = append(untaint, fmt.Sprintf("kubectl taint nodes %s %s-", n, kube.TaintSpec(t)))
		}
		cause.Actions = []report.Action{
			e.tolerationAction(t),
			{Kind: report.Immediate, Description: fmt.Sprintf("Or, if the taint was left by mistake, remove it from %s.", kube.NamesUpTo(names, 3)),
				Commands: untaint, Risk: "other pods may then land on nodes that were reserved"},
		}
	}
	return cause
}

func tolerationsText(tols []corev1.Toleration) string {
	if len(tols) == 0 {
		return "none"
	}
	var out []string
	for _, t := range tols {
		s := t.Key
		if s == "" {
			s = "*"
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			s += " Exists"
		default:
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func (e *schedContext) listTaintsAction() report.Action {
	return report.Action{Kind: report.Check, Description: "List the nodes' taints and compare them with the pod's tolerations.",
		Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.tolerations}'", e.p.Name, kube.NsFlag(e.p))}}
}

// tolerationAction appends a toleration with a JSON patch: a strategic merge
// would replace the whole list. Pods may gain tolerations in place.
func (e *schedContext) tolerationAction(t corev1.Taint) report.Action {
	tol := fmt.Sprintf(`{"key":"%s","operator":"Equal","value":"%s","effect":"%s"}`, t.Key, t.Value, t.Effect)
	if t.Value == "" {
		tol = fmt.Sprintf(`{"key":"%s","operator":"Exists","effect":"%s"}`, t.Key, t.Effect)
	}
	path, existing := "/spec/tolerations", e.p.Spec.Tolerations
	if tpl := e.template(); tpl != nil {
		path, existing = strings.ReplaceAll(podTemplatePath(e.kind), ".", "/")+"/tolerations", tpl.Spec.Tolerations
	}
	patch := fmt.Sprintf(`[{"op":"add","path":"%s","value":[%s]}]`, path, tol)
	if len(existing) > 0 {
		patch = fmt.Sprintf(`[{"op":"add","path":"%s/-","value":%s}]`, path, tol)
	}
	risk := "the pod may then run on nodes that were reserved for other work"
	if e.kind != "pod" {
		risk += "; " + e.templateRisk("the change starts a rollout")
	}
	return report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("If the pod belongs on the tainted nodes, add a toleration for %s.", kube.TaintSpec(t)),
		Commands: e.templateCommands([]string{fmt.Sprintf("kubectl patch %s %s --type=json -p '%s'", e.workload(), kube.NsFlag(e.p), patch)},
			fmt.Sprintf("add %s to %s.tolerations", tol, strings.TrimPrefix(podTemplatePath(e.kind), "."))),
		Risk: risk}
}

func (e *schedContext) cordoned(part schedReason, _ []string) schedCause {
	var names []string
	for _, n := range e.c.B.Nodes {
		if n.Spec.Unschedulable {
			names = append(names, n.Name)
		}
	}
	cause := schedCause{Confidence: rule.Strong}
	if len(names) == 0 {
		cause.Text = withCount(part)
		cause.Culprit = "cordoned nodes (none is cordoned now)"
		cause.Confidence = rule.Plausible
		cause.Actions = []report.Action{{Kind: report.Check, Description: "List the cordoned nodes.",
			Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,UNSCHEDULABLE:.spec.unschedulable"}}}
		return cause
	}
	cause.Text = fmt.Sprintf("%s — cordoned: %s", withCount(part), kube.NamesUpTo(names, 3))
	cause.Culprit = fmt.Sprintf("cordoned node(s) %s (spec.unschedulable=true)", kube.NamesUpTo(names, 3))
	cause.Definitive = len(names) == len(e.c.B.Nodes)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node %s is cordoned (spec.unschedulable=true)", names[0]),
		"node/"+names[0]+" .spec.unschedulable", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.unschedulable}'", names[0])))
	cause.Actions = []report.Action{kube.UncordonAction(names)}
	return cause
}

// Node selector and required node affinity.

// nodeReq is one requirement on a node: a nodeSelector pair, or an
// expression of a node affinity term.
type nodeReq struct {
	Key      string
	Op       corev1.NodeSelectorOperator
	Values   []string
	Field    bool // matchFields (metadata.name)
	Selector bool // from spec.nodeSelector: printed key=value
}

func (r nodeReq) String() string {
	switch {
	case r.Selector:
		return r.Key + "=" + r.Values[0]
	case r.Op == corev1.NodeSelectorOpExists || r.Op == corev1.NodeSelectorOpDoesNotExist:
		return r.Key + " " + string(r.Op)
	}
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Op, strings.Join(r.Values, ", "))
}

func (r nodeReq) value(n *corev1.Node) (string, bool) {
	if r.Field {
		return n.Name, r.Key == "metadata.name"
	}
	v, ok := n.Labels[r.Key]
	return v, ok
}

// matches follows the scheduler's semantics: NotIn and DoesNotExist hold for
// a node without the label.
func (r nodeReq) matches(n *corev1.Node) bool {
	v, ok := r.value(n)
	switch r.Op {
	case corev1.NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Op == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// nodeTerm is a set of requirements that must all hold, and where it is in
// the spec.
type nodeTerm struct {
	Where string
	Reqs  []nodeReq
}

func selectorTermReqs(t corev1.NodeSelectorTerm) []nodeReq {
	var out []nodeReq
	for _, x := range t.MatchExpressions {
		out = append(out, nodeReq{Key: x.Key, Op: x.Operator, Values: x.Values})
	}
	for _, x := range t.MatchFields {
		out = append(out, nodeReq{Key: x.Key, Op: x.Operator, Values: x.Values, Field: true})
	}
	return out
}

// podNodeTerms returns the nodeSelector (one term, may be empty) and the
// required node affinity terms (any one must hold).
func podNodeTerms(p *corev1.Pod) (nodeTerm, []nodeTerm) {
	sel := nodeTerm{Where: "nodeSelector"}
	keys := make([]string, 0, len(p.Spec.NodeSelector))
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sel.Reqs = append(sel.Reqs, nodeReq{Key: k, Op: corev1.NodeSelectorOpIn, Values: []string{p.Spec.NodeSelector[k]}, Selector: true})
	}
	var terms []nodeTerm
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			terms = append(terms, nodeTerm{
				Where: fmt.Sprintf("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i),
				Reqs:  selectorTermReqs(t),
			})
		}
	}
	return sel, terms
}

func nodesMatching(nodes []*corev1.Node, reqs []nodeReq) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range nodes {
		ok := true
		for _, r := range reqs {
			if !r.matches(n) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

// labelValues describes the values a label key takes on the nodes.
func nodeLabelValues(nodes []*corev1.Node, key string) string {
	counts := map[string]int{}
	var order []string
	for _, n := range nodes {
		if v, ok := n.Labels[key]; ok {
			if counts[v] == 0 {
				order = append(order, v)
			}
			counts[v]++
		}
	}
	if len(order) == 0 {
		return fmt.Sprintf("no node has a label %s", key)
	}
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	var parts []string
	for _, v := range order[:min(len(order), 5)] {
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", key, v, nodesCount(counts[v])))
	}
	return "nodes have " + strings.Join(parts, ", ")
}

// closestNode is the node satisfying most of reqs, and what it has for the
// requirements it fails. Ties go to a node that carries the keys asked for,
// then to a Ready one: the likeliest intended target.
func closestNode(nodes []*corev1.Node, reqs []nodeReq) (*corev1.Node, string) {
	var best *corev1.Node
	bestScore, bestTie := -1, -1
	for _, n := range nodes {
		score, tie := 0, 0
		for _, r := range reqs {
			if r.matches(n) {
				score++
			}
			if _, ok := r.value(n); ok {
				tie += 2
			}
		}
		if cond := kube.NodeCondition(n, corev1.NodeReady); cond != nil && cond.Status == corev1.ConditionTrue {
			tie++
		}
		if score > bestScore || (score == bestScore && tie > bestTie) {
			best, bestScore, bestTie = n, score, tie
		}
	}
	if best == nil {
		return nil, ""
	}
	var has []string
	for _, r := range reqs {
		if r.matches(best) {
			continue
		}
		if v, ok := r.value(best); ok {
			has = append(has, fmt.Sprintf("%s=%s", r.Key, v))
		} else {
			has = append(has, "no label "+r.Key)
		}
	}
	return best, fmt.Sprintf("has %s (matches %d of %d)", strings.Join(has, ", "), bestScore, len(reqs))
}

func (e *schedContext) nodeAffinity(part schedReason, _ []string) schedCause {
	nodes := e.c.B.Nodes
	sel, terms := podNodeTerms(e.p)
	cause := schedCause{Confidence: rule.Strong}
	checkCmd := "kubectl get nodes --show-labels"
	if keys := termKeys(sel, terms); len(keys) > 0 {
		checkCmd = "kubectl get nodes -L " + strings.Join(keys, ",")
	}
	check := report.Action{Kind: report.Check, Description: "Compare the labels the pod asks for with the nodes' labels.",
		Commands: []string{checkCmd, fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.nodeSelector}{"\n"}{.spec.affinity.nodeAffinity}'`, e.p.Name, kube.NsFlag(e.p))}}
	if len(sel.Reqs) > 0 {
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod nodeSelector: %s", nodeReqsString(sel.Reqs)),
			kube.PodRef(e.p)+" .spec.nodeSelector", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.nodeSelector}'", e.p.Name, kube.NsFlag(e.p))))
	}
	for _, t := range terms {
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires node affinity %s: %s", termLabel(t.Where), nodeReqsString(t.Reqs)),
			kube.PodRef(e.p)+" .spec."+t.Where, fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.nodeAffinity}'", e.p.Name, kube.NsFlag(e.p))))
	}
	if len(nodes) == 0 || (len(sel.Reqs) == 0 && len(terms) == 0) {
		cause.Text = withCount(part)
		cause.Culprit = e.spec("nodeSelector/.affinity.nodeAffinity")
		cause.Confidence = rule.Probable
		cause.Actions = []report.Action{check}
		return cause
	}
	// The nodeSelector first: a pair no node carries is the whole story.
	for _, r := range sel.Reqs {
		if len(nodesMatching(nodes, []nodeReq{r})) == 0 {
			return e.affinityMiss(cause, part, "NodeSelector", "nodeSelector", r, sel.Reqs, check)
		}
	}
	allowed := nodesMatching(nodes, sel.Reqs)
	if len(allowed) == 0 {
		closest, has := closestNode(nodes, sel.Reqs)
		cause.Class, cause.Definitive = "NodeSelector", true
		cause.Text = fmt.Sprintf("%s — no node carries all of nodeSelector %s together; closest node %s %s", withCount(part), nodeReqsString(sel.Reqs), closest.Name, has)
		cause.Culprit = fmt.Sprintf("%s %s: no node has all these labels (closest: %s %s)", e.spec("nodeSelector"), nodeReqsString(sel.Reqs), closest.Name, has)
		cause.Actions = []report.Action{e.labelNodeAction(closest, sel.Reqs), check}
		return cause
	}
	if len(terms) > 0 {
		var misses []string
		var firstMiss *nodeReq
		var firstTerm nodeTerm
		var satisfiable []*corev1.Node
		for _, t := range terms {
			if ok := nodesMatching(allowed, t.Reqs); len(ok) > 0 {
				satisfiable = append(satisfiable, ok...)
				continue
			}
			for i, r := range t.Reqs {
				if len(nodesMatching(allowed, []nodeReq{r})) == 0 {
					misses = append(misses, fmt.Sprintf("%s: %s", termLabel(t.Where), r.String()))
					if firstMiss == nil {
						firstMiss, firstTerm = &t.Reqs[i], t
					}
					break
				}
			}
		}
		if len(satisfiable) == 0 {
			if len(terms) == 1 && firstMiss != nil {
				return e.affinityMiss(cause, part, "NodeAffinity", terms[0].Where, *firstMiss, append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...), check)
			}
			closest, has := closestNode(allowed, append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...))
			cause.Class, cause.Definitive = "NodeAffinity", true
			detail := "no node satisfies any required node affinity term"
			if len(misses) > 0 {
				detail += " (" + strings.Join(misses, "; ") + " match no node)"
			}
			cause.Text = fmt.Sprintf("%s — %s; closest node %s %s", withCount(part), detail, closest.Name, has)
			cause.Culprit = fmt.Sprintf("%s: %s", e.spec("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"), detail)
			if firstMiss != nil {
				cause.Culprit = fmt.Sprintf("%s %s: %s", e.spec(firstTerm.Where), firstMiss.String(), detail)
			}
			cause.Actions = []report.Action{e.editAffinityAction(), check}
			return cause
		}
		allowed = uniqueNodes(satisfiable)
	}
	// Some nodes satisfy the selector and affinity: the constraint narrows
	// the choice, the other reasons rule out what is left.
	where := "nodeSelector"
	reqs := sel.Reqs
	if len(terms) > 0 {
		where = "affinity.nodeAffinity"
		reqs = append(append([]nodeReq(nil), sel.Reqs...), terms[0].Reqs...)
	}
	cause.Class = "NodeSelector"
	if len(sel.Reqs) == 0 {
		cause.Class = "NodeAffinity"
	}
	cause.Text = fmt.Sprintf("%s — %s %s allows only %s, which the other reasons rule out", withCount(part), where, nodeReqsString(reqs), kube.NamesUpTo(namesOfNodes(allowed), 3))
	cause.Culprit = fmt.Sprintf("%s %s limits the pod to %s, which the other reasons exclude", e.spec(where), nodeReqsString(reqs), kube.NamesUpTo(namesOfNodes(allowed), 3))
	cause.Confidence = rule.Likely
	cause.Narrowing = true
	cause.Actions = []report.Action{check}
	return cause
}

func uniqueNodes(nodes []*corev1.Node) []*corev1.Node {
	seen := map[string]bool{}
	var out []*corev1.Node
	for _, n := range nodes {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n)
		}
	}
	return out
}

// affinityMiss explains one requirement that no known node satisfies.
func (e *schedContext) affinityMiss(cause schedCause, part schedReason, class, where string, miss nodeReq, all []nodeReq, check report.Action) schedCause {
	nodes := e.c.B.Nodes
	closest, has := closestNode(nodes, all)
	values := nodeLabelValues(nodes, miss.Key)
	if miss.Field {
		values = "node names are " + kube.NamesUpTo(namesOfNodes(nodes), 3)
	}
	cause.Class, cause.Definitive = class, true
	what := "nodeSelector " + miss.String()
	if class == "NodeAffinity" {
		what = termLabel(where) + " " + miss.String()
	}
	cause.Text = fmt.Sprintf("%s — %s matches no node (%s); closest node %s %s", withCount(part), what, values, closest.Name, has)
	cause.Culprit = fmt.Sprintf("%s %s: no node matches (%s; closest node %s %s)", e.spec(where), miss.String(), values, closest.Name, has)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Node labels for %s: %s", miss.Key, values),
		"nodes .metadata.labels", "kubectl get nodes -L "+miss.Key))
	fix := e.editAffinityAction()
	if class == "NodeSelector" {
		fix = e.fixSelectorAction(miss, closest)
	}
	cause.Actions = []report.Action{fix, e.labelNodeAction(closest, all), check}
	return cause
}

func (e *schedContext) fixSelectorAction(miss nodeReq, closest *corev1.Node) report.Action {
	value := "<a value the nodes carry>"
	if v, ok := closest.Labels[miss.Key]; ok {
		value = v
	}
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Correct nodeSelector %s to a label the intended nodes carry.", miss.String()),
		Commands: []string{fmt.Sprintf(`kubectl patch %s %s -p '{"spec":{"template":{"spec":{"nodeSelector":{"%s":"%s"}}}}}'`,
			e.workload(), kube.NsFlag(e.p), miss.Key, value)},
		Risk: e.templateRisk("starts a rollout") + "; the pods then run on the nodes that carry the label"}
	switch e.kind {
	case "pod":
		a.Description += " A pod's nodeSelector cannot change: edit the manifest and recreate it."
		a.Commands = e.recreate(fmt.Sprintf("set spec.nodeSelector.%s: %s", miss.Key, value))
		a.Risk = kube.RecreateRisk
	case "cronjob":
		a.Commands = []string{fmt.Sprintf(`kubectl patch %s %s -p '{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"nodeSelector":{"%s":"%s"}}}}}}}'`,
			e.workload(), kube.NsFlag(e.p), miss.Key, value)}
	}
	if e.kind != "pod" {
		a.Commands = e.templateCommands(a.Commands, fmt.Sprintf("set spec.template.spec.nodeSelector.%s: %s", miss.Key, value))
	}
	return a
}

func (e *schedContext) editAffinityAction() report.Action {
	a := report.Action{Kind: report.Immediate,
		Description: "Correct the required node affinity so that it matches the labels of the intended nodes.",
		Commands:    []string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.nodeAffinity", e.workload(), kube.NsFlag(e.p), podTemplatePath(e.kind))},
		Risk:        e.templateRisk("starts a rollout")}
	a.Commands = e.templateCommands(a.Commands, "fix spec.template.spec.affinity.nodeAffinity")
	if e.kind == "pod" {
		a.Commands = e.recreate("fix spec.affinity.nodeAffinity")
		a.Risk = kube.RecreateRisk
	}
	return a
}

// labelNodeAction proposes labelling the closest node so that it satisfies
// the label requirements that can be met by adding a label.
func (e *schedContext) labelNodeAction(n *corev1.Node, reqs []nodeReq) report.Action {
	var pairs []string
	for _, r := range reqs {
		if r.Field || r.matches(n) {
			continue
		}
		switch r.Op {
		case corev1.NodeSelectorOpIn:
			pairs = append(pairs, r.Key+"="+r.Values[0])
		case corev1.NodeSelectorOpExists:
			pairs = append(pairs, r.Key+"=")
		}
	}
	cmd := fmt.Sprintf("kubectl label node %s %s --overwrite", n.Name, strings.Join(pairs, " "))
	if len(pairs) == 0 {
		cmd = fmt.Sprintf("kubectl label node %s <key>=<value>", n.Name)
	}
	return report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Or, if %s is meant to run the pod, give it the labels the pod asks for.", n.Name),
		Commands:    []string{cmd},
		Risk:        "other workloads selecting on these labels may start landing on that node"}
}

func nodeReqsString(reqs []nodeReq) string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}

func termLabel(where string) string {
	if i := strings.LastIndex(where, "nodeSelectorTerms"); i >= 0 {
		return "node affinity term " + strings.TrimSuffix(strings.TrimPrefix(where[i:], "nodeSelectorTerms["), "]")
	}
	return where
}

func termKeys(sel nodeTerm, terms []nodeTerm) []string {
	var keys []string
	for _, t := range append([]nodeTerm{sel}, terms...) {
		for _, r := range t.Reqs {
			if !r.Field && !slices.Contains(keys, r.Key) {
				keys = append(keys, r.Key)
			}
		}
	}
	return keys
}

// Inter-pod affinity.

func describePodTerm(t corev1.PodAffinityTerm) string {
	sel := "all pods"
	if t.LabelSelector != nil {
		sel = "pods with " + metav1.FormatLabelSelector(t.LabelSelector)
	}
	ns := ""
	if len(t.Namespaces) > 0 {
		ns = " in namespace(s) " + strings.Join(t.Namespaces, ", ")
	}
	if t.NamespaceSelector != nil {
		ns = " in namespaces with " + metav1.FormatLabelSelector(t.NamespaceSelector)
	}
	return fmt.Sprintf("%s%s per %s", sel, ns, topologyKeyText(t.TopologyKey))
}

// topologyKeyText names a topology key; the bundle's redaction may have
// masked it (its name ends in "Key").
func topologyKeyText(key string) string {
	if key == redact.Mask {
		return "a topologyKey masked in the bundle"
	}
	return key
}

const maskedKeyNote = "The topologyKey was masked by the bundle's redaction, so its domains could not be counted; `kubectl get nodes -L <topologyKey>` shows them."

// selectsSelf reports whether a term's selector matches the pod's own labels
// in its own namespace: the one-replica-per-domain pattern.
func selectsSelf(p *corev1.Pod, t corev1.PodAffinityTerm) bool {
	if t.LabelSelector == nil || t.NamespaceSelector != nil || (len(t.Namespaces) > 0 && !slices.Contains(t.Namespaces, p.Namespace)) {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}

// topologyDomains counts nodes per value of a topology label, and the nodes
// without it.
func topologyDomains(nodes []*corev1.Node, key string) (domains map[string][]string, order []string, missing []string) {
	domains = map[string][]string{}
	for _, n := range nodes {
		v, ok := n.Labels[key]
		if !ok {
			missing = append(missing, n.Name)
			continue
		}
		if _, seen := domains[v]; !seen {
			order = append(order, v)
		}
		domains[v] = append(domains[v], n.Name)
	}
	return domains, order, missing
}

func (e *schedContext) podAntiAffinity(part schedReason, _ []string) schedCause {
	var terms []corev1.PodAffinityTerm
	if a := e.p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		terms = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(terms) == 0 {
		return e.podAffinity(part, nil)
	}
	t := terms[0]
	cause := schedCause{Confidence: rule.Probable}
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires anti-affinity: at most one of %s", describePodTerm(t)),
		kube.PodRef(e.p)+" .spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.podAntiAffinity}'", e.p.Name, kube.NsFlag(e.p))))
	domains, _, _ := topologyDomains(e.c.B.Nodes, t.TopologyKey)
	replicas := e.replicas()
	check := report.Action{Kind: report.Check, Description: "See where the pods the term selects run, and the nodes' topology labels.",
		Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", kube.NsFlag(e.p), metav1.FormatLabelSelector(t.LabelSelector)), "kubectl get nodes -L " + t.TopologyKey}}
	if selectsSelf(e.p, t) && replicas > 0 && len(domains) > 0 && int(replicas) > len(domains) {
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Text = fmt.Sprintf("%s — required anti-affinity allows one of %s, and %s wants %d replicas for only %d %s domain(s)",
			withCount(part), describePodTerm(t), e.workload(), replicas, len(domains), t.TopologyKey)
		cause.Culprit = fmt.Sprintf("%s (required, one of %s): %d replicas for %d domain(s)",
			e.spec("affinity.podAntiAffinity"), describePodTerm(t), replicas, len(domains))
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("%s wants %d replicas; the nodes form %d %s domain(s)", e.workload(), replicas, len(domains), t.TopologyKey),
			e.workload()+" .spec.replicas", fmt.Sprintf("kubectl get %s %s -o jsonpath='{.spec.replicas}'", e.workload(), kube.NsFlag(e.p))))
		cause.Actions = []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Run no more replicas than there are %s domains, or add nodes.", t.TopologyKey),
				Commands: []string{fmt.Sprintf("kubectl scale %s %s --replicas=%d", e.workload(), kube.NsFlag(e.p), len(domains))},
				Risk:     "fewer replicas means less capacity and redundancy"},
			{Kind: report.LongTerm, Description: "If spreading is a wish rather than a rule, move the term to preferredDuringSchedulingIgnoredDuringExecution.",
				Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.podAntiAffinity", e.workload(), kube.NsFlag(e.p), podTemplatePath(e.kind))},
					"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".affinity.podAntiAffinity"),
				Risk: e.templateRisk("starts a rollout") + "; two replicas may then share a node or zone"},
			check,
		}
		return cause
	}
	if t.TopologyKey == redact.Mask {
		cause.Notes = append(cause.Notes, maskedKeyNote)
	}
	cause.Text = fmt.Sprintf("%s — required anti-affinity allows at most one of %s, and the allowed domains already run one", withCount(part), describePodTerm(t))
	cause.Culprit = fmt.Sprintf("%s (required, one of %s)", e.spec("affinity.podAntiAffinity"), describePodTerm(t))
	cause.Actions = []report.Action{check}
	return cause
}

func (e *schedContext) podAffinity(part schedReason, _ []string) schedCause {
	var terms []corev1.PodAffinityTerm
	if a := e.p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		terms = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	cause := schedCause{Confidence: rule.Probable}
	if len(terms) == 0 {
		cause.Text = withCount(part)
		cause.Culprit = e.spec("affinity") + " (pod affinity/anti-affinity)"
		cause.Confidence = rule.Moderate
		cause.Actions = []report.Action{{Kind: report.Check, Description: "Read the pod's affinity terms and find the pods they select.",
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity}'", e.p.Name, kube.NsFlag(e.p))}}}
		return cause
	}
	t := terms[0]
	sel := metav1.FormatLabelSelector(t.LabelSelector)
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod requires affinity: to run next to %s", describePodTerm(t)),
		kube.PodRef(e.p)+" .spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.affinity.podAffinity}'", e.p.Name, kube.NsFlag(e.p))))
	cause.Text = fmt.Sprintf("%s — the pod must share its %s with %s, and no such domain has a node that can take it", withCount(part), topologyKeyText(t.TopologyKey), strings.TrimSuffix(describePodTerm(t), " per "+topologyKeyText(t.TopologyKey)))
	cause.Culprit = fmt.Sprintf("%s (required: next to %s)", e.spec("affinity.podAffinity"), describePodTerm(t))
	nsArg := kube.NsFlag(e.p)
	if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
		nsArg = "-A"
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "Find the pods the affinity term points at: none running, or running only where the pod cannot go, explains it.",
			Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", nsArg, sel), "kubectl get nodes -L " + t.TopologyKey}},
		{Kind: report.Immediate, Description: "Start the pods the term needs first, or relax the term to preferredDuringSchedulingIgnoredDuringExecution.",
			Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.affinity.podAffinity", e.workload(), kube.NsFlag(e.p), podTemplatePath(e.kind))},
				"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".affinity.podAffinity"),
			Risk: e.templateRisk("starts a rollout")},
	}
	return cause
}

func (e *schedContext) existingAntiAffinity(part schedReason, _ []string) schedCause {
	own := labels.Set(e.p.Labels).String()
	if own == "" {
		own = "(no labels)"
	}
	return schedCause{
		Confidence: rule.Plausible,
		Text:       fmt.Sprintf("%s — pods already running there carry required anti-affinity that matches this pod's labels (%s)", withCount(part), own),
		Culprit:    fmt.Sprintf("required podAntiAffinity of other pods, matching %s labels %s", kube.PodRef(e.p), own),
		Notes:      []string{"The pods whose anti-affinity repels this one are not in the bundle; the command below lists the pods with required anti-affinity and their nodes."},
		Actions: []report.Action{{Kind: report.Check, Description: "List the pods with required anti-affinity and the nodes they occupy; the ones whose selector matches this pod's labels keep it away.",
			Commands: []string{`kubectl get pods -A -o jsonpath='{range .items[?(@.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution)]}{.metadata.namespace}/{.metadata.name}{"\t"}{.spec.nodeName}{"\t"}{.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].labelSelector}{"\n"}{end}'`}}},
	}
}

// Topology spread.

func (e *schedContext) topologySpread(part schedReason, _ []string) schedCause {
	var cons []corev1.TopologySpreadConstraint
	var idx []int
	for i, t := range e.p.Spec.TopologySpreadConstraints {
		if t.WhenUnsatisfiable == corev1.DoNotSchedule {
			cons, idx = append(cons, t), append(idx, i)
		}
	}
	cause := schedCause{Confidence: rule.Likely}
	if len(cons) == 0 {
		// Cluster-level default constraints apply to pods without their own.
		cause.Text = withCount(part) + " — the pod has no DoNotSchedule constraint of its own: the scheduler's default constraints apply"
		cause.Culprit = "kube-scheduler default topology spread constraints"
		cause.Confidence = rule.Moderate
		cause.Actions = []report.Action{{Kind: report.Check, Description: "Read the scheduler configuration's PodTopologySpread defaults.",
			Commands: []string{"kubectl get nodes -L topology.kubernetes.io/zone,kubernetes.io/hostname"}}}
		return cause
	}
	t := cons[0]
	sel := "all pods"
	if t.LabelSelector != nil {
		sel = metav1.FormatLabelSelector(t.LabelSelector)
	}
	domains, order, missing := topologyDomains(e.c.B.Nodes, t.TopologyKey)
	seen := e.podsPerDomain(t)
	var ds []string
	for _, v := range order[:min(len(order), 6)] {
		ds = append(ds, fmt.Sprintf("%s: %s, %d pod(s) seen", v, nodesCount(len(domains[v])), seen[v]))
	}
	desc := fmt.Sprintf("maxSkew %d on %s for %s", t.MaxSkew, topologyKeyText(t.TopologyKey), sel)
	if t.TopologyKey == redact.Mask {
		cause.Notes = append(cause.Notes, maskedKeyNote)
	}
	where := e.spec(fmt.Sprintf("topologySpreadConstraints[%d]", idx[0]))
	cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("Pod topology spread constraint: %s, whenUnsatisfiable DoNotSchedule", desc),
		kube.PodRef(e.p)+fmt.Sprintf(" .spec.topologySpreadConstraints[%d]", idx[0]),
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.topologySpreadConstraints}'", e.p.Name, kube.NsFlag(e.p))))
	domainInfo := ""
	if len(ds) > 0 {
		domainInfo = "; domains: " + strings.Join(ds, "; ")
	}
	switch {
	case strings.Contains(part.Text, "missing required label"):
		cause.Text = fmt.Sprintf("%s — %s: %s lack the label %s", withCount(part), desc, kube.NamesUpTo(missing, 3), topologyKeyText(t.TopologyKey))
		cause.Culprit = fmt.Sprintf("%s (%s): nodes without label %s: %s", where, desc, t.TopologyKey, kube.NamesUpTo(missing, 3))
		cause.Confidence = rule.Strong
	case t.MinDomains != nil && len(domains) < int(*t.MinDomains):
		cause.Definitive, cause.Confidence = true, rule.Strong
		cause.Text = fmt.Sprintf("%s — %s with minDomains %d, but the nodes form only %d domain(s)%s", withCount(part), desc, *t.MinDomains, len(domains), domainInfo)
		cause.Culprit = fmt.Sprintf("%s (%s, minDomains %d): only %d %s domain(s) exist", where, desc, *t.MinDomains, len(domains), t.TopologyKey)
	default:
		cause.Text = fmt.Sprintf("%s — %s: placing the pod there would exceed the skew%s", withCount(part), desc, domainInfo)
		cause.Culprit = fmt.Sprintf("%s (%s, whenUnsatisfiable DoNotSchedule)", where, desc)
		cause.Notes = append(cause.Notes, "Pod counts per domain are those of the pods seen in this bundle (at most a few per workload); the scheduler counts every matching pod. The domain with the fewest pods is usually the one whose nodes are full, tainted or cordoned: see the other reasons.")
	}
	cause.Actions = []report.Action{
		{Kind: report.Check, Description: "See how the matching pods spread over the domains, and which nodes form each domain.",
			Commands: []string{fmt.Sprintf("kubectl get pods %s -l '%s' -o wide", kube.NsFlag(e.p), sel), "kubectl get nodes -L " + t.TopologyKey}},
		{Kind: report.Immediate, Description: "Give the domain with the fewest pods room for one more (capacity, taints, cordons), or relax the constraint: whenUnsatisfiable ScheduleAnyway or a larger maxSkew.",
			Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.topologySpreadConstraints", e.workload(), kube.NsFlag(e.p), podTemplatePath(e.kind))},
				"fix "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".topologySpreadConstraints"),
			Risk: e.templateRisk("starts a rollout") + "; ScheduleAnyway lets pods pile up in one domain"},
	}
	return cause
}

// podsPerDomain counts the bundle's scheduled pods matching a constraint per
// topology value: a lower bound of what the scheduler counts.
func (e *schedContext) podsPerDomain(t corev1.TopologySpreadConstraint) map[string]int {
	out := map[string]int{}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return out
	}
	for _, p := range e.c.B.Pods {
		if p.Spec.NodeName == "" || p.Namespace != e.p.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if n := e.c.B.Node(p.Spec.NodeName); n != nil {
			if v, ok := n.Labels[t.TopologyKey]; ok {
				out[v]++
			}
		}
	}
	return out
}

func (e *schedContext) hostPort(part schedReason, _ []string) schedCause {
	var ports []string
	for _, ctr := range e.p.Spec.Containers {
		for _, port := range ctr.Ports {
			if port.HostPort > 0 {
				proto := port.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				ports = append(ports, fmt.Sprintf("hostPort %d/%s (container %s)", port.HostPort, proto, ctr.Name))
			}
		}
	}
	cause := schedCause{Confidence: rule.High}
	cause.Text = withCount(part)
	cause.Culprit = e.spec("containers[*].ports[*].hostPort")
	if len(ports) > 0 {
		cause.Text += " — " + strings.Join(ports, ", ")
		cause.Culprit += " " + strings.Join(ports, ", ")
	}
	if r := e.replicas(); r > 0 && len(e.c.B.Nodes) > 0 && int(r) > len(e.c.B.Nodes) {
		cause.Notes = append(cause.Notes, fmt.Sprintf("%s wants %d replicas on %s: a hostPort allows one per node.", e.workload(), r, nodesCount(len(e.c.B.Nodes))))
		cause.Definitive = true
	}
	cause.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Drop the hostPort and expose the pods through a Service, or run no more replicas than nodes.",
		Commands: e.templateCommands([]string{fmt.Sprintf("kubectl edit %s %s   # %s.containers[*].ports[*].hostPort", e.workload(), kube.NsFlag(e.p), podTemplatePath(e.kind))},
			"drop "+strings.TrimPrefix(podTemplatePath(e.kind), ".")+".containers[*].ports[*].hostPort"),
		Risk: e.templateRisk("starts a rollout") + "; clients using the node's port must switch to the Service"}}
	return cause
}

// Volumes.

// podClaims lists the claims the pod mounts, generic ephemeral volumes
// included (their claim is named <pod>-<volume>).
func claimsOfPod(p *corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, p.Name+"-"+v.Name)
		}
	}
	return out
}

func (e *schedContext) missingPVC(part schedReason, m []string) schedCause {
	claim := m[1]
	return schedCause{
		Definitive: true, Confidence: rule.Definitive,
		Text:    fmt.Sprintf("%s — the pod mounts claim %s, which does not exist in namespace %s", part.Text, claim, e.p.Namespace),
		Culprit: fmt.Sprintf("%s persistentVolumeClaim.claimName %s (no such PersistentVolumeClaim)", e.spec("volumes[*]"), claim),
		Evidence: []string{e.c.Evidence(fmt.Sprintf("Pod mounts PersistentVolumeClaim %s", claim), kube.PodRef(e.p)+" .spec.volumes",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.volumes}'", e.p.Name, kube.NsFlag(e.p)))},
		Actions: []report.Action{
			{Kind: report.Immediate, Description: fmt.Sprintf("Create PersistentVolumeClaim %s, or point the volume at the claim that holds the data.", claim),
				Commands: []string{fmt.Sprintf("kubectl get pvc %s", kube.NsFlag(e.p))}},
		},
	}
}

func (e *schedContext) unboundPVC(part schedReason, _ []string) schedCause {
	b := e.c.B
	cause := schedCause{Definitive: true, Confidence: rule.High}
	var unbound []string
	for _, name := range claimsOfPod(e.p) {
		pvc := storage.ClaimNamed(e.c, e.p.Namespace, name)
		if pvc == nil {
			if b.IsMissing("PersistentVolumeClaim", e.p.Namespace, name) {
				unbound = append(unbound, fmt.Sprintf("pvc %s does not exist", name))
			}
			continue
		}
		if pvc.Status.Phase == corev1.ClaimBound {
			continue
		}
		desc, ev := e.claimState(pvc)
		unbound = append(unbound, desc)
		cause.Evidence = append(cause.Evidence, ev...)
	}
	claims := strings.Join(claimsOfPod(e.p), ", ")
	if len(unbound) == 0 {
		cause.Text = fmt.Sprintf("%s (claims %s)", part.Text, claims)
		cause.Culprit = fmt.Sprintf("PersistentVolumeClaim(s) %s of %s", claims, kube.PodRef(e.p))
		cause.Confidence = rule.Probable
	} else {
		cause.Text = fmt.Sprintf("%s — %s", part.Text, strings.Join(unbound, "; "))
		cause.Culprit = strings.Join(unbound, "; ")
		cause.Confidence = rule.Strong
	}
	cause.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Make the claim bindable: an existing StorageClass with a running provisioner, or a PersistentVolume matching its class, size and access modes.",
		Commands:    []string{fmt.Sprintf("kubectl describe pvc %s", kube.NsFlag(e.p)), "kubectl get storageclass", "kubectl get pv"}}}
	return cause
}

// claimState describes why a claim is not bound, from the claim, its class
// and its events.
func (e *schedContext) claimState(pvc *corev1.PersistentVolumeClaim) (string, []string) {
	b := e.c.B
	phase := string(pvc.Status.Phase)
	if phase == "" {
		phase = "Pending"
	}
	desc := fmt.Sprintf("pvc/%s is %s", pvc.Name, phase)
	fact := fmt.Sprintf("PersistentVolumeClaim %s is %s", pvc.Name, phase)
	switch {
	case pvc.Spec.StorageClassName == nil:
		desc += " with no storageClassName (and no default StorageClass applied)"
	case *pvc.Spec.StorageClassName == "":
		desc += ` with storageClassName "" (only a pre-created PV without class can bind it)`
	default:
		class := *pvc.Spec.StorageClassName
		fact += ", storageClass " + class
		switch sc := storage.StorageClassNamed(e.c, class); {
		case sc != nil:
			mode := "Immediate"
			if sc.VolumeBindingMode != nil {
				mode = string(*sc.VolumeBindingMode)
			}
			desc += fmt.Sprintf(" (storageClass %s, provisioner %s, binding %s)", class, sc.Provisioner, mode)
		case b.IsMissing("StorageClass", "", class):
			desc += fmt.Sprintf(" (storageClass %s does not exist)", class)
		default:
			desc += fmt.Sprintf(" (storageClass %s)", class)
		}
	}
	ev := []string{e.c.Evidence(fact, "pvc/"+pvc.Name+" .status.phase", fmt.Sprintf("kubectl get pvc %s %s", pvc.Name, kube.NsFlag(e.p)))}
	if w := lastWarningAbout(b, "PersistentVolumeClaim", pvc.Namespace, pvc.Name); w != nil {
		desc += ": " + kube.FirstLine(w.Message)
		ev = append(ev, e.c.Evidence(fmt.Sprintf("Event %s ×%d on pvc/%s: %s", w.Reason, max(w.Count, 1), pvc.Name, w.Message),
			"event on pvc/"+pvc.Name, fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s", kube.NsFlag(e.p), pvc.Name)))
	}
	return desc, ev
}

func lastWarningAbout(b *bundle.Bundle, kind, ns, name string) *corev1.Event {
	var last *corev1.Event
	for i := range b.Events {
		ev := &b.Events[i]
		if ev.Type == corev1.EventTypeWarning && ev.InvolvedObject.Kind == kind && ev.InvolvedObject.Name == name && ev.InvolvedObject.Namespace == ns {
			last = ev
		}
	}
	return last
}

func (e *schedContext) volumeNodeAffinity(part schedReason, _ []string) schedCause {
	b := e.c.B
	cause := schedCause{Confidence: rule.Probable}
	for _, name := range claimsOfPod(e.p) {
		pvc := storage.ClaimNamed(e.c, e.p.Namespace, name)
		if pvc == nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv := storage.VolumeNamed(e.c, pvc.Spec.VolumeName)
		if pv == nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		var termDesc []string
		var ok []*corev1.Node
		for _, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
			reqs := selectorTermReqs(t)
			termDesc = append(termDesc, nodeReqsString(reqs))
			ok = append(ok, nodesMatching(b.Nodes, reqs)...)
		}
		ok = uniqueNodes(ok)
		affinity := strings.Join(termDesc, " or ")
		cause.Evidence = append(cause.Evidence, e.c.Evidence(fmt.Sprintf("PersistentVolume %s (claim %s) requires nodes with %s", pv.Name, name, affinity),
			"pv/"+pv.Name+" .spec.nodeAffinity", fmt.Sprintf("kubectl get pv %s -o jsonpath='{.spec.nodeAffinity}'", pv.Name)))
		where := fmt.Sprintf("pv/%s .spec.nodeAffinity (%s) of claim %s", pv.Name, affinity, name)
		if len(ok) == 0 {
			cause.Definitive, cause.Confidence = true, rule.Strong
			cause.Text = fmt.Sprintf("%s — pv/%s (claim %s) can only be used on nodes with %s, and no node has that", withCount(part), pv.Name, name, affinity)
			cause.Culprit = where + ": no node matches"
			cause.Actions = []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Bring back a node where pv/%s can attach (a node group in that zone, or the node of a local volume).", pv.Name),
					Commands: []string{"kubectl get nodes -L topology.kubernetes.io/zone", fmt.Sprintf("kubectl get pv %s -o jsonpath='{.spec.nodeAffinity}'", pv.Name)}},
				{Kind: report.Immediate, Description: fmt.Sprintf("Or, if the data can be recreated, delete claim %s so that a new volume is provisioned where the pod can run.", name),
					Commands: []string{fmt.Sprintf("kubectl delete pvc %s %s", name, kube.NsFlag(e.p))},
					Risk:     "destroys the data of the volume if its reclaim policy is Delete"},
				{Kind: report.LongTerm, Description: "Use volumeBindingMode WaitForFirstConsumer in the StorageClass, so volumes are created where the pod is scheduled.",
					Commands: []string{"kubectl get storageclass -o custom-columns=NAME:.metadata.name,BINDING:.volumeBindingMode"}},
			}
			return cause
		}
		cause.Confidence = rule.High
		cause.Text = fmt.Sprintf("%s — pv/%s (claim %s) can only be used on nodes with %s: only %s qualify, and the other reasons rule them out", withCount(part), pv.Name, name, affinity, kube.NamesUpTo(namesOfNodes(ok), 3))
		cause.Culprit = fmt.Sprintf("%s: only %s qualify", where, kube.NamesUpTo(namesOfNodes(ok), 3))
		cause.Narrowing = true
		cause.Actions = []report.Action{{Kind: report.Check, Description: fmt.Sprintf("See why %s cannot take the pod.", kube.NamesUpTo(namesOfNodes(ok), 3)),
			Commands: []string{fmt.Sprintf("kubectl describe node %s", ok[0].Name)}}}
		return cause
	}
	claims := strings.Join(claimsOfPod(e.p), ", ")
	cause.Text = fmt.Sprintf("%s (claims %s)", withCount(part), claims)
	cause.Culprit = fmt.Sprintf("node affinity of the PersistentVolume(s) bound to claim(s) %s", claims)
	cause.Actions = []report.Action{{Kind: report.Check, Description: "Compare the node affinity of the claims' volumes with the nodes' labels.",
		Commands: []string{fmt.Sprintf("kubectl get pvc %s -o custom-columns=NAME:.metadata.name,VOLUME:.spec.volumeName", kube.NsFlag(e.p)),
			"kubectl get pv -o custom-columns=NAME:.metadata.name,AFFINITY:.spec.nodeAffinity.required", "kubectl get nodes -L topology.kubernetes.io/zone"}}}
	return cause
}

// Gates and missing schedulers.

func gatedFinding(c *rule.Pass, p *corev1.Pod, cond *corev1.PodCondition) rule.Finding {
	var gates []string
	for _, g := range p.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	fact := fmt.Sprintf("Pod has scheduling gate(s) %s", strings.Join(gates, ", "))
	if cond != nil {
		fact = fmt.Sprintf("PodScheduled=False (%s): %s; scheduling gate(s): %s", cond.Reason, cond.Message, strings.Join(gates, ", "))
	}
	ev := c.Evidence(fact, kube.PodRef(p)+" .spec.schedulingGates", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulingGates}'", p.Name, kube.NsFlag(p)))
	return rule.Finding{
		Category: rule.Unschedulable.Sub("SchedulingGated"), Verdict: report.Validated, Confidence: rule.Definitive, Evidence: []string{ev},
		Hypothesis: "The pod is held back from scheduling by scheduling gates",
		Title:      fmt.Sprintf("pod is not scheduled: scheduling gate(s) %s hold it back", strings.Join(gates, ", ")),
		Summary:    fmt.Sprintf("Pod %s stays Pending because it carries scheduling gate(s) %s: the scheduler ignores it until they are removed.", p.Name, strings.Join(gates, ", ")),
		Mechanism: "A pod with spec.schedulingGates is not considered by the scheduler at all until every gate is removed; the controller that added the gate " +
			"(a queueing system such as Kueue, or an admission webhook) removes it when it admits the pod.",
		Culprit: fmt.Sprintf("%s .spec.schedulingGates (%s)", kube.PodRef(p), strings.Join(gates, ", ")),
		Actions: []report.Action{
			{Kind: report.Check, Description: "Find the controller that owns the gate (its name usually says which) and why it has not admitted the pod: quota, queue order, a missing resource.",
				Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulingGates}{\"\\n\"}{.metadata.annotations}'", p.Name, kube.NsFlag(p))}},
			{Kind: report.Immediate, Description: "Remove the gates by hand only if the controller that set them is gone.",
				Commands: []string{fmt.Sprintf(`kubectl patch pod %s %s --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'`, p.Name, kube.NsFlag(p))},
				Risk:     "bypasses the quota or ordering the gating controller enforces"},
		},
		Current: true, Strength: rule.Explained, Subject: p.Name,
	}
}

// noSchedulerAfter is how long a pod may wait for its first scheduling
// attempt before the absence of one is a finding.
const noSchedulerAfter = time.Minute

// noSchedulerFinding: a Pending pod without a PodScheduled condition or a
// FailedScheduling event has not been looked at by any scheduler.
func noSchedulerFinding(c *rule.Pass, p *corev1.Pod) (rule.Finding, bool) {
	age := c.Now.Sub(p.CreationTimestamp.Time)
	if p.CreationTimestamp.IsZero() || age < noSchedulerAfter {
		return rule.Finding{}, false
	}
	name := p.Spec.SchedulerName
	if name == "" {
		name = corev1.DefaultSchedulerName
	}
	ev := c.Evidence(fmt.Sprintf("Pod is Pending for %s with no node, no PodScheduled condition and no FailedScheduling event; schedulerName %s", age.Round(time.Second), name),
		kube.PodRef(p)+" .spec.schedulerName, .status.conditions",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulerName}{\"\\n\"}{.status.conditions}'", p.Name, kube.NsFlag(p)))
	f := rule.Finding{
		Category: rule.Unschedulable.Sub("NoScheduler"), Verdict: report.Validated, Evidence: []string{ev},
		Hypothesis: fmt.Sprintf("No scheduler named %s is processing the pod", name),
		Mechanism:  "Each pod is handled only by the scheduler named in spec.schedulerName; if that scheduler is not running (or the name is misspelled) the pod stays Pending with no condition and no event.",
		Current:    true, Strength: rule.Observed, Subject: p.Name,
	}
	if name == corev1.DefaultSchedulerName {
		f.Confidence = rule.Fair
		f.Title = fmt.Sprintf("pod has not been looked at by kube-scheduler in %s: the scheduler may be down", age.Round(time.Second))
		f.Summary = fmt.Sprintf("Pod %s has waited %s without any scheduling attempt; kube-scheduler is probably not running or not leading.", p.Name, age.Round(time.Second))
		f.Culprit = "kube-scheduler (no scheduling attempt recorded)"
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check that kube-scheduler runs and holds the leader lease.",
			Commands: []string{"kubectl get pods -n kube-system -l component=kube-scheduler", "kubectl get lease -n kube-system kube-scheduler"}}}
		return f, true
	}
	f.Confidence = rule.Probable
	f.Title = fmt.Sprintf("pod names scheduler %q, which has not looked at it in %s", name, age.Round(time.Second))
	f.Summary = fmt.Sprintf("Pod %s asks for scheduler %q; no scheduling attempt was recorded in %s, so that scheduler is not running or the name is wrong.", p.Name, name, age.Round(time.Second))
	f.Culprit = fmt.Sprintf("%s .spec.schedulerName (%s)", kube.PodRef(p), name)
	f.Actions = []report.Action{
		{Kind: report.Check, Description: fmt.Sprintf("Find the scheduler deployment that serves %q.", name),
			Commands: []string{"kubectl get pods -A -o wide | grep -i scheduler"}},
		{Kind: report.Immediate, Description: "If the name is a mistake, use the default scheduler.",
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set spec.schedulerName: default-scheduler (or fix the workload template)", p.Name, kube.NsFlag(p), p.Name)},
			Risk:     "the pod must be recreated for a new schedulerName"},
	}
	return f, true
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
