package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// leakyAgent is an exec agent that quotes in its report what it read: a
// database password, a GitHub token and a bearer JWT. Called with the
// outcome to produce: "resolved" (a valid report on stdout, and its data in
// output/investigation.json), "failed" (the report written to
// output/investigation.md, then exit 3) or "agent_failed" (prose, no
// report).
func leakyAgent(t *testing.T, secrets []secret) string {
	t.Helper()
	v := func(where string) string {
		for _, s := range secrets {
			if s.where == where {
				return s.value
			}
		}
		t.Fatalf("no secret %q", where)
		return ""
	}
	md := "# Triage: Pod/victim — the database rejects the password of the app\n\n## Summary\n\n" +
		"The app logs DB_PASSWORD=" + v("password") + " at start-up and clones its config with " + v("github") + ".\n" +
		"It calls the API with `Authorization: Bearer " + v("jwt") + "`.\n\n" +
		"## Root cause\n\n**the database rejects DB_PASSWORD=" + v("password") + "** (probable, 0.6)\n"
	js := `{"rootCause":{"statement":"the database rejects password=` + v("password") + `"},"confidence":0.6,` +
		`"evidence":[{"id":"E1","fact":"clone with ` + v("github") + `","source":"Authorization: Bearer ` + v("jwt") + `"}]}`
	script := "#!/bin/sh\ncat >/dev/null\nmkdir -p output\n" +
		"case \"$1\" in\n" +
		"resolved) printf '%s' '" + js + "' > output/investigation.json; printf '%s' '" + md + "' ;;\n" +
		"failed) printf '%s' '" + md + "' > output/investigation.md; echo 'DB_PASSWORD=" + v("password") + "'; exit 3 ;;\n" +
		"agent_failed) echo 'I looked: DB_PASSWORD=" + v("password") + ", token " + v("github") + ", Authorization: Bearer " + v("jwt") + "' ;;\n" +
		"esac\n"
	p := filepath.Join(t.TempDir(), "leaky-agent.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLeakyAgentReportIsRedacted: an agent's report that quotes
// credentials is redacted wherever it goes, whatever the outcome: the
// workspace (investigation.md and .json, agent.log, every file), the
// triage's stdout and stderr, show, status, list, and the MCP server's
// show_incident, list_incidents and report resource. A workspace an older
// version left unredacted is served redacted too.
func TestLeakyAgentReportIsRedacted(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	root := filepath.Join(t.TempDir(), "incidents")
	secrets := []secret{
		{"password", unique("Le4ky-", "DbPass-93q")},
		{"github", unique("gh"+"p_", "LeakyAgentGithub0123456789abcdefghijk")},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiJsZWFreS1hZ2VudCJ9" + "." + "TGVha3lBZ2VudFNpZ25hdHVyZTAx"},
	}
	agent := leakyAgent(t, secrets)
	figures.leakyPlanted.Add(int64(len(secrets)))

	var printed []string
	record := func(what, text string) { printed = append(printed, "== "+what+"\n"+text) }
	want := map[string]struct {
		status incident.Status
		code   int
	}{"resolved": {incident.Resolved, 0}, "failed": {incident.Failed, 4}, "agent_failed": {incident.AgentFailed, 3}}
	ids := map[string]string{}
	for _, outcome := range []string{"resolved", "failed", "agent_failed"} {
		before := map[string]bool{}
		for _, id := range incidentDirs(t, root) {
			before[id] = true
		}
		r := run(t, c, root, "pod/victim", "-n", ns, "--agent-command", agent+" "+outcome)
		record("triage ("+outcome+") stdout", r.stdout)
		record("triage ("+outcome+") stderr", r.stderr)
		if r.code != want[outcome].code {
			t.Errorf("%s: exit %d, want %d\n%s", outcome, r.code, want[outcome].code, r.stderr)
		}
		for _, id := range incidentDirs(t, root) {
			if !before[id] {
				ids[outcome] = id
			}
		}
		if outcome == "resolved" && !strings.Contains(r.stdout, "DB_PASSWORD=[REDACTED]") {
			t.Errorf("the report on stdout does not show the masked quote:\n%s", r.stdout)
		}
	}
	for _, inc := range listJSON(t, c, root) {
		for outcome, id := range ids {
			if inc.IncidentID == id && inc.Status != want[outcome].status {
				t.Errorf("%s run ended %s (%s)", outcome, inc.Status, inc.FailureReason)
			}
		}
	}
	readers := func(label string) {
		record(label+"list", run(t, c, root, "list", "-o", "wide").stdout)
		m := startMCP(t, c, root)
		record(label+"MCP list_incidents", m.call(t, "list_incidents", map[string]any{}))
		for outcome, id := range ids {
			for _, args := range [][]string{{"show", id}, {"show", id, "--json"}, {"status", id}} {
				r := run(t, c, root, args...)
				record(label+strings.TrimSpace(args[0]+" "+strings.Join(args[2:], " "))+" "+outcome, r.stdout+r.stderr)
			}
			record(label+"MCP show_incident "+outcome, m.call(t, "show_incident", map[string]any{"id": id}))
			record(label+"MCP resources/read "+outcome, m.read(t, "triage://incidents/"+id+"/investigation.md"))
		}
		record(label+"MCP server stderr", m.stderr.String())
	}
	readers("")

	leak := func(where, text string) {
		for _, s := range secrets {
			if strings.Contains(text, s.value) {
				figures.leakyFound.Add(1)
				t.Errorf("the agent's %s is in %s", s.where, where)
			}
		}
	}
	walkFiles(t, root, func(path string, data []byte) {
		rel, _ := filepath.Rel(root, path)
		leak(rel, string(data))
	})
	for _, p := range printed {
		leak(strings.SplitN(p, "\n", 2)[0], p)
	}
	report, _ := os.ReadFile(filepath.Join(root, ids["resolved"], "output", "investigation.md"))
	if !strings.Contains(string(report), "DB_PASSWORD=[REDACTED]") || !strings.Contains(string(report), "Bearer [REDACTED]") {
		t.Errorf("the resolved report does not keep the masked quotes:\n%s", report)
	}

	// A workspace an older version (or another machine) left unredacted:
	// every reader applies the pass to what it reads.
	leaky := "# Triage: Pod/victim — old\n\n## Summary\n\nDB_PASSWORD=" + secrets[0].value + "\n\n## Root cause\n\n**token " + secrets[1].value + "** (probable, 0.6)\n"
	out := filepath.Join(root, ids["resolved"], "output")
	if err := os.WriteFile(filepath.Join(out, "investigation.md"), []byte(leaky), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "investigation.json"), []byte(fmt.Sprintf(`{"summary":"Bearer %s","rootCause":{"statement":"x"}}`, secrets[2].value)), 0o600); err != nil {
		t.Fatal(err)
	}
	printed = nil
	readers("old workspace: ")
	for _, p := range printed {
		leak(strings.SplitN(p, "\n", 2)[0], p)
	}
	figures.leakyOutcomes.Add(int64(len(ids)))
}
