// Package sandbox isolates an agent process from the user's credentials
// (DESIGN.md §8 layer 0). On Linux the plugin re-executes itself as a tiny
// init inside new user, mount and PID namespaces; the init masks credential
// paths, makes everything but the workspace and a private TMPDIR read-only,
// mounts a fresh /proc (so the plugin's own process and command line are
// invisible) and runs the agent as its child. The network stays shared: the
// agent needs its model API and the loopback gateway.
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

// Spec says what the sandbox hides and what stays writable.
type Spec struct {
	// Mask are files and directories made empty and unreadable (kubeconfigs,
	// cloud and registry credentials, the user's extra list).
	Mask []string `json:"mask"`
	// Keep are paths under a masked directory that stay readable (the agent
	// CLI's own config), re-exposed after masking.
	Keep []string `json:"keep,omitempty"`
	// Writable are the only writable places (the workspace, a private TMPDIR).
	Writable []string `json:"writable"`
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
	return Spec{Mask: clean(s.Mask), Keep: clean(s.Keep), Writable: clean(s.Writable)}
}

// Validate refuses specs that would mask the workspace itself or keep a
// masked credential readable.
func (s Spec) Validate() error {
	for _, w := range s.Writable {
		for _, m := range s.Mask {
			if within(m, w) {
				return fmt.Errorf("sandbox: writable path %s lies under masked %s", w, m)
			}
		}
	}
	for _, k := range s.Keep {
		for _, m := range s.Mask {
			if within(m, k) {
				return fmt.Errorf("sandbox: kept path %s would expose masked %s", k, m)
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
