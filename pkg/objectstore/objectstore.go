// Package objectstore keeps finished incident workspaces in object storage
// (Azure Blob, S3, GCS or a directory), so they outlive the pod or laptop
// that made them, and reads them back for list, show and status and for a
// new leader that needs to know what was handled. Which stores a build
// links is driver.go's business.
//
// Layout: <cluster>/<yyyy>/<mm>/<dd>/<incident-id>/ holding the workspace's
// evidence and report, with incident.json written last: a prefix without
// incident.json is an upload in progress (or one that gave up) and is never
// listed.
package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

const usage = "use azblob://CONTAINER, s3://BUCKET, gs://BUCKET or file:///DIR"

// Store is the incidents kept in one bucket.
type Store struct {
	bucket bucket
	scheme string
	name   string // container, bucket or directory
	// local is a file:// store's directory with the URL's prefix=, where
	// its objects are read from (readObject).
	local string
	base  string // the URL without its query, plus any prefix= it gives: what is recorded and shown
	// Retry is how uploads retry (Publish).
	Retry Backoff
	// Log receives the upload's retries and outcome; nil discards.
	Log *slog.Logger
	now func() time.Time
}

// Options says what Open may do.
type Options struct {
	// Create makes a missing container or bucket where the credentials
	// allow (watch); readers (list, show, status) never create one.
	Create bool
	// Timeout bounds opening and checking the store (default 30s): an
	// unreachable endpoint is reported at startup, not after the first
	// incident.
	Timeout time.Duration
	// Log receives what Open did (it created the container, or another
	// replica had); nil discards. It becomes the Store's Log.
	Log *slog.Logger
}

// Open opens the store at rawURL and checks that it can be reached (and,
// with Create, written), creating a missing container or bucket when asked
// and allowed. Its errors are one line, naming the URL without its query.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("--store %q is not a URL: %s", redactURL(rawURL), usage)
	}
	s := &Store{scheme: u.Scheme, name: u.Host, Retry: DefaultBackoff, Log: opts.Log, now: time.Now}
	switch u.Scheme {
	case "azblob", "s3", "gs":
		if u.Host == "" {
			return nil, fmt.Errorf("--store %s names no container or bucket: %s", s.display(u), usage)
		}
		if p := strings.Trim(u.Path, "/"); p != "" {
			return nil, fmt.Errorf("--store %s: put a path inside the bucket in ?prefix=%s/, not in the URL's path", s.display(u), p)
		}
	case "file":
		if u.Path == "" || u.Path == "/" {
			return nil, fmt.Errorf("--store %s names no directory: use file:///ABSOLUTE/DIR", s.display(u))
		}
		s.name = u.Path
		// Read from disk as a workspace is read (safefile): the
		// directory with the URL's prefix=.
		s.local = filepath.Join(filepath.Clean(filepath.FromSlash(u.Path)), filepath.FromSlash(u.Query().Get("prefix")))
	default:
		return nil, fmt.Errorf("--store %s: unsupported scheme %q: %s", s.display(u), u.Scheme, usage)
	}
	s.base = s.display(u)
	d, ok := drivers[u.Scheme]
	if !ok {
		return nil, notLinked(s.base, u.Scheme)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	q := u.Query()
	prefix := q.Get("prefix")
	q.Del("prefix")
	u.RawQuery = q.Encode()
	b, err := d.open(ctx, u, opts.Create)
	if err != nil && u.Scheme == "file" && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--store %s: directory %q does not exist", s.base, s.name)
	}
	if err != nil {
		return nil, fmt.Errorf("--store %s: %s", s.base, Describe(err))
	}
	if prefix != "" {
		b = prefixed{b, prefix}
	}
	s.bucket = b
	if err := s.check(ctx, opts.Create); err != nil {
		b.Close()
		return nil, fmt.Errorf("--store %s: %w", s.base, err)
	}
	return s, nil
}

// display is the URL as shown and recorded: no user info, no query (it may
// carry endpoint settings; SAS tokens come from the environment, but a
// user may still paste one), with the prefix= it gives as a path.
func (s *Store) display(u *url.URL) string {
	d := u.Scheme + "://" + u.Host
	if u.Scheme == "file" {
		d = "file://" + u.Path
	}
	if p := strings.Trim(u.Query().Get("prefix"), "/"); p != "" {
		d += "/" + p
	}
	return strings.TrimSuffix(d, "/")
}

func redactURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i]
	}
	return raw
}

// String is the store's URL as shown to users (no query).
func (s *Store) String() string { return s.base }

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// probeKey is written and removed at startup to prove the credentials can
// write; it is hidden from listings by its leading dot.
const probeKey = ".kubectl-triage-probe"

// check reaches the bucket, creating it when missing and allowed, and with
// create (a writer) proves it can write.
func (s *Store) check(ctx context.Context, create bool) error {
	ok, err := s.bucket.Exists(ctx)
	if err != nil {
		return errors.New(Describe(err))
	}
	if !ok {
		if !create {
			return fmt.Errorf("%s %q does not exist", s.kind(), s.name)
		}
		if err := s.create(ctx); err != nil {
			return fmt.Errorf("%s %q does not exist and could not be created: %s", s.kind(), s.name, Describe(err))
		}
	}
	if !create {
		return nil
	}
	if err := s.write(ctx, probeKey, []byte("kubectl-triage can write here\n")); err != nil {
		return fmt.Errorf("cannot write to %s %q: %s", s.kind(), s.name, Describe(err))
	}
	_ = s.bucket.Delete(ctx, probeKey) // a leftover probe is harmless
	return nil
}

func (s *Store) kind() string { return drivers[s.scheme].kind }

// create makes the missing container or bucket with the store's own
// credentials and endpoint. Replicas started together all find it
// missing and all try: the one that loses the race is told it exists, and
// that is success once the bucket answers to this replica's credentials too
// (a name taken by another account answers "exists" as well).
func (s *Store) create(ctx context.Context) error {
	err := s.bucket.Create(ctx)
	if err == nil {
		if s.Log != nil {
			s.Log.Info("created the store's "+s.kind(), "store", s.base)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if ok, aerr := s.bucket.Exists(ctx); aerr != nil || !ok {
		return err
	}
	if s.Log != nil {
		s.Log.Info("the store's "+s.kind()+" was created by another replica", "store", s.base)
	}
	return nil
}

// Describe turns a storage error into one line: the service's error code
// and status rather than the SDKs' multi-line dumps.
func Describe(err error) string {
	if line, ok := describeDriver(err); ok {
		return line
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return firstLine(op.Error())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "not found"
	}
	return firstLine(err.Error())
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
