package clusters

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Bound ties every request of the clients made from the configs it wraps
// to one run's context: discovery, the REST mapper and the resource
// builder take no context of their own, so without it Ctrl-C would wait
// for them (a server that accepts the connection and never answers holds
// each one for a TLS handshake timeout). It wraps the config's transport,
// not a client: the Lazy clientset made from a wrapped config shares it
// across every group it makes later.
//
// It also remembers a server that could not be connected to: client-go's
// discovery and the resource builder each ask again after a failure, which
// made a server that never answers the TLS handshake take four handshake
// timeouts (40 s) to report; the later requests now fail at once with the
// first one's error, for downFor. Only connection failures count (a dial
// or handshake timeout): a slow answer from a connected server is never cut
// short, and a long run (an agent's) connects again after a passing failure.
type Bound struct {
	ctx context.Context
	now func() time.Time

	mu   sync.Mutex
	down map[string]failure // by host:port
}

type failure struct {
	err error
	at  time.Time
}

// downFor is how long a connection failure answers for the server.
const downFor = 10 * time.Second

// NewBound binds requests to ctx.
func NewBound(ctx context.Context) *Bound {
	return &Bound{ctx: ctx, now: time.Now, down: map[string]failure{}}
}

// Config makes cfg's requests end when the run's context does; cfg is
// changed and returned (a rest.ConfigFlags WrapConfigFn).
func (b *Bound) Config(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &boundTransport{b: b, next: rt} })
	return cfg
}

func (b *Bound) unreachable(host string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.down[host]
	if !ok {
		return nil
	}
	if b.now().Sub(f.at) > downFor {
		delete(b.down, host)
		return nil
	}
	return f.err
}

func (b *Bound) markDown(host string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down[host] = failure{err: err, at: b.now()}
}

type boundTransport struct {
	b    *Bound
	next http.RoundTripper
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.b.ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	if err := t.b.unreachable(req.URL.Host); err != nil {
		closeBody(req)
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(t.b.ctx, func() { cancel(context.Cause(t.b.ctx)) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		stop()
		cancel(nil)
		if req.Context().Err() == nil && t.b.ctx.Err() == nil && connectFailed(err) {
			t.b.markDown(req.URL.Host, err)
		}
		return nil, err
	}
	// The request's context must live as long as its body is read (a log
	// stream, a watch).
	release := func() { stop(); cancel(nil) }
	if rw, ok := resp.Body.(io.ReadWriteCloser); ok { // an upgraded connection
		resp.Body = &releasingConn{ReadWriteCloser: rw, release: release}
	} else {
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	}
	return resp, nil
}

// WrappedRoundTripper exposes the underlying transport for client-go's
// transport inspection utilities.
func (t *boundTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

// connectFailed reports a connection that could not be set up in time: the
// dial or the TLS handshake timed out (net/http's handshake timeout error
// type is unexported; its text is stable).
func connectFailed(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && op.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "TLS handshake timeout")
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// releasingBody releases the request's context once the body is closed.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (r *releasingBody) Close() error {
	err := r.ReadCloser.Close()
	r.once.Do(r.release)
	return err
}

// releasingConn is releasingBody for a 101 Switching Protocols body, which
// net/http's users write to as well.
type releasingConn struct {
	io.ReadWriteCloser
	once    sync.Once
	release func()
}

func (r *releasingConn) Close() error {
	err := r.ReadWriteCloser.Close()
	r.once.Do(r.release)
	return err
}
