package krew

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testVersion = "v0.1.0"

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "hack", "dist.sh")); err != nil {
		t.Fatalf("repo root not found: %v", err)
	}
	return root
}

func mustValid(t *testing.T, p Plugin, distDir string) {
	t.Helper()
	for _, err := range validate(p, distDir) {
		t.Error(err)
	}
}

// templatePath is the manifest template at the top of the repository, which
// `make krew-manifest` renders into DIST/triage.yaml.
func templatePath(t *testing.T) string {
	return filepath.Join(repoRoot(t), "krew-manifest.yaml")
}

// platforms are the os/arch pairs a release ships.
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"}}

// The repository holds the manifest as a template (krew-release-bot's
// convention), never a manifest with checksums: the binaries embed the
// commit, so a committed checksum could only describe archives built before
// the commit that added it (krew: "checksum does not match"). Its version
// is the release's tag, each platform's uri and sha256 come from
// addURIAndSha on that platform's release URL, and, rendered, it passes
// krew's rules; its name is not triage.yaml, so nobody installs it as it
// stands.
func TestTemplate(t *testing.T) {
	data := mustRead(t, templatePath(t))
	text := string(data)
	if strings.Contains(text, "sha256:") {
		t.Error("the template carries a sha256")
	}
	if !strings.Contains(text, "\n  version: {{ .TagName }}\n") {
		t.Error("spec.version is not {{ .TagName }}")
	}
	for _, pa := range platforms {
		ext := ".tar.gz"
		if pa[0] == "windows" {
			ext = ".zip"
		}
		call := fmt.Sprintf(`{{ addURIAndSha "%s{{ .TagName }}/%s_{{ .TagName }}_%s_%s%s" .TagName }}`, fmt.Sprintf(releaseURIFmt, ""), binName, pa[0], pa[1], ext)
		call = strings.Replace(call, "download//", "download/", 1)
		if strings.Count(text, call) != 1 {
			t.Errorf("the template does not name %s/%s's release archive once: %s", pa[0], pa[1], call)
		}
	}
	p, err := decodeManifest(renderStub(t, data, testVersion))
	if err != nil {
		t.Fatalf("rendered template: %v", err)
	}
	if err := checkFileName(templatePath(t), p); err == nil {
		t.Error("the template is named like an installable manifest")
	}
	mustValid(t, p, "")
	if len(p.Spec.Platforms) != len(platforms) || p.Spec.Version != testVersion {
		t.Errorf("rendered: version %s, %d platforms", p.Spec.Version, len(p.Spec.Platforms))
	}
	for _, word := range []string{"read", "agent", "kubectl krew uninstall triage", "rm "} {
		if !strings.Contains(p.Spec.Caveats, word) {
			t.Errorf("caveats do not mention %q", word)
		}
	}
}

// checkFileName is krew's validate-krew-manifest rule that a manifest file
// is named after its plugin (NAME.yaml).
func checkFileName(file string, p Plugin) error {
	base := filepath.Base(file)
	if want := p.Metadata.Name + ".yaml"; base != want {
		return fmt.Errorf("plugin should be named %q, not %q", strings.TrimSuffix(base, filepath.Ext(base)), p.Metadata.Name)
	}
	return nil
}

func TestCheckFileName(t *testing.T) {
	p := goodManifest(t)
	for file, ok := range map[string]bool{"/x/triage.yaml": true, "krew-manifest.yaml": false, "triage.yml": false, ".krew.yaml": false} {
		if err := checkFileName(file, p); (err == nil) != ok {
			t.Errorf("checkFileName(%s) = %v, want ok=%v", file, err, ok)
		}
	}
}

// goodManifest is a valid two-platform manifest for the negative tests.
func goodManifest(t *testing.T) Plugin {
	t.Helper()
	const text = `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: triage
spec:
  version: v0.1.0
  homepage: https://github.com/kubectl-triage/kubectl-triage
  shortDescription: Explain why a resource is broken, read-only
  description: |
    Investigates.
  caveats: |
    Read-only; agents.
  platforms:
  - selector:
      matchLabels: {os: linux, arch: amd64}
    uri: https://example.com/d/kubectl-triage_v0.1.0_linux_amd64.tar.gz
    sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    bin: kubectl-triage
    files: [{from: kubectl-triage, to: .}, {from: LICENSE, to: .}, {from: kubectl_complete-triage, to: .}]
  - selector:
      matchLabels: {os: windows, arch: amd64}
    uri: https://example.com/d/kubectl-triage_v0.1.0_windows_amd64.zip
    sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    bin: kubectl-triage.exe
    files: [{from: kubectl-triage.exe, to: .}, {from: LICENSE, to: .}, {from: kubectl_complete-triage.bat, to: .}]
`
	p, err := decodeManifest([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The validator must catch what krew rejects.
func TestValidatorRejects(t *testing.T) {
	mustValid(t, goodManifest(t), "")
	for name, tc := range map[string]struct {
		mutate func(p *Plugin)
		want   string
	}{
		"apiVersion":         {func(p *Plugin) { p.APIVersion = "krew.googlecontainertools.github.com/v1alpha1" }, "apiVersion"},
		"kind":               {func(p *Plugin) { p.Kind = "Plugins" }, "kind"},
		"name uppercase":     {func(p *Plugin) { p.Metadata.Name = "Triage" }, "metadata.name"},
		"name trailing dash": {func(p *Plugin) { p.Metadata.Name = "triage-" }, "metadata.name"},
		"version without v":  {func(p *Plugin) { p.Spec.Version = "0.1.0" }, "start with v"},
		"version not semver": {func(p *Plugin) { p.Spec.Version = "v0.1" }, "semver"},
		"short multi-line":   {func(p *Plugin) { p.Spec.ShortDescription = "a\nb" }, "one line"},
		"short empty":        {func(p *Plugin) { p.Spec.ShortDescription = "" }, "shortDescription is empty"},
		"no platforms":       {func(p *Plugin) { p.Spec.Platforms = nil }, "platforms is empty"},
		"sha256 uppercase":   {func(p *Plugin) { p.Spec.Platforms[0].Sha256 = strings.ToUpper(p.Spec.Platforms[0].Sha256) }, "lowercase hex"},
		"sha256 short":       {func(p *Plugin) { p.Spec.Platforms[0].Sha256 = "abc" }, "lowercase hex"},
		"no uri":             {func(p *Plugin) { p.Spec.Platforms[0].URI = "" }, "uri is empty"},
		"no bin":             {func(p *Plugin) { p.Spec.Platforms[0].Bin = "" }, "bin is empty"},
		"selector key": {func(p *Plugin) {
			p.Spec.Platforms[0].Selector.MatchLabels["distro"] = "debian"
		}, `key "distro"`},
		"selector nil": {func(p *Plugin) { p.Spec.Platforms[0].Selector = nil }, "selector: missing"},
		"overlap": {func(p *Plugin) {
			p.Spec.Platforms[1].Selector.MatchLabels = map[string]string{"os": "linux", "arch": "amd64"}
		}, "overlap"},
		"unsupported platform": {func(p *Plugin) {
			p.Spec.Platforms[0].Selector.MatchLabels["os"] = "plan9"
		}, "no platform krew supports"},
		"missing LICENSE": {func(p *Plugin) { p.Spec.Platforms[0].Files = p.Spec.Platforms[0].Files[:1] }, "files"},
	} {
		t.Run(name, func(t *testing.T) {
			p := goodManifest(t)
			tc.mutate(&p)
			errs := validate(p, "")
			var msgs []string
			for _, err := range errs {
				msgs = append(msgs, err.Error())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
				t.Errorf("want an error mentioning %q, got %q", tc.want, msgs)
			}
		})
	}
	if _, err := decodeManifest([]byte("apiVersion: x\nkind: Plugin\nspec:\n  versoin: v1.0.0\n")); err == nil {
		t.Error("strict decoding accepted an unknown field")
	}
}

// buildHelper builds hack/krewmanifest into a temp dir.
func buildHelper(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "krewmanifest")
	cmd := exec.Command("go", "build", "-o", bin, "./hack/krewmanifest")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build hack/krewmanifest: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The archive writer and the manifest generator, on stand-in files for all
// six platforms (no cross builds): deterministic tar.gz and zip, and a
// manifest krew accepts that matches the archives.
func TestManifestFromArchives(t *testing.T) {
	helper := buildHelper(t)
	src, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	const epoch = 1700000000
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return p
	}
	for _, osArch := range platforms {
		goos, goarch := osArch[0], osArch[1]
		bin, comp, ext := binName, completion, ".tar.gz"
		script := "#!/bin/sh\nexec kubectl-triage __complete \"$@\"\n"
		if goos == "windows" {
			bin, comp, ext = binName+".exe", completion+".bat", ".zip"
			script = "@echo off\r\nkubectl-triage.exe __complete %*\r\n"
		}
		files := []string{
			// Out of order on purpose: entries come out sorted.
			write(comp+"-"+goos+goarch, script, 0o700),
			write(license, "Apache License\n", 0o600),
			write(bin+"-"+goos+goarch, "binary for "+goos+"/"+goarch, 0o751),
		}
		args := []string{comp + "=" + files[0], license + "=" + files[1], bin + "=" + files[2]}
		name := fmt.Sprintf("%s_%s_%s_%s%s", binName, testVersion, goos, goarch, ext)
		for _, dir := range []string{a, b} {
			run(t, src, nil, helper, append([]string{"archive", "-o", filepath.Join(dir, name), "-mtime", fmt.Sprint(epoch)}, args...)...)
		}
		checkEntries(t, filepath.Join(a, name), []string{license, bin, comp}, epoch) // byte order
	}
	var names []string
	entries, _ := os.ReadDir(a)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	run(t, a, nil, helper, append([]string{"sums", "-o", "SHA256SUMS"}, names...)...)
	run(t, b, nil, helper, append([]string{"sums", "-o", "SHA256SUMS"}, names...)...)
	sameDirs(t, a, b)

	out := filepath.Join(t.TempDir(), "triage.yaml")
	base := "https://downloads.example.com/triage/" + testVersion
	run(t, repoRoot(t), nil, helper, "manifest", "-version", testVersion, "-dist", a, "-uri-base", base,
		"-in", templatePath(t), "-out", out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := decodeManifest(data)
	if err != nil {
		t.Fatalf("generated manifest: %v\n%s", err, data)
	}
	mustValid(t, p, a)
	if err := checkFileName(out, p); err != nil {
		t.Error(err)
	}
	if n := len(p.Spec.Platforms); n != 6 {
		t.Errorf("%d platforms, want 6", n)
	}
	for _, pl := range p.Spec.Platforms {
		if !strings.HasPrefix(pl.URI, base+"/") {
			t.Errorf("uri %s ignores -uri-base %s", pl.URI, base)
		}
	}
	// Everything but the checksums (each its archive's: mustValid) and the
	// download location is the template's.
	orig, _ := decodeManifest(renderStub(t, mustRead(t, templatePath(t)), testVersion))
	if p.Spec.Description != orig.Spec.Description || p.Spec.Caveats != orig.Spec.Caveats || p.Spec.ShortDescription != orig.Spec.ShortDescription || p.Spec.Homepage != orig.Spec.Homepage {
		t.Error("the generated manifest lost the descriptive text of the template")
	}
	for i, pl := range p.Spec.Platforms {
		if o := orig.Spec.Platforms[i]; filepath.Base(pl.URI) != filepath.Base(o.URI) || pl.Bin != o.Bin || fmt.Sprint(pl.Files) != fmt.Sprint(o.Files) {
			t.Errorf("platforms[%d] differs from the template's beyond uri base and sha256", i)
		}
	}
	// Without -uri-base the URLs are the template's: the GitHub release.
	gh := filepath.Join(t.TempDir(), "triage.yaml")
	run(t, repoRoot(t), nil, helper, "manifest", "-version", testVersion, "-dist", a, "-in", templatePath(t), "-out", gh)
	if ghp, err := decodeManifest(mustRead(t, gh)); err != nil || !strings.HasPrefix(ghp.Spec.Platforms[0].URI, fmt.Sprintf(releaseURIFmt, testVersion)) {
		t.Errorf("without -uri-base: %v, %+v", err, ghp.Spec.Platforms)
	}

	// The real krew: krew-index's validator installs every platform from
	// the manifest, downloading the archives from a loopback release.
	if haveRealKrew() {
		krewDir, kubectlDir := realKrew(t)
		served := filepath.Join(t.TempDir(), "triage.yaml")
		run(t, repoRoot(t), nil, helper, "manifest", "-version", testVersion, "-dist", a, "-uri-base", archiveServer(t, a), "-in", templatePath(t), "-out", served)
		validateReal(t, served, krewEnv(krewDir, kubectlDir, t.TempDir()))
	} else {
		t.Log("real krew skipped: set KUBECTL_TRIAGE_KREW and KUBECTL_TRIAGE_TESTBIN")
	}

	// The generator refuses what krew would: a manifest file not named
	// triage.yaml, and a template carrying checksums (stale ones).
	if msg, err := exec.Command(helper, "manifest", "-version", testVersion, "-dist", a, "-in", templatePath(t),
		"-out", filepath.Join(t.TempDir(), "krew-manifest.yaml")).CombinedOutput(); err == nil || !strings.Contains(string(msg), "named triage.yaml") {
		t.Errorf("manifest -out krew-manifest.yaml: err=%v, %s", err, msg)
	}
	if msg, err := exec.Command(helper, "manifest", "-version", testVersion, "-dist", a, "-in", out,
		"-out", filepath.Join(t.TempDir(), "triage.yaml")).CombinedOutput(); err == nil || !strings.Contains(string(msg), "a template carries no sha256") {
		t.Errorf("manifest from a template with checksums: err=%v, %s", err, msg)
	}
	// A platform not built is left out, and said so; an archive the
	// template does not name is an error.
	partial := t.TempDir()
	for _, n := range names {
		if !strings.Contains(n, "darwin") && n != "SHA256SUMS" {
			if err := os.WriteFile(filepath.Join(partial, n), mustRead(t, filepath.Join(a, n)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(helper, "manifest", "-version", testVersion, "-dist", partial, "-in", templatePath(t), "-out", filepath.Join(partial, "triage.yaml"))
	msg, err := cmd.CombinedOutput()
	pp, derr := decodeManifest(mustRead(t, filepath.Join(partial, "triage.yaml")))
	if err != nil || derr != nil || len(pp.Spec.Platforms) != 4 || !strings.Contains(string(msg), "darwin/arm64 left out") {
		t.Errorf("manifest without the darwin archives: err=%v %v, %d platforms\n%s", err, derr, len(pp.Spec.Platforms), msg)
	}
	stray := fmt.Sprintf("%s_%s_linux_s390x.tar.gz", binName, testVersion)
	if err := os.WriteFile(filepath.Join(partial, stray), mustRead(t, filepath.Join(a, names[0])), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(helper, "manifest", "-version", testVersion, "-dist", partial, "-in", templatePath(t), "-out", filepath.Join(partial, "triage.yaml"))
	if msg, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(msg), "no platform for "+stray) {
		t.Errorf("manifest with an archive the template does not name: err=%v, %s", err, msg)
	}

	// A tampered archive no longer matches SHA256SUMS: the generator refuses.
	f := filepath.Join(a, fmt.Sprintf("%s_%s_linux_amd64.tar.gz", binName, testVersion))
	raw := mustRead(t, f)
	if err := os.WriteFile(f, append(raw, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(helper, "manifest", "-version", testVersion, "-dist", a, "-in", templatePath(t), "-out", out)
	if msg, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(msg), "SHA256SUMS") {
		t.Errorf("manifest from a stale archive: err=%v, %s", err, msg)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkEntries wants exactly names, in order, at epoch, executables 0755 and
// the rest 0644, owned by 0/0 without names.
func checkEntries(t *testing.T, archive string, names []string, epoch int64) {
	t.Helper()
	type ent struct {
		name  string
		mode  os.FileMode
		mtime time.Time
	}
	var got []ent
	if strings.HasSuffix(archive, ".zip") {
		zr, err := zip.OpenReader(archive)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			got = append(got, ent{f.Name, f.Mode().Perm(), f.Modified})
		}
	} else {
		raw := mustRead(t, archive)
		if raw[3]&0x08 != 0 || !bytes.Equal(raw[4:8], []byte{0, 0, 0, 0}) {
			t.Errorf("%s: gzip header carries a name or a timestamp", archive)
		}
		gz, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		for {
			hdr, err := tr.Next()
			if err != nil {
				break
			}
			if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
				t.Errorf("%s: %s owned by %d/%d %q/%q", archive, hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname)
			}
			got = append(got, ent{hdr.Name, os.FileMode(hdr.Mode).Perm(), hdr.ModTime})
		}
	}
	if len(got) != len(names) {
		t.Fatalf("%s: entries %v, want %v", archive, got, names)
	}
	for i, e := range got {
		wantMode := os.FileMode(0o755)
		if names[i] == license {
			wantMode = 0o644
		}
		if e.name != names[i] || e.mode != wantMode || !e.mtime.Equal(time.Unix(epoch, 0)) {
			t.Errorf("%s: entry %d = %s %o %v, want %s %o %v", archive, i, e.name, e.mode, e.mtime.UTC(), names[i], wantMode, time.Unix(epoch, 0).UTC())
		}
	}
}

// sameDirs wants the same files with the same bytes in a and b.
func sameDirs(t *testing.T, a, b string) {
	t.Helper()
	ea, _ := os.ReadDir(a)
	eb, _ := os.ReadDir(b)
	if len(ea) != len(eb) || len(ea) == 0 {
		t.Fatalf("%s has %d files, %s has %d", a, len(ea), b, len(eb))
	}
	for i := range ea {
		if ea[i].Name() != eb[i].Name() {
			t.Fatalf("file lists differ: %s vs %s", ea[i].Name(), eb[i].Name())
		}
		if !bytes.Equal(mustRead(t, filepath.Join(a, ea[i].Name())), mustRead(t, filepath.Join(b, eb[i].Name()))) {
			t.Errorf("%s differs between two runs", ea[i].Name())
		}
	}
}

// makeCmd runs make in the repo root with its own command line only.
func makeCmd(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-s", "-C", repoRoot(t)}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		// Not the variables of an enclosing `make test`.
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" && k != "MAKEOVERRIDES" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("make %s (%v):\n%s", strings.Join(args, " "), time.Since(t0).Round(time.Second), out)
}

// `make krew-manifest` then `make dist` again, for the host platform only
// (PLATFORMS=host; the six cross builds are too slow for make test, and the
// zip path is covered by TestManifestFromArchives): the archives are
// byte-identical, the manifest made from them passes krew's rules with
// matching sha256s, and the shipped binary and completion helper work.
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin twice")
	}
	a, b := t.TempDir(), t.TempDir()
	// The manifest lands in DIST_DIR/triage.yaml by default; moved aside,
	// the rest of DIST_DIR must equal a second `make dist`.
	makeCmd(t, "krew-manifest", "VERSION="+testVersion, "PLATFORMS=host", "DIST_DIR="+a)
	manifest := filepath.Join(t.TempDir(), "triage.yaml")
	if err := os.Rename(filepath.Join(a, "triage.yaml"), manifest); err != nil {
		t.Fatalf("make krew-manifest wrote no DIST_DIR/triage.yaml: %v", err)
	}
	makeCmd(t, "dist", "VERSION="+testVersion, "PLATFORMS=host", "DIST_DIR="+b)
	sameDirs(t, a, b)
	data := mustRead(t, filepath.Join(a, "SHA256SUMS"))
	p, err := decodeManifest(mustRead(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	mustValid(t, p, a)
	if len(p.Spec.Platforms) != 1 {
		t.Fatalf("%d platforms, want the host's only", len(p.Spec.Platforms))
	}
	archive := filepath.Base(p.Spec.Platforms[0].URI)
	if !strings.Contains(string(data), archive) {
		t.Errorf("SHA256SUMS does not list %s:\n%s", archive, data)
	}
	if got := p.Spec.Platforms[0].Selector.MatchLabels; got["os"] != runtime.GOOS || got["arch"] != runtime.GOARCH {
		t.Errorf("selector %v, want the host %s/%s", got, runtime.GOOS, runtime.GOARCH)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if haveRealKrew() {
		realInstall(t, a, manifest, archive)
	} else {
		t.Log("real krew skipped: set KUBECTL_TRIAGE_KREW and KUBECTL_TRIAGE_TESTBIN")
	}

	// Unpacked like krew does, the binary reports the version and the
	// completion helper answers through cobra's __complete.
	files, err := readArchive(filepath.Join(a, archive))
	if err != nil {
		t.Fatal(err)
	}
	install := t.TempDir()
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(install, name), f.data, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + install + string(os.PathListSeparator) + os.Getenv("PATH")}
	if out := run(t, install, env, filepath.Join(install, binName), "version"); !strings.Contains(out, testVersion) {
		t.Errorf("kubectl-triage version: %q lacks %s", out, testVersion)
	}
	out := run(t, install, env, filepath.Join(install, completion), "")
	if !strings.Contains(out, "version") || !strings.Contains(out, "\n:") {
		t.Errorf("kubectl_complete-triage \"\": %q, want subcommands and a cobra directive", out)
	}
}
