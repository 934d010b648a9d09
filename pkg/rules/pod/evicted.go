package pod

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// Evicted is the rule pod/evicted.
var Evicted = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/evicted",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A pod the kubelet evicted for exceeding its own ephemeral-storage or memory use.",
	},
	Check: checkEvicted,
}

var evictCtrLimitRe = regexp.MustCompile(`Container (?P<ctr>\S+) exceeded its local ephemeral storage limit "(?P<limit>[^"]+)"`)

var evictPodLimitRe = regexp.MustCompile(`Pod ephemeral local storage usage exceeds the total limit of containers (?P<limit>[0-9.]+[A-Za-z]*)`)

var evictEmptyDirRe = regexp.MustCompile(`Usage of EmptyDir volume "(?P<volume>[^"]+)" exceeds the limit "(?P<limit>[^"]+)"`)

// Evictions for node pressure ("The node was low on resource: memory")
// and admissions refused for a node condition are the node rules'
// (package node): the node is the cause there, with its conditions and
// events as evidence.
var evictNodeRe = regexp.MustCompile(`The node was low on resource: (memory|ephemeral-storage|nodefs|imagefs|inodes|pids)\.|The node had condition: \[[^\]]*(MemoryPressure|DiskPressure|PIDPressure)`)

// checkEvicted: the kubelet evicted the pod for what the pod itself did
// (a container over its ephemeral-storage limit, an emptyDir over its size
// limit), or for a reason no rule knows.
func checkEvicted(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		msg := p.Status.Message
		if p.Status.Reason != "Evicted" {
			// The kubelet records its Evicted event before the pod's status
			// says so: for a few seconds the pod still runs while it is
			// being killed, and the event alone tells why.
			var last *corev1.Event
			for _, e := range c.B.EventsFor(string(p.UID)) {
				if e.Reason == "Evicted" {
					last = &e
				}
			}
			if last == nil || p.Status.Reason != "" || p.Status.Phase == corev1.PodSucceeded {
				continue
			}
			msg = last.Message
		}
		if evictNodeRe.MatchString(msg) {
			continue
		}
		out = append(out, evictedFinding(c, p, msg))
	}
	return out
}

func evictedFinding(c *rule.Pass, p *corev1.Pod, msg string) rule.Finding {
	node := kube.OrDash(p.Spec.NodeName)
	f := rule.Finding{Verdict: report.Validated, Confidence: rule.Strong, Strength: rule.Explained, Subject: p.Name,
		// An evicted pod of a workload has been replaced: history, unless the
		// pod itself is the target.
		Current: c.B.Target.Kind == "Pod" && c.B.Target.Name == p.Name,

		Mechanism: "The kubelet enforces ephemeral-storage limits itself: a container writing more to its writable layer, logs and emptyDir volumes than its limit, or an emptyDir beyond its sizeLimit, gets the pod evicted whatever the node's state. Evicted pods stay Failed; their controller creates replacements.",
	}
	if p.Status.Reason == "Evicted" {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod phase Failed, reason Evicted: %s", msg),
			kube.PodRef(p)+" .status.reason/.status.message",
			fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.status.reason}{": "}{.status.message}'`, p.Name, kube.NSFlag(p))))
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "Evicted" {
			f.Evidence = append(f.Evidence, podEventEvidence(c, p, &e))
		}
	}
	kind, owner := kube.OwnerName(c, p)
	switch {
	case evictCtrLimitRe.MatchString(msg):
		m, _ := submatch.Find(evictCtrLimitRe, msg)
		ctr, limit := m.Get("ctr"), m.Get("limit")
		f.Category = rule.Evicted.Sub("EphemeralStorageLimit")
		f.Title = fmt.Sprintf("pod was evicted: container %s exceeded its ephemeral-storage limit %s", ctr, limit)
		f.Culprit = fmt.Sprintf("%s container %s resources.limits.ephemeral-storage (%s)", kube.PodRef(p), ctr, limit)
		f.Actions = []report.Action{ContainerPatch(c, p, ctr, map[string]any{"resources": map[string]any{"limits": map[string]any{"ephemeral-storage": "<higher limit>"}}},
			"Raise the container's ephemeral-storage limit to what it really writes, or move the data to a volume (PVC) and rotate logs and temporary files.", "")}
	case evictPodLimitRe.MatchString(msg):
		m, _ := submatch.Find(evictPodLimitRe, msg)
		f.Category = rule.Evicted.Sub("EphemeralStorageLimit")
		f.Title = fmt.Sprintf("pod was evicted: its local storage exceeded the containers' total ephemeral-storage limit %s", m.Get("limit"))
		f.Culprit = fmt.Sprintf("%s resources.limits.ephemeral-storage (total %s)", kube.PodRef(p), m.Get("limit"))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Raise the containers' ephemeral-storage limits or move the data written locally to a PVC.",
			Commands: []string{fmt.Sprintf("kubectl describe %s %s %s", kind, owner, kube.NSFlag(p))}}}
	case evictEmptyDirRe.MatchString(msg):
		m, _ := submatch.Find(evictEmptyDirRe, msg)
		volume, limit := m.Get("volume"), m.Get("limit")
		f.Category = rule.Evicted.Sub("EmptyDirLimit")
		f.Title = fmt.Sprintf("pod was evicted: emptyDir volume %s exceeded its sizeLimit %s", volume, limit)
		f.Culprit = fmt.Sprintf("%s volume %s emptyDir.sizeLimit (%s)", kube.PodRef(p), volume, limit)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Raise emptyDir %s's sizeLimit or make the application clean up what it writes there.", volume),
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.volumes}'", p.Name, kube.NSFlag(p))}}}
	default:
		f.Category = rule.Evicted.Sub("Other")
		f.Confidence = rule.Plausible
		f.Title = fmt.Sprintf("pod was evicted from node %s: %s", node, strings.TrimSpace(msg))
		f.Culprit = fmt.Sprintf("%s (evicted from node %s)", kube.PodRef(p), node)
		f.Mechanism = "The kubelet evicted the pod; its message says why."
		f.Actions = []report.Action{{Kind: report.Check, Description: "Read the eviction message and the node's state.",
			Commands: []string{fmt.Sprintf("kubectl describe node %s", node)}}}
	}
	f.Hypothesis = "The kubelet evicted the pod: " + strings.TrimPrefix(f.Title, "pod was evicted: ")
	f.Summary = fmt.Sprintf("Pod %s was evicted by the kubelet on node %s. Its message: %q.", p.Name, node, strings.TrimSpace(msg))
	if !f.Current {
		f.Summary += " The pod is a leftover: its controller has replaced it."
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Delete the evicted pod once understood (evicted pods are kept for inspection and are not restarted).",
		Commands: []string{fmt.Sprintf("kubectl delete pod %s %s", p.Name, kube.NSFlag(p))}})
	return f
}
