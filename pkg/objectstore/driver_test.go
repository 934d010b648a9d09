package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // the stores the gocloud-based plugin wrote
	_ "gocloud.dev/blob/fileblob"
)

// TestCreateRace: replicas started together all find the container
// missing and all create it (the barrier holds the creates until every
// replica has sent one); each Open succeeds, whoever created it.
func TestCreateRace(t *testing.T) {
	needAzurite(t)
	const replicas = 3
	gate := srv.NewBarrier(t, replicas)
	u := gate.URL(fmt.Sprintf("race-%d", containerSeq.Add(1)))
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), u, Options{Create: true})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if n := gate.Creates.Load(); n != replicas {
		t.Fatalf("%d creates reached the server, want one per replica (%d)", n, replicas)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
}

// TestCreateLoser is the race's loser, every time: the container was made
// between its check and its create.
func TestCreateLoser(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			u := b.url(t)
			first, err := Open(ctx, u, Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			var logged strings.Builder
			first.Log = slogTo(&logged)
			if err := first.create(ctx); err != nil {
				t.Fatalf("create of a container that exists: %v", err)
			}
			if b.name == "azurite" && !strings.Contains(logged.String(), "created by another replica") {
				t.Errorf("log: %s", logged.String())
			}
		})
	}
}

// raced is a bucket whose Create says it exists and whose Exists still
// says it does not: a name another account holds.
type raced struct {
	bucket
	exists bool
}

func (r raced) Create(context.Context) error {
	return alreadyThere{errors.New("BucketAlreadyExists: the bucket name is not available")}
}
func (r raced) Exists(context.Context) (bool, error) { return r.exists, nil }

func TestCreateTakenByAnother(t *testing.T) {
	for _, tc := range []struct {
		exists bool
		ok     bool
	}{{true, true}, {false, false}} {
		s := &Store{scheme: "file", bucket: raced{exists: tc.exists}}
		err := s.create(context.Background())
		if (err == nil) != tc.ok {
			t.Errorf("exists afterwards %v: create = %v, want ok %v", tc.exists, err, tc.ok)
		}
		if err != nil && !strings.Contains(Describe(err), "BucketAlreadyExists") {
			t.Errorf("error %q does not say why", Describe(err))
		}
	}
}

// oddKeys are keys the gocloud drivers escape.
var oddKeys = []string{
	"prod/2026/01/02/0f8fad5b-d9cb-469f-a165-70867728950e/output/artifacts/what?#%\"now",
	"prod/2026/01/02/0f8fad5b-d9cb-469f-a165-70867728950e/output/artifacts/back\\slash",
	"prod/2026/01/02/0f8fad5b-d9cb-469f-a165-70867728950e/output/artifacts/ctl\x01char",
	"prod/2026/01/02/0f8fad5b-d9cb-469f-a165-70867728950e/output/artifacts/__0x41__literal",
	"prod/2026/01/02/0f8fad5b-d9cb-469f-a165-70867728950e/output/a..b/c",
	"plain/key.txt",
}

// TestGocloudCompat: a store written through gocloud.dev/blob (the plugin
// before its own drivers) reads the same through them, and the other way
// round, odd names included.
func TestGocloudCompat(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			u := b.url(t)
			s, err := Open(ctx, u, Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			gurl := u
			if b.name == "file" {
				gurl += "?metadata=skip"
			}
			g, err := blob.OpenBucket(ctx, gurl)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			for _, k := range oddKeys {
				if err := g.WriteAll(ctx, "old/"+k, []byte("gocloud "+k), nil); err != nil {
					t.Fatal(err)
				}
				if err := s.bucket.Write(ctx, "new/"+k, []byte("native "+k), "text/plain"); err != nil {
					t.Fatal(err)
				}
			}
			for _, k := range oddKeys {
				if got, err := s.bucket.Read(ctx, "old/"+k, -1); err != nil || string(got) != "gocloud "+k {
					t.Errorf("native read of gocloud's %q: %q, %v", k, got, err)
				}
				if got, err := g.ReadAll(ctx, "new/"+k); err != nil || string(got) != "native "+k {
					t.Errorf("gocloud read of native %q: %q, %v", k, got, err)
				}
			}
			var listed []string
			if err := s.bucket.List(ctx, "old/", false, func(k string, _ bool) error { listed = append(listed, strings.TrimPrefix(k, "old/")); return nil }); err != nil {
				t.Fatal(err)
			}
			slices.Sort(listed)
			want := slices.Clone(oddKeys)
			slices.Sort(want)
			if !slices.Equal(listed, want) {
				t.Errorf("listed %q\nwant %q", listed, want)
			}
		})
	}
}

// TestList: prefixes, one level with dirs, nothing half-written.
func TestList(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, b.url(t), Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, k := range []string{"a/1/x", "a/1/y", "a/2/z", "ab/q", "top", ".hidden/h"} {
				if err := s.bucket.Write(ctx, k, []byte(k), "text/plain"); err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				prefix string
				dirs   bool
				want   []string
			}{
				{"", false, []string{".hidden/h", "a/1/x", "a/1/y", "a/2/z", "ab/q", "top"}},
				{"a/", false, []string{"a/1/x", "a/1/y", "a/2/z"}},
				{"a", false, []string{"a/1/x", "a/1/y", "a/2/z", "ab/q"}},
				{"a/1/", false, []string{"a/1/x", "a/1/y"}},
				{"nothing/", false, nil},
				{"", true, []string{".hidden/", "a/", "ab/", "top"}},
				{"a/", true, []string{"a/1/", "a/2/"}},
			} {
				var got []string
				err := s.bucket.List(ctx, tc.prefix, tc.dirs, func(k string, dir bool) error {
					if dir != strings.HasSuffix(k, "/") {
						t.Errorf("%q: dir %v", k, dir)
					}
					got = append(got, k)
					return nil
				})
				slices.Sort(got)
				if err != nil || !slices.Equal(got, tc.want) {
					t.Errorf("List(%q, dirs %v) = %q, %v; want %q", tc.prefix, tc.dirs, got, err, tc.want)
				}
			}
			if _, err := s.bucket.Read(ctx, "a/1/none", -1); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing key: %v, want fs.ErrNotExist", err)
			}
		})
	}
}

// TestFileSkips: a file being written and fileblob's metadata sidecars
// are never listed.
func TestFileSkips(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, "file://"+dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"c/obj": "x", "c/obj.attrs": "{}", "c/" + tmpPrefix + "obj.123": "half"} {
		if err := os.MkdirAll(filepath.Join(dir, "c"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := s.bucket.List(ctx, "", false, func(k string, _ bool) error { got = append(got, k); return nil }); err != nil || !slices.Equal(got, []string{"c/obj"}) {
		t.Errorf("listed %q, %v; want only c/obj", got, err)
	}
	if _, err := s.bucket.Read(ctx, "../../etc/passwd", -1); err == nil {
		t.Error("a key out of the directory was read")
	}
}

// TestAzureEndpoint: the service URL from the environment and the URL, as
// gocloud's azureblob made it.
func TestAzureEndpoint(t *testing.T) {
	for _, tc := range []struct {
		env   map[string]string
		query string
		want  string
	}{
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct"}, "", "https://acct.blob.core.windows.net"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct", "AZURE_STORAGE_DOMAIN": "blob.core.chinacloudapi.cn"}, "", "https://acct.blob.core.chinacloudapi.cn"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct"}, "protocol=http&domain=127.0.0.1:10000", "http://127.0.0.1:10000/acct"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct", "AZURE_STORAGE_IS_LOCAL_EMULATOR": "true", "AZURE_STORAGE_DOMAIN": "azurite:10000"}, "", "https://azurite:10000/acct"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct"}, "cdn=true&domain=cdn.example.com", "https://cdn.example.com"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct", "AZURE_STORAGE_SAS_TOKEN": "sv=1&sig=x"}, "", "https://acct.blob.core.windows.net?sv=1&sig=x"},
		{map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=http;AccountName=fromconn;AccountKey=k"}, "", "http://fromconn.blob.core.windows.net"},
		{map[string]string{"AZURE_STORAGE_ACCOUNT": "acct"}, "storage_account=other", "https://other.blob.core.windows.net"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			for _, k := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_DOMAIN", "AZURE_STORAGE_PROTOCOL",
				"AZURE_STORAGE_IS_CDN", "AZURE_STORAGE_IS_LOCAL_EMULATOR", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
				t.Setenv(k, tc.env[k])
			}
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			e, err := azureEndpointFromEnv().withQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.serviceURL()
			if err != nil || got != tc.want {
				t.Errorf("service URL %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Setenv("AZURE_STORAGE_ACCOUNT", "acct")
	t.Setenv("AZURE_STORAGE_SAS_TOKEN", "sv=1&sig=x")
	t.Setenv("AZURE_STORAGE_KEY", "")
	for _, tc := range []struct{ url, want string }{
		{"azblob://c?domain=evil.example.com", "cannot change the service endpoint"},
		{"azblob://c?colour=blue", `unknown query parameter "colour"`},
		{"azblob://c?protocol=ftp", `invalid protocol "ftp"`},
	} {
		if _, err := Open(context.Background(), tc.url, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "sig=") {
			t.Errorf("Open(%s) = %v, want %q and no SAS", tc.url, err, tc.want)
		}
	}
}

func TestHexEscape(t *testing.T) {
	for _, k := range append(oddKeys, "", "__0x", "__0x4g__", "a__0x2f__b", "日本/語") {
		for _, esc := range []func(string) string{escapeFileKey, func(s string) string { return escapeAzureKey(s, false) }} {
			if got := hexUnescape(esc(k)); got != k {
				t.Errorf("%q escapes to %q, back to %q", k, esc(k), got)
			}
		}
	}
	if got := escapeAzureKey("a/../b/", false); got != "a/..__0x2f__b__0x2f__" {
		t.Errorf("azure escape of a/../b/ = %q", got)
	}
}
