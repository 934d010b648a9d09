package network

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// serverRefusal is the refused login as the dependency's own log states
// it: the line, the user and the class's row that words the reason.
type serverRefusal struct {
	Pod      string
	LogsCmd  string // the command that shows its log
	Dec      *logs.Decisive
	Evidence string
}

// refusingServer is the refusal in the log of a ready pod behind svc
// (the collector reads one such log only after a refused login, DESIGN.md
// §7); nil when none of the logs read says it refused a login.
func refusingServer(c *rule.Pass, svc *corev1.Service) *serverRefusal {
	for _, p := range c.B.DependencyPods {
		if p.Namespace != svc.Namespace || !Selects(svc, p) || !kube.IsPodReady(p) {
			continue
		}
		for _, st := range p.Status.ContainerStatuses {
			cur, _ := c.B.LogsFor(p.Name, st.Name)
			if cur == nil || cur.Text == "" || cur.Error != "" {
				continue
			}
			if d := logs.LastOfClass(cur.Text, logs.AuthFailed); d != nil {
				ev := c.Evidence(fmt.Sprintf("Log line of Service %s's pod %s: %q", svc.Name, p.Name, d.Line),
					fmt.Sprintf("logs of %s container %s (current instance)", kube.PodRef(p), st.Name), kube.LogsCmd(p, st.Name, false))
				return &serverRefusal{Pod: p.Name, LogsCmd: kube.LogsCmd(p, st.Name, false), Dec: d, Evidence: ev}
			}
		}
	}
	return nil
}

// authFinding: the application's login is refused by a Service that has
// ready endpoints, and the server's own log says why. The server's line,
// its user and its reason's fix are the root cause; nil when the Service
// does not serve or its log was not read or says nothing of it (the crash
// finding's AuthFailed stands).
func authFinding(c *rule.Pass, p *corev1.Pod, crash rule.Finding, dec *logs.Decisive, host, port, from string) *rule.Finding {
	svc, _ := bundle.ServiceForHost(c.B.Services, p.Namespace, host)
	if svc == nil {
		return nil
	}
	ep := EndpointsOf(c, svc)
	if len(ep.Ready) == 0 {
		return nil
	}
	srv := refusingServer(c, svc)
	if srv == nil {
		return nil
	}
	hp := host
	if port != "" {
		hp = host + ":" + port
	}
	named := fmt.Sprintf("%s, from %s", hp, from)
	lead := crashLead(crash)
	user := ""
	if u := srv.Dec.Entities.Users; len(u) > 0 {
		user = u[0]
	} else if u := dec.Entities.Users; len(u) > 0 {
		user = u[0]
	}
	as := ""
	if user != "" {
		as = fmt.Sprintf(" for user %s", user)
	}
	f := crash
	f.Strength, f.Confidence = rule.Traced, rule.Strong
	if !strings.Contains(string(crash.Category), "/"+logs.AuthFailed.String()) {
		f.Category = crash.Category.Sub(logs.AuthFailed.String())
	}
	f.Category = f.Category.Sub("ServerRefusedLogin")
	f.Title = fmt.Sprintf("%s: Service %s (%s) answers but refuses the login%s; its pod %s logs %q", lead, svc.Name, named, as, srv.Pod, srv.Dec.Line)
	f.Hypothesis = fmt.Sprintf("Service %s's server refuses the application's login%s: %s", svc.Name, as, srv.Dec.Pattern.Explains)
	f.Culprit = fmt.Sprintf("%s (%s): pod %s refuses the login%s: %q", svcRef(svc), named, srv.Pod, as, srv.Dec.Line)
	f.Contributing = append(slices.Clone(crash.Contributing),
		fmt.Sprintf("The application's log says: %q.", dec.Line),
		fmt.Sprintf("Service %s has %d ready endpoint(s): the server answers; the refusal is its own.", svc.Name, len(ep.Ready)))
	f.Evidence = append(slices.Clone(crash.Evidence),
		c.Evidence(fmt.Sprintf("Service %s exposes %s; %s", svc.Name, servicePorts(svc), ep.Summary()),
			svcRef(svc)+" and its EndpointSlices", fmt.Sprintf(serviceEndpointsSelector, p.Namespace, svc.Name)),
		srv.Evidence)
	f.Mechanism = fmt.Sprintf("The connection reaches the server, which checks the login against its own users and rules and refuses it; the client often reports only that it could not log in, the server's log says why. %s", crash.Mechanism)
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: srv.Dec.Pattern.Fix,
		Commands:    []string{srv.LogsCmd}}}, crash.Actions...)
	f.Summary = fmt.Sprintf("%s. %s", upper(f.Title), crash.Summary)
	return &f
}
