package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

func TestClean(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"plain text", "Back-off restarting failed container", "Back-off restarting failed container"},
		{"a credential", "DB_PASSWORD=" + dbPassword, "DB_PASSWORD=[REDACTED]"},
		{"an escape sequence and a token", "\x1b[2Jclone " + githubPAT, "clone ghp_[REDACTED]"},
		{"hidden text next to a JWT", "token " + jwt + " \u202eissued", "token [REDACTED] <U+202E>issued"},
		{"tag characters", "ok\U000E0049\U000E0047\U000E004E\U000E004F\U000E0052\U000E0045", "ok<6 hidden characters, U+E0049...U+E0045>"},
		{"emoji and accents kept", "naïve 👩‍💻 ❤️ 日本語", "naïve 👩‍💻 ❤️ 日本語"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Clean(tt.in)
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Clean(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestCleanJSON(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string // in the output
		gone     []string // not in the output
		same     bool     // returned as it was
	}{
		{name: "clean document unchanged", in: `{"summary":"DATABASE_URL is unset","confidence":0.6}`, same: true},
		{name: "credential in a string", in: `{"summary":"DB_PASSWORD=` + dbPassword + `"}`,
			want: []string{`"DB_PASSWORD=[REDACTED]"`}, gone: []string{dbPassword}},
		{name: "credential under a sensitive key", in: `{"evidence":[{"token":"` + dbPassword + `"}]}`,
			want: []string{`"token": "[REDACTED]"`}, gone: []string{dbPassword}},
		{name: "escaped hidden characters", in: `{"summary":"a\u202eb\udb40\udc49c","n":1.50}`,
			want: []string{"a<U+202E>b<U+E0049>c", `"n": 1.50`}, gone: []string{"\u202e", `\u202e`}},
		{name: "escaped escape sequence", in: `{"rootCause":{"statement":"x\u001b]0;pwned\u0007y"}}`,
			want: []string{`"statement": "xy"`}, gone: []string{"pwned"}},
		{name: "not JSON: cleaned as text", in: `{"summary": "token ` + githubPAT + "\u200b",
			want: []string{"token ghp_[REDACTED]<U+200B>"}, gone: []string{githubPAT}},
		{name: "two documents: cleaned as text", in: `{"a":"b"} {"c":"` + githubPAT + `"}`, gone: []string{githubPAT}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(CleanJSON([]byte(tt.in)))
			if tt.same && got != tt.in {
				t.Errorf("CleanJSON changed a clean document:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("CleanJSON lacks %q:\n%s", w, got)
				}
			}
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("CleanJSON keeps %q:\n%s", g, got)
				}
			}
			if again := string(CleanJSON([]byte(got))); again != got {
				t.Errorf("not idempotent:\n%s\n→\n%s", got, again)
			}
		})
	}
}

// Report cleans the data and the markdown alike.
func TestReport(t *testing.T) {
	rep := &report.Report{
		Resource: report.Resource{Kind: "Pod", Name: "api", Namespace: "shop"}, Agent: "builtin",
		Title: "DATABASE_URL is unset\u202e", Summary: "DB_PASSWORD=" + dbPassword,
		RootCause: report.RootCause{Statement: "clone with " + githubPAT},
		Evidence:  []report.Evidence{{ID: "E1", Fact: "Authorization: Bearer " + jwt, Source: "log\U000E0041"}},
		Actions:   []report.Action{{Kind: report.Immediate, Description: "x", Commands: []string{"echo " + githubPAT}}},
	}
	md := Report(rep)
	data, _ := json.Marshal(rep)
	for where, text := range map[string]string{"markdown": md, "data": string(data)} {
		for _, secret := range []string{dbPassword, githubPAT, jwt, "\u202e", "\U000E0041"} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s keeps %q:\n%s", where, secret, text)
			}
		}
	}
	if rep.Title != "DATABASE_URL is unset<U+202E>" || rep.Evidence[0].Source != "log<U+E0041>" || rep.Evidence[0].ID != "E1" {
		t.Errorf("report fields: %q, %+v", rep.Title, rep.Evidence)
	}
	if !strings.Contains(md, "DB_PASSWORD=[REDACTED]") {
		t.Errorf("markdown:\n%s", md)
	}
}
