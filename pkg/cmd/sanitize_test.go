package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Escape sequences an incident's text can carry: retitle the window, colour
// the screen, plant a hyperlink, and a C1 CSI as UTF-8.
const (
	osc     = "\x1b]0;pwned\x07"
	sgr     = "\x1b[31m"
	link    = "\x1b]8;;https://evil.example/\x1b\\"
	c1CSI   = "\u009b2J"
	hostile = osc + sgr + link + c1CSI
)

// hostileRoot fabricates one resolved incident whose record, report and
// report data carry escape sequences in every field that is printed.
func hostileRoot(t *testing.T) (root string, id string) {
	t.Helper()
	id = idResolved
	root = fabricate(t, time.Now(), fab{id: id, status: incident.Resolved, age: time.Hour, took: time.Minute, rootCause: "x"})
	dir := filepath.Join(root, id)
	path := filepath.Join(dir, incident.FileName)
	inc, err := incident.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	inc.Message = "Back-off " + hostile + "restarting"
	inc.Resource.Name = "api" + hostile
	inc.FaultType = "Crash" + hostile + "Loop"
	inc.Severity = "critical" + hostile
	inc.Cluster = "prod" + hostile
	inc.Context = "ctx" + hostile
	inc.Sandbox = "sandbox" + hostile
	inc.Agent.Model = "model" + hostile
	inc.Report.RootCause = "DATABASE_URL" + hostile + " is unset"
	inc.Report.ConfidenceLevel = "verified" + hostile
	if err := incident.Save(path, inc); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, workspace.ReportFile), "# Triage: Pod/api — DATABASE_URL is unset\n\n```\n"+sgr+"ERROR"+"\x1b[0m connect: refused "+osc+"\n```\n")
	write(t, filepath.Join(dir, workspace.ReportJSONFile), `{"incidentId":"`+id+`","title":"`+c1CSI+`x"}`+osc)
	return root, id
}

// assertNoControl fails when out holds a control character a terminal acts
// on: ESC, BEL, CR or a C1 control.
func assertNoControl(t *testing.T, what, out string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool {
		return r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f)
	}); i >= 0 {
		t.Errorf("%s prints control character %U at %d:\n%q", what, []rune(out[i:])[0], i, out)
	}
}

func TestCommandsPrintNoEscapeSequences(t *testing.T) {
	root, id := hostileRoot(t)
	for _, tt := range []struct {
		args []string
		want []string // what is left of the text, in the output
	}{
		{[]string{"list"}, []string{"Pod/api -n shop", "CrashLoop", "DATABASE_URL is unset"}},
		{[]string{"list", "-o", "wide"}, []string{"prod", "verified (0.95)"}},
		{[]string{"status", id[:8]}, []string{
			"Resource:", "Pod/api -n shop", "Message:", "Back-off restarting", "CrashLoop (severity critical)",
			"prod (context ctx)", "sandbox", "model model", "DATABASE_URL is unset", "verified (0.95)",
		}},
		{[]string{"show", id[:8]}, []string{"# Triage: Pod/api", "ERROR connect: refused \n```\n"}},
		{[]string{"show", id[:8], "--json"}, []string{`"title":"x"}` + "\n"}},
		// Data formats keep the text, escaped.
		{[]string{"status", id[:8], "-o", "json"}, []string{`"message": "Back-off \u001b]0;pwned\u0007\u001b[31m`, `\u009b2Jrestarting"`}},
		{[]string{"status", id[:8], "-o", "yaml"}, []string{`message: "Back-off \e]0;pwned\a\e[31m`, `\x9B2Jrestarting"`}},
		{[]string{"list", "-o", "json"}, []string{`"rootCause": "DATABASE_URL\u001b]0;pwned`}},
		{[]string{"list", "-o", "yaml"}, []string{`rootCause: "DATABASE_URL\e]0;pwned`}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, append(tt.args, "--workspace-root", root)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			assertNoControl(t, "stdout", r.stdout)
			assertNoControl(t, "stderr", r.stderr)
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if !slices.Contains(tt.args, "-o") && (strings.Contains(r.stdout, "pwned") || strings.Contains(r.stdout, "evil.example")) {
				t.Errorf("stdout keeps the sequences' payload:\n%s", r.stdout)
			}
		})
	}
}

// The report on stdout, on a terminal or not, carries no escape sequence;
// -o json escapes them, as JSON does.
func TestReportPrintsNoEscapeSequences(t *testing.T) {
	for _, output := range []string{"", outputMarkdown, outputJSON} {
		t.Run("-o "+output, func(t *testing.T) {
			res := resolvedResult(incident.Resolved)
			res.Markdown = "# Triage: Pod/api — DATABASE_URL is unset\n\n" + sgr + "E1" + "\x1b[0m log line " + osc + link + c1CSI + "\r\n"
			var out, errOut bytes.Buffer
			o := &TriageOptions{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, Output: output, getEnv: func(string) string { return "" }}
			if err := o.finish(res); err != nil {
				t.Fatal(err)
			}
			assertNoControl(t, "stdout", out.String())
			want := "# Triage: Pod/api — DATABASE_URL is unset\n\nE1 log line \n"
			if output == outputJSON {
				want = `"report": "# Triage: Pod/api — DATABASE_URL is unset\n\n\u001b[31mE1\u001b[0m log line \u001b]0;pwned\u0007\u001b]8;;https://evil.example/\u001b\\\u009b2J\r\n"`
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("stdout lacks %q:\n%s", want, out.String())
			}
		})
	}
}

func TestEscapeC1(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":"b"}`, `{"a":"b"}`},
		{`{"a":"\u009b2J \u0085"}`, `{"a":"\u009b2J \u0085"}`},
		{"{\"a\":\"x\u009b2J\u0080\u009f\"}", `{"a":"x\u009b2J\u0080\u009f"}`},
		{`{"a":"© é ÿ 💥"}`, `{"a":"© é ÿ 💥"}`},
		{"\"\u00a0\u009b\u00a9\"", `"` + "\u00a0" + `\u009b` + "\u00a9" + `"`},
	} {
		got := string(escapeC1([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("escapeC1(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var in, out any
		if json.Unmarshal([]byte(tt.in), &in) == nil && (json.Unmarshal([]byte(got), &out) != nil || !reflect.DeepEqual(in, out)) {
			t.Errorf("escapeC1(%q) = %q means something else", tt.in, got)
		}
	}
}
