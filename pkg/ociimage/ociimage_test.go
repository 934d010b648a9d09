package ociimage

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

const testVersion = "v9.9.9-imagetest"

// staticPlugin builds the plugin as make image does: static, trimmed, every
// store driver linked (IMAGE_TAGS), with the version stamped in.
func staticPlugin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubectl-triage")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", "store_all", "-ldflags", "-s -w -X github.com/kubectl-triage/kubectl-triage/pkg/version.Version="+testVersion,
		"-o", bin, "github.com/kubectl-triage/kubectl-triage/cmd/kubectl-triage")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build plugin: %v\n%s", err, out)
	}
	return bin
}

// TestLayout: the written layout opens with the OCI layout reader, holds one
// image whose config runs the watch as the non-root user with the labels,
// is the same digest when built again, and the binary inside runs.
func TestLayout(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a linux binary")
	}
	o := Options{Binary: staticPlugin(t), Version: testVersion, Source: "https://example.com/kubectl-triage",
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Created: time.Unix(1700000000, 0)}
	img, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("not reproducible: %s then %s", d1, d2)
	}

	dir := filepath.Join(t.TempDir(), "image")
	p, _ := v1.ParsePlatform(o.Platform)
	if err := WriteLayout(dir, img, *p, o.Version); err != nil {
		t.Fatal(err)
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != d1 || im.Manifests[0].Annotations[LabelRefName] != testVersion {
		t.Fatalf("index.json: %+v, want one manifest %s tagged %s", im.Manifests, d1, testVersion)
	}
	got, err := idx.Image(d1)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := got.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cf.Config.Entrypoint, []string{"/kubectl-triage", "watch"}) || cf.Config.User != "65532:65532" ||
		cf.Config.Labels[LabelVersion] != testVersion || cf.Config.Labels[LabelSource] != o.Source ||
		cf.OS != "linux" || cf.Architecture != runtime.GOARCH || !cf.Created.Time.Equal(o.Created) {
		t.Errorf("config: %+v", cf)
	}
	layers, err := got.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer: %d, %v", len(layers), err)
	}

	// Extract the binary and run it.
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	extracted := filepath.Join(t.TempDir(), "kubectl-triage")
	var found int
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		found++
		if h.Name != "kubectl-triage" || h.Uid != 0 || h.Mode != 0o555 || !h.ModTime.Equal(o.Created) {
			t.Errorf("layer entry %s uid %d mode %o mtime %v", h.Name, h.Uid, h.Mode, h.ModTime)
		}
		f, err := os.OpenFile(extracted, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if found != 1 {
		t.Fatalf("layer holds %d entries, want the binary alone", found)
	}
	out, err := exec.Command(extracted, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), testVersion) || !strings.Contains(string(out), "stores azblob s3 gs file") {
		t.Errorf("the image's binary: version: %v\n%s\nwant the version and every store", err, out)
	}
}

func TestEpochFromEnv(t *testing.T) {
	if ts, err := EpochFromEnv(""); err != nil || ts.Unix() != 0 {
		t.Errorf("empty: %v %v", ts, err)
	}
	if ts, err := EpochFromEnv("1700000000"); err != nil || ts.Unix() != 1700000000 {
		t.Errorf("1700000000: %v %v", ts, err)
	}
	if _, err := EpochFromEnv("yesterday"); err == nil {
		t.Error("a non-number must be an error")
	}
}
