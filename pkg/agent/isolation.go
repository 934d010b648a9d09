package agent

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/atomicfile"
	"github.com/kubectl-triage/kubectl-triage/pkg/egress"
	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// chooseSandbox picks the strongest isolation this host offers.
func (e *Exec) chooseSandbox() error {
	look := e.lookPath
	e.sandboxMode = sandbox.ModeNone
	switch e.Isolation {
	case SandboxOff:
		e.sandboxReason = "not requested"
		return nil
	case SandboxDisabled:
		e.sandboxReason = "disabled with --no-sandbox"
		return nil
	}
	var reasons []string
	switch runtime.GOOS {
	case "linux":
		probe := sandbox.Probe
		if e.Probe != nil {
			probe = e.Probe
		}
		err := probe()
		if err == nil {
			e.sandboxMode = sandbox.ModeNamespaces
			return nil
		}
		reasons = append(reasons, err.Error())
		if e.Isolation == SandboxRequired {
			// bwrap cannot contain the network: not the sandbox required.
			break
		}
		if p, lerr := look("bwrap"); lerr == nil {
			e.sandboxMode, e.helperPath = sandbox.ModeBwrap, p
			e.sandboxReason = "not contained: the network (bwrap shares the host's) and files outside the masked credential paths"
			return nil
		}
		reasons = append(reasons, "bwrap is not installed")
	case "darwin":
		if p, lerr := look("sandbox-exec"); lerr == nil && e.Isolation != SandboxRequired {
			e.sandboxMode, e.helperPath = sandbox.ModeSandboxExec, p
			e.sandboxReason = "not contained: the network (sandbox-exec shares the host's) and files outside the masked credential paths"
			return nil
		}
		reasons = append(reasons, "sandbox-exec is not available")
	default:
		reasons = append(reasons, "no sandbox on "+runtime.GOOS)
	}
	e.sandboxReason = strings.Join(reasons, "; ")
	if e.Isolation == SandboxRequired {
		return fmt.Errorf("%w: --require-sandbox, but no sandbox can be made here: %s", ErrNotReady, e.sandboxReason)
	}
	return nil
}

// lookPath finds a binary as the run does (tests replace LookPath).
func (e *Exec) lookPath(name string) (string, error) {
	if e.LookPath != nil {
		return e.LookPath(name)
	}
	return exec.LookPath(name)
}

func (e *Exec) sandboxed() bool { return e.sandboxMode != "" && e.sandboxMode != sandbox.ModeNone }

// contained reports whether the agent gets its own network namespace.
func (e *Exec) contained() bool { return e.sandboxMode == sandbox.ModeNamespaces }

// homeFiles are the CLI's own settings and login, copied into the sandbox's
// in-memory home.
func (e *Exec) homeFiles() []string {
	list := e.Def.HomeFiles
	if len(list) == 0 {
		list = e.Def.ConfigDirs
	}
	var out []string
	for _, p := range list {
		out = append(out, expandHome(p, e.home()))
	}
	return out
}

func (e *Exec) loginFiles() []string {
	var out []string
	for _, p := range e.Def.LoginFiles {
		if q := expandHome(p, e.home()); filepath.IsAbs(q) {
			out = append(out, q)
		}
	}
	return out
}

// sandboxSpec: the namespace sandbox replaces the home with an in-memory
// copy of the CLI's own files; the weaker helpers (bwrap, sandbox-exec) can
// only hide the credential paths they know of.
func (e *Exec) sandboxSpec(ws string) sandbox.Spec {
	home := e.home()
	masks := append(append([]string{}, e.Kubeconfigs...), e.ExtraMasks...)
	if !e.contained() {
		var keep []string
		for _, d := range e.Def.ConfigDirs {
			keep = append(keep, expandHome(d, home))
		}
		var m []string
		for _, d := range append(sandbox.DefaultMasks(home), masks...) {
			hidden := true
			for _, k := range keep {
				if strings.HasPrefix(k+"/", d+"/") {
					hidden = false
				}
			}
			if hidden {
				m = append(m, d)
			}
		}
		return sandbox.Spec{Mask: m, Writable: []string{ws}}
	}
	spec := sandbox.Spec{Mask: masks, Writable: []string{ws}, UID: os.Getuid(), GID: os.Getgid()}
	if home != "" && home != "/" && filepath.IsAbs(home) {
		spec.Home = home
		spec.HomeFiles = inside(home, e.homeFiles())
		spec.LoginFiles = inside(home, e.loginFiles())
		kubectl, _ := e.lookPath("kubectl")
		x := sandbox.ComputeExposure(home, filepath.SplitList(e.getenv("PATH")), e.getenv, e.path, kubectl)
		spec.Expose = x.Expose
		spec.Mask = append(spec.Mask, x.Mask...)
	}
	return spec
}

func inside(home string, list []string) []string {
	var out []string
	for _, p := range list {
		if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			out = append(out, p)
		}
	}
	return out
}

// modelEndpoints are where the agent's CLI talks to its model: the user's
// base-URL setting when there is one, else the definition's hosts. Loopback
// endpoints are forwarded as they are; the rest go through the proxy.
func (e *Exec) modelEndpoints() (allow, forwards []string) {
	for _, v := range e.baseURLs() {
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			continue
		}
		if egress.IsLoopbackURL(u) {
			forwards = append(forwards, egress.HostPort(u))
		} else {
			allow = append(allow, egress.HostPort(u))
		}
	}
	if len(allow)+len(forwards) == 0 {
		allow = append(allow, e.Def.ModelHosts...)
	}
	return allow, forwards
}

// userProxy is the user's own HTTPS proxy, which the egress proxy chains to.
func (e *Exec) userProxy() *url.URL {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		if v := e.getenv(k); v != "" {
			if u, err := url.Parse(v); err == nil && u.Host != "" {
				return u
			}
		}
	}
	return nil
}

// isolation is one run's sandbox: the wrapped command's handle and the
// egress hub that is its only way out.
type isolation struct {
	handle  *sandbox.Handle
	hub     *egress.Hub
	exposed []string // what of the user's home the agent saw, read-only
}

// isolate puts cmd inside the chosen sandbox. For the namespace sandbox it
// starts the egress hub: the gateway and loopback model endpoints are
// forwarded, the model API hosts proxied, nothing else reachable.
func (e *Exec) isolate(cmd *exec.Cmd, r *Run) (*isolation, error) {
	ws := r.Workspace.Dir
	spec := e.sandboxSpec(ws)
	switch e.sandboxMode {
	case sandbox.ModeNamespaces:
		allow, forwards := e.modelEndpoints()
		hub, err := egress.Start(egress.Config{
			Allow: allow, Gateway: r.Gateway, Forwards: forwards, Upstream: e.userProxy(),
			AuditPath: r.Workspace.MustPath(workspace.AuditFile),
		})
		if err != nil {
			return nil, err
		}
		spec.Net = &sandbox.Net{}
		for _, s := range hub.Sockets {
			spec.Net.Forwards = append(spec.Net.Forwards, sandbox.Forward{Addr: s.Addr, Socket: s.Name})
		}
		cmd.Env = append(withoutProxyEnv(cmd.Env),
			"HTTPS_PROXY="+hub.ProxyURL, "https_proxy="+hub.ProxyURL,
			"HTTP_PROXY="+hub.ProxyURL, "http_proxy="+hub.ProxyURL,
			"NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1")
		h, err := sandbox.Wrap(cmd, spec, hub.Dir)
		if err != nil {
			hub.Close()
			return nil, err
		}
		return &isolation{handle: h, hub: hub, exposed: spec.Expose}, nil
	case sandbox.ModeBwrap:
		return &isolation{}, sandbox.WrapBwrap(cmd, e.helperPath, spec)
	case sandbox.ModeSandboxExec:
		argv := append([]string{cmd.Path}, cmd.Args[1:]...)
		cmd.Args = append([]string{"sandbox-exec", "-p", sandbox.SeatbeltProfile(spec)}, argv...)
		cmd.Path = e.helperPath
		return &isolation{}, nil
	}
	if e.Isolation == SandboxOff {
		return &isolation{}, nil
	}
	// Unsandboxed (--no-sandbox, or nothing available): still supervised,
	// so the agent dies with the plugin.
	return &isolation{}, sandbox.Supervise(cmd)
}

// exposedNote says what of the user's home the sandboxed agent saw.
func exposedNote(home string, exposed []string) string {
	if len(exposed) == 0 {
		return "kubectl-triage: the agent's home was in memory, with only its CLI's own files; nothing else of your home was visible."
	}
	var list []string
	for _, p := range exposed {
		if rel, err := filepath.Rel(home, p); err == nil {
			p = "~/" + rel
		}
		list = append(list, p)
	}
	return "kubectl-triage: the agent's home was in memory, with its CLI's own files; exposed read-only from your home (credential files inside masked): " + strings.Join(list, ", ") + "."
}

func withoutProxyEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// started closes what the plugin no longer needs once the agent runs.
func (iso *isolation) started() {
	if iso.handle != nil {
		iso.handle.Started()
	}
}

// watch ends the run early when the model API cannot be reached.
func (iso *isolation) watch(ctx context.Context, stop func(error)) {
	if iso.hub == nil {
		return
	}
	go func() {
		select {
		case err := <-iso.hub.Unreachable():
			stop(err)
		case <-ctx.Done():
		}
	}()
}

// finish writes back refreshed logins, closes the hub and returns the
// footer lines about the agent's network.
func (iso *isolation) finish(e *Exec, log *lockedWriter) []string {
	var notes []string
	if iso.handle != nil {
		logins, err := iso.handle.Logins()
		if err != nil {
			fmt.Fprintf(log, "kubectl-triage: %v\n", err)
		}
		allowed := map[string]bool{}
		for _, p := range e.loginFiles() {
			allowed[p] = true
		}
		for _, l := range logins {
			if !allowed[l.Path] {
				fmt.Fprintf(log, "kubectl-triage: ignored a changed file that is not a login file: %s\n", l.Path)
				continue
			}
			if err := atomicfile.Write(l.Path, l.Data, l.Mode.Perm()); err != nil {
				fmt.Fprintf(log, "kubectl-triage: could not write back the refreshed login %s: %v\n", l.Path, err)
				continue
			}
			fmt.Fprintf(log, "kubectl-triage: the %s CLI refreshed its login; wrote it back to %s\n", e.Def.Name, l.Path)
		}
	}
	if iso.handle != nil {
		notes = append(notes, exposedNote(e.home(), iso.exposed))
	}
	if iso.hub != nil {
		iso.hub.Close()
		allowed, denied, failed := iso.hub.Counts()
		notes = append(notes, fmt.Sprintf("kubectl-triage: the agent ran in its own network namespace: %d connections to its model API, %d refused by the egress proxy, %d failed (see %s).", allowed, denied, failed, workspace.AuditFile))
	}
	return notes
}
