package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// secretPath is the credential part of the test webhook; it must never show
// up in an error or a log line.
const secretPath = "/services/T0SECRET/B0SECRET/s3cr3tW3bh00kT0k3n"

// reply is what the fake answers one post with. hangUp closes the
// connection without an answer (a network error).
type reply struct {
	status     int
	body       string
	retryAfter string
	hangUp     bool
}

var replyOK = reply{status: http.StatusOK, body: "ok"}

// fakeSlack is an incoming webhook on 127.0.0.1 that records every post.
type fakeSlack struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	received []*Message
	// respond picks the reply to the n-th post (0-based); nil answers ok.
	respond func(n int, msg *Message) reply
}

func newFakeSlack(t *testing.T, respond func(n int, msg *Message) reply) *fakeSlack {
	t.Helper()
	f := &fakeSlack{t: t, respond: respond}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// replies answers the posts in order, then ok.
func replies(rs ...reply) func(int, *Message) reply {
	return func(n int, _ *Message) reply {
		if n < len(rs) {
			return rs[n]
		}
		return replyOK
	}
}

func (f *fakeSlack) URL() string { return f.srv.URL + secretPath }

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read post: %v", err)
	}
	var msg Message
	switch {
	case r.Method != http.MethodPost:
		f.t.Errorf("method = %s, want POST", r.Method)
	case r.URL.Path != secretPath:
		f.t.Errorf("path = %s, want the webhook's", r.URL.Path)
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		f.t.Errorf("Content-Type = %q, want application/json", r.Header.Get("Content-Type"))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		f.t.Errorf("post is not a valid message: %v\n%s", err, body)
	}
	checkBlockKit(f.t, &msg)

	f.mu.Lock()
	n := len(f.received)
	f.received = append(f.received, &msg)
	rep := replyOK
	if f.respond != nil {
		rep = f.respond(n, &msg)
	}
	f.mu.Unlock()

	if rep.hangUp {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		conn.Close()
		return
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func (f *fakeSlack) messages() []*Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Message(nil), f.received...)
}

func (f *fakeSlack) posts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.received)
}

// checkBlockKit checks what Slack would reject outright: a message without
// text or blocks, unknown block or text types, and texts over their limits.
func checkBlockKit(t *testing.T, msg *Message) {
	t.Helper()
	if msg.Text == "" {
		t.Errorf("message has no fallback text")
	}
	if len(msg.Blocks) == 0 || len(msg.Blocks) > 50 {
		t.Errorf("message has %d blocks, want 1..50", len(msg.Blocks))
	}
	checkText := func(where string, txt *Text, limit int) {
		if txt == nil {
			t.Errorf("%s has no text", where)
			return
		}
		if txt.Type != "plain_text" && txt.Type != "mrkdwn" {
			t.Errorf("%s text type %q", where, txt.Type)
		}
		if txt.Text == "" {
			t.Errorf("%s text is empty", where)
		}
		if n := len([]rune(txt.Text)); n > limit {
			t.Errorf("%s text is %d characters, over Slack's %d", where, n, limit)
		}
	}
	for i, b := range msg.Blocks {
		switch b.Type {
		case "header":
			checkText("header", b.Text, 150)
			if b.Text != nil && b.Text.Type != "plain_text" {
				t.Errorf("header text must be plain_text, is %s", b.Text.Type)
			}
		case "section":
			if b.Text == nil && len(b.Fields) == 0 {
				t.Errorf("section %d has neither text nor fields", i)
			}
			if b.Text != nil {
				checkText("section", b.Text, 3000)
			}
			if len(b.Fields) > 10 {
				t.Errorf("section %d has %d fields, over Slack's 10", i, len(b.Fields))
			}
			for j := range b.Fields {
				checkText("field", &b.Fields[j], 2000)
			}
		case "context":
			if len(b.Elements) == 0 || len(b.Elements) > 10 {
				t.Errorf("context %d has %d elements, want 1..10", i, len(b.Elements))
			}
			for j := range b.Elements {
				checkText("context element", &b.Elements[j], 2000)
			}
		default:
			t.Errorf("block %d has unexpected type %q", i, b.Type)
		}
	}
}

// testSlack is a client for f that records its waits instead of sleeping.
func testSlack(t *testing.T, f *fakeSlack, opts SlackOptions) (*Slack, *[]time.Duration) {
	t.Helper()
	s, err := NewSlack(f.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	s.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return s, &waits
}

// logBuffer is a slog logger writing JSON lines into a buffer, safe for the
// concurrent writes of the client and the fake.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// headerOf is the message's header text.
func headerOf(msg *Message) string {
	for _, b := range msg.Blocks {
		if b.Type == "header" && b.Text != nil {
			return b.Text.Text
		}
	}
	return ""
}

// allText is every text of the message, fallback included, one per line.
func allText(msg *Message) string {
	texts := []string{msg.Text}
	for _, b := range msg.Blocks {
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
		for _, f := range b.Fields {
			texts = append(texts, f.Text)
		}
		for _, e := range b.Elements {
			texts = append(texts, e.Text)
		}
	}
	return strings.Join(texts, "\n")
}
