package objectstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/google/uuid"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
	"github.com/kubectl-triage/kubectl-triage/test/azurite"
)

// srv is the package's Azurite, when KUBECTL_TRIAGE_AZURITE is set.
var srv *azurite.Server

func TestMain(m *testing.M) {
	if azurite.Configured() {
		dir, err := os.MkdirTemp("", "objectstore-azurite-")
		if err != nil {
			panic(err)
		}
		srv, err = azurite.StartProcess(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s is set but Azurite did not start: %v\n", azurite.EnvEntry, err)
			os.Exit(1)
		}
		// gocloud's azblob opener reads its credentials once, from here.
		for _, kv := range srv.Env() {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		code := m.Run()
		srv.Stop()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func needAzurite(t *testing.T) {
	t.Helper()
	if srv == nil {
		t.Skip("Azurite not installed: run ./hack/azurite.sh and set " + azurite.EnvEntry + " to the path it prints (make test does)")
	}
}

// backend is a store URL maker: Azurite or a directory.
type backend struct {
	name string
	url  func(t *testing.T) string // a container or directory that does not exist yet
}

var containerSeq atomic.Int64

func backends() []backend {
	return []backend{
		{"azurite", func(t *testing.T) string {
			needAzurite(t)
			return srv.URL(fmt.Sprintf("incidents-%d-%d", time.Now().UnixNano()%1e6, containerSeq.Add(1)))
		}},
		{"file", func(t *testing.T) string { return "file://" + filepath.Join(t.TempDir(), "store") }},
	}
}

const gatewayToken = "gw-bearer-7f3a9c2e41d8b6a0"

// finishedWorkspace writes a finished incident's workspace the way a run
// leaves it, with everything that must not be uploaded beside what must.
func finishedWorkspace(t *testing.T, root, cluster string, created time.Time) *incident.Incident {
	t.Helper()
	id := uuid.NewString()
	dir := filepath.Join(root, id)
	done := created.Add(3 * time.Second)
	inc := &incident.Incident{IncidentID: id, Status: incident.Resolved, Cluster: cluster, Namespace: "shop",
		Resource: fault.Resource{APIVersion: "v1", Kind: "Pod", Name: "api", Namespace: "shop"}, FaultType: "CrashLoop", Severity: "warning", CreatedAt: created, CompletedAt: &done,
		Agent: incident.Agent{Name: "builtin", State: incident.AgentSuccess}, Workspace: dir,
		Report: &incident.ReportRef{Path: filepath.Join(dir, workspace.ReportFile), RootCause: "DATABASE_URL is unset"}}
	files := map[string]string{
		workspace.PromptFile:                         "Triage Pod/api\n",
		workspace.EventFile:                          `{"faultType":"CrashLoop"}`,
		workspace.AgentKubeconfig:                    "apiVersion: v1\nkind: Config\nclusters:\n- name: gw\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: gw\n  context:\n    cluster: gw\n    user: agent\ncurrent-context: gw\nusers:\n- name: agent\n  user:\n    token: " + gatewayToken + "\n",
		workspace.AgentLogFile:                       "$ grep -o gw-bearer context/kubeconfig\n" + gatewayToken + "\nkubectl logs api: connecting with password=hunter2-from-the-log\n",
		workspace.ReportFile:                         "# Triage: Pod/api (shop) — DATABASE_URL is unset\n",
		"output/artifacts/notes.txt":                 "notes\n",
		"tmp/kube-cache/discovery":                   "token: " + gatewayToken,
		".claude/skills/k8s-troubleshooter/SKILL.md": "skill\n",
		".codex/auth.json":                           `{"OPENAI_API_KEY":"sk-proj-leftover-login"}`,
	}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink an agent left: never followed.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "output", "artifacts", "passwd")); err != nil {
		t.Fatal(err)
	}
	if err := incident.Save(filepath.Join(dir, workspace.IncidentFile), inc); err != nil {
		t.Fatal(err)
	}
	return inc
}

// blobs reads every blob in the store.
func blobs(t *testing.T, s *Store) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	out := map[string][]byte{}
	err := s.bucket.List(ctx, "", false, func(key string, _ bool) error {
		data, err := s.bucket.Read(ctx, key, -1)
		out[key] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPublishAndRead(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			// The container (directory) does not exist: Open creates it.
			s, err := Open(ctx, b.url(t), Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			root := t.TempDir()
			created := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
			inc := finishedWorkspace(t, root, "prod/eu 1", created)
			if err := s.Publish(ctx, inc, true); err != nil {
				t.Fatal(err)
			}
			key := "prod_eu_1/2026/11/26/" + inc.IncidentID + "/"
			if inc.Storage == nil || inc.Storage.Path != key || inc.Storage.UploadedAt == nil || inc.Storage.URL != s.String() || strings.Contains(inc.Storage.URL, "?") {
				t.Fatalf("storage ref %+v, want path %s and no query in the URL", inc.Storage, key)
			}

			got := blobs(t, s)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			want := []string{key + "PROMPT.md", key + "context/event.json", key + "incident.json", key + "output/agent.log",
				key + "output/artifacts/notes.txt", key + "output/investigation.md"}
			if !slices.Equal(keys, want) {
				t.Errorf("uploaded\n  %s\nwant\n  %s", strings.Join(keys, "\n  "), strings.Join(want, "\n  "))
			}
			secrets := []string{gatewayToken, "sk-proj-leftover-login", "root:x:0:0", "hunter2-from-the-log"}
			if srv != nil {
				secrets = append(secrets, srv.Key)
			}
			for k, data := range got {
				for _, sec := range secrets {
					if bytes.Contains(data, []byte(sec)) {
						t.Errorf("blob %s holds a credential (%.12s…)", k, sec)
					}
				}
			}
			if log := got[key+"output/agent.log"]; !bytes.Contains(log, []byte("[REDACTED:gateway-token]")) || !bytes.Contains(log, []byte("password=[REDACTED]")) {
				t.Errorf("agent.log: the gateway token or the logged password is not masked: %q", log)
			}

			// Both records say where it went; the local one stayed valid JSON.
			local, err := incident.Load(filepath.Join(inc.Workspace, workspace.IncidentFile))
			if err != nil || local.Storage == nil || local.Storage.Path != key || local.Storage.UploadedAt == nil {
				t.Fatalf("local record: %+v, %v", local, err)
			}

			// Read back as list, show and status do.
			entries, skipped, err := s.List(ctx)
			if err != nil || len(entries) != 1 || len(skipped) != 0 {
				t.Fatalf("List: %d entries, skipped %v, %v", len(entries), skipped, err)
			}
			e := entries[0]
			if e.ID != inc.IncidentID || e.Dir != s.String()+"/"+key || e.Incident.Report.RootCause != "DATABASE_URL is unset" || e.Incident.Storage.Path != key {
				t.Errorf("entry %+v", e)
			}
			found, err := s.Find(ctx, inc.IncidentID[:6])
			if err != nil || found.ID != inc.IncidentID {
				t.Fatalf("Find: %v, %v", found, err)
			}
			report, err := s.ReadFile(ctx, found, workspace.ReportFile)
			if err != nil || !strings.HasPrefix(string(report), "# Triage: Pod/api") {
				t.Errorf("report %q, %v", report, err)
			}
			if _, err := s.ReadFile(ctx, found, workspace.ReportJSONFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing file: %v, want fs.ErrNotExist", err)
			}
			if _, err := s.ReadFile(ctx, found, "../../x"); err == nil {
				t.Error("a path out of the incident was read")
			}

			// Recent: by creation time, across days and clusters.
			s.now = func() time.Time { return created.Add(26 * time.Hour) }
			other := finishedWorkspace(t, root, "staging", created.Add(25*time.Hour))
			if err := s.Publish(ctx, other, true); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				since time.Time
				want  []string
			}{
				{created.Add(-time.Hour), []string{inc.IncidentID, other.IncidentID}},
				{time.Time{}, []string{inc.IncidentID, other.IncidentID}}, // all of it, in one listing per cluster
				{created, []string{inc.IncidentID, other.IncidentID}},
				{created.Add(time.Second), []string{other.IncidentID}},
				{created.Add(25*time.Hour + time.Second), nil},
			} {
				recent, err := s.Recent(ctx, tc.since)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, r := range recent {
					ids = append(ids, r.IncidentID)
				}
				if !slices.Equal(ids, tc.want) {
					t.Errorf("Recent(%s) = %v, want %v", tc.since.Format(time.RFC3339), ids, tc.want)
				}
			}
		})
	}
}

func TestKeepLocalFalse(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, b.url(t), Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			root := t.TempDir()
			inc := finishedWorkspace(t, root, "prod", time.Now().UTC())
			if err := s.Publish(ctx, inc, false); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(root); len(left) != 0 {
				t.Errorf("the local workspace was not removed: %v", left)
			}
			if inc.Workspace != "" {
				t.Errorf("the incident still names its removed workspace %s", inc.Workspace)
			}
			if e, err := s.Find(ctx, inc.IncidentID); err != nil || e.Incident.Storage == nil || e.Incident.Storage.UploadedAt == nil {
				t.Fatalf("not in the store: %v, %v", e, err)
			}
		})
	}
}

// flaky is a loopback proxy in front of Azurite that answers the first
// failPuts writes with fail (the real service's busy answer by default).
type flaky struct {
	addr     string
	passPuts atomic.Int64 // writes let through before failing starts
	failPuts atomic.Int64
	failed   atomic.Int64
	status   int
}

func startFlaky(t *testing.T, failPuts int64, status int) *flaky {
	t.Helper()
	f := &flaky{status: status}
	f.failPuts.Store(failPuts)
	target, _ := url.Parse("http://" + srv.Addr)
	rp := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && !strings.Contains(r.URL.RawQuery, "restype=container") && f.passPuts.Add(-1) < 0 && f.failPuts.Add(-1) >= 0 {
			f.failed.Add(1)
			io.Copy(io.Discard, r.Body)
			w.Header().Set("x-ms-error-code", "ServerBusy")
			w.WriteHeader(f.status)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return f
}

func (f *flaky) url(container string) string {
	return fmt.Sprintf("azblob://%s?protocol=http&domain=%s&localemu=true", container, f.addr)
}

// TestPublishRetries: the store refuses the first writes (more than the
// Azure SDK's own retries absorb); Publish backs off, retries and stores
// the whole workspace.
func TestPublishRetries(t *testing.T) {
	needAzurite(t)
	ctx := context.Background()
	container := fmt.Sprintf("retry-%d", containerSeq.Add(1))
	f := startFlaky(t, 0, http.StatusServiceUnavailable)
	s, err := Open(ctx, f.url(container), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var logged bytes.Buffer
	s.Log = slogTo(&logged)
	s.Retry = Backoff{Attempts: 3, Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	f.failPuts.Store(5) // the SDK tries 4 times per write
	inc := finishedWorkspace(t, t.TempDir(), "prod", time.Now().UTC())
	if err := s.Publish(ctx, inc, true); err != nil {
		t.Fatalf("%v; log:\n%s", err, logged.String())
	}
	if f.failed.Load() != 5 {
		t.Errorf("%d writes failed, want 5", f.failed.Load())
	}
	if !strings.Contains(logged.String(), "retrying") {
		t.Errorf("no retry logged:\n%s", logged.String())
	}
	if n := len(blobs(t, s)); n != 6 {
		t.Errorf("%d blobs after the retries, want 6", n)
	}
}

// TestPublishGivesUp: writes keep failing; the local workspace stays, its
// record says why, and the store holds nothing of it.
func TestPublishGivesUp(t *testing.T) {
	needAzurite(t)
	ctx := context.Background()
	f := startFlaky(t, 0, http.StatusForbidden)
	s, err := Open(ctx, f.url(fmt.Sprintf("gives-up-%d", containerSeq.Add(1))), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Retry = Backoff{Attempts: 2, Initial: time.Millisecond}
	root := t.TempDir()
	inc := finishedWorkspace(t, root, "prod", time.Now().UTC())
	f.passPuts.Store(2) // the first files go through, then every write fails
	f.failPuts.Store(1 << 30)
	err = s.Publish(ctx, inc, false)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "kept in "+inc.Workspace) {
		t.Fatalf("error %q: want one line saying where the workspace is kept", err)
	}
	local, lerr := incident.Load(filepath.Join(inc.Workspace, workspace.IncidentFile))
	if lerr != nil || local.Storage == nil || local.Storage.UploadedAt != nil || local.Storage.Error == "" {
		t.Fatalf("local record after giving up: %+v, %v", local, lerr)
	}
	if f.failed.Load() == 0 {
		t.Fatal("no write failed")
	}
	if left := blobs(t, s); len(left) != 0 {
		t.Errorf("%d blobs left of an abandoned upload: %v", len(left), left)
	}
}

func TestOpenErrors(t *testing.T) {
	dead := "127.0.0.1:1"
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		dead = ln.Addr().String()
		ln.Close()
	}
	missingDir := filepath.Join(t.TempDir(), "nothing")
	for _, tc := range []struct {
		name, url string
		opts      Options
		want      string
		azurite   bool
	}{
		{"scheme", "ftp://bucket", Options{Create: true}, `unsupported scheme "ftp"`, false},
		{"not a URL", "incidents", Options{Create: true}, "is not a URL", false},
		{"no container", "azblob://", Options{Create: true}, "names no container", false},
		{"path", "s3://bucket/team-a", Options{Create: true}, "?prefix=team-a/", false},
		{"no directory", "file://", Options{Create: true}, "names no directory", false},
		{"reader of a missing directory", "file://" + missingDir, Options{}, `directory "` + missingDir + `" does not exist`, false},
		{"unreachable", "azblob://incidents?protocol=http&domain=" + dead + "&localemu=true", Options{Create: true, Timeout: 20 * time.Second}, "connection refused", true},
		{"reader of a missing container", "", Options{}, "does not exist", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.azurite {
				needAzurite(t)
			}
			u := tc.url
			if u == "" {
				u = srv.URL("never-created")
			}
			s, err := Open(context.Background(), u, tc.opts)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded", u)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "localemu") {
				t.Errorf("error %q: want one line containing %q, without the URL's query", msg, tc.want)
			}
			if tc.name == "reader of a missing directory" {
				if _, err := os.Stat(missingDir); err == nil {
					t.Error("a reader created the directory")
				}
			}
		})
	}
}

// TestReaderNeverCreates: list/show/status open without creating.
func TestReaderNeverCreates(t *testing.T) {
	needAzurite(t)
	ctx := context.Background()
	name := fmt.Sprintf("reader-%d", containerSeq.Add(1))
	if _, err := Open(ctx, srv.URL(name), Options{}); err == nil {
		t.Fatal("a reader opened a missing container")
	}
	c, err := container.NewClientFromConnectionString(srv.ConnectionString(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetProperties(ctx, nil); !bloberror.HasCode(err, bloberror.ContainerNotFound) {
		t.Errorf("the container exists after a reader opened it (%v)", err)
	}
}
