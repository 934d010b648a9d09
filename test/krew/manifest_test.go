// Package krew checks the release packaging: the manifest template
// (krew-manifest.yaml, krew-release-bot style) and the manifest
// `make krew-manifest` renders from it against krew's rules (this package's
// validate, and, with KUBECTL_TRIAGE_KREW, krew-index's own validator and
// krew's install and uninstall), the archives `make dist` writes, that two
// builds are byte-identical, and that the rendered manifest describes the
// archives it was made from.
package krew

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// Plugin mirrors krew's index.Plugin (sigs.k8s.io/krew/pkg/index), the
// fields a plugin manifest may use here; decoding is strict, so a typo in a
// field name fails instead of being ignored.
type Plugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string     `json:"version"`
		Homepage         string     `json:"homepage,omitempty"`
		ShortDescription string     `json:"shortDescription"`
		Description      string     `json:"description,omitempty"`
		Caveats          string     `json:"caveats,omitempty"`
		Platforms        []Platform `json:"platforms"`
	} `json:"spec"`
}

// Platform is krew's index.Platform.
type Platform struct {
	Selector *metav1.LabelSelector `json:"selector"`
	URI      string                `json:"uri"`
	Sha256   string                `json:"sha256"`
	Bin      string                `json:"bin"`
	Files    []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"files"`
}

const (
	pluginName    = "triage"
	binName       = "kubectl-triage"
	completion    = "kubectl_complete-triage"
	license       = "LICENSE"
	krewAPI       = "krew.googlecontainertools.github.com/v1alpha2"
	releaseURIFmt = "https://github.com/kubectl-triage/kubectl-triage/releases/download/%s/"
)

var (
	// krew-index's naming rule (lowercase, dashes inside only).
	indexNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// krew's own check, internal/index/validation.IsSafePluginName.
	safePluginRE = regexp.MustCompile(`^[\w-]+$`)
	sha256RE     = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// Reserved Windows file names krew refuses as plugin names.
	windowsForbidden = []string{"CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5",
		"COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}
	// os/arch pairs krew runs on; a selector must match one and no pair
	// may be matched by two platforms (krew's validate-krew-manifest).
	supportedPlatforms = [][2]string{
		{"darwin", "amd64"}, {"darwin", "arm64"},
		{"linux", "386"}, {"linux", "amd64"}, {"linux", "arm"}, {"linux", "arm64"},
		{"linux", "ppc64le"}, {"linux", "s390x"},
		{"windows", "386"}, {"windows", "amd64"}, {"windows", "arm64"},
	}
)

// decodeManifest parses a manifest strictly.
func decodeManifest(data []byte) (Plugin, error) {
	var p Plugin
	err := yaml.UnmarshalStrict(data, &p)
	return p, err
}

// validate applies krew's rules (internal/index/validation.ValidatePlugin and
// cmd/validate-krew-manifest, where its warnings are errors here) and this
// project's conventions. With distDir set, every platform's archive must be
// there, have the manifest's sha256 and hold the files the manifest names.
func validate(p Plugin, distDir string) []error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if p.APIVersion != krewAPI {
		fail("apiVersion %q, want %q", p.APIVersion, krewAPI)
	}
	if p.Kind != "Plugin" {
		fail("kind %q, want Plugin", p.Kind)
	}
	name := p.Metadata.Name
	if !indexNameRE.MatchString(name) || !safePluginRE.MatchString(name) {
		fail("metadata.name %q must match %s", name, indexNameRE)
	}
	for _, f := range windowsForbidden {
		if strings.EqualFold(f, name) {
			fail("metadata.name %q is a reserved Windows name", name)
		}
	}
	if name != pluginName {
		fail("metadata.name %q, want %q (kubectl triage)", name, pluginName)
	}

	s := p.Spec
	if !strings.HasPrefix(s.Version, "v") {
		fail("spec.version %q must start with v", s.Version)
	} else if _, err := utilversion.ParseSemantic(s.Version); err != nil {
		fail("spec.version %q is not semver: %v", s.Version, err)
	}
	if s.ShortDescription == "" {
		fail("spec.shortDescription is empty")
	}
	if strings.ContainsAny(s.ShortDescription, "\r\n") {
		fail("spec.shortDescription %q must be one line", s.ShortDescription)
	}
	if len(s.ShortDescription) > 70 {
		fail("spec.shortDescription is %d characters, krew wants at most 70", len(s.ShortDescription))
	}
	if s.Description == "" {
		fail("spec.description is empty")
	}
	for field, text := range map[string]string{"description": s.Description, "caveats": s.Caveats} {
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 80 && strings.Contains(strings.TrimSpace(line), " ") {
				fail("spec.%s has a line over 80 characters: %q", field, line)
			}
		}
	}
	if u, err := url.Parse(s.Homepage); err != nil || u.Scheme != "https" || u.Host == "" {
		fail("spec.homepage %q is not an https URL", s.Homepage)
	}
	if len(s.Platforms) == 0 {
		fail("spec.platforms is empty")
	}

	for i, pl := range s.Platforms {
		pfail := func(format string, a ...any) { fail("platforms[%d]: "+format, append([]any{i}, a...)...) }
		if pl.URI == "" {
			pfail("uri is empty")
		} else if u, err := url.Parse(pl.URI); err != nil || u.Scheme != "https" || u.Host == "" {
			pfail("uri %q is not an https URL", pl.URI)
		}
		if pl.Sha256 == "" {
			pfail("sha256 is empty")
		} else if !sha256RE.MatchString(pl.Sha256) {
			pfail("sha256 %q must be 64 lowercase hex digits", pl.Sha256)
		}
		if pl.Bin == "" {
			pfail("bin is empty")
		}
		if pl.Files != nil && len(pl.Files) == 0 {
			pfail("files must be unset or non-empty")
		}
		for _, f := range pl.Files {
			if f.From == "" || f.To == "" {
				pfail("files entry %+v needs from and to", f)
			}
		}
		os, arch, err := checkSelector(pl.Selector)
		if err != nil {
			pfail("selector: %v", err)
			continue
		}
		// This project's conventions: one os/arch per platform, the
		// archive name says which, and every archive ships the same files.
		wantBin, wantCompletion, ext := binName, completion, ".tar.gz"
		if os == "windows" {
			wantBin, wantCompletion, ext = binName+".exe", completion+".bat", ".zip"
		}
		if pl.Bin != wantBin {
			pfail("bin %q, want %q", pl.Bin, wantBin)
		}
		wantArchive := fmt.Sprintf("%s_%s_%s_%s%s", binName, s.Version, os, arch, ext)
		if path.Base(pl.URI) != wantArchive {
			pfail("uri %q should end in %s", pl.URI, wantArchive)
		}
		var froms []string
		for _, f := range pl.Files {
			froms = append(froms, f.From+"->"+f.To)
		}
		if got, want := strings.Join(froms, " "), wantBin+"->. "+license+"->. "+wantCompletion+"->."; got != want {
			pfail("files %s, want %s", got, want)
		}
		if distDir != "" {
			for _, err := range checkArchive(filepath.Join(distDir, path.Base(pl.URI)), pl, os) {
				pfail("%v", err)
			}
		}
	}

	for _, osArch := range supportedPlatforms {
		var matched []int
		for i, pl := range s.Platforms {
			if selectorMatches(pl.Selector, osArch[0], osArch[1]) {
				matched = append(matched, i)
			}
		}
		if len(matched) > 1 {
			fail("platforms %v overlap: all select os=%s arch=%s", matched, osArch[0], osArch[1])
		}
	}
	return errs
}

// checkSelector applies krew's validateSelector and, for this project, wants
// exactly matchLabels {os, arch} matching a supported platform.
func checkSelector(sel *metav1.LabelSelector) (os, arch string, err error) {
	if sel == nil {
		return "", "", errors.New("missing")
	}
	if sel.MatchLabels == nil && len(sel.MatchExpressions) == 0 {
		return "", "", errors.New("empty")
	}
	for k := range sel.MatchLabels {
		if k != "os" && k != "arch" {
			return "", "", fmt.Errorf("key %q: only os and arch are supported", k)
		}
	}
	for _, e := range sel.MatchExpressions {
		if e.Key != "os" && e.Key != "arch" {
			return "", "", fmt.Errorf("key %q: only os and arch are supported", e.Key)
		}
	}
	if sel.MatchLabels != nil && len(sel.MatchLabels) == 0 {
		return "", "", errors.New("matchLabels specified but empty")
	}
	if sel.MatchExpressions != nil && len(sel.MatchExpressions) == 0 {
		return "", "", errors.New("matchExpressions specified but empty")
	}
	if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
		return "", "", err
	}
	os, arch = sel.MatchLabels["os"], sel.MatchLabels["arch"]
	if len(sel.MatchExpressions) > 0 || os == "" || arch == "" {
		return "", "", fmt.Errorf("want matchLabels with os and arch, got %v", sel)
	}
	for _, p := range supportedPlatforms {
		if selectorMatches(sel, p[0], p[1]) {
			return os, arch, nil
		}
	}
	return "", "", fmt.Errorf("%v matches no platform krew supports", sel)
}

func selectorMatches(sel *metav1.LabelSelector, os, arch string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || sel == nil {
		return false
	}
	return s.Matches(labels.Set{"os": os, "arch": arch})
}

// archiveFile is one regular file in an archive.
type archiveFile struct {
	mode os.FileMode
	data []byte
}

// readArchive returns a .tar.gz's or .zip's regular files.
func readArchive(p string) (map[string]archiveFile, error) {
	files := map[string]archiveFile{}
	if strings.HasSuffix(p, ".zip") {
		zr, err := zip.OpenReader(p)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if !f.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: entry %s is not a regular file", p, f.Name)
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			files[f.Name] = archiveFile{mode: f.Mode().Perm(), data: data}
		}
		return files, nil
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%s: entry %s is not a regular file", p, hdr.Name)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
			return nil, fmt.Errorf("%s: entry %s has owner %d/%d %q/%q, want 0/0 and no names", p, hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[hdr.Name] = archiveFile{mode: os.FileMode(hdr.Mode).Perm(), data: data}
	}
}

// checkArchive compares one platform entry with its archive.
func checkArchive(p string, pl Platform, goos string) []error {
	var errs []error
	raw, err := os.ReadFile(p)
	if err != nil {
		return []error{err}
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != pl.Sha256 {
		errs = append(errs, fmt.Errorf("sha256 %s, but %s has %s", pl.Sha256, filepath.Base(p), got))
	}
	files, err := readArchive(p)
	if err != nil {
		return append(errs, err)
	}
	for _, f := range pl.Files {
		found := false
		for name := range files {
			if ok, _ := path.Match(f.From, name); ok {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Errorf("files: %s is not in %s", f.From, filepath.Base(p)))
		}
	}
	bin, ok := files[pl.Bin]
	switch {
	case !ok:
		errs = append(errs, fmt.Errorf("bin %s is not in %s", pl.Bin, filepath.Base(p)))
	case goos != "windows" && bin.mode&0o111 == 0:
		errs = append(errs, fmt.Errorf("bin %s is not executable (%o)", pl.Bin, bin.mode))
	}
	if _, ok := files[license]; !ok {
		errs = append(errs, fmt.Errorf("%s has no %s", filepath.Base(p), license))
	}
	return append(errs, checkCompletionHelper(files, filepath.Base(p), goos)...)
}

// checkCompletionHelper wants the kubectl_complete-triage helper kubectl
// runs for `kubectl triage <TAB>`: in the archive, runnable, and handing
// the words to the plugin's __complete command.
func checkCompletionHelper(files map[string]archiveFile, archive, goos string) []error {
	name, want := completion, `exec kubectl-triage __complete "$@"`+"\n"
	if goos == "windows" {
		name, want = completion+".bat", "kubectl-triage.exe __complete %*\r\n"
	}
	f, ok := files[name]
	switch {
	case !ok:
		return []error{fmt.Errorf("%s has no %s: kubectl triage <TAB> would complete nothing", archive, name)}
	case goos != "windows" && f.mode&0o111 == 0:
		return []error{fmt.Errorf("%s: %s is not executable (%o)", archive, name, f.mode)}
	case goos != "windows" && !bytes.HasPrefix(f.data, []byte("#!/bin/sh\n")):
		return []error{fmt.Errorf("%s: %s does not start with #!/bin/sh", archive, name)}
	case !bytes.Contains(f.data, []byte(want)):
		return []error{fmt.Errorf("%s: %s does not run %q", archive, name, want)}
	case goos == "windows" && bytes.Count(f.data, []byte("\n")) != bytes.Count(f.data, []byte("\r\n")):
		return []error{fmt.Errorf("%s: %s needs CRLF line endings for cmd.exe", archive, name)}
	}
	return nil
}

// The helper check catches an archive whose kubectl_complete-triage would
// not complete.
func TestCompletionHelperCheck(t *testing.T) {
	unix := archiveFile{mode: 0o755, data: []byte("#!/bin/sh\nexec kubectl-triage __complete \"$@\"\n")}
	bat := archiveFile{mode: 0o644, data: []byte("@echo off\r\nkubectl-triage.exe __complete %*\r\n")}
	for _, tt := range []struct {
		name  string
		goos  string
		files map[string]archiveFile
		want  string // "" = valid
	}{
		{"linux", "linux", map[string]archiveFile{completion: unix}, ""},
		{"windows", "windows", map[string]archiveFile{completion + ".bat": bat}, ""},
		{"missing", "linux", map[string]archiveFile{}, "has no kubectl_complete-triage"},
		{"windows without the .bat", "windows", map[string]archiveFile{completion: unix}, "has no kubectl_complete-triage.bat"},
		{"not executable", "darwin", map[string]archiveFile{completion: {mode: 0o644, data: unix.data}}, "not executable"},
		{"no shebang", "linux", map[string]archiveFile{completion: {mode: 0o755, data: []byte("exec kubectl-triage __complete \"$@\"\n")}}, "#!/bin/sh"},
		{"wrong command", "linux", map[string]archiveFile{completion: {mode: 0o755, data: []byte("#!/bin/sh\nexec kubectl-triage \"$@\"\n")}}, "does not run"},
		{"LF batch file", "windows", map[string]archiveFile{completion + ".bat": {data: []byte("@echo off\nkubectl-triage.exe __complete %*\r\n")}}, "CRLF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := checkCompletionHelper(tt.files, "a.tar.gz", tt.goos)
			switch {
			case tt.want == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tt.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.want)):
				t.Errorf("errors %v, want one mentioning %q", errs, tt.want)
			}
		})
	}
}

// The helpers in the repository are the ones the check accepts (dist.sh
// copies the script and gives the batch file CRLF endings).
func TestCompletionHelpersInRepo(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "plugins", "completion")
	script, err := os.Stat(filepath.Join(dir, completion))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]archiveFile{completion: {mode: script.Mode().Perm(), data: mustRead(t, filepath.Join(dir, completion))}}
	for _, err := range checkCompletionHelper(files, "plugins/completion", "linux") {
		t.Error(err)
	}
	bat := strings.ReplaceAll(string(mustRead(t, filepath.Join(dir, completion+".bat"))), "\n", "\r\n")
	for _, err := range checkCompletionHelper(map[string]archiveFile{completion + ".bat": {data: []byte(bat)}}, "plugins/completion", "windows") {
		t.Error(err)
	}
}
