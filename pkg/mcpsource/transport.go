package mcpsource

import (
	"net/http"
	"sync/atomic"
)

// recordingTransport adds the bearer token and remembers the last refusal
// (4xx), so a failed connect can say what the server objected to.
type recordingTransport struct {
	base   http.RoundTripper
	token  string
	origin string // scheme://host of the endpoint: the only place the token goes
	status atomic.Int32
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token != "" && req.URL.Scheme+"://"+req.URL.Host == t.origin {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 && resp.StatusCode < 500 {
		t.status.Store(int32(resp.StatusCode))
	}
	return resp, err
}

func (t *recordingTransport) resetRefusal() { t.status.Store(0) }
func (t *recordingTransport) refusal() int  { return int(t.status.Load()) }

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the base.
func (t *recordingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
