package notify

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident/incidenttest"

	"github.com/kubectl-triage/kubectl-triage/internal/golden"
)

var created = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

func resolvedIncident(cluster, id string) *incident.Incident {
	completed := created.Add(83 * time.Second)
	exit := 0
	return &incident.Incident{
		IncidentID:        id,
		TriggeringEventID: "ev-" + id,
		Status:            incident.Resolved,
		Cluster:           cluster,
		Context:           "kind-" + cluster,
		Namespace:         "shop",
		Resource:          fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "checkout-7d9f", Namespace: "shop"},
		FaultType:         "CrashLoopBackOff",
		Severity:          fault.SeverityCritical,
		Message:           "Back-off restarting failed container app",
		Timestamp:         created.Add(-time.Minute),
		CreatedAt:         created,
		CompletedAt:       &completed,
		Agent:             incident.Agent{Name: "builtin", State: incident.AgentSuccess, ExitCode: &exit},
		Workspace:         "/var/lib/kubectl-triage/" + id,
		Report: &incident.ReportRef{
			Path:            "/var/lib/kubectl-triage/" + id + "/output/investigation.md",
			RootCause:       "The app container exits at start-up because the required env DATABASE_URL is empty (E2, E3).",
			Confidence:      0.85,
			ConfidenceLevel: "confident",
		},
	}
}

func failedIncident(cluster, id, reason string) *incident.Incident {
	inc := resolvedIncident(cluster, id)
	inc.Status = incident.Failed
	inc.FailureReason = reason
	inc.Report = nil
	inc.Agent = incident.Agent{Name: "claude", Model: "sonnet", State: incident.AgentFailure}
	return inc
}

func agentFailedIncident(cluster, id string) *incident.Incident {
	inc := failedIncident(cluster, id, "missing or invalid investigation report: no \"## Root cause\" section")
	inc.Status = incident.AgentFailed
	inc.Agent.State = incident.AgentSuccess
	return inc
}

func TestResolvedMessage(t *testing.T) {
	msg := IncidentMessage(resolvedIncident("prod-eu", "0b7e4c1a"), 83*time.Second)
	checkBlockKit(t, msg)
	if h := headerOf(msg); !strings.Contains(h, "Diagnosed Pod/checkout-7d9f") {
		t.Errorf("header %q does not say what was diagnosed", h)
	}
	text := allText(msg)
	for _, want := range []string{
		"*Cluster*\nprod-eu",
		"*Namespace*\nshop",
		"*Resource*\nPod/checkout-7d9f",
		"*Fault*\nCrashLoopBackOff (critical)",
		"*Confidence*\nconfident (0.85)",
		"*Duration*\n83s",
		"required env DATABASE_URL is empty",
		"Incident `0b7e4c1a`",
		"Agent `builtin`",
		"Workspace `/var/lib/kubectl-triage/0b7e4c1a`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasPrefix(msg.Text, "Diagnosed Pod/checkout-7d9f -n shop on prod-eu: The app container exits") {
		t.Errorf("fallback text = %q", msg.Text)
	}
}

// TestStoredMessage: an incident watch --store uploaded (its local copy
// gone) says where it is.
func TestStoredMessage(t *testing.T) {
	inc := resolvedIncident("prod-eu", "0b7e4c1a")
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	inc.Workspace = ""
	inc.Storage = &incident.StorageRef{URL: "azblob://incidents", Path: "prod-eu/2026/11/26/0b7e4c1a/", UploadedAt: &at}
	text := allText(IncidentMessage(inc, time.Second))
	if !strings.Contains(text, "Stored `azblob://incidents/prod-eu/2026/11/26/0b7e4c1a/`") || strings.Contains(text, "Workspace") {
		t.Errorf("message:\n%s", text)
	}
	inc.Storage.UploadedAt, inc.Storage.Error = nil, "AuthorizationFailure (HTTP 403)"
	if text := allText(IncidentMessage(inc, time.Second)); strings.Contains(text, "Stored") {
		t.Errorf("a failed upload is reported as stored:\n%s", text)
	}
}

func TestFailedMessage(t *testing.T) {
	tests := []struct {
		name string
		inc  *incident.Incident
		want []string
	}{
		{
			name: "agent_failed",
			inc:  agentFailedIncident("prod", "id-1"),
			want: []string{"*Status*\nagent_failed", "no valid report", "no \"## Root cause\" section"},
		},
		{
			name: "timeout",
			inc:  failedIncident("prod", "id-2", incident.ReasonTimeout),
			want: []string{"*Status*\nfailed", "timeout: the agent did not finish within its timeout"},
		},
		{
			name: "cancelled",
			inc:  failedIncident("prod", "id-3", incident.ReasonCancelled),
			want: []string{"*Status*\nfailed", "cancelled: the triage was stopped"},
		},
		{
			name: "agent exit code",
			inc:  failedIncident("prod", "id-4", "agent exited with code 2"),
			want: []string{"*Status*\nfailed", "*Why it failed*\nagent exited with code 2"},
		},
		{
			name: "no reason",
			inc:  failedIncident("prod", "id-5", ""),
			want: []string{"failed (no reason recorded)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := IncidentMessage(tt.inc, 0) // duration from the timestamps
			checkBlockKit(t, msg)
			if h := headerOf(msg); !strings.HasPrefix(h, ":x: Triage failed for Pod/checkout-7d9f") {
				t.Errorf("header %q does not say the triage failed", h)
			}
			text := allText(msg)
			if strings.Contains(text, "Diagnosed") || strings.Contains(text, "*Root cause*") || strings.Contains(text, "Confidence") {
				t.Errorf("a failure reads like a diagnosis:\n%s", text)
			}
			if !strings.HasPrefix(msg.Text, "Triage failed for Pod/checkout-7d9f -n shop on prod: ") {
				t.Errorf("fallback text = %q", msg.Text)
			}
			want := append([]string{
				"*Cluster*\nprod", "*Namespace*\nshop", "*Resource*\nPod/checkout-7d9f",
				"*Fault*\nCrashLoopBackOff (critical)", "*Duration*\n83s",
				"Incident `" + tt.inc.IncidentID + "`", "Agent `claude (sonnet)`",
				"*Fault message*\nBack-off restarting failed container app",
			}, tt.want...)
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("message lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestMessagesEscapeMrkdwn feeds hostile cluster-provided text everywhere:
// nothing may reach Slack as a mention, a link or a raw entity.
func TestMessagesEscapeMrkdwn(t *testing.T) {
	const hostile = "<!channel> a&b <https://evil.example|click here> &lt;"
	const escaped = "&lt;!channel&gt; a&amp;b &lt;https://evil.example|click here&gt; &amp;lt;"
	resolved := resolvedIncident("prod "+hostile, "id-"+hostile)
	resolved.Namespace = "ns" + hostile
	resolved.FaultType = "Fault" + hostile
	resolved.Severity = hostile
	resolved.Workspace = "/ws/" + hostile
	resolved.Agent.Name = "agent" + hostile
	resolved.Report.RootCause = "cause " + hostile
	failed := failedIncident("prod "+hostile, "id-"+hostile, "reason "+hostile)
	failed.Message = "message " + hostile

	msgs := map[string]*Message{
		"resolved":  IncidentMessage(resolved, time.Second),
		"failed":    IncidentMessage(failed, time.Second),
		"breaker":   BreakerOpenMessage("prod "+hostile, 3, []Failure{failureSummary(failed)}),
		"recovered": RecoveredMessage("prod "+hostile, 3, resolved),
	}
	for name, msg := range msgs {
		t.Run(name, func(t *testing.T) {
			checkBlockKit(t, msg)
			texts := []Text{{Type: "mrkdwn", Text: msg.Text}}
			for _, b := range msg.Blocks {
				if b.Text != nil {
					texts = append(texts, *b.Text)
				}
				texts = append(texts, b.Fields...)
				texts = append(texts, b.Elements...)
			}
			found := false
			for _, txt := range texts {
				if txt.Type != "mrkdwn" {
					continue // plain_text is shown as is
				}
				if strings.ContainsAny(txt.Text, "<>") {
					t.Errorf("mrkdwn text has a raw < or >: %q", txt.Text)
				}
				if strings.Contains(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(txt.Text), "&") {
					t.Errorf("mrkdwn text has a raw &: %q", txt.Text)
				}
				found = found || strings.Contains(txt.Text, escaped)
			}
			if !found {
				t.Errorf("no text shows the escaped input %q:\n%s", escaped, allText(msg))
			}
		})
	}
}

func TestMessagesFitSlackLimits(t *testing.T) {
	long := strings.Repeat("a & b < c ", 1000) // 10000 characters, longer once escaped
	inc := resolvedIncident(strings.Repeat("cluster-", 100), "id-1")
	inc.Resource.Name = strings.Repeat("n", 253)
	inc.Report.RootCause = long
	failed := failedIncident(inc.Cluster, "id-2", long)
	failed.Message = long
	failed.Resource = inc.Resource
	var recent []Failure
	for range 20 {
		recent = append(recent, failureSummary(failed))
	}
	for name, msg := range map[string]*Message{
		"resolved":  IncidentMessage(inc, time.Second),
		"failed":    IncidentMessage(failed, time.Second),
		"breaker":   BreakerOpenMessage(inc.Cluster, 20, recent),
		"recovered": RecoveredMessage(inc.Cluster, 20, inc),
	} {
		t.Run(name, func(t *testing.T) {
			checkBlockKit(t, msg) // limits
			if n := utf8.RuneCountInString(msg.Text); n > fallbackLimit {
				t.Errorf("fallback text is %d characters, want at most %d", n, fallbackLimit)
			}
			for _, b := range msg.Blocks {
				if b.Text != nil && b.Text.Type == "mrkdwn" && strings.HasSuffix(strings.TrimSuffix(b.Text.Text, "…"), "&am") {
					t.Errorf("a cut left half an entity: %q", b.Text.Text[len(b.Text.Text)-20:])
				}
			}
		})
	}
	msg := IncidentMessage(inc, time.Second)
	// Cut to the limit, give or take the entity that did not fit.
	if got := msg.Blocks[2].Text.Text; utf8.RuneCountInString(got) < sectionLimit-5 || !strings.HasSuffix(got, "…") {
		t.Errorf("root cause is %d characters ending %q, want cut to about %d with …", utf8.RuneCountInString(got), got[len(got)-10:], sectionLimit)
	}
}

func TestEscapeLimit(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"a<b", 10, "a&lt;b"},
		{"a<b", 5, "a…"}, // "&lt;" does not fit in the 4 left before …
		{"a<b", 6, "a&lt;b"},
		{"a<bc", 6, "a&lt;…"},
		{"ééé", 2, "é…"},
	}
	for _, tt := range tests {
		if got := escapeLimit(tt.in, tt.limit); got != tt.want {
			t.Errorf("escapeLimit(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestConfidence(t *testing.T) {
	tests := []struct {
		ref  *incident.ReportRef
		want string
	}{
		{nil, "unknown"},
		{&incident.ReportRef{}, "unknown"},
		{&incident.ReportRef{Confidence: 0.3}, "speculation (0.30)"},
		{&incident.ReportRef{Confidence: 0.5}, "probable (0.50)"},
		{&incident.ReportRef{Confidence: 0.69}, "probable (0.69)"},
		{&incident.ReportRef{Confidence: 0.7}, "confident (0.70)"},
		{&incident.ReportRef{Confidence: 0.89}, "confident (0.89)"},
		{&incident.ReportRef{Confidence: 0.9}, "verified (0.90)"},
		{&incident.ReportRef{Confidence: 1}, "verified (1.00)"},
		// The score decides the band; a band alone is kept.
		{&incident.ReportRef{Confidence: 0.95, ConfidenceLevel: "probable"}, "verified (0.95)"},
		{&incident.ReportRef{ConfidenceLevel: "probable"}, "probable"},
	}
	for _, tt := range tests {
		if got := confidenceOf(incident.Summarize(&incident.Incident{Report: tt.ref})); got != tt.want {
			t.Errorf("confidenceOf(%+v) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestMessagesMaskCredentials(t *testing.T) {
	const token = "ghp_" + "R4nd0mT0k3nValue1234567890abcdefABCD"
	inc := resolvedIncident("prod", "id-1")
	inc.Report.RootCause = "the app logs Authorization: Bearer " + token
	failed := failedIncident("prod", "id-2", "agent: GITHUB_TOKEN="+token)
	failed.Message = "pulling with " + token
	for name, msg := range map[string]*Message{
		"resolved": IncidentMessage(inc, time.Second),
		"failed":   IncidentMessage(failed, time.Second),
		"breaker":  BreakerOpenMessage("prod", 3, []Failure{failureSummary(failed)}),
	} {
		if text := allText(msg); strings.Contains(text, token) || !strings.Contains(text, "[REDACTED]") {
			t.Errorf("%s message does not mask the token:\n%s", name, text)
		}
	}
}

// TestGoldenPayloads pins the exact JSON posted; run with -update to rewrite
// testdata after an intended change, and review the diff.
func TestGoldenPayloads(t *testing.T) {
	resolved := resolvedIncident("prod-eu", "0b7e4c1a-3f7d-4d8e-9a41-5f0c2e6b7d11")
	failed := failedIncident("prod-eu", "5d2c9e70-8b1a-4c3f-a6e2-0f9d8c7b6a55", "agent exited with code 1")
	recent := []Failure{
		failureSummary(failedIncident("prod-eu", "id-1", incident.ReasonTimeout)),
		failureSummary(agentFailedIncident("prod-eu", "id-2")),
		failureSummary(failed),
	}
	for name, msg := range map[string]*Message{
		"resolved":       IncidentMessage(resolved, 83*time.Second),
		"failed":         IncidentMessage(failed, 83*time.Second),
		"breaker-open":   BreakerOpenMessage("prod-eu", 3, recent),
		"breaker-closed": RecoveredMessage("prod-eu", 3, resolved),
	} {
		t.Run(name, func(t *testing.T) {
			checkBlockKit(t, msg)
			raw, err := encode(msg)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", name+".json"), got.Bytes())
		})
	}
}

// Slack's rendering of the Summary fixtures every other rendering's golden
// files are made from (pkg/cmd/testdata/summary).
func TestSummaryGolden(t *testing.T) {
	for name, inc := range incidenttest.All() {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(IncidentMessage(inc, 0))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", "summary-"+name+".json"), append(got.Bytes(), '\n'))
		})
	}
}
