package workload

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// StatefulSetOrdinals is the rule workload/statefulset-ordinals.
var StatefulSetOrdinals = &rule.Rule{
	Meta: rule.Meta{
		ID:       "workload/statefulset-ordinals",
		Kinds:    []string{"StatefulSet", "Pod"}, // a Pod: the deadlock from its side
		Layer:    rule.WorkloadLayer,
		Requires: PodLevel,
		Needs:    append([]rule.Need{rule.Claims}, Needs...),
		Doc:      "A StatefulSet whose ordered rollout is blocked by one ordinal; from a pod target, the blocking pod waiting for the peers OrderedReady holds back.",
	},
	Check: checkStatefulSetOrdinals,
}

// ordinalOf parses the ordinal of a StatefulSet pod named <set>-<n>.
func ordinalOf(set, pod string) (int32, bool) {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	return int32(n), err == nil
}

// checkStatefulSetOrdinals: with podManagementPolicy OrderedReady the
// controller creates pod N+1 only once pod N is Running and Ready, so one
// unready pod blocks every higher ordinal.
func checkStatefulSetOrdinals(c *rule.Pass) []rule.Finding {
	s := kube.TargetOf(c, "StatefulSet", c.B.StatefulSets)
	if s == nil {
		return podSideDeadlock(c)
	}
	if s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
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
		if n, ok := ordinalOf(s.Name, p.Name); ok {
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
	return []rule.Finding{ordinalFinding(c, s, blocker, pods[blocker], missing)}
}

// podSideDeadlock is the peer deadlock seen from a pod target: the pod is
// its StatefulSet's highest ordinal created, not Ready, while ordinals above
// it are wanted and its log waits for them. The bundle of a pod holds its
// StatefulSet but not its siblings, so which pods exist is read from the
// StatefulSet's status: OrderedReady creates them in order. Only the
// deadlock is said from this side; any other reason the pod is not Ready
// is its own finding's.
func podSideDeadlock(c *rule.Pass) []rule.Finding {
	if c.B.Target.Kind != "Pod" {
		return nil
	}
	p := kube.PodNamed(c, c.B.Target.Name)
	if p == nil || kube.IsPodReady(p) {
		return nil
	}
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind != "StatefulSet" {
		return nil
	}
	var s *appsv1.StatefulSet
	for _, x := range c.B.StatefulSets {
		if x.UID == ref.UID && x.Namespace == p.Namespace {
			s = x
		}
	}
	if s == nil || s.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
		return nil
	}
	want := kube.ReplicasOf(s.Spec.Replicas)
	start := int32(0)
	if s.Spec.Ordinals != nil {
		start = s.Spec.Ordinals.Start
	}
	n, ok := ordinalOf(s.Name, p.Name)
	if !ok || s.Status.Replicas >= want || n != start+s.Status.Replicas-1 {
		return nil
	}
	var missing []string
	for i := n + 1; i < start+want; i++ {
		missing = append(missing, fmt.Sprintf("%s-%d", s.Name, i))
	}
	f := ordinalFinding(c, s, n, p, missing)
	if f.Category != peerDeadlock {
		return nil
	}
	return []rule.Finding{f}
}

func ordinalFinding(c *rule.Pass, s *appsv1.StatefulSet, ordinal int32, p *corev1.Pod, missing []string) rule.Finding {
	want := kube.ReplicasOf(s.Spec.Replicas)
	name := fmt.Sprintf("%s-%d", s.Name, ordinal)
	f := rule.Finding{Category: rule.StatefulSet.Sub("OrdinalBlocked"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: s.Name}
	evidence := []string{c.Evidence(
		fmt.Sprintf("StatefulSet %s: %d desired, %d pods exist, %d ready (podManagementPolicy %s)", s.Name, want, s.Status.Replicas, s.Status.ReadyReplicas, orDefaultPolicy(s.Spec.PodManagementPolicy)),
		fmt.Sprintf("statefulset/%s .status", s.Name), fmt.Sprintf("kubectl get statefulset %s -n %s", s.Name, s.Namespace))}
	blocked := "no further pod"
	if len(missing) > 0 {
		blocked = strings.Join(missing, ", ")
	}
	f.Mechanism = "With podManagementPolicy OrderedReady (the default) the StatefulSet controller creates pods one at a time in ordinal order and waits for each to be Running and Ready before it creates the next; while a pod is unready, every higher ordinal waits."
	f.Actions = []report.Action{
		{Kind: report.Check, Description: fmt.Sprintf("Look at %s, the pod every other one waits for.", name),
			Commands: []string{fmt.Sprintf("kubectl describe pod %s -n %s", name, s.Namespace), fmt.Sprintf("kubectl get pods -n %s -l %s", s.Namespace, selectorString(s.Spec.Selector))}},
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
	state, ev := kube.DescribePod(c, p)
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
	if peers := awaitedPeers(c, s, p, missing); len(peers) > 0 {
		deadlockFinding(c, s, &f, name, blocked, peers)
		f.Evidence = evidence
		return f
	}
	if cause := causes[p.Name]; cause != nil {
		// The pod's own finding is the root cause; this one gives the
		// StatefulSet's view of it.
		f.Confidence = rule.Even
		f.Context = true
		f.Title = fmt.Sprintf("statefulset %s is stuck at %d/%d ready: %s (%s) blocks %s", s.Name, s.Status.ReadyReplicas, want, name, cause.Title, blocked)
		f.Culprit = fmt.Sprintf("pod/%s (ordinal %d): %s", name, ordinal, cause.Culprit)
		f.Contributing = append(f.Contributing,
			fmt.Sprintf("StatefulSet %s is stuck at %d/%d ready: with podManagementPolicy %s it creates %s only once %s (ordinal %d) is Ready.", s.Name, s.Status.ReadyReplicas, want, orDefaultPolicy(s.Spec.PodManagementPolicy), blocked, name, ordinal),
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

// awaitedPeers are the missing ordinals whose stable DNS names
// (<pod>.<serviceName>) the blocking pod's log names: it waits for peers
// the controller creates only once it is Ready (a clustered server that
// needs a quorum before its readiness probe passes). Only a pod whose
// containers run waits: one that crash-loops has a cause of its own.
func awaitedPeers(c *rule.Pass, s *appsv1.StatefulSet, p *corev1.Pod, missing []string) []string {
	if len(missing) == 0 {
		return nil
	}
	// A pod crash-looping on a cause of its own is not waiting for peers.
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Running == nil {
			return nil
		}
	}
	self := p.Name + "."
	if s.Spec.ServiceName != "" {
		self += s.Spec.ServiceName
	}
	var out []string
	for _, m := range missing {
		host := m + "."
		if s.Spec.ServiceName != "" {
			host += s.Spec.ServiceName
		}
	logs:
		for _, l := range c.B.Logs {
			if l.Namespace != p.Namespace || l.Pod != p.Name {
				continue
			}
			for _, line := range strings.Split(l.Text, "\n") {
				// A line that names the pod itself too is a member list
				// (Cassandra's seeds), not a wait for one peer.
				if namesHost(line, host) && !namesHost(line, self) {
					out = append(out, m)
					break logs
				}
			}
		}
	}
	return out
}

// namesHost reports whether line names host as a whole DNS label
// sequence: "web-1.web" in "dial web-1.web:7000", not in
// "myweb-1.web".
func namesHost(line, host string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], host)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isLabelByte(line[at-1]) {
			return true
		}
		i = at + 1
	}
}

func isLabelByte(b byte) bool {
	return b == '-' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// peerDeadlock is the category of a blocking pod that waits for its peers.
var peerDeadlock = rule.StatefulSet.Sub("OrdinalBlocked", "PeerDeadlock")

// deadlockFinding: the blocking pod waits for the very peers OrderedReady
// holds back until it is Ready. No fix of the pod alone ends it; the
// StatefulSet must start its pods in parallel (and its headless Service
// publish unready addresses, so the peers resolve before they are Ready).
func deadlockFinding(c *rule.Pass, s *appsv1.StatefulSet, f *rule.Finding, name, blocked string, peers []string) {
	f.Category = peerDeadlock
	f.Strength, f.Confidence, f.Context = rule.Traced, rule.Strong, false
	f.Hypothesis = fmt.Sprintf("%s waits for peers %s, which OrderedReady creates only once %s is Ready", name, strings.Join(peers, ", "), name)
	f.Title = fmt.Sprintf("statefulset %s is deadlocked: %s is not Ready until it reaches its peers %s, and with OrderedReady %s are created only once %s is Ready", s.Name, name, strings.Join(peers, ", "), blocked, name)
	f.Summary = fmt.Sprintf("StatefulSet %s starts its pods in order (podManagementPolicy %s) and waits for %s to be Ready, while %s's log shows it trying to reach %s, pods that do not exist yet.", s.Name, orDefaultPolicy(s.Spec.PodManagementPolicy), name, name, strings.Join(peers, ", "))
	f.Culprit = fmt.Sprintf("statefulset/%s podManagementPolicy %s: %s waits for %s", s.Name, orDefaultPolicy(s.Spec.PodManagementPolicy), name, strings.Join(peers, ", "))
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("The log of %s names the stable DNS names of %s (<pod>.%s)", name, strings.Join(peers, ", "), s.Spec.ServiceName),
		"logs of pod/"+name, fmt.Sprintf("kubectl logs %s -n %s --tail=50", name, s.Namespace)))
	parallel := f.Actions[len(f.Actions)-1] // the podManagementPolicy: Parallel action
	parallel.Kind = report.Immediate
	parallel.Description = "Start the pods in parallel (podManagementPolicy: Parallel), so every peer exists while the first waits for a quorum; the field is immutable, so the StatefulSet must be recreated without deleting its pods."
	f.Actions = []report.Action{parallel}
	if s.Spec.ServiceName != "" {
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Let the peers resolve before they are Ready: set publishNotReadyAddresses: true on headless Service %s.", s.Spec.ServiceName),
			Commands:    []string{fmt.Sprintf(`kubectl patch service %s -n %s -p '{"spec":{"publishNotReadyAddresses":true}}'`, s.Spec.ServiceName, s.Namespace)},
			Risk:        "clients that use the Service's DNS see pods that are not Ready yet"})
	}
	f.Contributing = append(f.Contributing, fmt.Sprintf("%s's readiness depends on the quorum it forms with its peers, so it cannot become Ready alone.", name))
}

func orDefaultPolicy(p appsv1.PodManagementPolicyType) string {
	if p == "" {
		return string(appsv1.OrderedReadyPodManagement)
	}
	return string(p)
}
