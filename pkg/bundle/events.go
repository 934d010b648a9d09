package bundle

// When the events are read, and when the namespace's Services and
// NetworkPolicies are. In a crowded namespace an events list is the
// slowest read (the API server filters every event of the namespace), so
// each starts as soon as its object is known, beside everything else; the
// namespace-wide lists wait for what the pods' own evidence calls for.

import (
	"context"
	"regexp"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// eventReads are the events lists under way: each object's once, at most
// Concurrency at a time.
type eventReads struct {
	mu    sync.Mutex
	asked map[string]bool // by UID; a Node's by "Node/" + name
	sem   chan struct{}
	wg    sync.WaitGroup
}

func (e *eventReads) start(concurrency int) {
	e.asked = map[string]bool{}
	e.sem = make(chan struct{}, max(concurrency, 1))
}

// askEvents starts reading ref's events, once per object.
func (c *collector) askEvents(ctx context.Context, ref fault.Resource) {
	key := ref.UID
	if ref.Kind == "Node" {
		key = "Node/" + ref.Name
	}
	e := &c.ev
	e.mu.Lock()
	if key == "" || key == "Node/" || e.asked[key] {
		e.mu.Unlock()
		return
	}
	e.asked[key] = true
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		select {
		case e.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-e.sem }()
		c.events(ctx, ref)
	}()
}

// startEvents starts the events lists of what is involved before anything
// else is read: the target, its pods, the nodes they run on (when nodes
// are collected) and, for a pod target, its controller, which the pod's
// ownerReference names with its UID.
func (c *collector) startEvents(ctx context.Context, owners []metav1.OwnerReference) {
	if !c.opts.wants(NeedEvents) {
		return
	}
	c.askEvents(ctx, c.b.Target)
	c.mu.Lock()
	pods := append([]*corev1.Pod(nil), c.b.Pods...)
	c.mu.Unlock()
	for _, p := range pods {
		c.askEvents(ctx, fault.Resource{APIVersion: "v1", Kind: "Pod", Name: p.Name, Namespace: p.Namespace, UID: string(p.UID)})
		if n := p.Spec.NodeName; n != "" && c.opts.wants(NeedNodes) {
			c.askEvents(ctx, fault.Resource{APIVersion: "v1", Kind: "Node", Name: n})
		}
	}
	if ref := controllerOf(owners); ref != nil && eventWorthy[ref.Kind] {
		if _, _, known := c.ownerGetter(c.b.Target.Namespace, ref.Kind); known {
			c.askEvents(ctx, fault.Resource{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Namespace: c.b.Target.Namespace, UID: string(ref.UID)})
		}
	}
}

// remainingEvents reads the events of the involved objects found later
// (owners up the chain, claims and volumes, autoscalers, a workload's
// ReplicaSets) and waits for every events list.
func (c *collector) remainingEvents(ctx context.Context) {
	if c.opts.wants(NeedEvents) && ctx.Err() == nil {
		c.mu.Lock()
		podNodes := map[string]bool{}
		for _, p := range c.b.Pods {
			podNodes[p.Spec.NodeName] = true
		}
		quiet := idleOldReplicaSets(c.b.ReplicaSets)
		c.mu.Unlock()
		for _, ref := range c.involved() {
			if ref.UID == "" || quiet[ref.UID] || (!eventWorthy[ref.Kind] && ref.UID != c.b.Target.UID) {
				continue
			}
			// Only the nodes the pods run on: a listed node pool is context
			// for the scheduler's message, not a suspect.
			if ref.Kind == "Node" && ref.UID != c.b.Target.UID && !podNodes[ref.Name] {
				continue
			}
			// The namespace's Services listed for a pod or Deployment
			// target are context (which of them select it): reading their
			// events would grow with the namespace.
			if ref.Kind == "Service" && c.b.Target.Kind != "Service" && c.b.Target.Kind != "Ingress" {
				continue
			}
			c.askEvents(ctx, ref)
		}
	}
	c.ev.wg.Wait()
	c.goneJobPodEvents(ctx)
}

// NamespaceListsWanted reports whether the evidence of a pod or workload
// target calls for its namespace's Services and NetworkPolicies: one of
// its pods does not fail on its own (a running pod, ready or not, is where
// a Service that misses it or a policy that isolates it is the fault, and
// a healthy verdict must have read both), or a log fails to reach a host
// (a dependency's Service, or a policy dropping the traffic) or has its
// login refused (the dependency's Service), or refuses the version of a
// server it talks to (that server's Service). A pod whose
// containers crash, cannot start or cannot be placed fails whatever
// selects or isolates it: the health model reads it as failing with or
// without the lists, and no rule traces its failure to them.
func NamespaceListsWanted(b *Bundle) bool {
	for _, p := range b.Pods {
		if !failsOnItsOwn(p) {
			return true
		}
	}
	for _, l := range b.Logs {
		if l.Error == "" && (connectionFailure(l.Text) || settingRejected(b, l) || len(peerEvents(l.Text)) > 0) {
			return true
		}
	}
	return false
}

// settingWords: a crash's last lines about a host or port setting, or
// quoting a value only the kubelet writes (tcp://<cluster IP>:<port>).
var settingWords = regexp.MustCompile(`(?i)\b(port|host|addr|address)\b|tcp://`)

// settingRejected: the container's last log lines reject a host or port
// setting while its pod takes the Service-link variables the kubelet
// injects for every Service of the namespace (enableServiceLinks, on by
// default): a Service named like the application's own configuration
// prefix is then where the value came from, and only the Services say so.
func settingRejected(b *Bundle, l ContainerLog) bool {
	p := b.Pod(l.Pod)
	if p == nil || p.Spec.EnableServiceLinks != nil && !*p.Spec.EnableServiceLinks {
		return false
	}
	lines := strings.Split(strings.TrimRight(l.Text, "\n"), "\n")
	return settingWords.MatchString(strings.Join(lines[max(0, len(lines)-4):], "\n"))
}

// failsOnItsOwn: the pod is Failed or unscheduled, or one of its
// containers waits on an error or has exited non-zero, now — what the
// health model's pod checks fail on, whatever else the namespace holds.
func failsOnItsOwn(p *corev1.Pod) bool {
	switch {
	case p.DeletionTimestamp != nil:
		return false
	case p.Status.Phase == corev1.PodFailed:
		return true
	case p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending:
		return true
	}
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, s := range statuses {
		if w := s.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
			return true
		}
		if t := s.State.Terminated; t != nil && t.ExitCode != 0 {
			return true
		}
	}
	return false
}

// connectionFailure: one of the log's decisive lines fails to reach a
// host (a name that does not resolve, a refused, reset or timed-out
// connection) or to log in to it (its Service, then its own log, say why).
func connectionFailure(text string) bool {
	if text == "" {
		return false
	}
	for _, d := range applog.Decide(text, applog.Options{Max: 10}) {
		for _, s := range d.Signals {
			if dependencySignals[s] {
				return true
			}
		}
	}
	return false
}

// pullReasons are the waiting reasons of a container whose image cannot be
// pulled (the kubelet's image manager).
var pullReasons = map[string]bool{"ImagePullBackOff": true, "ErrImagePull": true, "InvalidImageName": true, "ErrImageNeverPull": true}

// PullFailing: a container of the pods waits because its image cannot be
// pulled. Only then is a pod target's ServiceAccount read, for its
// imagePullSecrets (where the pull credentials come from): an existing
// pod's account existed when it was admitted, and nothing else about a pod
// target reads it. A workload's account is read whatever its pods show:
// without it the controller can create none.
func PullFailing(pods []*corev1.Pod) bool {
	for _, p := range pods {
		for _, s := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			if w := s.State.Waiting; w != nil && pullReasons[w.Reason] {
				return true
			}
		}
	}
	return false
}
