package testcluster

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// RFC3339NanoFixed is the kubelet's timestamp format for `logs --timestamps`
// (fixed width, unlike time.RFC3339Nano).
const RFC3339NanoFixed = "2006-01-02T15:04:05.000000000Z07:00"

type logKey struct {
	ns, pod, container string
	previous           bool
}

type logEntry struct {
	text  string
	err   string // non-empty: answer 400 with this message
	since time.Time
}

// fakeKubelet stands in for the kubelet's HTTPS log endpoint. The apiserver
// proxies GET .../pods/P/log?container=C&... to
// GET https://<node InternalIP>:<kubeletEndpoint.Port>/containerLogs/NS/P/C?...
// Logs come from memory so it is never the bottleneck of a test.
type fakeKubelet struct {
	mu   sync.RWMutex
	logs map[logKey]logEntry

	srv    *http.Server
	ln     net.Listener
	port   int
	done   chan struct{}
	errLog *os.File
}

// startFakeKubelet listens on a kernel-chosen loopback port. The listener is
// kept open, so unlike the child processes there is no port race.
func startFakeKubelet(cert tls.Certificate, errLogPath string) (*fakeKubelet, error) {
	// Only TLS/HTTP server errors land here; requests are in the audit log.
	errLog, err := os.Create(errLogPath)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		errLog.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	k := &fakeKubelet{
		logs:   map[logKey]logEntry{},
		ln:     ln,
		port:   ln.Addr().(*net.TCPAddr).Port,
		done:   make(chan struct{}),
		errLog: errLog,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", k.containerLogs)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "fake kubelet: not implemented: "+r.URL.Path, http.StatusNotFound)
	})
	k.srv = &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(errLog, "fake-kubelet: ", log.LstdFlags),
	}
	go func() {
		defer close(k.done)
		_ = k.srv.ServeTLS(ln, "", "")
	}()
	return k, nil
}

func (k *fakeKubelet) stop() {
	if k == nil {
		return
	}
	_ = k.srv.Close()
	<-k.done
	k.errLog.Close()
}

func (k *fakeKubelet) set(key logKey, e logEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.logs[key] = e
}

func (k *fakeKubelet) containerLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	key := logKey{r.PathValue("ns"), r.PathValue("pod"), r.PathValue("container"), q.Get("previous") == "true"}
	k.mu.RLock()
	e, ok := k.logs[key]
	k.mu.RUnlock()

	switch {
	case ok && e.err != "":
		kubeletError(w, e.err)
		return
	case !ok && key.previous:
		// Wording of the real kubelet (validateContainerLogStatus).
		kubeletError(w, fmt.Sprintf("previous terminated container %q in pod %q not found", key.container, key.pod))
		return
	case !ok:
		kubeletError(w, fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", key.container, key.pod))
		return
	}

	data := []byte(e.text)
	// Every line carries the time SetLogs was called, which is what
	// sinceSeconds/sinceTime filter on.
	if s := q.Get("sinceSeconds"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && e.since.Before(time.Now().Add(-time.Duration(n)*time.Second)) {
			data = nil
		}
	}
	if s := q.Get("sinceTime"); s != "" {
		if ts, err := time.Parse(time.RFC3339, s); err == nil && e.since.Before(ts) {
			data = nil
		}
	}
	if q.Get("timestamps") == "true" {
		data = addTimestamps(data, e.since)
	}
	if s := q.Get("tailLines"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			data = tailLines(data, n)
		}
	}
	if s := q.Get("limitBytes"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(data) {
			data = data[:n]
		}
	}
	// follow=true: everything is already "written", so send it and close,
	// as a container that exits right after would.
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// kubeletError answers like the kubelet's restful WriteError: 400 with the
// bare message (no trailing newline, unlike http.Error). The apiserver turns
// it into a BadRequest Status with that message.
func kubeletError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, msg)
}

func addTimestamps(data []byte, ts time.Time) []byte {
	prefix := []byte(ts.UTC().Format(RFC3339NanoFixed) + " ")
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		out.Write(prefix)
		out.Write(line)
	}
	return out.Bytes()
}

// tailLines keeps the last n lines (a missing final newline does not count
// as an extra line).
func tailLines(data []byte, n int) []byte {
	if n == 0 {
		return nil
	}
	trimmed := bytes.TrimSuffix(data, []byte("\n"))
	idx := len(trimmed)
	for range n {
		j := bytes.LastIndexByte(trimmed[:idx], '\n')
		if j < 0 {
			return data
		}
		idx = j
	}
	return data[idx+1:]
}

// waitHealthy makes sure the server answers before the Node advertising it
// is created.
func (k *fakeKubelet) waitHealthy() error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	defer client.CloseIdleConnections()
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", k.port))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New("fake kubelet /healthz: " + resp.Status)
	}
	return nil
}

// SetLogs sets what the fake kubelet serves for the (previous) logs of a
// container. Safe to call at any time, also before the pod exists.
func (c *Cluster) SetLogs(ns, pod, container string, previous bool, text string) {
	c.kubelet.set(logKey{ns, pod, container, previous}, logEntry{text: text, since: time.Now()})
}

// SetLogError makes the fake kubelet answer 400 with msg for these logs; the
// apiserver passes the message through to the client.
func (c *Cluster) SetLogError(ns, pod, container string, previous bool, msg string) {
	c.kubelet.set(logKey{ns, pod, container, previous}, logEntry{err: msg, since: time.Now()})
}
