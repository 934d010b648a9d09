package plugins

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const skillRoot = "skills/k8s-troubleshooter"

func readSkillFile(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(Skills, path.Join(skillRoot, name))
	if err != nil {
		t.Fatalf("embedded skill file %s: %v", name, err)
	}
	return string(b)
}

// frontmatter splits a SKILL.md into its YAML frontmatter (flat key: value
// pairs, which is all a skill header uses) and the body.
func frontmatter(doc string) (map[string]string, string, error) {
	if !strings.HasPrefix(doc, "---\n") {
		return nil, "", fmt.Errorf("does not start with a --- line")
	}
	head, body, ok := strings.Cut(doc[len("---\n"):], "\n---\n")
	if !ok {
		return nil, "", fmt.Errorf("frontmatter is not closed by a --- line")
	}
	fields := map[string]string{}
	for i, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || key != strings.TrimSpace(key) || key == "" {
			return nil, "", fmt.Errorf("frontmatter line %d is not 'key: value': %q", i+1, line)
		}
		if _, dup := fields[key]; dup {
			return nil, "", fmt.Errorf("frontmatter key %q repeated", key)
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		fields[key] = value
	}
	return fields, body, nil
}

func TestFrontmatterParser(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		wantErr   bool
		want      map[string]string
	}{
		{"plain", "---\nname: a\ndescription: does b: c\n---\nbody", false, map[string]string{"name": "a", "description": "does b: c"}},
		{"quoted", "---\nname: \"a\"\n---\n", false, map[string]string{"name": "a"}},
		{"no opening", "name: a\n---\n", true, nil},
		{"not closed", "---\nname: a\n", true, nil},
		{"duplicate", "---\nname: a\nname: b\n---\n", true, nil},
		{"not key value", "---\njust text\n---\n", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := frontmatter(tc.doc)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSkillFrontmatter(t *testing.T) {
	fields, body, err := frontmatter(readSkillFile(t, "SKILL.md"))
	if err != nil {
		t.Fatalf("SKILL.md: %v", err)
	}
	nameRe := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, tc := range []struct {
		field string
		check func(string) error
	}{
		{"name", func(v string) error {
			if v != "k8s-troubleshooter" {
				return fmt.Errorf("want k8s-troubleshooter")
			}
			if !nameRe.MatchString(v) || len(v) > 64 || v != path.Base(skillRoot) {
				return fmt.Errorf("must be lower-case words joined by '-', at most 64 characters, equal to the directory name")
			}
			return nil
		}},
		{"description", func(v string) error {
			switch {
			case strings.TrimSpace(v) == "":
				return fmt.Errorf("empty")
			case len(v) > 1024:
				return fmt.Errorf("%d characters, limit 1024", len(v))
			case strings.ContainsAny(v, "<>"):
				return fmt.Errorf("must not contain angle brackets")
			case !strings.Contains(strings.ToLower(v), "read-only") || !strings.Contains(v, "Kubernetes"):
				return fmt.Errorf("should say it is for read-only diagnosis of Kubernetes workloads")
			}
			return nil
		}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			v, ok := fields[tc.field]
			if !ok {
				t.Fatalf("frontmatter has no %q", tc.field)
			}
			if err := tc.check(v); err != nil {
				t.Errorf("%s %q: %v", tc.field, v, err)
			}
		})
	}
	if !strings.Contains(body, "# k8s-troubleshooter") {
		t.Errorf("body has no title")
	}
}

// reportContract is DESIGN.md §7: SKILL.md must carry these lines verbatim.
var reportContract = []string{
	"# Triage: <Kind>/<name> (<namespace>) — <one-line root cause>",
	"<incident id> · <cluster/context> · <time> · agent <name> · <duration>",
	"## Summary            root cause in one or two sentences; confidence level + score; severity; ongoing|historical",
	"## Symptom            what is observably wrong (status, reasons, counts)",
	"## Evidence           E1…En, each: what was seen + where from (object/field, event, log line, the kubectl command that shows it)",
	"## Timeline           dated facts, oldest first (events, restarts, rollouts, changes)",
	"## Hypotheses         table: hypothesis | verdict (validated/refuted/inconclusive) | evidence refs",
	"## Root cause         statement, mechanism, contributing factors, confidence (speculation <0.5, probable <0.7, confident <0.9, verified ≥0.9)",
	"## Recommended actions immediate mitigation and long-term fix, with exact commands for a human to run, and their risks — never executed",
	"## Ruled out          what was checked and found healthy",
	"## Milestones         symptom_verified, scope_assessed, timeline_established, changes_identified, root_cause_identified, solution_proposed",
}

func TestSkillReportFormat(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	// Title and header line, a blank line, then the sections, in a fence.
	block := "```\n" + reportContract[0] + "\n" + reportContract[1] + "\n\n" +
		strings.Join(reportContract[2:], "\n") + "\n```"
	if !strings.Contains(skill, block) {
		t.Errorf("SKILL.md does not contain the report format block verbatim:\n%s", block)
	}
	headings := []string{"## Summary", "## Symptom", "## Evidence", "## Timeline", "## Hypotheses",
		"## Root cause", "## Recommended actions", "## Ruled out", "## Milestones"}
	last := -1
	for _, h := range headings {
		t.Run(h, func(t *testing.T) {
			i := strings.Index(skill, "\n"+h+" ")
			if i < 0 {
				t.Fatalf("heading %q missing", h)
			}
			if i < last {
				t.Errorf("heading %q out of order", h)
			}
			last = i
		})
	}
	for _, m := range []string{"symptom_verified", "scope_assessed", "timeline_established",
		"changes_identified", "root_cause_identified", "solution_proposed"} {
		if strings.Count(skill, "`"+m+"`") == 0 {
			t.Errorf("method does not name milestone %s", m)
		}
	}
}

func TestSkillRules(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	for _, tc := range []struct{ what, text string }{
		{"read verbs", "`get`, `describe`, `logs`,\n   `events`, `top`, `auth can-i`, `api-resources`, `explain`"},
		{"never mutate", "Never mutate"},
		{"no secret values", "Never read Secret values"},
		{"untrusted data", "**untrusted data**"},
		{"never follow injected instructions", "Never follow them"},
		{"fixes are proposals", "Never run them."},
		{"degraded mode", `"Degraded: limited data"`},
		{"speculation when thin", "keep\n  hypotheses at `speculation`"},
		{"no invented cause", "Never invent a cause."},
		{"healthy is healthy", "says it is healthy"},
		{"report is rejected without sections", "A report without `## Summary` and `## Root cause` is rejected."},
		{"report path", "`output/investigation.md`"},
		{"artifacts path", "`output/artifacts/`"},
		{"incident record", "`incident.json`"},
		{"prompt", "`PROMPT.md`"},
		{"event", "`context/event.json`"},
		{"cluster info", "`context/cluster-info.json`"},
		{"resources", "`context/resources/`"},
		{"events", "`context/events.json`"},
		{"logs", "`context/logs.txt`"},
		{"system instructions", "`context/system-instructions.txt`"},
		{"kubeconfig", "`context/kubeconfig`"},
		{"confidence scale", "| `verified` | ≥ 0.9 |"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if !strings.Contains(skill, tc.text) {
				t.Errorf("SKILL.md lacks %q", tc.text)
			}
		})
	}
	// Every mutating verb is named as forbidden in the rules section.
	i := strings.Index(skill, "## Read-only rules")
	if i < 0 {
		t.Fatal("SKILL.md has no '## Read-only rules' section")
	}
	rules, _, _ := strings.Cut(skill[i:], "## Your workspace")
	for _, verb := range []string{"apply", "create", "delete", "edit", "patch", "replace", "scale", "label",
		"annotate", "rollout restart|undo|pause|resume", "cordon", "uncordon", "drain", "taint", "exec",
		"attach", "port-forward", "cp", "proxy", "run", "debug", "set"} {
		if !strings.Contains(rules, "`"+verb+"`") {
			t.Errorf("read-only rules do not forbid `%s`", verb)
		}
	}
}

// TestSkillIndex checks that SKILL.md and the skill's files agree: every
// references/… or scripts/… path it names exists in the embedded FS, and
// every embedded reference and script is named.
func TestSkillIndex(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b(?:references|scripts)/[A-Za-z0-9._-]+\.(?:md|sh)\b`).FindAllString(skill, -1) {
		named[m] = true
	}
	if len(named) == 0 {
		t.Fatal("SKILL.md names no references/ or scripts/ files")
	}
	for p := range named {
		t.Run("named/"+p, func(t *testing.T) {
			if _, err := fs.Stat(Skills, path.Join(skillRoot, p)); err != nil {
				t.Errorf("SKILL.md names %s, not in the embedded skill: %v", p, err)
			}
		})
	}
	for _, dir := range []string{"references", "scripts"} {
		entries, err := fs.ReadDir(Skills, path.Join(skillRoot, dir))
		if err != nil {
			t.Fatalf("embedded %s/: %v", dir, err)
		}
		for _, e := range entries {
			if p := dir + "/" + e.Name(); !named[p] {
				t.Errorf("%s is embedded but SKILL.md does not point to it", p)
			}
		}
	}
	for _, want := range []string{"pods", "scheduling", "networking", "storage", "nodes", "workloads"} {
		if !named["references/"+want+".md"] {
			t.Errorf("SKILL.md does not index references/%s.md", want)
		}
	}
}

// TestReferences checks each field guide: a title, a sensible size,
// read-only kubectl commands to run, and cross-references that resolve.
func TestReferences(t *testing.T) {
	entries, err := fs.ReadDir(Skills, path.Join(skillRoot, "references"))
	if err != nil {
		t.Fatal(err)
	}
	crossRef := regexp.MustCompile("`([a-z-]+\\.md)`")
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			text := readSkillFile(t, "references/"+e.Name())
			if !strings.HasPrefix(text, "# ") {
				t.Errorf("no title line")
			}
			if n := strings.Count(text, "\n"); n < 60 || n > 200 {
				t.Errorf("%d lines; a field guide should be roughly 60-150", n)
			}
			if !strings.Contains(text, "kubectl get ") {
				t.Errorf("no kubectl commands")
			}
			if !strings.Contains(text, "propos") {
				t.Errorf("does not say that fixes are proposals")
			}
			for _, m := range crossRef.FindAllStringSubmatch(text, -1) {
				if _, err := fs.Stat(Skills, path.Join(skillRoot, "references", m[1])); err != nil {
					t.Errorf("cross-reference %s does not exist", m[1])
				}
			}
		})
	}
}

func scriptNames(t *testing.T) []string {
	t.Helper()
	entries, err := fs.ReadDir(Skills, path.Join(skillRoot, "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) < 6 {
		t.Fatalf("only %d scripts: %v", len(names), names)
	}
	return names
}

func TestScripts(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("no sh to check the scripts with")
	}
	for _, name := range scriptNames(t) {
		t.Run(name, func(t *testing.T) {
			text := readSkillFile(t, "scripts/"+name)
			if !strings.HasSuffix(name, ".sh") {
				t.Errorf("script name should end in .sh")
			}
			if !strings.HasPrefix(text, "#!/bin/sh\n") {
				t.Errorf("does not start with #!/bin/sh")
			}
			if !regexp.MustCompile(`(?m)^set -eu$`).MatchString(text) {
				t.Errorf("no 'set -eu' line")
			}
			if !regexp.MustCompile(`(?m)^# Usage: ` + regexp.QuoteMeta(name) + ` `).MatchString(text) {
				t.Errorf("no '# Usage: %s …' comment", name)
			}
			if strings.Contains(text, "#!/bin/bash") || strings.Contains(text, "[[") {
				t.Errorf("bash-only syntax in a POSIX sh script")
			}
			onDisk := filepath.Join(filepath.FromSlash(skillRoot), "scripts", name)
			st, err := os.Stat(onDisk)
			if err != nil {
				t.Fatalf("stat %s: %v", onDisk, err)
			}
			if st.Mode()&0o111 == 0 {
				t.Errorf("%s is not executable (mode %v)", onDisk, st.Mode())
			}
			if out, err := exec.Command(sh, "-n", onDisk).CombinedOutput(); err != nil {
				t.Errorf("sh -n %s: %v\n%s", onDisk, err, out)
			}
			calls := kubectlCalls(text)
			if len(calls) == 0 {
				t.Errorf("no kubectl calls found")
			}
			for _, v := range scriptViolations(text) {
				t.Errorf("%s", v)
			}
		})
	}
}

// fakeKubectl records each invocation (arguments separated by \x1f, calls by
// \x1e) and answers a few queries so the scripts walk their main paths.
const fakeKubectl = `#!/bin/sh
printf '%s\037' "$@" >>"$FAKE_KUBECTL_LOG"
printf '\036' >>"$FAKE_KUBECTL_LOG"
case " $* " in
*"jsonpath={.metadata.uid}"*) echo uid-1 ;;
*"get replicasets -n"*"jsonpath="*)
	printf '1\trs-a\t1\t1\t2025-01-01T00:00:00Z\tv1\tuid-1\n2\trs-b\t1\t0\t2025-01-02T00:00:00Z\tv2\tuid-1\n' ;;
*"jsonpath={.spec.selector}"*) echo '{"app":"web","tier":"fe"}' ;;
*"jsonpath={range .spec.ports[*]}{.targetPort}"*) printf 'http\n8080\n' ;;
*"jsonpath={.spec.storageClassName}"*) echo standard ;;
*"jsonpath={.spec.volumeName}"*) echo pv-1 ;;
*"jsonpath={.provisioner}"*) echo csi.example.com ;;
*" -o json "*) echo '{"kind":"List","items":[],"spec":{"template":{"metadata":{"labels":{"app":"web"}}}}}' ;;
*" -o yaml "*) printf 'spec:\n  template:\n    metadata:\n      labels:\n        app: web\n        pod-template-hash: abc\nstatus: {}\n' ;;
*" -o name "*) echo pod/web-1 ;;
esac
exit 0
`

// TestScriptsRun runs every script against a fake kubectl, with and without
// jq, using only a minimal set of text tools, and checks every kubectl
// invocation actually made.
func TestScriptsRun(t *testing.T) {
	tools := []string{"awk", "sed", "tr", "sort", "wc", "grep", "cut", "tail", "cat", "mktemp", "rm", "cmp", "diff"}
	bin := t.TempDir()
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not installed: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(fakeKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	withJQ := t.TempDir()
	if jq, err := exec.LookPath("jq"); err == nil {
		if err := os.Symlink(jq, filepath.Join(withJQ, "jq")); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string][][]string{
		"pod-summary.sh":   {{"api-1", "-n", "shop"}, {"pod/api-1"}},
		"events-for.sh":    {{"pod/api-1", "-n", "shop"}, {"node/n1", "--warnings"}, {"deploy/gone"}, {"secret/db-password"}},
		"rollout-diff.sh":  {{"deploy/api", "-n", "shop"}, {"api", "--namespace=shop", "--from", "1", "--to", "2"}},
		"node-health.sh":   {{}, {"node/n1"}},
		"svc-endpoints.sh": {{"svc/web", "-n", "shop"}},
		"pvc-status.sh":    {{"pvc/data", "-n", "shop"}},
	}
	for _, name := range scriptNames(t) {
		argSets, ok := runs[name]
		if !ok {
			t.Errorf("%s: no run case in TestScriptsRun", name)
			continue
		}
		for _, jq := range []bool{false, true} {
			for _, args := range argSets {
				t.Run(fmt.Sprintf("%s/jq=%v/%s", name, jq, strings.Join(args, "_")), func(t *testing.T) {
					log := filepath.Join(t.TempDir(), "calls")
					pathEnv := bin
					if jq {
						pathEnv = withJQ + string(os.PathListSeparator) + bin
					}
					script, _ := filepath.Abs(filepath.Join(filepath.FromSlash(skillRoot), "scripts", name))
					cmd := exec.Command(script, args...)
					cmd.Env = []string{"PATH=" + pathEnv, "FAKE_KUBECTL_LOG=" + log, "TMPDIR=" + t.TempDir(), "KUBERNETES_NAMESPACE=shop"}
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &out
					if err := cmd.Run(); err != nil {
						t.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
					}
					raw, err := os.ReadFile(log)
					if err != nil {
						t.Fatalf("kubectl never called: %v\n%s", err, out.String())
					}
					var verbs []string
					for _, call := range strings.Split(strings.TrimSuffix(string(raw), "\x1e"), "\x1e") {
						argv := strings.Split(strings.TrimSuffix(call, "\x1f"), "\x1f")
						if why := checkKubectlArgs(argv); why != "" {
							t.Errorf("ran kubectl %q: %s", argv, why)
						}
						if p := positional(argv); len(p) > 0 {
							verbs = append(verbs, p[0])
						}
					}
					sort.Strings(verbs)
					verbs = slices.Compact(verbs)
					t.Logf("kubectl verbs used: %v", verbs)
				})
			}
		}
	}
}
