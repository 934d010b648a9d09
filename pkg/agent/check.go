package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/sandbox"
)

// Readiness is what `kubectl triage agents` says about one definition: is
// its CLI installed, at which version against the tested one, and what is
// missing before it can run, one actionable line each.
type Readiness struct {
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	Source        string   `json:"source"` // the embedded file or the user's override
	Binary        string   `json:"binary"`
	Path          string   `json:"path,omitempty"` // "" when not on PATH
	Version       string   `json:"version,omitempty"`
	TestedVersion string   `json:"testedVersion,omitempty"` // "" = untested
	Ready         bool     `json:"ready"`
	Missing       []string `json:"missing,omitempty"`  // each blocks a run
	Warnings      []string `json:"warnings,omitempty"` // version differences, untested CLIs
}

// CheckEnv is what a readiness check looks at; tests replace the parts.
type CheckEnv struct {
	Getenv   func(string) string
	Home     string
	LookPath func(string) (string, error)
	// Version runs the CLI's version command; nil runs it for real.
	Version func(ctx context.Context, path string, args []string) (string, error)
}

// CheckAll checks every definition, in name order, the version commands in
// parallel (a node CLI takes a second or two to print one).
func CheckAll(defs map[string]*Definition, env CheckEnv) []Readiness {
	names := sortedKeys(defs)
	out := make([]Readiness, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = Check(defs[n], env)
		}()
	}
	wg.Wait()
	return out
}

// Check tells whether one agent can run here and what to do if not.
func Check(d *Definition, env CheckEnv) Readiness {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.LookPath == nil {
		env.LookPath = exec.LookPath
	}
	if env.Version == nil {
		env.Version = runVersion
	}
	r := Readiness{Name: d.Name, Description: d.Description, Source: d.Source, Binary: d.Binary, TestedVersion: d.TestedVersion}
	if p, err := env.LookPath(d.Binary); err != nil {
		how := "install it"
		if d.Install != "" {
			how += ": " + d.Install
		}
		r.Missing = append(r.Missing, fmt.Sprintf("%s (%q is not on PATH)", how, d.Binary))
	} else {
		r.Path = p
		args := d.VersionArgs
		if len(args) == 0 {
			args = []string{"--version"}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		text, err := env.Version(ctx, p, args)
		cancel()
		r.Version = parseVersion(text)
		switch {
		case err != nil || r.Version == "":
			r.Warnings = append(r.Warnings, fmt.Sprintf("could not tell its version (`%s %s`: %s)", d.Binary, strings.Join(args, " "), orDefault(errText(err), "no version in its output")))
		case d.TestedVersion != "" && strings.TrimPrefix(r.Version, "v") != strings.TrimPrefix(d.TestedVersion, "v"):
			r.Warnings = append(r.Warnings, fmt.Sprintf("version %s is installed, %s was tested: if the run fails, install the tested one (%s@%s) or check its flags in %s", r.Version, d.TestedVersion, installName(d), d.TestedVersion, d.Source))
		}
	}
	if d.TestedVersion == "" {
		r.Warnings = append(r.Warnings, "untested: no version of this CLI was tested with kubectl-triage")
	}
	if line := credentialLine(d, env); line != "" {
		r.Missing = append(r.Missing, line)
	}
	r.Missing = append(r.Missing, configLines(d, env)...)
	r.Ready = len(r.Missing) == 0
	return r
}

// credentialLine is "" when one of the key variables is set or a login file
// exists, else what to do.
func credentialLine(d *Definition, env CheckEnv) string {
	if len(d.APIKeyEnv) == 0 && len(d.LoginFiles) == 0 {
		return ""
	}
	for _, k := range d.APIKeyEnv {
		if env.Getenv(k) != "" {
			return ""
		}
	}
	for _, f := range d.LoginFiles {
		if _, err := os.Stat(expandHome(f, env.Home)); err == nil {
			return ""
		}
	}
	var how []string
	if len(d.APIKeyEnv) > 0 {
		how = append(how, "set "+strings.Join(d.APIKeyEnv, " or "))
	}
	if len(d.LoginFiles) > 0 {
		how = append(how, fmt.Sprintf("log in once with `%s` (no %s yet)", d.Binary, strings.Join(d.LoginFiles, " or ")))
	}
	return "no credentials: " + strings.Join(how, ", or ")
}

// configLines are the settings the tested versions need beyond a key, found
// by running them headless (see plugins/agents/*.yaml).
func configLines(d *Definition, env CheckEnv) []string {
	var out []string
	switch d.Name {
	case "gemini":
		// With a base URL the environment selects the "gateway" auth
		// type, which gemini 0.61 rejects headless (exit 41).
		if env.Getenv("GOOGLE_GEMINI_BASE_URL") != "" && settingAt(expandHome("~/.gemini/settings.json", env.Home), "security", "auth", "selectedType") == "" {
			out = append(out, `GOOGLE_GEMINI_BASE_URL is set but ~/.gemini/settings.json selects no auth type: add {"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
		}
	case "codex":
		// codex 0.169 ignores OPENAI_BASE_URL.
		if v := env.Getenv("OPENAI_BASE_URL"); v != "" {
			data, _ := os.ReadFile(expandHome("~/.codex/config.toml", env.Home))
			if topLevelString(data, "openai_base_url", false) == "" {
				out = append(out, fmt.Sprintf("codex does not read OPENAI_BASE_URL: add openai_base_url = %q to ~/.codex/config.toml", v))
			}
		}
	}
	return out
}

// settingAt reads a nested string setting of a JSON file.
func settingAt(path string, keys ...string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

var versionRe = regexp.MustCompile(`\bv?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?`)

// parseVersion finds the version in a CLI's version output ("2.1.328 (Claude
// Code)", "codex-cli 0.169.0", "0.61.0").
func parseVersion(s string) string {
	return versionRe.FindString(s)
}

// installName is the package the install hint names, for "npm install
// -g PKG@VERSION"; the binary's name otherwise.
func installName(d *Definition) string {
	if f := strings.Fields(d.Install); len(f) > 0 && strings.HasPrefix(d.Install, "npm install") {
		return f[len(f)-1]
	}
	return d.Binary
}

func runVersion(ctx context.Context, path string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	exited := setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	exited()
	return out.String(), err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// SandboxPathProblems lists the PATH entries in the user's home that would
// not work inside the agent sandbox, each with how to fix it.
func SandboxPathProblems(env CheckEnv) []string {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return sandbox.ComputeExposure(env.Home, filepath.SplitList(getenv("PATH")), getenv).Problems
}
