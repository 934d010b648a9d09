package notify

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewSlackValidatesWebhook(t *testing.T) {
	tests := []struct {
		name         string
		webhook      string
		wantEndpoint string // empty: want an error
	}{
		{"slack", "https://hooks.slack.com/services/T000/B000/s3cr3t", "https://hooks.slack.com"},
		{"surrounding space", " https://hooks.slack.com/services/T000/B000/s3cr3t\n", "https://hooks.slack.com"},
		{"https with port", "https://relay.example.com:8443/hook/s3cr3t", "https://relay.example.com:8443"},
		{"http on 127.0.0.1", "http://127.0.0.1:8080/hook/s3cr3t", "http://127.0.0.1:8080"},
		{"http on localhost", "http://localhost/hook/s3cr3t", "http://localhost"},
		{"http on ::1", "http://[::1]:9000/hook/s3cr3t", "http://[::1]:9000"},
		{"empty", "", ""},
		{"no scheme", "hooks.slack.com/services/T000/B000/s3cr3t", ""},
		{"relative", "/services/T000/B000/s3cr3t", ""},
		{"http elsewhere", "http://hooks.slack.com/services/T000/B000/s3cr3t", ""},
		{"http on a lookalike host", "http://127.0.0.1.example.com/s3cr3t", ""},
		{"other scheme", "ftp://hooks.slack.com/services/s3cr3t", ""},
		{"no host", "https:///services/s3cr3t", ""},
		{"user info", "https://user:s3cr3t@hooks.slack.com/services/x", ""},
		{"unparsable", "https://hooks.slack.com/%zz/s3cr3t", ""},
		{"control character", "https://hooks.slack.com/services/s3cr3t\x7f", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSlack(tt.webhook, SlackOptions{})
			if tt.wantEndpoint == "" {
				if err == nil {
					t.Fatalf("NewSlack(%q) accepted it", tt.webhook)
				}
				if !strings.HasPrefix(err.Error(), "invalid Slack webhook URL: must be https://") {
					t.Errorf("error %q does not say what a webhook must look like", err)
				}
				if strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("error %q shows the webhook", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSlack(%q): %v", tt.webhook, err)
			}
			if got := s.Endpoint(); got != tt.wantEndpoint {
				t.Errorf("Endpoint() = %q, want %q", got, tt.wantEndpoint)
			}
		})
	}
}

func TestPostRetries(t *testing.T) {
	const minBackoff, maxBackoff = 10 * time.Millisecond, time.Second
	// jittered says a wait is the backoff step d plus at most 20% jitter.
	type waitCheck func(time.Duration) bool
	jittered := func(d time.Duration) waitCheck {
		return func(got time.Duration) bool { return got >= d && got <= d+d/5 }
	}
	exactly := func(d time.Duration) waitCheck {
		return func(got time.Duration) bool { return got == d }
	}
	tests := []struct {
		name       string
		replies    []reply
		maxBackoff time.Duration
		wantPosts  int
		wantWaits  []waitCheck
		wantStatus int // the StatusError's code; 0: no StatusError
		wantErr    string
	}{
		{
			name:      "ok at once",
			replies:   nil,
			wantPosts: 1,
		},
		{
			name:      "rate limited, honours Retry-After",
			replies:   []reply{{status: 429, body: "rate_limited", retryAfter: "2"}},
			wantPosts: 2,
			wantWaits: []waitCheck{exactly(time.Second)}, // capped at MaxBackoff
		},
		{
			name:       "rate limited, Retry-After below the cap",
			replies:    []reply{{status: 429, retryAfter: "2"}, {status: 429, retryAfter: "1"}},
			maxBackoff: 5 * time.Second,
			wantPosts:  3,
			wantWaits:  []waitCheck{exactly(2 * time.Second), exactly(time.Second)},
		},
		{
			name:      "rate limited without Retry-After backs off",
			replies:   []reply{{status: 429}},
			wantPosts: 2,
			wantWaits: []waitCheck{jittered(minBackoff)},
		},
		{
			name:      "server errors back off exponentially",
			replies:   []reply{{status: 500}, {status: 502}, {status: 503}},
			wantPosts: 4,
			wantWaits: []waitCheck{jittered(minBackoff), jittered(2 * minBackoff), jittered(4 * minBackoff)},
		},
		{
			name:      "network error is retried",
			replies:   []reply{{hangUp: true}},
			wantPosts: 2,
			wantWaits: []waitCheck{jittered(minBackoff)},
		},
		{
			name:       "gives up after MaxAttempts",
			replies:    []reply{{status: 500}, {status: 500}, {status: 500}, {status: 503, body: "service_unavailable"}},
			wantPosts:  4,
			wantWaits:  []waitCheck{jittered(minBackoff), jittered(2 * minBackoff), jittered(4 * minBackoff)},
			wantStatus: 503,
			wantErr:    "gave up after 4 attempts: slack webhook http://127.0.0.1:",
		},
		{
			name:       "bad payload is not retried",
			replies:    []reply{{status: 400, body: "invalid_payload"}},
			wantPosts:  1,
			wantStatus: 400,
			wantErr:    "answered 400 Bad Request: invalid_payload",
		},
		{
			name:       "revoked webhook is not retried",
			replies:    []reply{{status: 404, body: "no_service"}},
			wantPosts:  1,
			wantStatus: 404,
			wantErr:    "answered 404 Not Found: no_service",
		},
		{
			name:       "archived channel is not retried",
			replies:    []reply{{status: 410, body: "channel_is_archived"}},
			wantPosts:  1,
			wantStatus: 410,
			wantErr:    "channel_is_archived",
		},
		{
			name:       "a redirect is not followed",
			replies:    []reply{{status: 302}},
			wantPosts:  1,
			wantStatus: 302,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSlack(t, replies(tt.replies...))
			maxB := tt.maxBackoff
			if maxB == 0 {
				maxB = maxBackoff
			}
			s, waits := testSlack(t, f, SlackOptions{MinBackoff: minBackoff, MaxBackoff: maxB})
			err := s.Post(context.Background(), testMessage())

			if got := f.posts(); got != tt.wantPosts {
				t.Errorf("Slack got %d posts, want %d", got, tt.wantPosts)
			}
			if len(*waits) != len(tt.wantWaits) {
				t.Errorf("waited %v, want %d waits", *waits, len(tt.wantWaits))
			} else {
				for i, check := range tt.wantWaits {
					if !check((*waits)[i]) {
						t.Errorf("wait %d = %v, not what was expected (all: %v)", i, (*waits)[i], *waits)
					}
				}
			}
			if tt.wantStatus == 0 && tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Post: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Post succeeded, want an error")
			}
			var status *StatusError
			if !errors.As(err, &status) || status.StatusCode != tt.wantStatus {
				t.Errorf("error %v is not a StatusError with code %d", err, tt.wantStatus)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q shows the webhook", err)
			}
		})
	}
}

// TestPostStopsWhenContextEnds waits for real: the retry wait is a minute,
// so only the cancelled context can end Post in time.
func TestPostStopsWhenContextEnds(t *testing.T) {
	f := newFakeSlack(t, func(int, *Message) reply { return reply{status: 500} })
	s, err := NewSlack(f.URL(), SlackOptions{MinBackoff: time.Minute, MaxBackoff: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan time.Duration, 1)
	s.sleep = func(ctx context.Context, d time.Duration) error {
		waiting <- d
		return sleepContext(ctx, d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Post(ctx, testMessage()) }()

	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("Post never started waiting to retry")
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Post kept waiting after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Post = %v, want context.Canceled", err)
	}
	var status *StatusError
	if !errors.As(err, &status) || status.StatusCode != 500 {
		t.Errorf("error %v does not keep the last answer (500)", err)
	}
	if got := f.posts(); got != 1 {
		t.Errorf("Slack got %d posts, want 1", got)
	}
}

func TestPostDoesNotStartWithADoneContext(t *testing.T) {
	f := newFakeSlack(t, nil)
	s, _ := testSlack(t, f, SlackOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Post(ctx, testMessage()); !errors.Is(err, context.Canceled) {
		t.Errorf("Post = %v, want context.Canceled", err)
	}
	if got := f.posts(); got != 0 {
		t.Errorf("Slack got %d posts, want none", got)
	}
}

// TestWebhookIsNeverShown drives every failure path and checks that neither
// errors nor logs (client and Notifier) contain the webhook's secret path.
func TestWebhookIsNeverShown(t *testing.T) {
	// A port nothing listens on, for connection refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + secretPath
	l.Close()

	echo := newFakeSlack(t, nil)
	echo.respond = func(int, *Message) reply {
		// A proxy that quotes the request in its error page.
		return reply{status: http.StatusBadRequest, body: "invalid_payload for POST " + echo.URL()}
	}
	tests := []struct {
		name    string
		webhook string
	}{
		{"connection refused", refused},
		{"server errors", newFakeSlack(t, func(int, *Message) reply { return reply{status: 503} }).URL()},
		{"hang up", newFakeSlack(t, func(int, *Message) reply { return reply{hangUp: true} }).URL()},
		{"answer quotes the webhook", echo.URL()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs logBuffer
			s, err := NewSlack(tt.webhook, SlackOptions{Logger: logs.logger(), MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Post(context.Background(), testMessage())
			if err == nil {
				t.Fatal("Post succeeded, want an error")
			}
			n := NewNotifier(s, logs.logger())
			n.Incident(context.Background(), failedIncident("prod", "id-1", "agent exited with code 1"), time.Second)
			if n.Failed.Load() != 1 {
				t.Errorf("Failed = %d, want 1", n.Failed.Load())
			}

			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error shows the webhook: %v", err)
			}
			if !strings.Contains(err.Error(), s.Endpoint()) {
				t.Errorf("error %q does not name the endpoint %s", err, s.Endpoint())
			}
			out := logs.String()
			if !strings.Contains(out, "could not send Slack notification") {
				t.Errorf("the failure was not logged:\n%s", out)
			}
			if strings.Contains(out, "s3cr3t") {
				t.Errorf("logs show the webhook:\n%s", out)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 30 ", 30 * time.Second},
		{"-1", 0},
		{"99999999999999", 24 * time.Hour},
		{"soon", 0},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
		{now.Add(-5 * time.Second).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func testMessage() *Message {
	return &Message{Text: "test", Blocks: []Block{section("*Test*\n", "hello")}}
}

func TestPostToWebhookWithSurroundingSpace(t *testing.T) {
	f := newFakeSlack(t, nil)
	s, err := NewSlack(" "+f.URL()+"\n", SlackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Post(context.Background(), testMessage()); err != nil {
		t.Fatalf("Post: %v", err)
	}
	if f.posts() != 1 {
		t.Errorf("Slack got %d posts, want 1", f.posts())
	}
}
