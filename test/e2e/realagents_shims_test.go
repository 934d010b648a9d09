package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealAgentsFromVersionManagers: the real CLIs, installed the way a
// workstation has them under HOME, run contained unchanged: claude by its
// own installer (~/.local/bin/claude a link into a versions directory),
// gemini by volta (node and the CLI behind volta's shims) and codex by nvm
// (node and the CLI in a node version's bin). The kubectl the agent runs
// comes from an asdf-style shim. Nothing of that is on PATH outside HOME,
// so a tree the sandbox did not expose fails the run (exit 127 inside), as
// it did for pyenv users. The footer names what of the home was exposed.
func TestRealAgentsFromVersionManagers(t *testing.T) {
	for _, name := range []string{"claude", "gemini", "codex"} {
		t.Run(name, func(t *testing.T) {
			r := startRealAgent(t, "kubectl get pods -n NS", "kubectl logs api -n NS -c app --previous")
			realAgentSetups[name](t, r)
			modules := filepath.Dir(agentCLIDir(t)) // the npm install: node_modules
			h := func(rel string) string { return filepath.Join(r.home, rel) }
			link := func(target, rel string) {
				t.Helper()
				os.MkdirAll(filepath.Dir(h(rel)), 0o755)
				if err := os.Symlink(target, h(rel)); err != nil {
					t.Fatal(err)
				}
			}
			script := func(rel, body string) {
				t.Helper()
				os.MkdirAll(filepath.Dir(h(rel)), 0o755)
				if err := os.WriteFile(h(rel), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			node, err := findOnPath("node")
			if err != nil {
				t.Skip("node is not installed")
			}

			// kubectl from asdf: a shim exec'ing the installed version.
			link(filepath.Join(testBinDir(t), "kubectl"), ".asdf/installs/kubectl/1.37.1/bin/kubectl")
			script(".asdf/shims/kubectl", `exec "`+h(".asdf/installs/kubectl/1.37.1/bin/kubectl")+`" "$@"`)
			path := []string{h(".asdf/shims")}
			var exposed []string
			switch name {
			case "claude":
				link(filepath.Join(modules, "@anthropic-ai/claude-code/bin/claude.exe"), ".local/share/claude/versions/2.1.328")
				link(h(".local/share/claude/versions/2.1.328"), ".local/bin/claude")
				path = append(path, h(".local/bin"))
				exposed = []string{"~/.local/share/claude"}
			case "gemini":
				link(node, ".volta/tools/image/node/22.12.0/bin/node")
				link(modules, ".volta/tools/image/packages/@google/gemini-cli/lib/node_modules")
				script(".volta/bin/node", `exec "`+h(".volta/tools/image/node/22.12.0/bin/node")+`" "$@"`)
				script(".volta/bin/gemini", `exec "`+h(".volta/bin/node")+`" "`+
					h(".volta/tools/image/packages/@google/gemini-cli/lib/node_modules/@google/gemini-cli/bundle/gemini.js")+`" "$@"`)
				path = append(path, h(".volta/bin"))
				exposed = []string{"~/.volta"}
			case "codex":
				bin := ".nvm/versions/node/v22.12.0/bin"
				link(node, bin+"/node")
				link(modules, ".nvm/versions/node/v22.12.0/lib/node_modules")
				link("../lib/node_modules/@openai/codex/bin/codex.js", bin+"/codex")
				path = append(path, h(bin))
				exposed = []string{"~/.nvm"}
			}
			// The system's directories stay (sh, env), but no CLI and no
			// kubectl is found there: /usr/bin's node is shadowed by the
			// version manager's, as on the workstation.
			r.env[0] = "PATH=" + strings.Join(append(path, "/usr/bin", "/bin"), ":")

			r.run(t, name, "--require-sandbox")
			r.assertResolvedWithQuotedResults(t, "NAME", "api", "FATAL config: required env DATABASE_URL is empty")
			r.assertThroughGateway(t, "pods", "pods/log")
			exposed = append(exposed, "~/.asdf")
			for _, e := range exposed {
				if !strings.Contains(r.stdout, e) {
					t.Errorf("the footer does not say %s was exposed:\n%s", e, lastLines(r.stdout, 8))
				}
			}
			if !strings.Contains(r.stdout, "exposed read-only from your home") {
				t.Errorf("no sandbox line about the home:\n%s", lastLines(r.stdout, 8))
			}
		})
	}
}

func findOnPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return filepath.EvalSymlinks(p)
		}
	}
	return "", os.ErrNotExist
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
