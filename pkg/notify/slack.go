// Package notify tells people about incidents: Slack messages for watch mode
// (DESIGN.md §9), sent after each triage when a webhook is configured.
//
// A Slack incoming-webhook URL is a credential (anyone holding it can post),
// so it never appears in errors or logs: both name the endpoint by scheme and
// host only.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Defaults for SlackOptions.
const (
	DefaultMaxAttempts = 4
	DefaultMinBackoff  = time.Second
	DefaultMaxBackoff  = 30 * time.Second

	// defaultRequestTimeout bounds one POST when the caller brings no client;
	// the caller's ctx bounds the whole delivery.
	defaultRequestTimeout = 10 * time.Second
	// maxErrorBody is how much of Slack's answer goes into an error: enough
	// for its error codes ("invalid_payload", "no_service"), not a page.
	maxErrorBody = 256
)

// SlackOptions tune a Slack client. The zero value is usable.
type SlackOptions struct {
	// HTTPClient posts the messages; nil means a client with a 10s timeout
	// that does not follow redirects (a webhook never redirects, and
	// following one would hand the incident to whoever answered).
	HTTPClient *http.Client
	// Logger gets one line per retry; nil discards.
	Logger *slog.Logger
	// MaxAttempts is how many times a message is posted before giving up
	// (default 4).
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the exponential, jittered wait between
	// attempts (defaults 1s and 30s). MaxBackoff also caps Slack's
	// Retry-After.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// Now reads the clock for Retry-After dates; nil means time.Now.
	Now func() time.Time
}

// Slack posts Block Kit messages to one incoming webhook. It is safe for
// concurrent use.
type Slack struct {
	webhook  string
	endpoint string // scheme://host, what errors and logs may show
	client   *http.Client
	log      *slog.Logger
	backoff  wait.Backoff
	now      func() time.Time
	// sleep waits d or until ctx is done; tests replace it to see the waits
	// without spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

// errInvalidWebhook is the one message for every malformed webhook: it says
// what a good one looks like and never echoes the (secret) bad one.
var errInvalidWebhook = errors.New("invalid Slack webhook URL: must be https://hooks.slack.com/... (check --slack-webhook or SLACK_WEBHOOK_URL)")

// NewSlack validates the webhook URL and returns a client for it. The URL
// must be absolute https; plain http is accepted only for loopback hosts,
// which is what local relays and tests use.
func NewSlack(webhook string, opts SlackOptions) (*Slack, error) {
	webhook = strings.TrimSpace(webhook) // pasted from a secret store, often with a newline
	endpoint, err := validateWebhook(webhook)
	if err != nil {
		return nil, err
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = opts.MinBackoff
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{
			Timeout:       defaultRequestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Slack{
		webhook:  webhook,
		endpoint: endpoint,
		client:   opts.HTTPClient,
		log:      opts.Logger.With("endpoint", endpoint),
		backoff: wait.Backoff{
			Duration: opts.MinBackoff,
			Factor:   2,
			Jitter:   0.2,
			Steps:    opts.MaxAttempts,
			Cap:      opts.MaxBackoff,
		},
		now:   opts.Now,
		sleep: sleepContext,
	}, nil
}

// Endpoint is the webhook's scheme and host: safe to show.
func (s *Slack) Endpoint() string { return s.endpoint }

func validateWebhook(webhook string) (string, error) {
	// url.Parse errors quote the input; the input is the secret.
	u, err := url.Parse(webhook)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" || u.User != nil {
		return "", errInvalidWebhook
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return "", fmt.Errorf("%w; plain http is allowed only for loopback hosts", errInvalidWebhook)
		}
	default:
		return "", errInvalidWebhook
	}
	return u.Scheme + "://" + u.Host, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// StatusError is Slack answering a post with a non-2xx status. Body is the
// start of what Slack said, e.g. "invalid_payload" or "no_service".
type StatusError struct {
	Endpoint   string
	StatusCode int
	Body       string
	// RetryAfter is Slack's Retry-After, when it sent one.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("slack webhook %s answered %d %s", e.Endpoint, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Retryable reports whether posting again may succeed: rate limiting and
// server errors may; any other status is a problem with the message or the
// webhook (revoked, archived channel), which retrying cannot fix.
func (e *StatusError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// Post sends msg, retrying rate limits (after Slack's Retry-After, capped at
// MaxBackoff), server errors and network errors with exponential backoff,
// up to MaxAttempts. Other 4xx answers fail at once. ctx bounds the whole
// delivery, waits included.
func (s *Slack) Post(ctx context.Context, msg *Message) error {
	body, err := encode(msg)
	if err != nil {
		return err
	}
	backoff := s.backoff // a copy: Step mutates it
	attempts := backoff.Steps
	for attempt := 1; ; attempt++ {
		err = s.post(ctx, body)
		if err == nil {
			return nil
		}
		var status *StatusError
		if errors.As(err, &status) && !status.Retryable() {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
		if attempt >= attempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		wait := min(backoff.Step(), backoff.Cap) // jitter may add to the cap
		if status != nil && status.RetryAfter > 0 {
			wait = min(status.RetryAfter, backoff.Cap)
		}
		s.log.Warn("slack post failed, retrying", "attempt", attempt, "max_attempts", attempts, "retry_in", wait, "error", err)
		if serr := s.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w; stopped retrying: %w", err, serr)
		}
	}
}

// encode is the JSON Post sends. Texts are already escaped for mrkdwn, so
// JSON's own HTML escaping (\u003c) would only make payloads and logs harder
// to read.
func encode(msg *Message) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, fmt.Errorf("encode Slack message: %w", err)
	}
	return buf.Bytes(), nil
}

// post makes one attempt.
func (s *Slack) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.webhook, bytes.NewReader(body))
	if err != nil {
		// Cannot happen for a validated URL; the error would quote it anyway.
		return fmt.Errorf("build request for Slack webhook %s", s.endpoint)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := s.client.Do(req)
	if err != nil {
		// *url.Error quotes the full URL: keep only what went wrong.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Errorf("post to Slack webhook %s: %w", s.endpoint, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection can be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	return &StatusError{
		Endpoint:   s.endpoint,
		StatusCode: resp.StatusCode,
		Body:       s.cleanBody(answer),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), s.now()),
	}
}

// cleanBody makes Slack's answer fit for one log line: printable, short, and
// without the webhook should a proxy echo the request.
func (s *Slack) cleanBody(b []byte) string {
	text := strings.ReplaceAll(string(b), s.webhook, s.endpoint)
	text = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, text)
	text = strings.Join(strings.Fields(text), " ")
	return truncate(text, maxErrorBody)
}

// retryAfter reads a Retry-After header: seconds (what Slack sends) or an
// HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		// Clamped so a silly value cannot overflow; MaxBackoff caps it anyway.
		return time.Duration(min(max(secs, 0), 24*60*60)) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0)
	}
	return 0
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
