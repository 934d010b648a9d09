package kube

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// Controller is the controller an object waits on as the collector found
// it (bundle.Actor): its pod, that pod's state and what its log says.
type Controller struct {
	Actor *bundle.Actor
	// Pod is the first pod down, else the first pod; nil when the search
	// found none.
	Pod   *corev1.Pod
	Ref   string // "pod ns/name"
	State string
	Down  bool
	// Image is what the controller's container runs: an old controller
	// against a newer API server is fixed by its version.
	Image string
	// Line is the decisive line of its log, preferring the lines that name
	// what waits (a claim's namespace/name); "" when the log says nothing.
	// About: the line names the waiting object.
	Line     string
	About    bool
	Evidence []string
}

// ControllerOf reads the collector's search for the controller of role
// that forObj ("pvc/data") waits on; nil when no search was made. about,
// when not "", is what the controller's lines must name to be about the
// waiting object.
func ControllerOf(c *rule.Pass, role bundle.ActorRole, forObj string, about ...string) *Controller {
	return readController(c, role, forObj, about, true)
}

// ControllerSeen is ControllerOf citing nothing: for a health check.
func ControllerSeen(c *rule.Pass, role bundle.ActorRole, forObj string, about ...string) *Controller {
	return readController(c, role, forObj, about, false)
}

// ControllerFailing reports whether the controller of role that forObj
// waits on was found down or logging an error, citing nothing.
func ControllerFailing(c *rule.Pass, role bundle.ActorRole, forObj string) bool {
	k := readController(c, role, forObj, nil, false)
	return k != nil && k.Pod != nil && (k.Down || k.Line != "")
}

// readController is ControllerOf; cite files the facts as evidence.
func readController(c *rule.Pass, role bundle.ActorRole, forObj string, about []string, cite bool) *Controller {
	a := c.B.Actor(role, forObj)
	if a == nil {
		return nil
	}
	k := &Controller{Actor: a}
	pods := c.B.ActorPods(a)
	if len(pods) == 0 {
		return k
	}
	k.Pod = pods[0]
	for _, p := range pods {
		if !IsPodReady(p) {
			k.Pod = p
			break
		}
	}
	// Several installations may claim the object (two controllers of one
	// class): the one whose log names it is the one serving it.
	if len(about) > 0 {
		for _, p := range pods {
			if _, _, named := podLine(c, p, a.Container, about); named {
				k.Pod = p
				break
			}
		}
	}
	p := k.Pod
	k.Ref = "pod " + p.Namespace + "/" + p.Name
	k.State, k.Down = PodState(p)
	runs := ""
	if a.Workload != "" {
		runs = " (" + a.Workload + ")"
	}
	if cite {
		k.Evidence = append(k.Evidence, c.Evidence(fmt.Sprintf("Pod %s%s, which runs %s %s, is %s", k.Ref, runs, a.Role, a.Name, k.State),
			k.Ref+" .status", fmt.Sprintf("kubectl get pod %s -n %s -o wide", p.Name, p.Namespace)))
	}
	for i, ctr := range p.Spec.Containers {
		if ctr.Name == a.Container || i == 0 {
			k.Image = ctr.Image
		}
	}
	containers := p.Status.ContainerStatuses
	if a.Container != "" {
		containers = append([]corev1.ContainerStatus{{Name: a.Container}}, containers...)
	}
	for _, st := range containers {
		d, prev, named := controllerLine(c, p, st.Name, about)
		if d == nil {
			continue
		}
		k.Line, k.About = d.Line, named
		if cite {
			k.Evidence = append(k.Evidence, c.Evidence(fmt.Sprintf("Log line: %q", d.Line),
				fmt.Sprintf("logs of %s container %s (%s instance)", k.Ref, st.Name, Instance(prev)), LogsCmd(p, st.Name, prev)))
		}
		break
	}
	return k
}

// podLine is controllerLine over the pod's containers, the named one
// first.
func podLine(c *rule.Pass, p *corev1.Pod, container string, about []string) (*logs.Decisive, bool, bool) {
	names := []string{container}
	for _, st := range p.Status.ContainerStatuses {
		names = append(names, st.Name)
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if d, prev, named := controllerLine(c, p, n, about); d != nil {
			return d, prev, named
		}
	}
	return nil, false, false
}

// controllerLine is the decisive line of a controller's log: among the
// lines that name something of the waiting object when any does (a
// provisioner logs every claim it handles, a proxy every host), else of
// the whole log; named says which.
func controllerLine(c *rule.Pass, p *corev1.Pod, container string, about []string) (d *logs.Decisive, previous, named bool) {
	cur, prev := c.B.LogsFor(p.Name, container)
	for _, l := range []struct {
		entry *bundle.ContainerLog
		prev  bool
	}{{prev, true}, {cur, false}} {
		if l.entry == nil || l.entry.Error != "" || l.entry.Text == "" {
			continue
		}
		var lines []string
		for _, line := range strings.Split(l.entry.Text, "\n") {
			if namesAny(line, about) {
				lines = append(lines, line)
			}
		}
		if d := logs.FindDecisive(strings.Join(lines, "\n")); len(lines) > 0 && d != nil {
			return d, l.prev, true
		}
		if d := logs.FindDecisive(l.entry.Text); d != nil {
			return d, l.prev, false
		}
	}
	return nil, false, false
}

// namesAny: the line contains one of the (non-empty) terms.
func namesAny(line string, terms []string) bool {
	for _, t := range terms {
		if t != "" && strings.Contains(line, t) {
			return true
		}
	}
	return false
}

// deniedRe is the API server refusing a read in a client's log: `cannot
// list resource "csidrivers" in API group "storage.k8s.io"`.
var deniedRe = regexp.MustCompile(`cannot (get|list|watch) resource "([^"]+)" in API group "([^"]*)"`)

// Denial is what a controller's log says its ServiceAccount may not
// read: what its ClusterRole lacks.
type Denial struct {
	Namespace, Account string
	// Resources are "csidrivers.storage.k8s.io", each once, in the order
	// first logged, with the verb the API server refused.
	Resources []string
	verbs     []string
}

// Denied reads the denials of the controller's logs; ok is false when
// there is none.
func (k *Controller) Denied(c *rule.Pass) (d Denial, ok bool) {
	if k.Pod == nil {
		return d, false
	}
	d.Namespace, d.Account = k.Pod.Namespace, k.Pod.Spec.ServiceAccountName
	for _, st := range k.Pod.Status.ContainerStatuses {
		cur, prev := c.B.LogsFor(k.Pod.Name, st.Name)
		for _, l := range []*bundle.ContainerLog{prev, cur} {
			if l == nil || l.Error != "" {
				continue
			}
			for _, m := range deniedRe.FindAllStringSubmatch(l.Text, -1) {
				r := m[2]
				if m[3] != "" {
					r += "." + m[3]
				}
				if !slices.Contains(d.Resources, r) {
					d.Resources, d.verbs = append(d.Resources, r), append(d.verbs, m[1])
				}
			}
		}
	}
	return d, len(d.Resources) > 0
}

// List is the resources, comma-separated.
func (d Denial) List() string { return strings.Join(d.Resources, ", ") }

// Clause is the culprit's "; its ServiceAccount x may not read …".
func (d Denial) Clause() string {
	return fmt.Sprintf("; its ServiceAccount %s may not read %s", d.Account, d.List())
}

// Checks are the `kubectl auth can-i` commands that show each refusal,
// with the verb the log names.
func (d Denial) Checks() []string {
	var out []string
	for i, r := range d.Resources {
		out = append(out, fmt.Sprintf("kubectl auth can-i %s %s --as=system:serviceaccount:%s:%s", d.verbs[i], r, d.Namespace, d.Account))
	}
	return out
}
