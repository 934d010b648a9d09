package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/shlex"
)

// Options choose and configure the agent for a run.
type Options struct {
	Name             string        // builtin, claude, codex, gemini, goose, or a definition in the config dir
	Command          string        // --agent-command: any other CLI, overrides Name
	Model            string        // --model
	AllowedTools     string        // --allowed-tools
	SystemPromptFile string        // --system-prompt-file
	WaitDelay        time.Duration // between SIGINT and SIGKILL on cancel
	ConfigDir        string        // where user definitions override the embedded ones
	Sandbox          SandboxPolicy // how exec agents are isolated
	Kubeconfigs      []string      // the user's kubeconfig files, masked in the sandbox
	ExtraMasks       []string      // more paths to mask
	MaxTurns         int           // --max-turns: the CLI's own turn limit (0: its definition's default)
	MaxBudgetUSD     float64       // --max-budget-usd: the CLI's own spending limit (0: none)
}

// Resolve returns the agent the options name. For an exec agent it runs the
// preflight (binary installed, credentials present), so a missing CLI or key
// fails before any workspace exists.
func Resolve(o Options) (Agent, error) {
	if o.Command == "" && (o.Name == "" || o.Name == BuiltinName) {
		if o.MaxTurns != 0 || o.MaxBudgetUSD != 0 {
			return nil, fmt.Errorf("--max-turns and --max-budget-usd limit an agent CLI; the builtin investigator takes neither")
		}
		return &Builtin{}, nil
	}
	var def *Definition
	if o.Command != "" {
		d, err := commandDefinition(o.Command)
		if err != nil {
			return nil, err
		}
		def = d
	} else {
		defs, err := Definitions(o.ConfigDir)
		if err != nil {
			return nil, err
		}
		d, ok := defs[o.Name]
		if !ok {
			return nil, fmt.Errorf("unknown agent %q: available agents are %s, %s (or run any CLI with --agent-command)", o.Name, BuiltinName, strings.Join(sortedKeys(defs), ", "))
		}
		def = d
	}
	if err := checkLimits(def, o); err != nil {
		return nil, err
	}
	e := &Exec{Def: def, ModelName: o.Model, AllowedTools: o.AllowedTools, SystemPromptFile: o.SystemPromptFile, WaitDelay: o.WaitDelay,
		Isolation: o.Sandbox, Kubeconfigs: o.Kubeconfigs, ExtraMasks: o.ExtraMasks, MaxTurns: o.MaxTurns, MaxBudgetUSD: o.MaxBudgetUSD}
	if err := e.Preflight(); err != nil {
		return nil, err
	}
	return e, nil
}

// commandDefinition turns --agent-command "CMD ARGS" into a definition: its
// stdout is the report (unless it writes output/investigation.md), and the
// prompt goes on stdin unless an argument uses {{.Prompt}} or
// {{.PromptFile}}.
func commandDefinition(command string) (*Definition, error) {
	words, err := shlex.Split(command)
	if err != nil || len(words) == 0 {
		return nil, fmt.Errorf("--agent-command %q: want a command line such as \"mycli --headless\"", command)
	}
	d := &Definition{Name: "command", Binary: words[0], Args: words[1:], Output: "text", Report: "file", Source: "--agent-command"}
	d.PromptStdin = !strings.Contains(command, "{{.Prompt")
	if err := d.validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// Names lists the agents a user can pick.
func Names(configDir string) []string {
	names := []string{BuiltinName}
	if defs, err := Definitions(configDir); err == nil {
		names = append(names, sortedKeys(defs)...)
	}
	return names
}

// checkLimits refuses a limit the agent's CLI has no flag for, rather than
// let a user believe a run is bounded when it is not.
func checkLimits(def *Definition, o Options) error {
	if o.MaxTurns < 0 || o.MaxBudgetUSD < 0 {
		return fmt.Errorf("--max-turns and --max-budget-usd must not be negative")
	}
	if o.MaxTurns > 0 && len(def.MaxTurnsArgs) == 0 {
		return fmt.Errorf("--max-turns: the %s agent's CLI has no turn limit of its own (its definition sets no maxTurnsArgs); bound the run with --timeout instead", def.Name)
	}
	if o.MaxBudgetUSD > 0 && len(def.BudgetArgs) == 0 {
		return fmt.Errorf("--max-budget-usd: the %s agent's CLI has no spending limit of its own (its definition sets no budgetArgs); bound the run with --timeout or --max-turns instead", def.Name)
	}
	return nil
}
