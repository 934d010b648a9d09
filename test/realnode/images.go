package realnode

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The node's images, built offline: no test pulls from a registry.
const (
	// BusyboxImage is Debian's static busybox with a link per applet.
	BusyboxImage = "local/busybox:1"
	// PauseImage holds the pod sandbox's pause binary.
	PauseImage = "local/pause:1"
)

// buildImages writes a docker-archive tar holding both images (they share
// one layer: busybox, its applet links, and /pause) to out.
func buildImages(out, pauseBin string) error {
	layer, err := rootfsLayer(pauseBin)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(layer)
	layerID := hex.EncodeToString(sum[:])
	type imgConfig struct {
		Entrypoint []string `json:"Entrypoint,omitempty"`
		Cmd        []string `json:"Cmd,omitempty"`
		Env        []string `json:"Env"`
	}
	configs := []struct {
		tag string
		cfg imgConfig
	}{
		{BusyboxImage, imgConfig{Cmd: []string{"sh"}, Env: []string{"PATH=/bin:/sbin:/usr/bin:/usr/sbin"}}},
		{PauseImage, imgConfig{Entrypoint: []string{"/pause"}, Env: []string{"PATH=/bin"}}},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := add(layerID+"/layer.tar", layer); err != nil {
		return err
	}
	type manifestEntry struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	var manifest []manifestEntry
	for _, c := range configs {
		data, err := json.Marshal(map[string]any{
			"architecture": runtime.GOARCH, "os": "linux", "config": c.cfg,
			"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + layerID}},
		})
		if err != nil {
			return err
		}
		cs := sha256.Sum256(data)
		name := hex.EncodeToString(cs[:]) + ".json"
		if err := add(name, data); err != nil {
			return err
		}
		manifest = append(manifest, manifestEntry{Config: name, RepoTags: []string{c.tag}, Layers: []string{layerID + "/layer.tar"}})
	}
	data, err := json.Marshal(manifest)
	if err != nil {
		return err
	}
	if err := add("manifest.json", data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// rootfsLayer is the image filesystem: /bin/busybox with a symlink per
// applet in /bin, /pause, and the directories programs expect.
func rootfsLayer(pauseBin string) ([]byte, error) {
	bb, err := os.ReadFile(busyboxPath)
	if err != nil {
		return nil, err
	}
	pause, err := os.ReadFile(pauseBin)
	if err != nil {
		return nil, err
	}
	list, err := exec.Command(busyboxPath, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("busybox --list: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []string{"bin", "etc", "tmp", "proc", "sys", "dev", "var", "root"} {
		mode := int64(0o755)
		if d == "tmp" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Name: d + "/", Mode: mode, Typeflag: tar.TypeDir}); err != nil {
			return nil, err
		}
	}
	files := []struct {
		name string
		data []byte
		mode int64
	}{
		{"bin/busybox", bb, 0o755},
		{"pause", pause, 0o755},
		{"etc/passwd", []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n"), 0o644},
		{"etc/group", []byte("root:x:0:\nnogroup:x:65534:\n"), 0o644},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	for _, applet := range strings.Fields(string(list)) {
		if applet == "busybox" || strings.Contains(applet, "/") {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: "bin/" + applet, Linkname: "busybox", Mode: 0o777, Typeflag: tar.TypeSymlink}); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pauseSource is the pause command's source, embedded so the binary can be
// built wherever this package runs (the realnode command, outside the repo).
//
//go:embed pause/main.go
var pauseSource []byte

// buildPause compiles the pause binary statically into dir, as a module of
// its own (it imports only the standard library).
func buildPause(dir string) (string, error) {
	src := filepath.Join(dir, "pause-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), pauseSource, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module pause\n\ngo 1.22\n"), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "pause")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build pause: %w\n%s", err, b)
	}
	return out, nil
}

// repoRoot walks up from the working directory to the module root.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "testbin.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no hack/testbin.sh above the working directory")
		}
		dir = parent
	}
}
