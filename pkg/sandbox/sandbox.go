// Package sandbox isolates an agent process (DESIGN.md §8 layer 0). On
// Linux the plugin re-executes itself as a tiny init inside new user, mount,
// PID and network namespaces. What the agent sees is only what was put
// there: the workspace (writable), an in-memory HOME holding copies of its
// own CLI's settings and login (the user's real home is not visible), the
// rest of the filesystem read-only, a fresh /proc. What it reaches is only
// what was put there: loopback relays to the read-only gateway and to the
// plugin's egress proxy (pkg/egress). The agent itself runs one user
// namespace deeper, without privileges over the init's mounts, so it cannot
// undo any of this.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Modes recorded in incident.json.
const (
	ModeNamespaces  = "namespaces"
	ModeBwrap       = "bwrap"
	ModeSandboxExec = "sandbox-exec"
	ModeNone        = "none"
)

// InitArg is the hidden first argument that turns the plugin binary into the
// sandbox init.
const InitArg = "__sandbox-init"

// Spec says what the agent sees and reaches.
type Spec struct {
	// Mask are files and directories outside Home made empty (kubeconfigs
	// given with --kubeconfig or KUBECONFIG, the user's extra list).
	Mask []string `json:"mask,omitempty"`
	// Writable are the only writable places besides HOME (the workspace,
	// with its private TMPDIR).
	Writable []string `json:"writable"`
	// Home is the user's home directory, replaced by an in-memory one.
	Home string `json:"home,omitempty"`
	// HomeFiles (under Home) are copied into the in-memory home: the agent
	// CLI's own settings and login.
	HomeFiles []string `json:"homeFiles,omitempty"`
	// Expose (under Home) stay visible, read-only: the PATH entries and
	// installed CLIs that live in the user's home.
	Expose []string `json:"expose,omitempty"`
	// LoginFiles (under Home) that the CLI changed during the run are
	// handed back to the plugin (Handle.Logins), and nothing else is.
	LoginFiles []string `json:"loginFiles,omitempty"`
	// Net, when set, gives the agent its own network namespace whose only
	// ways out are these relays.
	Net *Net `json:"net,omitempty"`
	// UID and GID are the user's, which the agent keeps inside.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// Net lists the loopback addresses the init serves inside the namespace and
// the socket (by name, in the directory handed to Wrap) each relays to.
type Net struct {
	Forwards []Forward `json:"forwards"`
}

// Forward is one relay: Addr inside → Socket outside.
type Forward struct {
	Addr   string `json:"addr"`
	Socket string `json:"socket"`
}

// DefaultMasks are the credential locations under home every agent loses.
func DefaultMasks(home string) []string {
	var out []string
	for _, rel := range []string{".kube", ".aws", ".azure", ".config/gcloud", ".docker", ".ssh", ".netrc", ".git-credentials", ".config/gh", ".terraform.d"} {
		out = append(out, filepath.Join(home, rel))
	}
	return out
}

// KubeconfigPaths lists every kubeconfig the plugin was given: --kubeconfig
// and each entry of KUBECONFIG.
func KubeconfigPaths(flag, env string) []string {
	var out []string
	if flag != "" {
		out = append(out, flag)
	}
	for _, p := range filepath.SplitList(env) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Normalize makes the spec's paths absolute and clean, drops duplicates and
// keeps the order stable (parents before children).
func (s Spec) Normalize() Spec {
	clean := func(list []string) []string {
		seen := map[string]bool{}
		var out []string
		for _, p := range list {
			if p == "" {
				continue
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			p = filepath.Clean(p)
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		sort.Strings(out)
		return out
	}
	out := s
	out.Mask, out.Writable, out.HomeFiles, out.Expose, out.LoginFiles = clean(s.Mask), clean(s.Writable), clean(s.HomeFiles), clean(s.Expose), clean(s.LoginFiles)
	if s.Home != "" {
		out.Home = filepath.Clean(s.Home)
	}
	return out
}

// Validate refuses specs that would mask the workspace itself, or name home
// files outside the home.
func (s Spec) Validate() error {
	for _, w := range s.Writable {
		for _, m := range s.Mask {
			if within(m, w) {
				return fmt.Errorf("sandbox: writable path %s lies under masked %s", w, m)
			}
		}
	}
	if s.Home != "" && (!filepath.IsAbs(s.Home) || s.Home == "/") {
		return fmt.Errorf("sandbox: home %q must be an absolute directory other than /", s.Home)
	}
	for _, list := range [][]string{s.HomeFiles, s.Expose, s.LoginFiles} {
		for _, p := range list {
			if s.Home == "" || !within(s.Home, p) || p == s.Home {
				return fmt.Errorf("sandbox: %s is not inside the home directory %s", p, s.Home)
			}
		}
	}
	if s.Net != nil {
		for _, f := range s.Net.Forwards {
			if f.Socket == "" || strings.ContainsRune(f.Socket, '/') || f.Addr == "" {
				return fmt.Errorf("sandbox: bad forward %+v", f)
			}
		}
	}
	return nil
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || (!strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)))
}

func encodeSpec(s Spec) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

func decodeSpec(v string) (Spec, error) {
	var s Spec
	err := json.Unmarshal([]byte(v), &s)
	return s, err
}

// ErrUnavailable is wrapped when no sandbox can be made here.
var ErrUnavailable = errors.New("no sandbox available")

// self is the plugin's own binary, re-executed as the init.
func self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: find own executable: %w", err)
	}
	return p, nil
}
