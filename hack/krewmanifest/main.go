// Command krewmanifest is the release helper behind `make dist` and
// `make krew-manifest`. It needs nothing but Go, so a release can be cut on
// any machine (no GNU tar, zip or sha256sum required):
//
//	krewmanifest archive -o OUT.tar.gz|OUT.zip -mtime EPOCH [NAME=]FILE...
//	    writes a deterministic archive: entries sorted by name, every
//	    timestamp EPOCH, uid/gid 0 and no owner names, mode 0755 for
//	    executable files and 0644 for the rest, gzip without name or time.
//	krewmanifest sums -o SHA256SUMS FILE...
//	    writes "<sha256>  <basename>" lines (sha256sum -c format), sorted.
//	krewmanifest manifest -version vX.Y.Z -dist DIR -uri-base URL -in TEMPLATE [-out DIR/triage.yaml]
//	    writes the krew plugin manifest for the archives of that version in
//	    DIR, keeping the descriptive text (metadata, homepage,
//	    shortDescription, description, caveats) of TEMPLATE
//	    (plugins/krew/triage.yaml.tmpl). The output must be named
//	    triage.yaml: krew's validator wants the file named after the plugin.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

const (
	// PluginName is the krew name: `kubectl krew install triage`.
	PluginName = "triage"
	// BinName is the plugin executable (plus .exe on Windows).
	BinName = "kubectl-triage"
	// CompletionName is the executable kubectl ≥1.26 runs to complete the
	// plugin's arguments (plus .bat on Windows).
	CompletionName = "kubectl_complete-triage"
	// ManifestName is the only file name krew accepts for the manifest.
	ManifestName = PluginName + ".yaml"
	// LicenseName is the license file shipped in every archive.
	LicenseName = "LICENSE"

	apiVersion = "krew.googlecontainertools.github.com/v1alpha2"
	kind       = "Plugin"
	// dosEpoch is the earliest time a zip (MS-DOS) timestamp can hold.
	dosEpoch = 315532800 // 1980-01-01T00:00:00Z
)

// Plugin mirrors krew's index.Plugin (sigs.k8s.io/krew/pkg/index), the
// fields this project uses.
type Plugin struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`
}

// Metadata is the manifest's metadata.
type Metadata struct {
	Name string `json:"name"`
}

// Spec is krew's PluginSpec.
type Spec struct {
	Version          string     `json:"version"`
	Homepage         string     `json:"homepage,omitempty"`
	ShortDescription string     `json:"shortDescription"`
	Description      string     `json:"description,omitempty"`
	Caveats          string     `json:"caveats,omitempty"`
	Platforms        []Platform `json:"platforms"`
}

// Platform is one installable archive.
type Platform struct {
	Selector *Selector       `json:"selector"`
	URI      string          `json:"uri"`
	Sha256   string          `json:"sha256"`
	Bin      string          `json:"bin"`
	Files    []FileOperation `json:"files"`
}

// Selector is the part of a metav1.LabelSelector krew manifests use here
// (kept local so this tool builds in seconds, without apimachinery).
type Selector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// FileOperation copies From (a glob in the archive) to To (in the install dir).
type FileOperation struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "archive":
		err = cmdArchive(os.Args[2:])
	case "sums":
		err = cmdSums(os.Args[2:])
	case "manifest":
		err = cmdManifest(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "krewmanifest %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  krewmanifest archive -o OUT.tar.gz|OUT.zip -mtime EPOCH [NAME=]FILE...
  krewmanifest sums -o SHA256SUMS FILE...
  krewmanifest manifest -version vX.Y.Z -dist DIR -uri-base URL -in TEMPLATE [-out DIR/triage.yaml]`)
	os.Exit(2)
}

// ---- archive ----

type entry struct {
	name string
	path string
	mode int64
}

func cmdArchive(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ExitOnError)
	out := fs.String("o", "", "output archive (.tar.gz or .zip)")
	mtime := fs.Int64("mtime", -1, "timestamp of every entry, seconds since the Unix epoch")
	_ = fs.Parse(args)
	if *out == "" || *mtime < 0 || fs.NArg() == 0 {
		return errors.New("-o, -mtime and at least one file are required")
	}
	var entries []entry
	seen := map[string]bool{}
	for _, a := range fs.Args() {
		name, path := filepath.Base(a), a
		if i := strings.Index(a, "="); i > 0 {
			name, path = a[:i], a[i+1:]
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		if seen[name] {
			return fmt.Errorf("duplicate entry %s", name)
		}
		seen[name] = true
		mode := int64(0o644)
		if fi.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		entries = append(entries, entry{name: name, path: path, mode: mode})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })

	var buf bytes.Buffer
	var err error
	switch {
	case strings.HasSuffix(*out, ".tar.gz"):
		err = writeTarGz(&buf, entries, *mtime)
	case strings.HasSuffix(*out, ".zip"):
		err = writeZip(&buf, entries, *mtime)
	default:
		err = fmt.Errorf("%s: want a .tar.gz or .zip name", *out)
	}
	if err != nil {
		return err
	}
	return writeFileAtomic(*out, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, entries []entry, mtime int64) error {
	// No name, no modification time, fixed OS byte: gzip -n.
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.name,
			Mode:     e.mode,
			Size:     int64(len(data)),
			ModTime:  time.Unix(mtime, 0),
			Format:   tar.FormatUSTAR, // no atime/ctime, no PAX records
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime int64) error {
	if mtime < dosEpoch {
		mtime = dosEpoch
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{
			Name:     e.name,
			Method:   zip.Deflate,
			Modified: time.Unix(mtime, 0).UTC(),
		}
		hdr.SetMode(os.FileMode(e.mode))
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ---- sums ----

func cmdSums(args []string) error {
	fs := flag.NewFlagSet("sums", flag.ExitOnError)
	out := fs.String("o", "", "output file")
	_ = fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("-o and at least one file are required")
	}
	files := append([]string(nil), fs.Args()...)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	var b strings.Builder
	for _, f := range files {
		sum, err := fileSHA256(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(f))
	}
	return writeFileAtomic(*out, []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ---- manifest ----

// ArchiveName is the dist file name of one platform's archive.
func ArchiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", BinName, version, goos, goarch, ext)
}

func cmdManifest(args []string) error {
	fs := flag.NewFlagSet("manifest", flag.ExitOnError)
	version := fs.String("version", "", "plugin version, vX.Y.Z")
	dist := fs.String("dist", "dist", "directory holding the archives")
	uriBase := fs.String("uri-base", "", "URL the archives are downloaded from (default: the GitHub release of -version)")
	in := fs.String("in", "plugins/krew/triage.yaml.tmpl", "template whose descriptive text is kept")
	out := fs.String("out", "", "output manifest (default: DIST/triage.yaml)")
	_ = fs.Parse(args)
	if *version == "" || fs.NArg() != 0 {
		return errors.New("-version is required; no arguments")
	}
	if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`).MatchString(*version) {
		return fmt.Errorf("version %q is not v-prefixed semver (krew requires vX.Y.Z)", *version)
	}
	if *uriBase == "" {
		*uriBase = "https://github.com/kubectl-triage/kubectl-triage/releases/download/" + *version
	}
	if *out == "" {
		*out = filepath.Join(*dist, ManifestName)
	}
	// krew validates that a manifest file is named after its plugin
	// ("plugin should be named X, not triage"), and refuses to install it
	// otherwise; a wrongly named output is caught here, not by a user.
	if filepath.Base(*out) != ManifestName {
		return fmt.Errorf("output %s: krew requires the manifest file to be named %s", *out, ManifestName)
	}
	tmplData, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	var tmpl Plugin
	if err := yaml.Unmarshal(tmplData, &tmpl); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	// Platforms (uri, sha256) come from the archives alone: a template that
	// carries them would be a stale manifest that cannot match any build.
	if len(tmpl.Spec.Platforms) > 0 {
		return fmt.Errorf("%s: a template has no platforms (they come from the archives in %s)", *in, *dist)
	}

	platforms, err := platformsFromDist(*dist, *version, strings.TrimSuffix(*uriBase, "/"))
	if err != nil {
		return err
	}
	p := Plugin{
		APIVersion: apiVersion,
		Kind:       kind,
		Metadata:   Metadata{Name: PluginName},
		Spec: Spec{
			Version:          *version,
			Homepage:         tmpl.Spec.Homepage,
			ShortDescription: tmpl.Spec.ShortDescription,
			Description:      tmpl.Spec.Description,
			Caveats:          tmpl.Spec.Caveats,
			Platforms:        platforms,
		},
	}
	text := render(p)
	// The YAML is written by hand to keep krew's customary field order and
	// block scalars; reading it back proves it says exactly what we meant.
	var back Plugin
	if err := yaml.UnmarshalStrict([]byte(text), &back); err != nil {
		return fmt.Errorf("generated manifest does not parse: %w", err)
	}
	if !reflect.DeepEqual(back, p) {
		return errors.New("generated manifest does not round-trip (a text field needs quoting the renderer does not do)")
	}
	if err := writeFileAtomic(*out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "krewmanifest: wrote %s: %s, %d platforms\n", *out, *version, len(platforms))
	return nil
}

var archiveRE = regexp.MustCompile(`^` + regexp.QuoteMeta(BinName) + `_(.+)_([a-z0-9]+)_([a-z0-9]+)\.(tar\.gz|zip)$`)

// platformsFromDist makes one platform per archive of version in dir,
// checking each archive holds what the manifest promises and, when
// SHA256SUMS is there, that it lists the same digest.
func platformsFromDist(dir, version, uriBase string) ([]Platform, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS")); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				sums[strings.TrimPrefix(f[1], "*")] = f[0]
			}
		}
	}
	var platforms []Platform
	for _, de := range names {
		m := archiveRE.FindStringSubmatch(de.Name())
		if m == nil || m[1] != version {
			continue
		}
		goos, goarch := m[2], m[3]
		if de.Name() != ArchiveName(version, goos, goarch) {
			return nil, fmt.Errorf("%s: %s archives must be %s", de.Name(), goos, filepath.Ext(ArchiveName(version, goos, goarch)))
		}
		path := filepath.Join(dir, de.Name())
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, err
		}
		if want, ok := sums[de.Name()]; ok && want != sum {
			return nil, fmt.Errorf("%s: sha256 %s, but SHA256SUMS says %s (stale dist? rerun make dist)", de.Name(), sum, want)
		}
		bin, completion := BinName, CompletionName
		if goos == "windows" {
			bin, completion = BinName+".exe", CompletionName+".bat"
		}
		modes, err := ArchiveModes(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", de.Name(), err)
		}
		for _, want := range []string{bin, LicenseName, completion} {
			mode, ok := modes[want]
			if !ok {
				return nil, fmt.Errorf("%s: has no %s", de.Name(), want)
			}
			if want != LicenseName && goos != "windows" && mode&0o111 == 0 {
				return nil, fmt.Errorf("%s: %s is not executable (mode %o)", de.Name(), want, mode)
			}
		}
		platforms = append(platforms, Platform{
			Selector: &Selector{MatchLabels: map[string]string{"os": goos, "arch": goarch}},
			URI:      uriBase + "/" + de.Name(),
			Sha256:   sum,
			Bin:      bin,
			Files: []FileOperation{
				{From: bin, To: "."},
				{From: LicenseName, To: "."},
				{From: completion, To: "."},
			},
		})
	}
	if len(platforms) == 0 {
		return nil, fmt.Errorf("no %s_%s_OS_ARCH archives in %s: run make dist VERSION=%s first", BinName, version, dir, version)
	}
	return platforms, nil
}

// ArchiveModes lists a .tar.gz or .zip archive's regular files and their
// permission bits.
func ArchiveModes(path string) (map[string]os.FileMode, error) {
	modes := map[string]os.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.Mode().IsRegular() {
				modes[f.Name] = f.Mode().Perm()
			}
		}
		return modes, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return modes, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			modes[hdr.Name] = os.FileMode(hdr.Mode).Perm()
		}
	}
}

const header = `# krew plugin manifest of kubectl triage, generated: do not edit.
#
# Made by ` + "`make krew-manifest VERSION=vX.Y.Z`" + ` (hack/krewmanifest) from the
# archives beside it and the template plugins/krew/triage.yaml.tmpl (edit the
# text there). The binaries embed the commit they were built from, so these
# sha256 values match only the archives of this release.
`

// render writes the manifest in krew's customary field order.
func render(p Plugin) string {
	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, "apiVersion: %s\n", scalar(p.APIVersion))
	fmt.Fprintf(&b, "kind: %s\n", scalar(p.Kind))
	b.WriteString("metadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", scalar(p.Metadata.Name))
	b.WriteString("spec:\n")
	fmt.Fprintf(&b, "  version: %s\n", scalar(p.Spec.Version))
	if p.Spec.Homepage != "" {
		fmt.Fprintf(&b, "  homepage: %s\n", scalar(p.Spec.Homepage))
	}
	fmt.Fprintf(&b, "  shortDescription: %s\n", scalar(p.Spec.ShortDescription))
	if p.Spec.Description != "" {
		fmt.Fprintf(&b, "  description:%s", block(p.Spec.Description, "    "))
	}
	if p.Spec.Caveats != "" {
		fmt.Fprintf(&b, "  caveats:%s", block(p.Spec.Caveats, "    "))
	}
	b.WriteString("  platforms:\n")
	for _, pl := range p.Spec.Platforms {
		b.WriteString("  - selector:\n")
		b.WriteString("      matchLabels:\n")
		for _, k := range []string{"os", "arch"} {
			fmt.Fprintf(&b, "        %s: %s\n", k, scalar(pl.Selector.MatchLabels[k]))
		}
		fmt.Fprintf(&b, "    uri: %s\n", scalar(pl.URI))
		fmt.Fprintf(&b, "    sha256: %s\n", scalar(pl.Sha256))
		fmt.Fprintf(&b, "    bin: %s\n", scalar(pl.Bin))
		b.WriteString("    files:\n")
		for _, f := range pl.Files {
			fmt.Fprintf(&b, "    - from: %s\n", scalar(f.From))
			fmt.Fprintf(&b, "      to: %s\n", scalar(f.To))
		}
	}
	return b.String()
}

var plainRE = regexp.MustCompile(`^[A-Za-z0-9./][A-Za-z0-9 ._/:,()+-]*$`)

// scalar writes s plain when YAML reads it back as the same string, and
// double-quoted (JSON's syntax is valid YAML) otherwise.
func scalar(s string) string {
	plain := plainRE.MatchString(s) && !strings.Contains(s, ": ") && !strings.HasSuffix(s, ":") &&
		!strings.HasSuffix(s, " ")
	if plain {
		// Words YAML would read as something other than a string.
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~":
			plain = false
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			plain = false
		}
	}
	if plain {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// block writes a literal block scalar (`|`, or `|-` without a final newline).
func block(s, indent string) string {
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n") || strings.Contains(s, "\t") ||
		strings.Contains(s, " \n") || strings.HasSuffix(s, "\n\n") {
		return " " + scalar(s) + "\n"
	}
	chomp := "|"
	if !strings.HasSuffix(s, "\n") {
		chomp = "|-"
	}
	var b strings.Builder
	b.WriteString(" " + chomp + "\n")
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent + line + "\n")
	}
	return b.String()
}
