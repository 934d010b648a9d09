// Package azurite runs the real Azure Storage emulator (npm azurite, pinned
// in hack/tools/azurite and installed by hack/azurite.sh) on loopback with a
// random port, for the tests of object storage.
//
// KUBECTL_TRIAGE_AZURITE is the path hack/azurite.sh prints. Unset, the tests
// that need Azurite skip (plain go test); set (make test sets it), a test
// that cannot start it fails.
package azurite

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// EnvEntry names the Azurite blob service's entry point (main.js).
const EnvEntry = "KUBECTL_TRIAGE_AZURITE"

// Server is one running Azurite blob service.
type Server struct {
	Addr    string // 127.0.0.1:PORT
	Account string
	Key     string // the account's shared key (random per server)

	cmd  *exec.Cmd
	once sync.Once
	done chan struct{}
	log  *lockedBuffer
}

var listening = regexp.MustCompile(`listens on https?://([0-9.]+:[0-9]+)`)

// Start starts Azurite for the test (stopped at its cleanup), or skips
// when KUBECTL_TRIAGE_AZURITE is unset.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := StartProcess(t.TempDir())
	if err == errNotConfigured {
		t.Skip("Azurite not installed: run ./hack/azurite.sh and set " + EnvEntry + " to the path it prints (make test does)")
	}
	if err != nil {
		t.Fatalf("%s is set but Azurite did not start: %v", EnvEntry, err)
	}
	t.Cleanup(s.Stop)
	return s
}

var errNotConfigured = fmt.Errorf("%s is not set", EnvEntry)

// Configured reports whether KUBECTL_TRIAGE_AZURITE is set.
func Configured() bool { return os.Getenv(EnvEntry) != "" }

// StartProcess starts Azurite with its data under dir; the caller stops it.
// For TestMain, where there is no testing.T.
func StartProcess(dir string) (*Server, error) {
	entry := os.Getenv(EnvEntry)
	if entry == "" {
		return nil, errNotConfigured
	}
	if _, err := os.Stat(entry); err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH: %w", err)
	}
	key := make([]byte, 64)
	_, _ = rand.Read(key)
	s := &Server{Account: "triagetest", Key: base64.StdEncoding.EncodeToString(key), done: make(chan struct{}), log: &lockedBuffer{}}
	cmd := exec.Command(node, entry, "--blobHost", "127.0.0.1", "--blobPort", "0",
		"--inMemoryPersistence", "--skipApiVersionCheck", "--loose", "--disableTelemetry")
	// A random account key of our own, not the emulator's well-known one,
	// so a test can look for it in what was uploaded.
	cmd.Env = append(os.Environ(), "AZURITE_ACCOUNTS="+s.Account+":"+s.Key)
	cmd.Dir = dir // whatever it writes besides its in-memory data
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.cmd = cmd
	go func() { _ = cmd.Wait(); close(s.done) }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.log.Write([]byte(sc.Text() + "\n"))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case s.Addr = <-addr:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("azurite exited: %s", strings.TrimSpace(s.log.String()))
	case <-time.After(90 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("azurite did not listen within 90s: %s", strings.TrimSpace(s.log.String()))
	}
}

// Stop ends Azurite (its whole process group) and waits for it.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	})
}

// Env is the environment gocloud's azblob opener reads: the account and
// its shared key.
func (s *Server) Env() []string {
	return []string{"AZURE_STORAGE_ACCOUNT=" + s.Account, "AZURE_STORAGE_KEY=" + s.Key}
}

// URL is the --store URL of a container on this server.
func (s *Server) URL(container string) string {
	return fmt.Sprintf("azblob://%s?protocol=http&domain=%s&localemu=true", container, s.Addr)
}

// ConnectionString is the account's connection string (for clients that
// talk to Azurite directly).
func (s *Server) ConnectionString() string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=http://%s/%s;", s.Account, s.Key, s.Addr, s.Account)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Barrier is a loopback proxy in front of a Server that holds every
// "create container" request until n of them have arrived (or a minute
// has passed), then lets them all through at once: n clients that found
// the container missing all try to create it, and all but one are told
// it exists. Race tests use it to lose the race every time.
type Barrier struct {
	Addr string // 127.0.0.1:PORT, in front of the server
	// Creates counts the create requests seen.
	Creates atomic.Int64
	n       int64
	release chan struct{}
	once    sync.Once
}

// NewBarrier starts a Barrier for n creators in front of s, closed at the
// test's cleanup.
func (s *Server) NewBarrier(t testing.TB, n int) *Barrier {
	t.Helper()
	b := &Barrier{n: int64(n), release: make(chan struct{})}
	target := &url.URL{Scheme: "http", Host: s.Addr}
	rp := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.Addr = ln.Addr().String()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Method == http.MethodPut && q.Get("restype") == "container" && q.Get("comp") == "" {
			if b.Creates.Add(1) >= b.n {
				b.once.Do(func() { close(b.release) })
			}
			select {
			case <-b.release:
			case <-time.After(time.Minute):
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return b
}

// URL is the --store URL of a container, through the barrier.
func (b *Barrier) URL(container string) string {
	return fmt.Sprintf("azblob://%s?protocol=http&domain=%s&localemu=true", container, b.Addr)
}
