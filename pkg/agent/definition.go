package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-triage/kubectl-triage/plugins"
)

// Definition describes an external agent CLI as data (plugins/agents/*.yaml).
type Definition struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Binary is the command to run, looked up on PATH.
	Binary string `json:"binary"`
	// Install tells a user how to get the binary.
	Install string `json:"install,omitempty"`
	// Args are always passed. Templates see .Prompt, .PromptFile, .Model,
	// .AllowedTools, .SystemPrompt, .SystemPromptFile, .Workspace, .ReportFile.
	Args []string `json:"args"`
	// ModelArgs are added when a model is chosen, ToolsArgs when an
	// allow-list is in force.
	ModelArgs []string `json:"modelArgs,omitempty"`
	ToolsArgs []string `json:"toolsArgs,omitempty"`
	// MaxTurnsArgs pass a turn limit ({{.MaxTurns}}) and BudgetArgs a
	// spending limit in US dollars ({{.MaxBudgetUSD}}), for a CLI that has
	// such a limit of its own; DefaultMaxTurns applies when the user sets
	// none. A CLI without them cannot be given --max-turns or
	// --max-budget-usd.
	MaxTurnsArgs    []string `json:"maxTurnsArgs,omitempty"`
	DefaultMaxTurns int      `json:"defaultMaxTurns,omitempty"`
	BudgetArgs      []string `json:"budgetArgs,omitempty"`
	// PromptStdin sends PROMPT.md on standard input instead of an argument.
	PromptStdin bool `json:"promptStdin,omitempty"`
	// AllowedTools is the default read-only tool allow-list.
	AllowedTools string `json:"allowedTools,omitempty"`
	// Env names the variables passed through from the user's environment
	// (the agent's own API key; never cluster or cloud credentials).
	Env []string `json:"env,omitempty"`
	// Auth: one of APIKeyEnv must be set, or one of LoginFiles must exist
	// (paths may start with ~/).
	APIKeyEnv  []string `json:"apiKeyEnv,omitempty"`
	LoginFiles []string `json:"loginFiles,omitempty"`
	// ConfigDirs are the CLI's own config and login paths (kept readable in
	// the sandbox). ConfigDirEnv names the variable that points the CLI at
	// its config dir when HOME is moved to the workspace.
	ConfigDirs   []string `json:"configDirs,omitempty"`
	ConfigDirEnv string   `json:"configDirEnv,omitempty"`
	// HomeFiles are the CLI's own settings and login (paths under ~/, files
	// or directories) copied into the sandbox's in-memory HOME; nothing else
	// of the user's home is visible to the agent. LoginFiles that the CLI
	// changed during the run (a refreshed OAuth token) are written back.
	HomeFiles []string `json:"homeFiles,omitempty"`
	// ModelHosts are the host:port pairs the egress proxy lets the agent
	// reach by default (the vendor's API). BaseURLEnv names variables whose
	// URL, when the user sets one, replaces them (a gateway or local model).
	ModelHosts []string `json:"modelHosts,omitempty"`
	BaseURLEnv []string `json:"baseURLEnv,omitempty"`
	// BaseURLConfig names base-URL settings in the CLI's own config files,
	// for a CLI that reads its endpoint only from there, as
	// "~/FILE#KEY" (a top-level key of a TOML or JSON file), e.g. codex's
	// "~/.codex/config.toml#openai_base_url". A URL set there counts as
	// one set in a BaseURLEnv variable.
	BaseURLConfig []string `json:"baseURLConfig,omitempty"`
	// TestedVersion is the CLI version this definition was tested with;
	// VersionArgs print the installed one (default --version).
	TestedVersion string   `json:"testedVersion,omitempty"`
	VersionArgs   []string `json:"versionArgs,omitempty"`
	// SetEnv are fixed variables the CLI needs (e.g. its non-interactive mode).
	SetEnv map[string]string `json:"setEnv,omitempty"`
	// Files are written into the workspace before the run (relative path →
	// content), e.g. a tool policy the arguments point at.
	Files map[string]string `json:"files,omitempty"`
	// Instructions are files (relative to the workspace) that receive the
	// read-only instructions and the report contract, where this CLI looks.
	Instructions []string `json:"instructions,omitempty"`
	// Output is the stdout format: stream-json (parsed live), json or text.
	Output string `json:"output"`
	// Stream names the stream dialect: claude, codex, gemini, goose.
	Stream string `json:"stream,omitempty"`
	// Report says how the report is obtained: "file" (the agent writes
	// output/investigation.md), "result" (the final result message of the
	// stream), "stdout" (the whole stdout). The runner falls back from file
	// to result to stdout.
	Report string `json:"report"`

	// Source is where the definition was read from (embedded or a file).
	Source string `json:"-"`
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

func (d *Definition) validate() error {
	var errs []string
	if !namePattern.MatchString(d.Name) {
		errs = append(errs, fmt.Sprintf("name %q must be lower-case letters, digits and dashes", d.Name))
	}
	if d.Binary == "" {
		errs = append(errs, "binary is required")
	}
	switch d.Output {
	case "stream-json", "json", "text":
	default:
		errs = append(errs, fmt.Sprintf("output %q must be stream-json, json or text", d.Output))
	}
	switch d.Report {
	case "file", "result", "stdout":
	default:
		errs = append(errs, fmt.Sprintf("report %q must be file, result or stdout", d.Report))
	}
	if _, ok := streamParsers[d.Stream]; !ok {
		errs = append(errs, fmt.Sprintf("stream %q is unknown (known: %s)", d.Stream, strings.Join(streamNames(), ", ")))
	}
	if d.DefaultMaxTurns < 0 || d.DefaultMaxTurns > 0 && len(d.MaxTurnsArgs) == 0 {
		errs = append(errs, "defaultMaxTurns needs maxTurnsArgs and must not be negative")
	}
	for _, list := range [][]string{d.Args, d.ModelArgs, d.ToolsArgs, d.MaxTurnsArgs, d.BudgetArgs} {
		for _, a := range list {
			if _, err := template.New("").Option("missingkey=error").Parse(a); err != nil {
				errs = append(errs, fmt.Sprintf("argument %q: %v", a, err))
			}
		}
	}
	errs = append(errs, d.validateSandboxFields()...)
	if len(errs) > 0 {
		return fmt.Errorf("agent definition %s: %s", d.Source, strings.Join(errs, "; "))
	}
	return nil
}

var (
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	versionPattern = regexp.MustCompile(`^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$`)
	hostPattern    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
)

// validateSandboxFields checks what the sandbox and the egress proxy act
// on: a home file outside ~ or a host the proxy cannot match would silently
// copy or allow the wrong thing.
func (d *Definition) validateSandboxFields() []string {
	var errs []string
	for _, f := range d.HomeFiles {
		rel, ok := strings.CutPrefix(f, "~/")
		if !ok || rel == "" || filepath.IsAbs(rel) || filepath.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
			errs = append(errs, fmt.Sprintf("homeFiles entry %q must be a clean path under ~/ (e.g. ~/.claude/settings.json)", f))
		}
	}
	for _, h := range d.ModelHosts {
		host, port, err := net.SplitHostPort(h)
		n, perr := strconv.Atoi(port)
		if err != nil || !hostPattern.MatchString(host) || perr != nil || n < 1 || n > 65535 {
			errs = append(errs, fmt.Sprintf("modelHosts entry %q must be host:port (e.g. api.anthropic.com:443)", h))
		}
	}
	for _, c := range d.BaseURLConfig {
		file, key, ok := strings.Cut(c, "#")
		if !ok || key == "" || !strings.HasPrefix(file, "~/") || filepath.Clean(file[2:]) != file[2:] || strings.HasPrefix(file[2:], "..") {
			errs = append(errs, fmt.Sprintf("baseURLConfig entry %q must be ~/FILE#KEY (e.g. ~/.codex/config.toml#openai_base_url)", c))
		}
	}
	for _, v := range append(append([]string{}, d.BaseURLEnv...), d.APIKeyEnv...) {
		if !envNamePattern.MatchString(v) {
			errs = append(errs, fmt.Sprintf("variable name %q is not valid", v))
		}
	}
	if d.TestedVersion != "" && !versionPattern.MatchString(d.TestedVersion) {
		errs = append(errs, fmt.Sprintf("testedVersion %q must be a version like 1.2.3", d.TestedVersion))
	}
	return errs
}

// ParseDefinition reads one YAML definition; unknown fields are errors.
func ParseDefinition(data []byte, source string) (*Definition, error) {
	var d Definition
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return nil, fmt.Errorf("agent definition %s: %w", source, err)
	}
	d.Source = source
	if err := d.validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Definitions loads the embedded agent definitions, then files in
// configDir/agents/*.yaml, which override embedded ones of the same name.
func Definitions(configDir string) (map[string]*Definition, error) {
	out := map[string]*Definition{}
	embedded, err := fs.Glob(plugins.Agents, "agents/*.yaml")
	if err != nil {
		return nil, err
	}
	for _, p := range embedded {
		data, err := plugins.Agents.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := ParseDefinition(data, "plugins/"+p)
		if err != nil {
			return nil, err
		}
		out[d.Name] = d
	}
	if configDir == "" {
		return out, nil
	}
	files, err := filepath.Glob(filepath.Join(configDir, "agents", "*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := ParseDefinition(data, p)
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".yaml"); d.Name != want {
			return nil, fmt.Errorf("agent definition %s: name %q must match the file name %q", p, d.Name, want)
		}
		out[d.Name] = d
	}
	return out, nil
}

// DefaultConfigDir is $XDG_CONFIG_HOME/kubectl-triage (or ~/.config/…).
func DefaultConfigDir() string {
	if v := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(v) {
		return filepath.Join(v, "kubectl-triage")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "kubectl-triage")
	}
	return ""
}

// argData is what argument templates see.
type argData struct {
	Prompt, PromptFile, Model, AllowedTools, SystemPrompt, SystemPromptFile, Workspace, ReportFile string
	// MaxTurns and MaxBudgetUSD are the limits as the CLI's flags take them.
	MaxTurns, MaxBudgetUSD string
}

// render expands argument templates; an argument that renders empty is
// dropped (an optional value that was not set).
func render(args []string, data argData) ([]string, error) {
	var out []string
	for _, a := range args {
		t, err := template.New("").Option("missingkey=error").Parse(a)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("argument %q: %w", a, err)
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return out, nil
}

// expandHome turns a leading ~/ into the home directory.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// ErrNotReady is wrapped by preflight failures: the CLI is missing or has no
// credentials.
var ErrNotReady = errors.New("agent not ready")

func sortedKeys(m map[string]*Definition) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
