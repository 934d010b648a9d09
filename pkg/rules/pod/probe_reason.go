package pod

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// An HTTP probe answered 4xx/5xx: the kubelet's event has only the status
// code, the application's own log line for the probe's request says why.
// The kubelet sends the pod IP and port as Host and no credentials
// (https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#http-probes),
// so a host check or an authorizer in front of the path refuses it.
const (
	probeHostRejected   probeClass = "HostRejected"   // a Host header check refuses the pod IP
	probeAuthzDenied    probeClass = "AuthzDenied"    // an authorization policy or authorizer refuses the anonymous request
	probeDirectoryIndex probeClass = "DirectoryIndex" // a web server's root has no index file
)

// probeReason is one wording of an application refusing a request, with
// what it means for the probe.
type probeReason struct {
	class    probeClass
	re       *regexp.Regexp
	explains string
}

var probeReasons = []probeReason{
	// Django's CommonMiddleware (django/http/request.py get_host): "Invalid
	// HTTP_HOST header: '10.42.8.201:8000'. You may need to add
	// '10.42.8.201' to ALLOWED_HOSTS."; Rails' HostAuthorization middleware
	// (actionpack host_authorization.rb): "[ActionDispatch::HostAuthorization::
	// DefaultResponseApp] Blocked host: 10.0.5.23" (Rails 7: "Blocked
	// hosts: …"); Next.js-style host validation (gethomepage): "Host
	// validation failed for: 10.1.2.3:3000"; webpack-dev-server's "Invalid
	// Host header".
	{probeHostRejected, regexp.MustCompile(`DisallowedHost|Invalid HTTP_HOST header|HostAuthorization|Blocked hosts?: \S+|Host validation failed for:? \S+|Invalid Host header`),
		"the application rejects the request's Host header: the kubelet sends the pod IP and port as Host, which its allowed-hosts check does not list"},
	// OPA's authorization policy ("request rejected by administrative
	// policy", server/authorizer), Kubernetes' delegated authorizer in an
	// aggregated API server (k8s.io/apiserver filters/authorization.go:
	// `Forbidden: "/healthz", Reason: ""`).
	{probeAuthzDenied, regexp.MustCompile(`rejected by administrative policy|Forbidden: "/[^"]*", Reason:|(?i:authorization (?:denied|failed))`),
		"the application's authorization denies the probe's anonymous request to the health path (the kubelet sends no credentials)"},
	// nginx ngx_http_index_module: `directory index of "%s" is forbidden`:
	// the root has no index file (an empty volume mounted over it).
	{probeDirectoryIndex, regexp.MustCompile(`directory index of "(?P<dir>[^"]+)" is forbidden`),
		"the web server finds no index file in the directory the probe's path maps to, and refuses to list it"},
}

// probeAnswer is the application's reason for failing a probe.
type probeAnswer struct {
	probeReason
	line     string
	prev     bool   // read from the previous instance's log
	volume   string // for a directory: the volume mounted over it
	subject  string // what the fix changes
	causeFix string // the cause's own fix, when the log's class has one
	want     string // for a state: the one the probe waits for,
	asks     string // and the probe's words that ask for it
}

// probeLogReason reads the container's log for the lines written while the
// probe failed that say why the application refused it. The probe's times
// are its failure events' span; a line without a timestamp counts.
func probeLogReason(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, pr *corev1.Probe, failures []corev1.Event) *probeAnswer {
	if pr.HTTPGet == nil || len(failures) == 0 {
		return nil
	}
	from, to := bundle.EventTime(&failures[0]), bundle.EventTime(&failures[0])
	for i := range failures {
		first := failures[i].FirstTimestamp.Time
		if first.IsZero() {
			first = bundle.EventTime(&failures[i])
		}
		if first.Before(from) {
			from = first
		}
		if t := bundle.EventTime(&failures[i]); t.After(to) {
			to = t
		}
	}
	period := time.Duration(defaultIfZero(pr.PeriodSeconds, 10)) * time.Second
	from, to = from.Add(-2*period), to.Add(2*period)
	for _, l := range logs.Readable(c, p, ctr.Name) {
		log := l.Log
		for i := len(log.Events) - 1; i >= 0; i-- {
			ev := &log.Events[i]
			if !ev.Time.IsZero() && (ev.Time.Before(from) || ev.Time.After(to)) {
				continue
			}
			// The raw lines: a JSON request log keeps the reason in a field
			// (OPA's resp_body) its message does not repeat.
			for _, raw := range ev.Raw {
				for _, r := range probeReasons {
					if !r.re.MatchString(raw) {
						continue
					}
					ans := &probeAnswer{probeReason: r, line: strings.TrimSpace(kube.FirstLine(raw)), prev: l.Previous}
					if len(ans.line) > 300 {
						ans.line = ans.line[:297] + "..."
					}
					if m, ok := submatch.Find(r.re, raw); ok && r.class == probeDirectoryIndex {
						ans.volume = volumeOver(p, ctr, m.Get("dir"))
					}
					return ans
				}
			}
		}
	}
	return nil
}

// volumeOver names the volume whose mount holds dir: "volume task-pv-storage
// (PVC task-pv-claim) mounted at /usr/share/nginx/html".
func volumeOver(p *corev1.Pod, ctr *corev1.Container, dir string) string {
	best := -1
	for i, m := range ctr.VolumeMounts {
		mp := strings.TrimSuffix(m.MountPath, "/")
		if (dir == mp || strings.HasPrefix(dir, mp+"/")) && (best < 0 || len(mp) > len(ctr.VolumeMounts[best].MountPath)) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	m := ctr.VolumeMounts[best]
	what := "volume " + m.Name
	for _, v := range p.Spec.Volumes {
		if v.Name != m.Name {
			continue
		}
		switch {
		case v.PersistentVolumeClaim != nil:
			what += " (PVC " + v.PersistentVolumeClaim.ClaimName + ")"
		case v.ConfigMap != nil:
			what += " (ConfigMap " + v.ConfigMap.Name + ")"
		case v.EmptyDir != nil:
			what += " (emptyDir)"
		case v.HostPath != nil:
			what += " (hostPath " + v.HostPath.Path + ")"
		}
	}
	return fmt.Sprintf("%s mounted at %s", what, m.MountPath)
}

// explain is the answer's meaning, with the volume a directory lies on.
func (a *probeAnswer) explain() string {
	if a.volume != "" {
		return a.explains + ": " + a.volume + " hides the image's files there and holds no index file (an empty volume)"
	}
	return a.explains
}

// headline says in a few words what the probe runs into.
func (a *probeAnswer) headline(output string, target probeTarget) string {
	code := "an error"
	if sc := probeStatusCode(output); sc != "" {
		code = "HTTP " + sc
	}
	switch a.class {
	case probeStartupFailed:
		return a.startupHeadline(output, target)
	case probeStateNotReached:
		return a.stateHeadline(target)
	case probeSchemeMismatch:
		return a.schemeHeadline(output, target)
	case probeAppError:
		return a.appErrorHeadline(output, target)
	case probeHostRejected:
		return fmt.Sprintf("gets %s from %s: the application rejects the pod IP the kubelet sends as Host", code, target.Desc)
	case probeAuthzDenied:
		return fmt.Sprintf("gets %s from %s: the application's authorization denies the probe's anonymous request", code, target.Desc)
	}
	what := "the directory"
	if a.volume != "" {
		what = a.volume
	}
	return fmt.Sprintf("gets %s from %s: the web server has no index file in %s", code, target.Desc, what)
}

// fix is what a human changes, by reason.
func (a *probeAnswer) fix(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, kind probeKind) report.Action {
	lower := strings.ToLower(kind.Name)
	switch a.class {
	case probeStartupFailed:
		return a.startupFix(p, ctr)
	case probeStateNotReached:
		return a.stateFix(p, ctr, kind)
	case probeSchemeMismatch:
		return a.schemeFix(c, p, ctr, kind)
	case probeAppError:
		return a.appErrorFix(p, ctr)
	case probeHostRejected:
		return ContainerPatch(c, p, ctr.Name, map[string]any{kind.Field: map[string]any{"httpGet": map[string]any{
			"httpHeaders": []any{map[string]any{"name": "Host", "value": "<a host the application allows, e.g. localhost>"}}}}},
			fmt.Sprintf("Send the %s probe with a Host the application allows (httpGet.httpHeaders Host), or add the pod IPs to its allowed hosts (Django ALLOWED_HOSTS, Rails config.hosts, the application's ALLOWED_HOSTS variable); a health path exempt from the host check also works.", lower), "")
	case probeAuthzDenied:
		return report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Let the %s probe's path through the application's authorization: allow it in the policy (an OPA system.authz rule for the health path), or for an aggregated API server grant nonResourceURLs such as /healthz to system:unauthenticated; or probe a port or path outside the authorizer.", lower),
			Commands:    []string{kube.LogsCmd(p, ctr.Name, a.prev), containerSpecCmd(p, ctr.Name, kind.Field)}}
	}
	return report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Put the site's files (an index file) on the volume the web root lies on, or point the %s probe at a path that exists.", lower),
		Commands:    []string{fmt.Sprintf("kubectl exec %s %s -c %s -- ls -la %s", p.Name, kube.NSFlag(p), ctr.Name, a.dir())}}
}

// dir is the directory a directory-index answer names.
func (a *probeAnswer) dir() string {
	if m, ok := submatch.Find(probeReasons[2].re, a.line); ok {
		return m.Get("dir")
	}
	return "/"
}
