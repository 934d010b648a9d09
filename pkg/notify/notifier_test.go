package notify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
)

// kindOf names a posted message by its header, for comparing sequences.
func kindOf(msg *Message) string {
	h := headerOf(msg)
	switch {
	case strings.Contains(h, "Diagnosed"):
		return "diagnosed"
	case strings.Contains(h, "Triage failed"):
		return "failed"
	case strings.Contains(h, "Triage failing on"):
		return "alert"
	case strings.Contains(h, "Triage recovered on"):
		return "recovered"
	}
	return "unknown: " + h
}

func TestNotifierCircuitBreaker(t *testing.T) {
	// Steps are "cluster:outcome", outcome F (failed), A (agent_failed),
	// T (timeout), C (cancelled) or S (resolved).
	tests := []struct {
		name      string
		threshold int
		steps     []string
		want      []string // cluster:kind of every post, in order
	}{
		{
			name:  "two failures do not alert",
			steps: []string{"prod:F", "prod:A"},
			want:  []string{"prod:failed", "prod:failed"},
		},
		{
			name:  "the third consecutive failure alerts",
			steps: []string{"prod:F", "prod:A", "prod:T"},
			want:  []string{"prod:failed", "prod:failed", "prod:failed", "prod:alert"},
		},
		{
			name:  "a fourth failure does not alert again",
			steps: []string{"prod:F", "prod:F", "prod:F", "prod:F"},
			want:  []string{"prod:failed", "prod:failed", "prod:failed", "prod:alert", "prod:failed"},
		},
		{
			name:  "a success after the alert recovers",
			steps: []string{"prod:F", "prod:F", "prod:F", "prod:F", "prod:S"},
			want:  []string{"prod:failed", "prod:failed", "prod:failed", "prod:alert", "prod:failed", "prod:diagnosed", "prod:recovered"},
		},
		{
			name:  "a success before the threshold resets quietly",
			steps: []string{"prod:F", "prod:F", "prod:S", "prod:F", "prod:F"},
			want:  []string{"prod:failed", "prod:failed", "prod:diagnosed", "prod:failed", "prod:failed"},
		},
		{
			name:  "a new streak after recovery alerts again",
			steps: []string{"prod:F", "prod:F", "prod:F", "prod:S", "prod:F", "prod:F", "prod:F"},
			want: []string{"prod:failed", "prod:failed", "prod:failed", "prod:alert", "prod:diagnosed", "prod:recovered",
				"prod:failed", "prod:failed", "prod:failed", "prod:alert"},
		},
		{
			name:  "cancellation neither counts nor resets",
			steps: []string{"prod:F", "prod:F", "prod:C", "prod:F"},
			want:  []string{"prod:failed", "prod:failed", "prod:failed", "prod:failed", "prod:alert"},
		},
		{
			name:  "clusters are independent",
			steps: []string{"a:F", "b:F", "a:F", "b:S", "b:F", "a:F", "b:F", "b:S"},
			want: []string{"a:failed", "b:failed", "a:failed", "b:diagnosed", "b:failed", "a:failed", "a:alert",
				"b:failed", "b:diagnosed"},
		},
		{
			name:      "the threshold is configurable",
			threshold: 1,
			steps:     []string{"prod:F", "prod:F", "prod:S"},
			want:      []string{"prod:failed", "prod:alert", "prod:failed", "prod:diagnosed", "prod:recovered"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSlack(t, nil)
			s, _ := testSlack(t, f, SlackOptions{})
			n := NewNotifier(s, nil)
			n.FailureThreshold = tt.threshold
			for i, step := range tt.steps {
				cluster, outcome, _ := strings.Cut(step, ":")
				n.Incident(context.Background(), outcomeIncident(t, cluster, fmt.Sprintf("id-%d", i), outcome), time.Second)
			}
			var got []string
			for _, msg := range f.messages() {
				got = append(got, messageCluster(msg)+":"+kindOf(msg))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("posts:\n got %v\nwant %v", got, tt.want)
			}
			if n.Sent.Load() != uint64(len(tt.want)) || n.Failed.Load() != 0 {
				t.Errorf("Sent = %d, Failed = %d; want %d, 0", n.Sent.Load(), n.Failed.Load(), len(tt.want))
			}
		})
	}
}

// messageCluster reads the cluster off a message: its Cluster field, or the
// header's "… on CLUSTER".
func messageCluster(msg *Message) string {
	for _, b := range msg.Blocks {
		for _, f := range b.Fields {
			if c, ok := strings.CutPrefix(f.Text, "*Cluster*\n"); ok {
				return c
			}
		}
	}
	if i := strings.LastIndex(headerOf(msg), " on "); i >= 0 {
		return headerOf(msg)[i+len(" on "):]
	}
	return "?"
}

func outcomeIncident(t *testing.T, cluster, id, outcome string) *incident.Incident {
	switch outcome {
	case "S":
		return resolvedIncident(cluster, id)
	case "F":
		return failedIncident(cluster, id, "agent exited with code 1")
	case "A":
		return agentFailedIncident(cluster, id)
	case "T":
		return failedIncident(cluster, id, incident.ReasonTimeout)
	case "C":
		return failedIncident(cluster, id, incident.ReasonCancelled)
	}
	t.Fatalf("unknown outcome %q", outcome)
	return nil
}

func TestNotifierAlertContent(t *testing.T) {
	f := newFakeSlack(t, nil)
	s, _ := testSlack(t, f, SlackOptions{})
	n := NewNotifier(s, nil)
	ctx := context.Background()
	n.Incident(ctx, failedIncident("prod-eu", "id-1", "agent exited with code 1"), time.Second)
	n.Incident(ctx, failedIncident("prod-eu", "id-2", incident.ReasonTimeout), time.Second)
	n.Incident(ctx, agentFailedIncident("prod-eu", "id-3"), time.Second)
	n.Incident(ctx, resolvedIncident("prod-eu", "id-4"), time.Second)

	msgs := f.messages()
	if len(msgs) != 6 {
		t.Fatalf("got %d posts, want 6 (3 failed, alert, diagnosed, recovered)", len(msgs))
	}
	alert := allText(msgs[3])
	for _, want := range []string{
		"3 consecutive triage failures on cluster prod-eu",
		"`id-1` Pod/checkout-7d9f -n shop: agent exited with code 1",
		"`id-2` Pod/checkout-7d9f -n shop: timeout",
		"`id-3` Pod/checkout-7d9f -n shop: missing or invalid investigation report",
	} {
		if !strings.Contains(alert, want) {
			t.Errorf("alert lacks %q:\n%s", want, alert)
		}
	}
	recovered := allText(msgs[5])
	for _, want := range []string{"Triage recovered on cluster prod-eu after 3 consecutive failures", "Incident `id-4`"} {
		if !strings.Contains(recovered, want) {
			t.Errorf("recovery lacks %q:\n%s", want, recovered)
		}
	}
}

// An alert Slack did not take has not been sent: the next failure of the
// streak tries it again, and only a delivered alert earns a recovery.
func TestNotifierRetriesUndeliveredAlert(t *testing.T) {
	alerts := 0
	f := newFakeSlack(t, func(_ int, msg *Message) reply {
		if kindOf(msg) == "alert" {
			alerts++
			if alerts == 1 {
				return reply{status: 400, body: "invalid_blocks"}
			}
		}
		return replyOK
	})
	s, _ := testSlack(t, f, SlackOptions{})
	var logs logBuffer
	n := NewNotifier(s, logs.logger())
	ctx := context.Background()
	for i := range 5 {
		n.Incident(ctx, failedIncident("prod", fmt.Sprintf("id-%d", i), "agent exited with code 1"), time.Second)
	}
	var kinds []string
	for _, msg := range f.messages() {
		kinds = append(kinds, kindOf(msg))
	}
	want := "failed failed failed alert failed alert failed"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("posts:\n got %s\nwant %s", got, want)
	}
	if n.Sent.Load() != 6 || n.Failed.Load() != 1 {
		t.Errorf("Sent = %d, Failed = %d; want 6, 1", n.Sent.Load(), n.Failed.Load())
	}
	out := logs.String()
	for _, want := range []string{`"incident_id":"id-2"`, `"notification":"circuit_breaker"`, "invalid_blocks"} {
		if !strings.Contains(out, want) {
			t.Errorf("the lost alert's log lacks %s:\n%s", want, out)
		}
	}
}

func TestNotifierSendFailureIsLoggedAndCounted(t *testing.T) {
	f := newFakeSlack(t, func(int, *Message) reply { return reply{status: 500} })
	s, _ := testSlack(t, f, SlackOptions{MaxAttempts: 2})
	var logs logBuffer
	n := NewNotifier(s, logs.logger())
	n.Incident(context.Background(), resolvedIncident("prod", "id-42"), time.Second)

	if n.Sent.Load() != 0 || n.Failed.Load() != 1 {
		t.Errorf("Sent = %d, Failed = %d; want 0, 1", n.Sent.Load(), n.Failed.Load())
	}
	if f.posts() != 2 {
		t.Errorf("Slack got %d posts, want 2 (MaxAttempts)", f.posts())
	}
	out := logs.String()
	for _, want := range []string{`"level":"ERROR"`, `"incident_id":"id-42"`, `"cluster":"prod"`, "gave up after 2 attempts"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

func TestNotifierWithoutSlackSendsNothing(t *testing.T) {
	f := newFakeSlack(t, nil)
	for name, n := range map[string]*Notifier{
		"no Slack":    NewNotifier(nil, nil),
		"nil Notifer": nil,
	} {
		t.Run(name, func(t *testing.T) {
			if n.Enabled() {
				t.Error("Enabled() = true without a Slack client")
			}
			for i := range 5 {
				n.Incident(context.Background(), failedIncident("prod", fmt.Sprintf("id-%d", i), "x"), time.Second)
			}
			n.Incident(context.Background(), resolvedIncident("prod", "id-5"), time.Second)
			if n != nil && (n.Sent.Load() != 0 || n.Failed.Load() != 0) {
				t.Errorf("Sent = %d, Failed = %d; want 0, 0", n.Sent.Load(), n.Failed.Load())
			}
		})
	}
	if f.posts() != 0 {
		t.Errorf("Slack got %d posts", f.posts())
	}
}

func TestNotifierSkipsUnfinishedIncidents(t *testing.T) {
	f := newFakeSlack(t, nil)
	s, _ := testSlack(t, f, SlackOptions{})
	n := NewNotifier(s, nil)
	inc := resolvedIncident("prod", "id-1")
	inc.Status = incident.Investigating
	n.Incident(context.Background(), inc, time.Second)
	n.Incident(context.Background(), nil, time.Second)
	if f.posts() != 0 {
		t.Errorf("Slack got %d posts for an unfinished incident", f.posts())
	}
}

// TestNotifierConcurrentFailures runs failures for several clusters at once
// (run with -race): each cluster gets exactly one alert, whatever the
// interleaving.
func TestNotifierConcurrentFailures(t *testing.T) {
	f := newFakeSlack(t, nil)
	s, _ := testSlack(t, f, SlackOptions{})
	n := NewNotifier(s, nil)
	clusters := []string{"c0", "c1", "c2", "c3"}
	const perCluster = 6
	var wg sync.WaitGroup
	for _, c := range clusters {
		for i := range perCluster {
			wg.Go(func() {
				n.Incident(context.Background(), failedIncident(c, fmt.Sprintf("%s-%d", c, i), "agent exited with code 1"), time.Second)
			})
		}
	}
	wg.Wait()

	alerts := map[string]int{}
	for _, msg := range f.messages() {
		if kindOf(msg) == "alert" {
			alerts[messageCluster(msg)]++
		}
	}
	for _, c := range clusters {
		if alerts[c] != 1 {
			t.Errorf("cluster %s got %d alerts, want 1 (all: %v)", c, alerts[c], alerts)
		}
	}
	if want := uint64(len(clusters)*perCluster + len(clusters)); n.Sent.Load() != want {
		t.Errorf("Sent = %d, want %d", n.Sent.Load(), want)
	}
}
