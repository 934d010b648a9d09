package agent

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
)

// TestWeakerSandboxSaysWhatIsNotContained: where no network namespace can
// be made (a kernel without user namespaces), bwrap is the fallback, and
// what it leaves open is said in the sandbox field that incident.json and
// the report's footer carry; --require-sandbox refuses it rather than run
// an agent whose network is not contained, and with neither, auto mode
// says why there is none.
func TestWeakerSandboxSaysWhatIsNotContained(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the namespace sandbox and its bwrap fallback are Linux's")
	}
	noNamespaces := func() error { return errors.New("user namespaces are disabled") }
	for _, tc := range []struct {
		name     string
		policy   SandboxPolicy
		bwrap    bool
		sandbox  string // prefix of Sandbox()
		contains string
		refused  bool
	}{
		{"auto with bwrap", SandboxAuto, true, "bwrap (not contained: ", "the network (bwrap shares the host's)", false},
		{"required with bwrap", SandboxRequired, true, "", "no sandbox can be made here: user namespaces are disabled", true},
		{"auto without bwrap", SandboxAuto, false, "none: ", "user namespaces are disabled; bwrap is not installed", false},
		{"namespaces", SandboxRequired, false, "namespaces", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			fakeCLI(t, h.bin, "claude", "exit 0")
			if tc.bwrap {
				fakeCLI(t, h.bin, "bwrap", "exit 0")
			}
			e := h.exec(streamDef("claude"))
			e.Isolation = tc.policy
			e.Probe = noNamespaces
			if tc.name == "namespaces" {
				e.Probe = func() error { return nil }
			}
			err := e.Preflight()
			if tc.refused {
				if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), tc.contains) {
					t.Fatalf("--require-sandbox with only bwrap: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := e.Sandbox()
			if !strings.HasPrefix(got, tc.sandbox) || !strings.Contains(got, tc.contains) {
				t.Errorf("Sandbox() = %q, want %q… with %q", got, tc.sandbox, tc.contains)
			}
			if e.contained() != (got == sandbox.ModeNamespaces) {
				t.Errorf("contained() = %v for %q", e.contained(), got)
			}
		})
	}
}

// TestModelEndpoints: what the egress hub lets the agent reach is the
// definition's model hosts, replaced by the user's base-URL setting when
// there is one (a variable, or codex's config.toml); a base URL on loopback
// is forwarded as it is rather than proxied; the user's own HTTPS proxy is
// the one the egress proxy chains to.
func TestModelEndpoints(t *testing.T) {
	defs, err := Definitions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		agent      string
		env        []string
		codexToml  string
		allow, fwd []string
		upstream   string
	}{
		{"claude by default", "claude", nil, "", []string{"api.anthropic.com:443", "platform.claude.com:443"}, nil, ""},
		{"claude, a company gateway", "claude", []string{"ANTHROPIC_BASE_URL=https://llm.corp.example/anthropic"}, "", []string{"llm.corp.example:443"}, nil, ""},
		{"claude, a local model", "claude", []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:4000"}, "", nil, []string{"127.0.0.1:4000"}, ""},
		{"codex, config.toml", "codex", nil, "openai_base_url = \"http://gw.corp.example:8080/v1\"\n", []string{"gw.corp.example:8080"}, nil, ""},
		{"gemini behind the user's proxy", "gemini", []string{"HTTPS_PROXY=http://proxy.corp.example:3128"}, "", []string{"generativelanguage.googleapis.com:443", "cloudcode-pa.googleapis.com:443", "oauth2.googleapis.com:443"}, nil, "http://proxy.corp.example:3128"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.codexToml != "" {
				os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
				os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(tc.codexToml), 0o600)
			}
			e := &Exec{Def: defs[tc.agent], Home: home, Environ: func() []string { return tc.env }}
			allow, fwd := e.modelEndpoints()
			if strings.Join(allow, ",") != strings.Join(tc.allow, ",") || strings.Join(fwd, ",") != strings.Join(tc.fwd, ",") {
				t.Errorf("allow %v, forward %v; want %v, %v", allow, fwd, tc.allow, tc.fwd)
			}
			got := ""
			if u := e.userProxy(); u != nil {
				got = u.String()
			}
			if got != tc.upstream {
				t.Errorf("upstream proxy %q, want %q", got, tc.upstream)
			}
		})
	}
}

// TestSandboxSpecExposesShimRoots: with pyenv's shims first on PATH, the
// namespace sandbox exposes ~/.pyenv read-only with its credentials masked,
// and the report's footer note says what of the home the agent saw.
func TestSandboxSpecExposesShimRoots(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".pyenv/shims", ".pyenv/versions/3.12.1/bin", "ws"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".pyenv", ".netrc"), []byte("x"), 0o600)
	e := &Exec{
		Def: streamDef("claude"), Home: home,
		Environ:  func() []string { return []string{"PATH=" + filepath.Join(home, ".pyenv/shims") + ":/usr/bin"} },
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
	}
	e.sandboxMode = sandbox.ModeNamespaces
	ws := filepath.Join(home, "ws")
	spec := e.sandboxSpec(ws)
	if got, want := strings.Join(spec.Expose, ","), filepath.Join(home, ".pyenv"); got != want {
		t.Errorf("expose = %s, want %s", got, want)
	}
	masked := false
	for _, m := range spec.Mask {
		masked = masked || m == filepath.Join(home, ".pyenv", ".netrc")
	}
	if !masked {
		t.Errorf("~/.pyenv/.netrc not masked: %v", spec.Mask)
	}
	for _, tc := range []struct {
		exposed []string
		want    string
	}{
		{spec.Expose, "exposed read-only from your home (credential files inside masked): ~/.pyenv."},
		{nil, "nothing else of your home was visible"},
	} {
		if got := exposedNote(home, tc.exposed); !strings.Contains(got, tc.want) {
			t.Errorf("note %q lacks %q", got, tc.want)
		}
	}
}
