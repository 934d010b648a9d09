package scheduling

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
	corev1 "k8s.io/api/core/v1"
)

// schedReason is one part of a scheduler message: "2 Insufficient cpu".
type schedReason struct {
	Nodes int
	Text  string
}

var schedCountRe = regexp.MustCompile(`^(?P<nodes>\d+)\s+(?P<reason>.+)$`)

// parseSchedulerMessage splits "0/3 nodes are available: 1 Insufficient cpu,
// 2 node(s) had untolerated taint {a: b}. preemption: …" into its parts. The
// reasons end at the first ". " outside braces: what follows is commentary of
// the post-filter plugins (preemption, "no new claims to deallocate").
func parseSchedulerMessage(msg string) (total int, parts []schedReason) {
	msg = strings.TrimSpace(msg)
	if _, rest, ok := strings.Cut(msg, "match all of the following predicates:"); ok {
		return 0, parsePredicates(rest)
	}
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

// predicateCountRe is one reason of the pre-1.9 scheduler: "Insufficient
// cpu (9)", the node count after it.
var predicateCountRe = regexp.MustCompile(`^(?P<reason>.+?)\s*\((?P<nodes>\d+)\)$`)

// parsePredicates splits the pre-1.9 wording "No nodes are available that
// match all of the following predicates:: Insufficient cpu (9),
// MatchNodeSelector (18)." into its parts.
func parsePredicates(rest string) []schedReason {
	var parts []schedReason
	for _, s := range strings.Split(strings.TrimSuffix(strings.TrimSpace(strings.TrimLeft(rest, ": ")), "."), ",") {
		s = strings.TrimSpace(s)
		if m, ok := submatch.Find(predicateCountRe, s); ok {
			n, _ := strconv.Atoi(m.Get("nodes"))
			parts = append(parts, schedReason{Nodes: n, Text: m.Get("reason")})
		} else if s != "" {
			parts = append(parts, schedReason{Text: s})
		}
	}
	return parts
}

func schedPart(s string) schedReason {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if m, ok := submatch.Find(schedCountRe, s); ok {
		n, _ := strconv.Atoi(m.Get("nodes"))
		return schedReason{Nodes: n, Text: m.Get("reason")}
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

// preemptionTried reads the post-filter commentary "preemption: 0/17 nodes
// are available: 15 Preemption is not helpful for scheduling, 2 No
// preemption victims found for incoming pod." and counts the nodes where
// preemption was tried: every part but "not helpful" (those nodes failed
// a filter preemption cannot resolve, such as taints or node affinity).
func preemptionTried(msg string) int {
	_, rest, ok := strings.Cut(msg, "preemption: ")
	if !ok {
		return 0
	}
	if _, after, ok := strings.Cut(rest, " nodes are available: "); ok {
		rest = after
	}
	n := 0
	for _, part := range strings.Split(strings.TrimRight(strings.TrimSpace(rest), "."), ", ") {
		if m, ok := submatch.Find(schedCountRe, strings.TrimSpace(part)); ok && !strings.Contains(m.Get("reason"), "Preemption is not helpful") {
			c, _ := strconv.Atoi(m.Get("nodes"))
			n += c
		}
	}
	return n
}
