package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/azurite"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// runStoreCmd runs the plugin binary (list, show, status) with env added.
func runStoreCmd(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(pluginBinary(t), args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "KUBECTL_TRIAGE_CONFIG=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// credentialValues are the user's kubeconfig's secrets, as written in it.
func credentialValues(t *testing.T, kubeconfig string) []string {
	t.Helper()
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if ok && len(v) >= 16 && (k == "token" || k == "client-key-data" || k == "client-certificate-data" || k == "password") {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no credential found in %s to look for", kubeconfig)
	}
	return out
}

// TestWatchStoreAzurite: as a user runs it in the cluster — watch uploads
// each incident to a container that did not exist, keeps no local copy,
// and list/show/status --store read it back from Azurite. What is
// uploaded holds no credential: not the account key, not the user's.
func TestWatchStoreAzurite(t *testing.T) {
	srv := azurite.Start(t)
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	// This process reads the container too (gocloud reads the account once).
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	url := srv.URL("triage-e2e")

	w := startWatchEnv(t, c, srv.Env(), "-n", ns, "--include-existing", "--max-incidents", "1", "--store", url, "--keep-local=false")
	il := w.next(t, 2*time.Minute)
	if il.Status != "resolved" || !strings.Contains(il.RootCause, "DATABASE_URL") {
		t.Fatalf("incident: %+v", il)
	}
	if want := url[:strings.Index(url, "?")] + "/"; !strings.HasPrefix(il.Stored, want) || !strings.HasSuffix(il.Stored, "/"+il.IncidentID+"/") {
		t.Errorf("the incident's line says it is stored at %q, want %s…/%s/", il.Stored, want, il.IncidentID)
	}
	if code, _ := w.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, w.stderr.String())
	}
	if !strings.Contains(w.stderr.String(), `"msg":"incident stored"`) {
		t.Errorf("no 'incident stored' log line:\n%s", w.stderr.String())
	}
	if entries, _ := os.ReadDir(w.root); len(entries) != 0 {
		t.Errorf("--keep-local=false left %d entries in the workspace root", len(entries))
	}

	// The blobs: the layout, and no credential anywhere in them.
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	secrets := append(credentialValues(t, c.UserKubeconfig), srv.Key)
	it := b.List(nil)
	var keys []string
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
		data, err := b.ReadAll(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("blob %s holds a credential (%.10s…)", o.Key, s)
			}
		}
	}
	day := time.Now().UTC().Format("2006/01/02")
	prefix := "" // <cluster>/<yyyy>/<mm>/<dd>/<id>/
	for _, k := range keys {
		if strings.HasSuffix(k, "/"+il.IncidentID+"/incident.json") {
			prefix = strings.TrimSuffix(k, "incident.json")
		}
		if strings.HasSuffix(k, "/kubeconfig") || strings.Contains(k, "/tmp/") || strings.Contains(k, "/.claude/") {
			t.Errorf("uploaded %s", k)
		}
	}
	if prefix == "" || !strings.Contains(prefix, "/"+day+"/") || !contains(keys, prefix+"output/investigation.md") || !contains(keys, prefix+"context/event.json") {
		t.Fatalf("layout: keys %q, want <cluster>/%s/%s/ with the report and the event", keys, day, il.IncidentID)
	}

	// Reading back, as a user on another machine would.
	code, out, stderr := runStoreCmd(t, srv.Env(), "list", "--store", url, "-o", "json")
	var list struct{ Items []incident.Incident }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Items) != 1 || list.Items[0].IncidentID != il.IncidentID ||
		list.Items[0].Storage == nil || list.Items[0].Storage.Path != prefix {
		t.Fatalf("list --store: exit %d, %s\n%s", code, out, stderr)
	}
	if code, out, stderr := runStoreCmd(t, srv.Env(), "list", "--store", url); code != 0 || !strings.Contains(out, il.IncidentID[:8]) || !strings.Contains(out, "resolved") {
		t.Errorf("list --store table: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out, stderr := runStoreCmd(t, srv.Env(), "show", il.IncidentID[:8], "--store", url); code != 0 || !strings.HasPrefix(out, "# Triage: Pod/api") || !strings.Contains(out, "DATABASE_URL") {
		t.Errorf("show --store: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runStoreCmd(t, srv.Env(), "status", il.IncidentID, "--store", url)
	if code != 0 || !strings.Contains(out, "Status:") || !strings.Contains(out, "resolved") || !strings.Contains(out, "azblob://triage-e2e/"+prefix) {
		t.Errorf("status --store: exit %d\n%s\n%s", code, out, stderr)
	}
	// The local root is empty, as the pod's would be after a restart.
	if code, _, stderr := runStoreCmd(t, nil, "list", "--workspace-root", w.root); code != 0 || !strings.Contains(stderr, "No incidents found") {
		t.Errorf("the local root still lists incidents: %s", stderr)
	}
}

// TestWatchStoreFile: file:// keeps the same layout in a directory, and
// the local copy stays, its record saying where it went.
func TestWatchStoreFile(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	dir := filepath.Join(t.TempDir(), "store")
	url := "file://" + dir
	w := startWatch(t, c, "-n", ns, "--include-existing", "--max-incidents", "1", "--store", url)
	il := w.next(t, 2*time.Minute)
	if code, _ := w.wait(t, time.Minute); code != 0 || il.Status != "resolved" {
		t.Fatalf("exit %d, incident %+v; stderr:\n%s", code, il, w.stderr.String())
	}
	inc := loadIncident(t, il.Workspace)
	if inc.Storage == nil || inc.Storage.UploadedAt == nil || inc.Storage.URL != url {
		t.Fatalf("local record's storage: %+v", inc.Storage)
	}
	report := filepath.Join(dir, filepath.FromSlash(inc.Storage.Path), "output", "investigation.md")
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "DATABASE_URL") {
		t.Errorf("stored report %s: %v", report, err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(inc.Storage.Path), "context", "kubeconfig")); err == nil {
		t.Error("context/kubeconfig was stored")
	}
	if code, out, stderr := runStoreCmd(t, nil, "show", il.IncidentID, "--store", url); code != 0 || !strings.Contains(out, "DATABASE_URL") {
		t.Errorf("show --store: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestWatchStoreErrors: a store that cannot be used stops the watch at
// startup with one line, before any fault becomes a workspace.
func TestWatchStoreErrors(t *testing.T) {
	c := testcluster.Get(t)
	dead := "127.0.0.1:1"
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		dead = ln.Addr().String()
		ln.Close()
	}
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	for _, tc := range []struct{ name, url, want string }{
		{"unsupported scheme", "ftp://incidents", `--store ftp://incidents: unsupported scheme "ftp"`},
		{"unreachable", "azblob://incidents?protocol=http&domain=" + dead + "&localemu=true", "--store azblob://incidents: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := startWatchEnv(t, c, []string{"AZURE_STORAGE_ACCOUNT=triagetest", "AZURE_STORAGE_KEY=a2V5"},
				"-n", ns, "--include-existing", "--store", tc.url)
			code, lines := w.wait(t, 2*time.Minute)
			stderr := w.stderr.String()
			var plain []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !strings.HasPrefix(l, "{") { // the JSON log lines
					plain = append(plain, l)
				}
			}
			if code != 1 || len(lines) != 0 || len(plain) != 1 || !strings.HasPrefix(plain[0], "error: "+tc.want) || strings.Contains(stderr, "localemu") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and one line starting %q", code, lines, stderr, "error: "+tc.want)
			}
			if entries, _ := os.ReadDir(w.root); len(entries) > 0 {
				t.Errorf("a failed start left %d workspaces", len(entries))
			}
		})
	}
}

// TestWatchStoreCannotCreate: the container is missing and the credential
// (a read-only account SAS, from AZURE_STORAGE_SAS_TOKEN) may
// not create it: one line at startup, nothing created.
func TestWatchStoreCannotCreate(t *testing.T) {
	srv := azurite.Start(t)
	c := testcluster.Get(t)
	cred, err := azblob.NewSharedKeyCredential(srv.Account, srv.Key)
	if err != nil {
		t.Fatal(err)
	}
	perms := sas.AccountPermissions{Read: true, List: true}
	types := sas.AccountResourceTypes{Container: true, Object: true}
	qp, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: perms.String(), ResourceTypes: types.String()}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"AZURE_STORAGE_ACCOUNT=" + srv.Account, "AZURE_STORAGE_KEY=", "AZURE_STORAGE_SAS_TOKEN=" + qp.Encode(),
		"AZURE_STORAGE_DOMAIN=" + srv.Addr, "AZURE_STORAGE_PROTOCOL=http", "AZURE_STORAGE_IS_LOCAL_EMULATOR=true"}
	w := startWatchEnv(t, c, env, "--store", "azblob://not-yet")
	code, lines := w.wait(t, 2*time.Minute)
	stderr := strings.TrimSpace(w.stderr.String())
	want := `error: --store azblob://not-yet: container "not-yet" does not exist and could not be created: `
	if code != 1 || len(lines) != 0 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "\n") || strings.Contains(stderr, "sig=") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and one line starting %q", code, lines, stderr, want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTriageStore: one-shot triage with --store uploads the incident too;
// with --keep-local=false the root is left empty and the report still
// printed.
func TestTriageStore(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	url := "file://" + filepath.Join(t.TempDir(), "store")
	r := triage(t, c, ns, "pod/api", "--store", url, "--keep-local=false")
	if r.code != 0 || !strings.Contains(r.stdout, "DATABASE_URL") || !strings.Contains(r.stderr, "Stored in "+url+"/") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if entries, _ := os.ReadDir(r.root); len(entries) != 0 {
		t.Errorf("--keep-local=false left %d entries in the root", len(entries))
	}
	if code, out, stderr := runStoreCmd(t, nil, "list", "--store", url, "-o", "wide"); code != 0 || !strings.Contains(out, "Pod/api -n "+ns) || !strings.Contains(out, url+"/") {
		t.Errorf("list --store: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestWatchStoreGatewayToken: an agent CLI that prints its gateway
// kubeconfig's bearer token (into its log and an artifact) while the
// gateway serves it; the upload holds the workspace's evidence and output
// but neither the kubeconfig nor the token anywhere.
func TestWatchStoreGatewayToken(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	scenarioNamed("crashloop-missing-env").setup(t, c, ns)
	dir := t.TempDir()
	agent := filepath.Join(dir, "leaky-agent")
	script := "#!/bin/sh\ncat >/dev/null\n" +
		"tok=$(sed -n 's/^ *token: *//p' \"$KUBECONFIG\" | tr -d '\"')\n" +
		"echo \"$tok\"\nmkdir -p output/artifacts && echo \"$tok\" > output/artifacts/seen.txt\n" +
		"printf '# Triage: Pod/api\\n\\n## Summary\\nx\\n\\n## Root cause\\ny\\n'\n"
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	w := startWatch(t, c, "-n", ns, "--include-existing", "--max-incidents", "1", "--store", "file://"+store,
		"--agent-command", agent, "--no-sandbox")
	il := w.next(t, 2*time.Minute)
	if code, _ := w.wait(t, time.Minute); code != 0 || il.Stored == "" {
		t.Fatalf("exit %d, incident %+v; stderr:\n%s", code, il, w.stderr.String())
	}
	kc, err := os.ReadFile(filepath.Join(il.Workspace, "context", "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	token := ""
	for _, line := range strings.Split(string(kc), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "token:"); ok {
			token = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if len(token) < 16 {
		t.Fatalf("no gateway token in the workspace's kubeconfig:\n%s", kc)
	}
	if log, _ := os.ReadFile(filepath.Join(il.Workspace, "output", "agent.log")); !strings.Contains(string(log), token) {
		t.Fatalf("the agent did not print the token; its log:\n%s", log)
	}
	inc := loadIncident(t, il.Workspace)
	var files []string
	err = filepath.WalkDir(filepath.Join(store, filepath.FromSlash(inc.Storage.Path)), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), token) {
			t.Errorf("%s holds the gateway token", p)
		}
		if filepath.Base(p) == "kubeconfig" {
			t.Errorf("stored %s", p)
		}
		return nil
	})
	if err != nil || len(files) < 4 {
		t.Fatalf("stored files %q, %v", files, err)
	}
}
