package cmd

import (
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

func TestParseTargetWord(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		toComplete string
		want       targetWord
		ok         bool
	}{
		{nil, "", targetWord{TypesOrPods: true}, true},
		{nil, "api", targetWord{TypesOrPods: true, Partial: "api"}, true},
		{nil, "deploy/", targetWord{Type: "deploy", Prefix: "deploy/"}, true},
		{nil, "deploy/chec", targetWord{Type: "deploy", Prefix: "deploy/", Partial: "chec"}, true},
		{nil, "deployments.apps/c", targetWord{Type: "deployments.apps", Prefix: "deployments.apps/", Partial: "c"}, true},
		{nil, "/x", targetWord{}, false},
		{nil, "a/b/c", targetWord{}, false},
		{[]string{"deployment"}, "", targetWord{Type: "deployment"}, true},
		{[]string{"po"}, "ap", targetWord{Type: "po", Partial: "ap"}, true},
		{[]string{"deploy"}, "x/", targetWord{}, false},
		{[]string{"pod/api"}, "", targetWord{}, false}, // one resource only
		{[]string{"pod", "api"}, "", targetWord{}, false},
	} {
		got, ok := parseTargetWord(tt.args, tt.toComplete)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseTargetWord(%q, %q) = %+v, %v; want %+v, %v", tt.args, tt.toComplete, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTriageableTypes(t *testing.T) {
	rw := []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Kind: "Pod", Verbs: rw},
			{Name: "pods/log", Kind: "Pod", Verbs: []string{"get"}},
			{Name: "secrets", Kind: "Secret", Verbs: rw},
			{Name: "events", Kind: "Event", Verbs: rw},
			{Name: "bindings", Kind: "Binding", Verbs: []string{"create"}},
			{Name: "nodes", Kind: "Node", Verbs: rw},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", Kind: "Deployment", Verbs: rw}}},
		{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "events", Kind: "Event", Verbs: rw}}},
		{GroupVersion: "metrics.k8s.io/v1beta1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "PodMetrics", Verbs: []string{"get", "list"}}}},
		{GroupVersion: "authorization.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "selfsubjectaccessreviews", Kind: "SelfSubjectAccessReview", Verbs: []string{"create"}}}},
		// Two groups serve "certificates": both need their group.
		{GroupVersion: "cert-manager.io/v1", APIResources: []metav1.APIResource{{Name: "certificates", Kind: "Certificate", Verbs: rw}}},
		{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "certificates", Kind: "Certificate", Verbs: rw}, {Name: "nodes", Kind: "Node", Verbs: rw}}},
		nil, // a group whose discovery failed
	}
	want := []resourceType{
		{"certificates.cert-manager.io", "Certificate"},
		{"certificates.example.com", "Certificate"},
		{"deployments", "Deployment"},
		{"nodes", "Node"}, // the core group keeps the bare name
		{"nodes.example.com", "Node"},
		{"pods", "Pod"},
	}
	if got := triageableTypes(lists); !reflect.DeepEqual(got, want) {
		t.Errorf("triageableTypes:\n got %v\nwant %v", got, want)
	}
}

func TestValidateOutput(t *testing.T) {
	for format, wantErr := range map[string]bool{"": false, "markdown": false, "json": false, "yaml": true, "JSON": true, "wide": true} {
		err := validateOutput(format)
		if (err != nil) != wantErr {
			t.Errorf("validateOutput(%q) = %v, want error %v", format, err, wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), `unknown output format "`+format+`": use markdown or json`) {
			t.Errorf("validateOutput(%q) = %q, want kubectl's wording", format, err)
		}
	}
	r := run(t, "pod/x", "-o", "yaml")
	if r.code != ExitError || r.stdout != "" || !strings.Contains(r.stderr, `error: unknown output format "yaml": use markdown or json`) {
		t.Errorf("-o yaml: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// emptyKubeconfig points at a server nothing listens on, with two contexts.
func emptyKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	write(t, p, `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1"}
- name: elsewhere
  cluster: {server: "https://127.0.0.1:2"}
users:
- name: me
  user: {token: "t"}
contexts:
- name: prod
  context: {cluster: nowhere, user: me, namespace: shop}
- name: staging
  context: {cluster: elsewhere, user: me}
current-context: prod
`)
	return p
}

// completions runs `kubectl triage __complete ARGS…` and splits its answer
// into the candidates and the directive line.
func completions(t *testing.T, args ...string) (candidates []string, directive string) {
	t.Helper()
	r := run(t, append([]string{"__complete"}, args...)...)
	if r.code != 0 {
		t.Fatalf("__complete %q: exit %d, %s", args, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// Completions that need no cluster, and that an unreachable one only
// empties: TAB never hangs or prints an error.
func TestFlagAndCommandCompletion(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the embedded agent definitions only, no config file
	kc := emptyKubeconfig(t)
	cache := filepath.Join(t.TempDir(), "cache")
	base := []string{"--kubeconfig", kc, "--cache-dir", cache}
	for _, tt := range []struct {
		name      string
		args      []string
		want      []string // each must be among the candidates
		wantOnly  bool     // and nothing else
		directive string
	}{
		{"subcommands, and no cluster to list from", append(base, ""), []string{"completion\t", "list\t", "show\t", "status\t", "version\t", "watch\t"}, false, ":4"},
		{"-o", append(base, "-o", ""), []string{"markdown", "json"}, true, ":4"},
		{"--agent", append(base, "--agent", "b"), []string{"builtin\tdeterministic investigator: no AI, no API key"}, true, ":4"},
		{"--context", append(base, "--context", ""), []string{"prod", "staging"}, true, ":4"},
		{"--cluster", append(base, "--cluster", "n"), []string{"nowhere"}, true, ":4"},
		{"--user", append(base, "--user", ""), []string{"me"}, true, ":4"},
		{"--fault-file completes files", append(base, "--fault-file", ""), nil, true, ":0"},
		{"--workspace-root completes directories", append(base, "--workspace-root", ""), nil, true, ":16"},
		{"list --workspace-root too", []string{"list", "--workspace-root", ""}, nil, true, ":16"},
		{"nothing after --fault-file", append(base, "--fault-file", "f.json", ""), nil, true, ":4"},
		{"types from an unreachable cluster: none", append(base, "deploy", ""), nil, true, ":4"},
		{"completion shells", []string{"completion", ""}, []string{"bash", "fish", "powershell", "zsh"}, true, ":4"},
		{"watch -o", []string{"watch", "-o", ""}, []string{"text", "json"}, true, ":4"},
		{"watch --subscribe-mode", []string{"watch", "--subscribe-mode", ""}, []string{"faults", "resource-faults", "events"}, true, ":4"},
		{"watch --overflow", []string{"watch", "--overflow", ""}, []string{"drop-oldest", "drop-new"}, true, ":4"},
		{"watch --agent", []string{"watch", "--agent", "b"}, []string{"builtin\t"}, true, ":4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := completions(t, tt.args...)
			if directive != tt.directive {
				t.Errorf("directive %s, want %s", directive, tt.directive)
			}
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || strings.HasPrefix(g, w)
				}
				if !found {
					t.Errorf("%q not among %q", w, got)
				}
			}
			if tt.wantOnly && len(got) != len(tt.want) {
				t.Errorf("candidates %q, want only %q", got, tt.want)
			}
		})
	}
}

// silentCluster is a kubeconfig whose server, on loopback, accepts
// connections and never answers: a cluster that hangs.
func silentCluster(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	p := filepath.Join(t.TempDir(), "kubeconfig")
	write(t, p, `apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "https://`+l.Addr().String()+`"}
users:
- name: me
  user: {token: "t"}
contexts:
- name: silent
  context: {cluster: silent, user: me, namespace: shop}
current-context: silent
`)
	return p
}

// A TAB against a cluster that never answers returns, with the directive
// and no candidates from the cluster. How soon (completionTimeout for all
// its requests together) is left to checks by hand: a loaded machine makes
// timing no test.
func TestCompletionGivesUpOnSilentCluster(t *testing.T) {
	kc := silentCluster(t)
	subcommands := []string{"help"} // the candidates that need no cluster; cobra adds help as it runs
	for _, c := range NewCmdTriage(genericiooptions.IOStreams{}).Commands() {
		subcommands = append(subcommands, c.Name())
	}
	for _, args := range [][]string{
		{"deploy", ""},                  // discovery, then the list
		{"-n", ""},                      // the list alone
		{"--request-timeout", "1s", ""}, // discovery and pods, bounded by the flag
		{"--request-timeout", "1s", "deployments/a"}, // as TYPE/NAME
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append([]string{"__complete", "--kubeconfig", kc, "--cache-dir", t.TempDir()}, args...)
			done := make(chan result, 1)
			go func() { done <- run(t, full...) }()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("__complete %q still waits for the cluster after 20s", args)
			}
			lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
			if r.code != 0 || lines[len(lines)-1] != ":4" {
				t.Fatalf("__complete %q: exit %d, stdout %q, stderr %q; want directive :4", args, r.code, r.stdout, r.stderr)
			}
			for _, c := range lines[:len(lines)-1] {
				if name, _, _ := strings.Cut(c, "\t"); !slices.Contains(subcommands, name) {
					t.Errorf("__complete %q offers %q from a cluster that never answered", args, c)
				}
			}
		})
	}
}

func TestCompletionCommand(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "complete -o default -F __start_kubectl-triage kubectl-triage",
		"zsh":        "#compdef kubectl-triage",
		"fish":       "complete -c kubectl-triage",
		"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-triage'",
	} {
		r := run(t, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "__complete") {
			t.Errorf("completion %s: exit %d, stderr %q; script lacks %q", shell, r.code, r.stderr, want)
		}
	}
	for args, wantErr := range map[string]string{
		"completion":          "completion needs exactly one shell, got 0 arguments: use bash, fish, powershell, zsh",
		"completion tcsh":     `unsupported shell "tcsh": use bash, fish, powershell, zsh`,
		"completion bash zsh": "completion needs exactly one shell, got 2 arguments",
	} {
		r := run(t, strings.Fields(args)...)
		if r.code != ExitError || !strings.Contains(r.stderr, "error: "+wantErr) {
			t.Errorf("%s: exit %d, stderr %q, want %q", args, r.code, r.stderr, wantErr)
		}
	}
	// Generating a script leaves the command named as kubectl shows it.
	root := NewCmdTriage(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.SetArgs([]string{"completion", "bash"})
	root.SetOut(&bytes.Buffer{})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if root.Name() != "triage" {
		t.Errorf("root command renamed to %q", root.Name())
	}
}

// resolvedResult is a finished run for finish().
func resolvedResult(status incident.Status) *triage.Result {
	inc := &incident.Incident{
		IncidentID: "0f8fad5b-d9cb-469f-a165-70867728950e", Status: status,
		Cluster: "prod", Context: "prod-admin", Namespace: "shop",
		Resource:  fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop", UID: "u1"},
		FaultType: "CrashLoop", Severity: "critical",
		Agent:     incident.Agent{Name: "builtin"},
		Workspace: "/state/incidents/0f8fad5b-d9cb-469f-a165-70867728950e",
	}
	res := &triage.Result{Incident: inc}
	if status == incident.Resolved {
		inc.Report = &incident.ReportRef{Path: inc.Workspace + "/output/investigation.md", RootCause: "DATABASE_URL is unset", Confidence: 0.92, ConfidenceLevel: "verified"}
		res.Markdown = "# Triage: Pod/api (shop) — DATABASE_URL is unset\n\nRun `a && b` if <x>.\n"
	} else {
		inc.FailureReason = incident.ReasonTimeout
	}
	return res
}

func TestFinishOutput(t *testing.T) {
	for _, tt := range []struct {
		name     string
		output   string
		status   incident.Status
		code     int
		wantJSON bool
	}{
		{"markdown", "markdown", incident.Resolved, ExitResolved, false},
		{"default", "", incident.Resolved, ExitResolved, false},
		{"json", "json", incident.Resolved, ExitResolved, true},
		{"json of a timeout", "json", incident.Failed, ExitTimeout, true},
		{"markdown of a timeout", "markdown", incident.Failed, ExitTimeout, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			o := &TriageOptions{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, Output: tt.output, getEnv: func(string) string { return "" }}
			res := resolvedResult(tt.status)
			err := o.finish(res)
			if codeOf(err) != tt.code && !(err == nil && tt.code == 0) {
				t.Errorf("exit code %d, want %d (%v)", codeOf(err), tt.code, err)
			}
			switch {
			case tt.wantJSON:
				var doc map[string]any
				dec := json.NewDecoder(&out)
				if err := dec.Decode(&doc); err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
				}
				if dec.More() {
					t.Error("stdout holds more than one JSON document")
				}
				want := map[string]any{"incidentId": res.Incident.IncidentID, "status": string(tt.status), "faultType": "CrashLoop", "severity": "critical",
					"agent": "builtin", "workspace": res.Incident.Workspace, "cluster": "prod"}
				if tt.status == incident.Resolved {
					want["rootCause"], want["confidence"], want["confidenceLevel"] = "DATABASE_URL is unset", 0.92, "verified"
					want["reportPath"], want["report"] = res.Incident.Report.Path, res.Markdown
				} else {
					want["failureReason"] = "timeout"
				}
				for k, v := range want {
					if doc[k] != v {
						t.Errorf("%s = %v, want %v", k, doc[k], v)
					}
				}
				if r, _ := doc["resource"].(map[string]any); r["kind"] != "Pod" || r["name"] != "api" || r["namespace"] != "shop" {
					t.Errorf("resource = %v", doc["resource"])
				}
				if strings.Contains(out.String(), `\u0026`) {
					t.Error("the report's & is escaped")
				}
			case tt.status == incident.Resolved:
				if out.String() != res.Markdown {
					t.Errorf("stdout %q, want the report", out.String())
				}
			default:
				if out.Len() != 0 {
					t.Errorf("stdout %q, want nothing", out.String())
				}
			}
		})
	}
}

// On a terminal (forced), progress is a live line on stderr, cleared before
// the report reaches stdout; without one it is plain lines; with --quiet
// nothing.
func TestProgressManners(t *testing.T) {
	for _, tt := range []struct {
		name          string
		env           map[string]string
		quiet         bool
		wantCR        bool
		wantStderr    []string
		notWantStderr []string
	}{
		{"terminal", map[string]string{term.EnvForceTTY: "1"}, false, true,
			[]string{"Resolving pod/api", "Incident 0f8fad5b (workspace /w)\n", "\x1b[33;1mwarning:\x1b[0m could not read logs\n", "direct warning\n", "Incident 0f8fad5b-d9cb-469f-a165-70867728950e resolved: DATABASE_URL is unset\n"}, nil},
		{"terminal without colour", map[string]string{term.EnvForceTTY: "1", "NO_COLOR": "1"}, false, true, []string{"warning: could not read logs\n"}, []string{"\x1b[3"}},
		{"dumb terminal", map[string]string{term.EnvForceTTY: "1", "TERM": "dumb"}, false, false,
			[]string{"Resolving pod/api\nIncident 0f8fad5b (workspace /w)\nCollected 3 objects\nwarning: could not read logs\ndirect warning\n"}, nil},
		{"pipe", nil, false, false,
			[]string{"Resolving pod/api\nIncident 0f8fad5b (workspace /w)\nCollected 3 objects\nwarning: could not read logs\ndirect warning\nIncident 0f8fad5b-d9cb-469f-a165-70867728950e resolved"}, nil},
		{"quiet", map[string]string{term.EnvForceTTY: "1"}, true, false, []string{"direct warning\n"}, []string{"Resolving", "Incident"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			o := &TriageOptions{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, Quiet: tt.quiet, getEnv: func(k string) string { return tt.env[k] }}
			report := o.progress()
			report(progress.Stepf("Resolving %s", "pod/api"))
			report(progress.Incidentf("Incident %s (workspace %s)", "0f8fad5b", "/w"))
			report(progress.Stepf("Collected %d objects", 3))
			report(progress.Warnf("could not read %s", "logs"))
			o.ErrOut.Write([]byte("direct warning\n")) // as CheckCredentialsFor does
			res := resolvedResult(incident.Resolved)
			if err := o.finish(res); err != nil {
				t.Fatal(err)
			}
			o.stopProgress()
			if out.String() != res.Markdown {
				t.Errorf("stdout %q, want only the report", out.String())
			}
			stderr := errOut.String()
			if got := strings.Contains(stderr, "\r"); got != tt.wantCR {
				t.Errorf("stderr has \\r: %v, want %v:\n%q", got, tt.wantCR, stderr)
			}
			if !tt.wantCR && strings.ContainsAny(stderr, "\r\x1b") {
				t.Errorf("control characters on stderr:\n%q", stderr)
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%q", w, stderr)
				}
			}
			for _, w := range tt.notWantStderr {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr has %q:\n%q", w, stderr)
				}
			}
			if tt.wantCR {
				// The live line was cleared before the summary line.
				i := strings.LastIndex(stderr, "\r\x1b[K")
				if rest := stderr[i+len("\r\x1b[K"):]; !strings.HasPrefix(rest, "Incident 0f8fad5b-d9cb-469f-a165-70867728950e resolved") || strings.Count(rest, "\n") != 1 {
					t.Errorf("after the last erase: %q", rest)
				}
			}
		})
	}
}
