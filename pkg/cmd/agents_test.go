package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/agent"
)

var updateGolden = flag.Bool("update-agents", false, "rewrite testdata/agents.golden")

// fakeCLIs: claude at the tested version, codex at another one, gemini
// installed, goose missing.
func fakeCheckEnv(t *testing.T, home string, vars map[string]string) agent.CheckEnv {
	versions := map[string]string{"claude": "2.1.328 (Claude Code)\n", "codex": "codex-cli 0.170.2\n", "gemini": "0.61.0\n", "mycli": "garbage\n"}
	return agent.CheckEnv{
		Getenv: func(k string) string { return vars[k] },
		Home:   home,
		LookPath: func(name string) (string, error) {
			if _, ok := versions[name]; ok {
				return "/opt/bin/" + name, nil
			}
			return "", errors.New("not found")
		},
		Version: func(_ context.Context, path string, args []string) (string, error) {
			if len(args) != 1 || args[0] != "--version" {
				t.Errorf("version command %s %v", path, args)
			}
			return versions[filepath.Base(path)], nil
		},
	}
}

func TestAgentsCommand(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	// The user logged in to codex and overrides a definition of their own.
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.WriteFile(filepath.Join(home, ".codex", "auth.json"), []byte("{}"), 0o600)
	os.MkdirAll(filepath.Join(cfg, "agents"), 0o700)
	os.WriteFile(filepath.Join(cfg, "agents", "mycli.yaml"), []byte("name: mycli\nbinary: mycli\noutput: text\nreport: stdout\ntestedVersion: 1.0.0\n"), 0o600)
	vars := map[string]string{"ANTHROPIC_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9", "GEMINI_API_KEY": "g"}

	var out bytes.Buffer
	o := &AgentsOptions{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &out}, ConfigDir: cfg, Env: fakeCheckEnv(t, home, vars)}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(out.String(), cfg, "CONFIG")
	golden := filepath.Join("testdata", "agents.golden")
	if *updateGolden {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if got != string(want) {
		t.Errorf("output differs from %s (-update-agents rewrites it):\n%s", golden, got)
	}

	// -o json: the same facts as data.
	out.Reset()
	o.Output = "json"
	if err := o.Run(); err != nil {
		t.Fatal(err)
	}
	var list []agent.Readiness
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]agent.Readiness{}
	for _, r := range list {
		byName[r.Name] = r
	}
	if r := byName["claude"]; !r.Ready || r.Version != "2.1.328" || r.Path != "/opt/bin/claude" || len(r.Warnings) != 0 {
		t.Errorf("claude: %+v", r)
	}
	if r := byName["codex"]; !r.Ready || r.Version != "0.170.2" || len(r.Warnings) != 1 {
		t.Errorf("codex (logged in, other version): %+v", r)
	}
	if r := byName["gemini"]; r.Ready || len(r.Missing) != 1 || !strings.Contains(r.Missing[0], "selectedType") {
		t.Errorf("gemini (base URL without an auth type in settings): %+v", r)
	}
	if r := byName["goose"]; r.Ready || r.Path != "" || r.TestedVersion != "" {
		t.Errorf("goose: %+v", r)
	}
	if r := byName["mycli"]; !r.Ready || r.Version != "" || !strings.HasSuffix(r.Source, "mycli.yaml") {
		t.Errorf("mycli: %+v", r)
	}

	// Fixing the setting makes gemini ready.
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
	defs, _ := agent.Definitions(cfg)
	if r := agent.Check(defs["gemini"], o.Env); !r.Ready {
		t.Errorf("gemini with the auth type selected: %+v", r)
	}
	o.Output = "yaml"
	if err := o.Validate(); err == nil {
		t.Errorf("-o yaml accepted")
	}
}

// TestAgentsRealCLIs: the pinned CLIs report the versions their
// definitions were tested with.
func TestAgentsRealCLIs(t *testing.T) {
	dir := os.Getenv("KUBECTL_TRIAGE_AGENTCLIS")
	if dir == "" {
		t.Skip("KUBECTL_TRIAGE_AGENTCLIS is not set (make test sets it)")
	}
	defs, err := agent.Definitions("")
	if err != nil {
		t.Fatal(err)
	}
	env := agent.CheckEnv{
		Getenv:   func(k string) string { return map[string]string{"PATH": dir}[k] },
		Home:     t.TempDir(),
		LookPath: func(name string) (string, error) { p := filepath.Join(dir, name); _, err := os.Stat(p); return p, err },
	}
	for _, name := range []string{"claude", "codex", "gemini"} {
		r := agent.Check(defs[name], env)
		if r.Version != r.TestedVersion || len(r.Warnings) != 0 {
			t.Errorf("%s: installed %q, tested %q, warnings %v", name, r.Version, r.TestedVersion, r.Warnings)
		}
		if r.Ready || len(r.Missing) != 1 || !strings.HasPrefix(r.Missing[0], "no credentials: set ") {
			t.Errorf("%s without a key or login: %+v", name, r)
		}
	}
}

// TestAgentsFlagsPathEntriesTheSandboxBreaks: a shims dir whose version
// manager root is gone, and a wrapper execing a tool elsewhere in the home,
// are each flagged with a fix; a working pyenv layout is not.
func TestAgentsFlagsPathEntriesTheSandboxBreaks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(home string) string // returns PATH
		want  []string
	}{
		{"pyenv that works", func(home string) string {
			os.MkdirAll(filepath.Join(home, ".pyenv", "shims"), 0o755)
			os.MkdirAll(filepath.Join(home, ".pyenv", "versions", "3.12.1", "bin"), 0o755)
			return filepath.Join(home, ".pyenv", "shims") + ":/usr/bin"
		}, nil},
		{"asdf shims without their root", func(home string) string {
			return filepath.Join(home, ".asdf", "shims")
		}, []string{"sandbox: warning: PATH entry " + "HOME/.asdf/shims is a version manager's shims, but its root HOME/.asdf is not there"}},
		{"a wrapper execing a tool elsewhere in the home", func(home string) string {
			os.MkdirAll(filepath.Join(home, "opt", "tool"), 0o755)
			os.WriteFile(filepath.Join(home, "opt", "tool", "tool"), []byte("x"), 0o755)
			os.MkdirAll(filepath.Join(home, "bin"), 0o755)
			os.WriteFile(filepath.Join(home, "bin", "tool"), []byte("#!/bin/sh\nexec "+home+"/opt/tool/tool \"$@\"\n"), 0o755)
			return filepath.Join(home, "bin")
		}, []string{"sandbox: warning: HOME/bin/tool needs HOME/opt/tool/tool, which the agent sandbox does not expose: install it outside your home"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, cfg := t.TempDir(), t.TempDir()
			vars := map[string]string{"PATH": tc.setup(home)}
			var out bytes.Buffer
			o := &AgentsOptions{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &out}, ConfigDir: cfg, Env: fakeCheckEnv(t, home, vars)}
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(out.String(), home, "HOME")
			n := strings.Count(got, "sandbox: warning:")
			if n != len(tc.want) {
				t.Errorf("%d sandbox warnings, want %d:\n%s", n, len(tc.want), got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
