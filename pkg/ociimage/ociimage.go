// Package ociimage builds the plugin's container image without Docker: one
// layer holding the static binary, on an empty base, written as an OCI image
// layout. The same binary and options always give the same digest (fixed
// timestamps and owners, no build host details).
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Fixed parts of the image.
const (
	BinaryPath = "/kubectl-triage"
	// User is distroless's "nonroot", the user the install manifests run as.
	User = "65532:65532"

	LabelVersion = "org.opencontainers.image.version"
	LabelSource  = "org.opencontainers.image.source"
	LabelRefName = "org.opencontainers.image.ref.name"
)

// Entrypoint runs the watch: the image exists to run in a cluster.
var Entrypoint = []string{BinaryPath, "watch"}

// Options describe one image.
type Options struct {
	Binary   string    // path of the static linux binary
	Version  string    // org.opencontainers.image.version, and the layout's tag
	Source   string    // org.opencontainers.image.source (the repository URL)
	Platform string    // "linux/amd64"
	Created  time.Time // the config's creation time; zero: the Unix epoch (SOURCE_DATE_EPOCH style)
}

// Build returns the image.
func Build(o Options) (v1.Image, error) {
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("read binary: %w", err)
	}
	layerTar, err := binaryTar(bin, o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	p, err := v1.ParsePlatform(o.Platform)
	if err != nil {
		return nil, fmt.Errorf("platform %q: %w", o.Platform, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: o.Created.UTC()}
	cf.Config.Entrypoint = Entrypoint
	cf.Config.Cmd = nil
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	// No shell, no /etc/passwd: HOME must be named for client-go's cache.
	cf.Config.Env = []string{"HOME=/tmp"}
	cf.Config.Labels = map[string]string{LabelVersion: o.Version, LabelSource: o.Source}
	cf.History = nil
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return img, nil
}

// binaryTar is the layer: the binary alone, owned by root and not writable
// by the user it runs as, with a fixed time.
func binaryTar(bin []byte, mtime time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	h := &tar.Header{Name: BinaryPath[1:], Mode: 0o555, Size: int64(len(bin)), ModTime: mtime.UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(h); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteLayout writes img as a fresh OCI image layout in dir, tagged with
// the version (org.opencontainers.image.ref.name in index.json).
func WriteLayout(dir string, img v1.Image, p v1.Platform, tag string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	l, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("create layout %s: %w", dir, err)
	}
	opts := []layout.Option{layout.WithPlatform(p)}
	if tag != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{LabelRefName: tag}))
	}
	if err := l.AppendImage(img, opts...); err != nil {
		return fmt.Errorf("write image to %s: %w", dir, err)
	}
	return nil
}

// EpochFromEnv reads SOURCE_DATE_EPOCH (reproducible-builds.org); empty
// means the Unix epoch.
func EpochFromEnv(v string) (time.Time, error) {
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid SOURCE_DATE_EPOCH=%q: %v", v, err)
	}
	return time.Unix(n, 0).UTC(), nil
}
