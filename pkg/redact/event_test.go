package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// TestEventRedactsEveryStringField: a fault event's text (--fault-file, an
// MCP frame) is redacted in every field and in its raw bytes, and the
// event as received is left unmodified.
func TestEventRedactsEveryStringField(t *testing.T) {
	raw := `{"faultType":"CrashLoop password=` + dbPassword + `","severity":"warning","context":"Authorization: Bearer ` + jwt + ` then ` + githubPAT + `",
	"resource":{"kind":"Pod","name":"api","namespace":"shop"},"clientSecret":"` + awsSecret + `",
	"event":{"reason":"BackOff","message":"curl -u admin:` + curlPW + ` failed","involvedObject":{"kind":"Pod","name":"api"}},
	"logs":[{"container":"app","sample":"2026-11-26T06:55:01Z GOOGLE=` + googleKey + `"}]}`
	ev, err := fault.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(ev)
	beforeRaw := string(ev.Raw)

	red, n := Event(ev)
	if n < 5 {
		t.Errorf("masked %d values, want at least 5", n)
	}
	after, _ := json.Marshal(red)
	for _, secret := range []string{dbPassword, jwt, githubPAT, awsSecret, curlPW, googleKey} {
		if strings.Contains(string(after), secret) || strings.Contains(string(red.Raw), secret) {
			t.Errorf("secret %q survived:\n%s\n%s", secret, after, red.Raw)
		}
	}
	if got, _ := json.Marshal(ev); string(got) != string(before) || string(ev.Raw) != beforeRaw {
		t.Error("Event modified the event it was given")
	}
	if red.ResourceName() != "api" || red.Namespace() != "shop" || !strings.HasPrefix(red.FaultType, "CrashLoop") {
		t.Errorf("redaction changed what is not secret: %+v", red)
	}
	if !json.Valid(red.Raw) {
		t.Errorf("raw is no longer JSON: %s", red.Raw)
	}
}

func TestEventWithoutSecretsKeepsRaw(t *testing.T) {
	raw := []byte(`{"faultType":"CrashLoop","severity":"warning","resource":{"kind":"Pod","name":"api"}}`)
	ev, err := fault.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	red, n := Event(ev)
	if n != 0 || string(red.Raw) != string(ev.Raw) {
		t.Errorf("nothing to mask, yet %d masked / raw rewritten: %s", n, red.Raw)
	}
}

func TestJSONNotJSON(t *testing.T) {
	out, n := JSON([]byte("password=" + dbPassword))
	if n != 1 || strings.Contains(string(out), dbPassword) {
		t.Errorf("JSON on text = %q, %d", out, n)
	}
}
