package config_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/kubeflags"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

// values are what the test command tree's flags ended up as.
type values struct {
	Agent, Model, WorkspaceRoot string
	Timeout                     time.Duration
	Quiet, Color                bool
	Masks                       []string

	WatchAgent   string
	WatchTimeout time.Duration
	MinSeverity  severity
	MaxQueue     int
	Labels       []string
	Overflow     string
	WatchOutput  string
}

func defaults() values {
	return values{
		Agent: "builtin", Timeout: 10 * time.Minute, Color: true,
		WatchAgent: "builtin", WatchTimeout: 10 * time.Minute, MinSeverity: "warning", MaxQueue: 100,
		Labels: []string{"env"}, Overflow: "drop-oldest", WatchOutput: "text",
	}
}

// severity is a custom flag type, as watch's --min-severity may be.
type severity string

func (s *severity) String() string { return string(*s) }
func (s *severity) Type() string   { return "severity" }
func (s *severity) Set(v string) error {
	switch v {
	case "info", "warning", "critical":
		*s = severity(v)
		return nil
	}
	return fmt.Errorf("want info, warning or critical")
}

// choice is a custom flag type that scratch cannot copy by reflection (a
// struct over a pointer), as pkg/cmd's checked strings: it makes its own
// scratch values.
type choice struct {
	p       *string
	choices []string
}

func (c *choice) String() string { return *c.p }
func (c *choice) Type() string   { return "string" }
func (c *choice) Set(v string) error {
	for _, ok := range c.choices {
		if v == ok {
			*c.p = v
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(c.choices, ", "))
}
func (c *choice) Scratch() pflag.Value { return &choice{p: new(string), choices: c.choices} }

var _ config.Scratcher = (*choice)(nil)

// newTree builds a command tree shaped like kubectl triage's: a root with
// its own flags and cli-runtime's persistent connection flags, and a watch
// subcommand that shares some flag names. Setup runs before either command.
func newTree(getenv func(string) string) (*cobra.Command, *values, **config.File) {
	v := defaults()
	var file *config.File
	root := &cobra.Command{
		Use:           "triage",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl triage"},
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			f, err := config.Setup(cmd, getenv)
			file = f
			return err
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	f := root.Flags()
	f.StringVar(&v.Agent, "agent", v.Agent, "")
	f.StringVar(&v.Model, "model", v.Model, "")
	f.DurationVar(&v.Timeout, "timeout", v.Timeout, "")
	f.StringVar(&v.WorkspaceRoot, "workspace-root", v.WorkspaceRoot, "")
	f.BoolVarP(&v.Quiet, "quiet", "q", v.Quiet, "")
	f.BoolVar(&v.Color, "color", v.Color, "")
	f.StringArrayVar(&v.Masks, "sandbox-mask", v.Masks, "")
	f.String("fault-file", "", "")
	f.StringP("output", "o", "", "")
	config.BindEnv(f, "agent", "AGENT_CLI", "KUBECTL_TRIAGE_AGENT")
	config.BindEnv(f, "timeout", "AGENT_TIMEOUT")
	config.ExcludeFromConfig(f, "fault-file", "output")
	kubeflags.NewConfigFlags(true).AddFlags(root.PersistentFlags())
	config.AddFlag(root.PersistentFlags())

	watch := &cobra.Command{Use: "watch", RunE: func(*cobra.Command, []string) error { return nil }}
	wf := watch.Flags()
	wf.StringVar(&v.WatchAgent, "agent", v.WatchAgent, "")
	wf.DurationVar(&v.WatchTimeout, "timeout", v.WatchTimeout, "")
	wf.Var(&v.MinSeverity, "min-severity", "")
	wf.IntVar(&v.MaxQueue, "max-queue", v.MaxQueue, "")
	wf.DurationVar(new(time.Duration), "dedup-window", 15*time.Minute, "")
	wf.StringSliceVar(&v.Labels, "labels", v.Labels, "")
	wf.Var(&choice{p: &v.Overflow, choices: []string{"drop-oldest", "drop-new"}}, "overflow", "")
	wf.StringVar(&v.WatchOutput, "output", v.WatchOutput, "")
	config.BindEnv(wf, "agent", "AGENT_CLI")
	root.AddCommand(watch)
	return root, &v, &file
}

// scenario is one run of the test tree: the default config file's content
// (none when empty), other files to write, environment and arguments. DIR
// in env, other files' names and args stands for a temporary directory.
type scenario struct {
	file  string
	other map[string]string
	env   map[string]string
	args  []string
}

type result struct {
	dir  string // the temporary directory, DIR
	path string // the default config file's path, "" when none was written
	vals *values
	file *config.File
	cmd  *cobra.Command
	err  error
}

func (s scenario) execute(t *testing.T) result {
	t.Helper()
	dir := t.TempDir()
	expand := func(v string) string { return strings.ReplaceAll(v, "DIR", dir) }
	environ := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "xdg"), "HOME": filepath.Join(dir, "home")}
	for k, v := range s.env {
		environ[k] = expand(v)
	}
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := result{dir: dir}
	if s.file != "" {
		r.path = filepath.Join(dir, "xdg", "kubectl-triage", "config.yaml")
		write(r.path, s.file)
	}
	for name, content := range s.other {
		write(filepath.Join(dir, name), content)
	}
	args := make([]string, len(s.args))
	for i, a := range s.args {
		args[i] = expand(a)
	}
	root, vals, file := newTree(func(k string) string { return environ[k] })
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	r.cmd, r.err = root.ExecuteC()
	r.vals, r.file = vals, *file
	return r
}

// expand replaces PATH with the default config file's path and DIR with the
// temporary directory in want.
func (r result) expand(want string) string {
	return strings.ReplaceAll(strings.ReplaceAll(want, "PATH", r.path), "DIR", r.dir)
}

func TestPrecedence(t *testing.T) {
	const home = "/home/u"
	tests := []struct {
		name    string
		in      scenario
		want    func(*values)
		sources map[string]string // flag → Source.String(); PATH is the default file, DIR the temporary directory
	}{
		{
			name:    "defaults without a config file",
			want:    func(*values) {},
			sources: map[string]string{"agent": "default", "timeout": "default", "sandbox-mask": "default"},
		},
		{
			name: "file sets top-level settings",
			in:   scenario{file: "agent: claude\nmodel: sonnet\ntimeout: 5m\nquiet: true\ncolor: false\n"},
			want: func(v *values) {
				v.Agent, v.Model, v.Timeout, v.Quiet, v.Color = "claude", "sonnet", 5*time.Minute, true, false
			},
			sources: map[string]string{"agent": "config PATH:1", "timeout": "config PATH:3", "quiet": "config PATH:4", "workspace-root": "default"},
		},
		{
			name: "env over file",
			in: scenario{
				file: "agent: claude\ntimeout: 5m\n",
				env:  map[string]string{"AGENT_CLI": "codex", "AGENT_TIMEOUT": "90s"},
			},
			want:    func(v *values) { v.Agent, v.Timeout = "codex", 90*time.Second },
			sources: map[string]string{"agent": "env AGENT_CLI", "timeout": "env AGENT_TIMEOUT"},
		},
		{
			name: "flag over env and file",
			in: scenario{
				file: "agent: claude\ntimeout: 5m\n",
				env:  map[string]string{"AGENT_CLI": "codex", "AGENT_TIMEOUT": "90s"},
				args: []string{"--agent=gemini", "--timeout", "1m"},
			},
			want:    func(v *values) { v.Agent, v.Timeout = "gemini", time.Minute },
			sources: map[string]string{"agent": "flag", "timeout": "flag"},
		},
		{
			name:    "first environment name that is set wins",
			in:      scenario{env: map[string]string{"AGENT_CLI": "codex", "KUBECTL_TRIAGE_AGENT": "gemini"}},
			want:    func(v *values) { v.Agent = "codex" },
			sources: map[string]string{"agent": "env AGENT_CLI"},
		},
		{
			name: "an empty environment variable counts as unset",
			in: scenario{
				file: "agent: claude\n",
				env:  map[string]string{"AGENT_CLI": "", "KUBECTL_TRIAGE_AGENT": "gemini"},
			},
			want:    func(v *values) { v.Agent = "gemini" },
			sources: map[string]string{"agent": "env KUBECTL_TRIAGE_AGENT"},
		},
		{
			name:    "top-level settings reach the subcommand",
			in:      scenario{file: "agent: claude\ntimeout: 5m\n", args: []string{"watch"}},
			want:    func(v *values) { v.WatchAgent, v.WatchTimeout = "claude", 5*time.Minute },
			sources: map[string]string{"agent": "config PATH:1", "timeout": "config PATH:2", "min-severity": "default"},
		},
		{
			name: "section over top level for the subcommand",
			in: scenario{
				file: "agent: claude\ntimeout: 5m\nwatch:\n  agent: codex\n  min-severity: critical\n  max-queue: 3\n",
				args: []string{"watch"},
			},
			want: func(v *values) {
				v.WatchAgent, v.WatchTimeout, v.MinSeverity, v.MaxQueue = "codex", 5*time.Minute, "critical", 3
			},
			sources: map[string]string{"agent": "config PATH:4", "timeout": "config PATH:2", "max-queue": "config PATH:6"},
		},
		{
			name: "a custom value from the section",
			in:   scenario{file: "watch:\n  overflow: drop-new\n  output: json\n", args: []string{"watch"}},
			want: func(v *values) { v.Overflow, v.WatchOutput = "drop-new", "json" },
		},
		{
			name: "checking a custom value sets no flag",
			in:   scenario{file: "watch:\n  overflow: drop-new\n"},
			want: func(*values) {},
		},
		{
			name:    "a section leaves the root command alone",
			in:      scenario{file: "agent: claude\nwatch:\n  agent: codex\n"},
			want:    func(v *values) { v.Agent = "claude" },
			sources: map[string]string{"agent": "config PATH:1"},
		},
		{
			name: "env and flag over the section",
			in: scenario{
				file: "watch:\n  agent: codex\n  max-queue: 3\n",
				env:  map[string]string{"AGENT_CLI": "gemini"},
				args: []string{"watch", "--max-queue", "9"},
			},
			want:    func(v *values) { v.WatchAgent, v.MaxQueue = "gemini", 9 },
			sources: map[string]string{"agent": "env AGENT_CLI", "max-queue": "flag"},
		},
		{
			name: "lists and ~ expansion",
			in: scenario{
				file: "sandbox-mask: [~/secrets, /opt/creds]\nworkspace-root: ~/incidents\n",
				env:  map[string]string{"HOME": home},
			},
			want: func(v *values) {
				v.Masks, v.WorkspaceRoot = []string{home + "/secrets", "/opt/creds"}, home+"/incidents"
			},
			sources: map[string]string{"sandbox-mask": "config PATH:1"},
		},
		{
			name: "block list",
			in:   scenario{file: "sandbox-mask:\n  - /a\n  - /b\n"},
			want: func(v *values) { v.Masks = []string{"/a", "/b"} },
		},
		{
			name:    "flags replace a list from the file",
			in:      scenario{file: "sandbox-mask: [/a, /b]\n", args: []string{"--sandbox-mask", "/x"}},
			want:    func(v *values) { v.Masks = []string{"/x"} },
			sources: map[string]string{"sandbox-mask": "flag"},
		},
		{
			name: "an empty list clears a slice default",
			in:   scenario{file: "watch:\n  labels: []\n", args: []string{"watch"}},
			want: func(v *values) { v.Labels = []string{} },
		},
		{
			name: "a scalar for a slice flag parses as on the command line",
			in:   scenario{file: "watch:\n  labels: team,tier\n", args: []string{"watch"}},
			want: func(v *values) { v.Labels = []string{"team", "tier"} },
		},
		{
			name: "YAML anchors",
			in:   scenario{file: "agent: &a claude\nwatch:\n  agent: *a\n", args: []string{"watch"}},
			want: func(v *values) { v.WatchAgent = "claude" },
		},
		{
			name: "--config names another file instead of the default one",
			in: scenario{
				file:  "agent: claude\n",
				other: map[string]string{"other.yaml": "model: opus\n"},
				args:  []string{"--config", "DIR/other.yaml"},
			},
			want:    func(v *values) { v.Model = "opus" },
			sources: map[string]string{"model": "config DIR/other.yaml:1", "agent": "default", "config": "flag"},
		},
		{
			name: "$KUBECTL_TRIAGE_CONFIG names another file",
			in: scenario{
				file:  "agent: claude\n",
				other: map[string]string{"other.yaml": "model: opus\n"},
				env:   map[string]string{"KUBECTL_TRIAGE_CONFIG": "DIR/other.yaml"},
			},
			want:    func(v *values) { v.Model = "opus" },
			sources: map[string]string{"model": "config DIR/other.yaml:1", "config": "env KUBECTL_TRIAGE_CONFIG"},
		},
		{
			name:    "--config empty means no file",
			in:      scenario{file: "agent: claude\n", args: []string{"--config="}},
			want:    func(*values) {},
			sources: map[string]string{"agent": "default"},
		},
		{
			name: "empty file",
			in:   scenario{file: "\n"},
			want: func(*values) {},
		},
		{
			name: "comments only",
			in:   scenario{file: "# nothing yet\n"},
			want: func(*values) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.in.execute(t)
			if r.err != nil {
				t.Fatalf("unexpected error: %v", r.err)
			}
			want := defaults()
			tt.want(&want)
			if !reflect.DeepEqual(*r.vals, want) {
				t.Errorf("values:\n got %+v\nwant %+v", *r.vals, want)
			}
			for flag, src := range tt.sources {
				src = r.expand(src)
				if got := r.file.Source(flag).String(); got != src {
					t.Errorf("Source(%q) = %q, want %q", flag, got, src)
				}
			}
			// Changed keeps meaning "typed on the command line".
			r.cmd.Flags().VisitAll(func(fl *pflag.Flag) {
				if fromFlag := r.file.Source(fl.Name).Kind == config.FromFlag; fl.Changed != fromFlag {
					t.Errorf("flag %q: Changed = %v, source %s", fl.Name, fl.Changed, r.file.Source(fl.Name))
				}
			})
		})
	}
}

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		osHome  string // $HOME of the process, for os.UserHomeDir
		want    string
		wantErr bool
	}{
		{name: "XDG_CONFIG_HOME", env: map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"}, want: "/xdg/kubectl-triage/config.yaml"},
		{name: "HOME", env: map[string]string{"HOME": "/home/u"}, osHome: "/home/os", want: "/home/u/.config/kubectl-triage/config.yaml"},
		{name: "relative XDG_CONFIG_HOME is ignored", env: map[string]string{"XDG_CONFIG_HOME": "xdg", "HOME": "/home/u"}, want: "/home/u/.config/kubectl-triage/config.yaml"},
		{name: "the user's home directory when getenv has no HOME", env: map[string]string{}, osHome: "/home/os", want: "/home/os/.config/kubectl-triage/config.yaml"},
		{name: "no home directory", env: map[string]string{}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
				t.Skip("os.UserHomeDir does not read $HOME here")
			}
			t.Setenv("HOME", tt.osHome)
			got, err := config.DefaultPath(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("DefaultPath() = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(present, []byte("agent: claude\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		name      string
		path      string
		explicit  bool
		wantFound bool
		wantErr   error
	}{
		{name: "present", path: present, wantFound: true},
		{name: "present and explicit", path: present, explicit: true, wantFound: true},
		{name: "missing default file is fine", path: missing},
		{name: "missing explicit file", path: missing, explicit: true, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Load(tt.path, tt.explicit)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Load() error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load() error = %v", err)
			}
			if f.Found() != tt.wantFound || f.Path() != tt.path {
				t.Errorf("Found() = %v, Path() = %q; want %v, %q", f.Found(), f.Path(), tt.wantFound, tt.path)
			}
		})
	}
}

// A caller that skips Validate still cannot set connection flags from the
// file.
func TestApplyRefusesConnectionFlags(t *testing.T) {
	f, err := config.Parse("config.yaml", []byte("context: prod\n"))
	if err != nil {
		t.Fatal(err)
	}
	root, _, _ := newTree(func(string) string { return "" })
	err = f.Apply(root, func(string) string { return "" })
	want := `config file config.yaml line 1: "context" cannot be set in the config file`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Apply() error = %v, want %q", err, want)
	}
	if got := root.Flags().Lookup("context").Value.String(); got != "" {
		t.Errorf("--context = %q, want it untouched", got)
	}
}

func TestBindEnv(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.String("agent", "", "")
	config.BindEnv(fs, "agent", "AGENT_CLI")
	config.BindEnv(fs, "agent", "KUBECTL_TRIAGE_AGENT")
	if got, want := config.EnvNames(fs.Lookup("agent")), []string{"AGENT_CLI", "KUBECTL_TRIAGE_AGENT"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EnvNames() = %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("BindEnv of an unknown flag did not panic")
		}
	}()
	config.BindEnv(fs, "agnet", "AGENT_CLI")
}
