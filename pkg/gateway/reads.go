package gateway

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
)

// What the agent read through the gateway is kept in memory for the run,
// bounded, so the engine can check the report's claims against it
// (pkg/claims): the response bodies never reach the disk, only their
// requests reach audit.jsonl.
const (
	maxReadBody  = 2 << 20  // one response
	maxReadBytes = 32 << 20 // every response of the run
)

// Read is one GET the gateway served the agent, with its response body
// (up to 2 MiB each, 32 MiB in all; Truncated says it was cut).
type Read struct {
	Method, Path, Query              string
	Resource, Subresource, Namespace string
	Name                             string
	Code                             int
	Body                             []byte
	Truncated                        bool
}

// Reads returns what the agent read so far, oldest first.
func (g *Gateway) Reads() []Read {
	g.readsMu.Lock()
	defer g.readsMu.Unlock()
	out := make([]Read, len(g.reads))
	copy(out, g.reads)
	return out
}

// budget is how much of the next response body may be kept.
func (g *Gateway) budget() int64 {
	g.readsMu.Lock()
	defer g.readsMu.Unlock()
	return max(0, min(maxReadBody, maxReadBytes-g.readBytes))
}

// keepRead records an allowed GET and what came back.
func (g *Gateway) keepRead(r *http.Request, req Request, rec *recorder) {
	body := rec.body
	truncated := rec.bytes > int64(len(body))
	if strings.EqualFold(rec.Header().Get("Content-Encoding"), "gzip") {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			plain, err := io.ReadAll(io.LimitReader(zr, maxReadBody))
			truncated = truncated || err != nil || len(plain) == maxReadBody
			body = plain
		}
	}
	g.readsMu.Lock()
	defer g.readsMu.Unlock()
	g.readBytes += int64(len(body))
	g.reads = append(g.reads, Read{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Resource: req.Kind,
		Subresource: req.Subresource, Namespace: req.Namespace, Name: req.Name, Code: rec.code(), Body: body, Truncated: truncated})
}
