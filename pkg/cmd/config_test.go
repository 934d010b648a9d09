package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// TestConfigPrecedence: every setting follows flag > environment > config
// file > default on the real command tree. The agent name and the severity
// threshold are observed through the errors they cause for unknown values,
// which Validate reports before anything touches a cluster.
func TestConfigPrecedence(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want string
	}{
		{"default agent is builtin, so no agent error", "", nil, []string{"--system-prompt-file", "/nonexistent/p.md", "pod/x"}, "--system-prompt-file: stat"},
		{"file", "agent: from-file\n", nil, []string{"pod/x"}, `"from-file"`},
		{"env over file", "agent: from-file\n", map[string]string{"AGENT_CLI": "from-env"}, []string{"pod/x"}, `"from-env"`},
		{"flag over env and file", "agent: from-file\n", map[string]string{"AGENT_CLI": "from-env"}, []string{"--agent", "from-flag", "pod/x"}, `"from-flag"`},
		{"top level applies to watch", "agent: from-file\n", nil, []string{"watch"}, `"from-file"`},
		{"watch section", "watch:\n  min-severity: from-section\n", nil, []string{"watch"}, `line 2: watch.min-severity: invalid value "from-section": unknown severity "from-section"`},
		{"watch choice from the file names its line", "agent: builtin\nwatch:\n  overflow: drop-all\n", nil, []string{"watch"}, `line 3: watch.overflow: invalid value "drop-all"`},
		{"a deployment's endpoint yields to a typed --source cluster", "", map[string]string{"K8S_CLUSTER_MCP_ENDPOINT": "http://127.0.0.1:1/mcp"}, []string{"watch", "--source", "cluster", "--system-prompt-file", "/nonexistent/p.md"}, "--system-prompt-file: stat"},
		{"env over watch section", "watch:\n  min-severity: critical\n", map[string]string{"MIN_SEVERITY": "from-env"}, []string{"watch"}, `invalid MIN_SEVERITY="from-env"`},
		{"timeout in seconds from the environment", "", map[string]string{"AGENT_TIMEOUT": "-300"}, []string{"pod/x"}, `invalid AGENT_TIMEOUT="-300": must be positive`},
		{"bad value names key and line", "model: m\ntimeout: ten\n", nil, []string{"pod/x"}, "line 2: timeout: invalid value \"ten\""},
		{"unknown key with a suggestion", "# settings\ntiemout: 1m\n", nil, []string{"pod/x"}, `line 2: unknown setting "tiemout" (did you mean "timeout"?)`},
		{"bad value in a section fails any command", "watch:\n  dedup-window: soon\n", nil, []string{"pod/x"}, "dedup-window"},
		{"connection flags stay in the kubeconfig", "context: prod\n", nil, []string{"pod/x"}, `"context" cannot be set in the config file`},
		{"bad env value names the variable", "", map[string]string{"AGENT_TIMEOUT": "ten"}, []string{"pod/x"}, `AGENT_TIMEOUT="ten"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
			for _, e := range []string{"AGENT_CLI", "AGENT_TIMEOUT", "MIN_SEVERITY", "AGENT_MODEL", "AGENT_RUNTIME_COMMAND", "K8S_CLUSTER_MCP_ENDPOINT", "SUBSCRIBE_MODE"} {
				t.Setenv(e, "")
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.file != "" {
				p := filepath.Join(dir, "kubectl-triage", "config.yaml")
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(tc.file), 0o600)
			}
			kubeconfig := filepath.Join(dir, "kubeconfig")
			os.WriteFile(kubeconfig, []byte(offlineKubeconfig), 0o600)
			var out, errOut bytes.Buffer
			code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
				append([]string{"--kubeconfig", kubeconfig, "--workspace-root", filepath.Join(dir, "ws")}, tc.args...))
			if code != ExitError || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut.String(), ExitError, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "ws")); err == nil {
				t.Error("a failed start created the workspace root")
			}
		})
	}
}

// offlineKubeconfig points at a port nothing listens on: these tests end
// in Validate, before any request.
const offlineKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
current-context: x
`

// TestConfigFlagExplicitFile: --config names a file that must exist.
func TestConfigFlagExplicitFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	var out, errOut bytes.Buffer
	code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		[]string{"--config", filepath.Join(dir, "missing.yaml"), "pod/x"})
	if code != ExitError || !strings.Contains(errOut.String(), "missing.yaml") {
		t.Errorf("exit %d, stderr %s", code, errOut.String())
	}
}

// TestConfigView: `config view` shows each setting's value and source, and
// never a secret's value.
func TestConfigView(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
	t.Setenv("AGENT_TIMEOUT", "300")
	t.Setenv("SLACK_WEBHOOK_URL", "")
	t.Setenv("MIN_SEVERITY", "")
	p := filepath.Join(dir, "kubectl-triage", "config.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("model: sonnet\ntimeout: 1m\nwatch:\n  min-severity: critical\n  slack-webhook: https://hooks.slack.com/services/T/B/hook-secret-42\n"), 0o600)
	cases := []struct {
		args []string
		want []string // regexps, one per line
		not  string
	}{
		{[]string{"config", "view"}, []string{
			`(?m)^model +sonnet +config ` + regexp.QuoteMeta(p) + `:1 +AGENT_MODEL$`,
			`(?m)^timeout +5m0s +env AGENT_TIMEOUT +AGENT_TIMEOUT$`,
			`(?m)^wait-delay +30s +default +-$`,
		}, "\nkubeconfig "},
		{[]string{"config", "view", "watch"}, []string{
			`(?m)^min-severity +critical +config ` + regexp.QuoteMeta(p) + `:4 +MIN_SEVERITY$`,
			`(?m)^slack-webhook +\(set\) +config `,
			`(?m)^model +sonnet +config `,
		}, "hook-secret-42"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, tc.args)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut.String())
		}
		for _, w := range tc.want {
			if !regexp.MustCompile(w).MatchString(out.String()) {
				t.Errorf("%v: no line /%s/ in:\n%s", tc.args, w, out.String())
			}
		}
		if strings.Contains(out.String()+errOut.String(), tc.not) {
			t.Errorf("%v: output shows %q:\n%s", tc.args, tc.not, out.String())
		}
	}
}

// TestConfigReachesIncidentCommands: workspace-root from the config file is
// where list and gc look, and gc takes older-than from its section.
func TestConfigReachesIncidentCommands(t *testing.T) {
	root := fabricate(t, time.Now(), fab{id: idResolved, status: incident.Resolved, age: 100 * time.Hour, took: time.Minute, rootCause: "x", md: true})
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
	t.Setenv("WORKSPACE_ROOT", "")
	p := filepath.Join(dir, "kubectl-triage", "config.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("workspace-root: "+root+"\ngc:\n  older-than: 72h\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list"}, idResolved[:8]},
		{[]string{"gc", "--dry-run"}, "would remove " + idResolved},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, tc.args)
		if code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
}

// TestConfigInit: the starter file, every line uncommented, is a valid
// config file that changes nothing; init writes it once and never over a
// file that exists.
func TestConfigInit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("KUBECTL_TRIAGE_CONFIG", "")
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
		return code, out.String(), errOut.String()
	}
	code, starter, stderr := run("config", "init", "--print")
	if code != 0 || !strings.Contains(starter, "# agent: builtin") || !strings.Contains(starter, "#   min-severity: warning") {
		t.Fatalf("init --print: exit %d, %s\n%s", code, stderr, starter)
	}
	// Uncomment every setting: the header stays a comment.
	lines := strings.Split(starter, "\n")
	for i, l := range lines {
		if i >= 3 {
			lines[i] = strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")
		}
	}
	p := filepath.Join(dir, "kubectl-triage", "config.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o600)
	code, view, stderr := run("config", "view", "watch")
	if code != 0 {
		t.Fatalf("the uncommented starter file is not a valid config file: %s\n%s", stderr, strings.Join(lines, "\n"))
	}
	if !regexp.MustCompile(`(?m)^min-severity +warning +config `).MatchString(view) {
		t.Errorf("config view does not read the uncommented file:\n%s", view)
	}
	os.Remove(p)

	if code, out, stderr := run("config", "init"); code != 0 || !strings.Contains(out, "wrote "+p) {
		t.Fatalf("init: exit %d, %s %s", code, out, stderr)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("written file: %v, mode %v; want 0600 (it may hold a webhook)", err, fi.Mode().Perm())
	}
	if code, _, stderr := run("config", "init"); code == 0 || !strings.Contains(stderr, "never overwrites") {
		t.Errorf("a second init: exit %d, %s", code, stderr)
	}
}
