package network

import (
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// dependencyDown is why a dependency Service's own pod is not ready, read
// from the pods the collector followed the Service to (bundle
// DependencyPods): its waiting reason, its last termination, its
// scheduling, and the decisive line of its log. The caller's crash is the
// symptom; this is the cause a fix must address.
type dependencyDown struct {
	Pod      string
	State    string // "CrashLoopBackOff (last exit 1)", "OOMKilled", "Pending: 0/3 nodes …", "ImagePullBackOff"
	LogLine  string
	Evidence []string
}

func (d *dependencyDown) text() string {
	s := fmt.Sprintf("its pod %s is %s", d.Pod, d.State)
	if d.LogLine != "" {
		s += fmt.Sprintf("; its log says %q", d.LogLine)
	}
	return s
}

// downDependency is the first not-ready pod behind svc, or nil when the
// collector did not follow it (or every pod it found is ready).
func downDependency(c *rule.Pass, svc *corev1.Service) *dependencyDown {
	for _, p := range c.B.DependencyPods {
		if p.Namespace != svc.Namespace || !Selects(svc, p) || kube.IsPodReady(p) {
			continue
		}
		d := &dependencyDown{Pod: p.Name, State: podDownState(p)}
		ref := kube.PodRef(p)
		d.Evidence = append(d.Evidence, c.Evidence(fmt.Sprintf("Pod %s behind Service %s is %s", p.Name, svc.Name, d.State),
			ref+" .status", fmt.Sprintf("kubectl get pod %s -n %s -o wide", p.Name, p.Namespace)))
		for _, st := range p.Status.ContainerStatuses {
			cur, prev := c.B.LogsFor(p.Name, st.Name)
			l, previous := prev, true
			if l == nil || l.Text == "" {
				l, previous = cur, false
			}
			if l == nil || l.Text == "" || l.Error != "" {
				continue
			}
			if ds := applog.Decide(l.Text, applog.Options{Max: 1}); len(ds) > 0 {
				d.LogLine = kube.FirstLine(ds[0].Text)
				d.Evidence = append(d.Evidence, c.Evidence(fmt.Sprintf("Log line: %q", d.LogLine),
					fmt.Sprintf("logs of %s container %s (%s instance)", ref, st.Name, kube.Instance(previous)), kube.LogsCmd(p, st.Name, previous)))
				break
			}
		}
		return d
	}
	return nil
}

// podDownState says in a few words why a pod is not ready.
func podDownState(p *corev1.Pod) string {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return fmt.Sprintf("Pending, not scheduled (%s): %s", cond.Reason, kube.FirstLine(cond.Message))
		}
	}
	for _, st := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		last := ""
		if t := st.LastTerminationState.Terminated; t != nil {
			last = fmt.Sprintf("last exit code %d (%s)", t.ExitCode, t.Reason)
		}
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			parts := []string{w.Reason}
			if last != "" {
				parts = append(parts, last)
			}
			if st.RestartCount > 0 {
				parts = append(parts, fmt.Sprintf("%d restarts", st.RestartCount))
			}
			s := fmt.Sprintf("%s (container %s: %s)", w.Reason, st.Name, strings.Join(parts[1:], ", "))
			if len(parts) == 1 {
				s = fmt.Sprintf("%s (container %s)", w.Reason, st.Name)
			}
			if w.Message != "" {
				s += ": " + kube.FirstLine(w.Message)
			}
			return s
		}
		if st.State.Running != nil && !st.Ready {
			if last != "" {
				return fmt.Sprintf("running but not ready (container %s, %s, %d restarts)", st.Name, last, st.RestartCount)
			}
			return fmt.Sprintf("running but not ready (container %s)", st.Name)
		}
	}
	return fmt.Sprintf("not ready (phase %s)", p.Status.Phase)
}

// nameForIP: a dialled IP that is no Service's cluster IP (the log was
// written against an address the reader cannot map) is named by what else
// the failure or the container's configuration says about the same port:
// a host:port in the rest of the error (a driver's topology, a
// "host=postgres" field), or an env value dialling a Service. The first
// such name that is a Service of the namespace wins.
func nameForIP(c *rule.Pass, p *corev1.Pod, ctr string, hosts []string, port string) (host, from string) {
	isService := func(h string) bool {
		svc, _ := bundle.ServiceForHost(c.B.Services, p.Namespace, h)
		return svc != nil
	}
	for _, h := range hosts {
		if net.ParseIP(h) == nil && isService(h) {
			return h, "the rest of the error"
		}
	}
	for _, ct := range p.Spec.Containers {
		if ct.Name != ctr {
			continue
		}
		for _, e := range ct.Env {
			ents := applog.Extract(e.Value)
			for _, ep := range ents.Endpoints {
				h, pt := splitHostPort(ep)
				if (port == "" || pt == port) && net.ParseIP(h) == nil && isService(h) {
					return h, "env " + e.Name
				}
			}
			for _, u := range ents.URLs {
				if h, pt := urlHostPort(u); h != "" && (port == "" || pt == "" || pt == port) && isService(h) {
					return h, "env " + e.Name
				}
			}
		}
	}
	return "", ""
}

// urlHostPort reads scheme://[user@]host[:port]/… loosely (DSNs such as
// mongodb://mongo:27017/db are URLs to url.Parse only sometimes).
func urlHostPort(u string) (string, string) {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.IndexByte(rest, ','); i >= 0 {
		rest = rest[:i]
	}
	return splitHostPort(rest)
}

// configuredService is the Service a connection failure that names no host
// is about: the one the container's env configures (a bare
// SPRING_RABBITMQ_HOST=rabbitmq counts), else the one its command or args
// name (wget http://nginx), else the one its earlier
// connection lines name ("Attempting to connect to: [rabbitmq:5672]"), the
// latest first. Only a Service of the namespace is taken: a guess that
// names nothing in the cluster explains nothing.
func configuredService(c *rule.Pass, p *corev1.Pod, ctr string) (host, port, from string) {
	isService := func(h string) bool {
		svc, _ := bundle.ServiceForHost(c.B.Services, p.Namespace, h)
		return svc != nil
	}
	for _, h := range bundle.EnvHosts(p, ctr) {
		if isService(h) {
			return h, "", "the container's env"
		}
	}
	for _, h := range bundle.ArgHosts(p, ctr) {
		if isService(h) {
			return h, "", "the container's command line"
		}
	}
	cur, prev := c.B.LogsFor(p.Name, ctr)
	for _, l := range []*bundle.ContainerLog{prev, cur} {
		if l == nil || l.Error != "" {
			continue
		}
		for _, ep := range bundle.LoggedEndpoints(l.Text) {
			if h, pt := splitHostPort(ep); isService(h) {
				return h, pt, "an earlier connection line of its log"
			}
		}
	}
	return "", "", ""
}
