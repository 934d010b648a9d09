package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// ArchiveName is the dist file name of one platform's archive.
func ArchiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", BinName, version, goos, goarch, ext)
}

// TemplateName is the manifest template at the top of the repository.
const TemplateName = "krew-manifest.yaml"

func cmdManifest(args []string) error {
	fs := flag.NewFlagSet("manifest", flag.ExitOnError)
	version := fs.String("version", "", "plugin version, vX.Y.Z (the template's .TagName)")
	dist := fs.String("dist", "dist", "directory holding the archives")
	uriBase := fs.String("uri-base", "", "URL the archives are downloaded from, replacing the directory of the template's URLs (default: the template's, the GitHub release)")
	in := fs.String("in", TemplateName, "manifest template (krew-release-bot style)")
	out := fs.String("out", "", "output manifest (default: DIST/triage.yaml)")
	_ = fs.Parse(args)
	if *version == "" || fs.NArg() != 0 {
		return errors.New("-version is required; no arguments")
	}
	if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`).MatchString(*version) {
		return fmt.Errorf("version %q is not v-prefixed semver (krew requires vX.Y.Z)", *version)
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
	// Checksums come from the archives alone: a template that carries one
	// would be a stale manifest that cannot match any build.
	if regexp.MustCompile(`(?m)^\s*sha256:`).Match(tmplData) {
		return fmt.Errorf("%s: a template carries no sha256 (addURIAndSha writes it from the archive in %s)", *in, *dist)
	}
	archives, err := localArchives(*dist, *version)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	ref := func(url string) (string, string, error) {
		name := path.Base(url)
		uri := url
		if *uriBase != "" {
			uri = strings.TrimSuffix(*uriBase, "/") + "/" + name
		}
		a, ok := archives[name]
		if !ok {
			return uri, "", nil // not built: left out below
		}
		used[name] = true
		return uri, a.sha256, nil
	}
	text, err := renderTemplate(filepath.Base(*in), tmplData, newRelease(*version), ref)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var p Plugin
	if err := yaml.UnmarshalStrict(text, &p); err != nil {
		return fmt.Errorf("%s: the rendered manifest does not parse: %w", *in, err)
	}
	if err := checkRendered(&p, *version, archives, used); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	final := render(p)
	// The YAML is written by hand to keep krew's customary field order and
	// block scalars; reading it back proves it says exactly what we meant.
	var back Plugin
	if err := yaml.UnmarshalStrict([]byte(final), &back); err != nil {
		return fmt.Errorf("generated manifest does not parse: %w", err)
	}
	if !reflect.DeepEqual(back, p) {
		return errors.New("generated manifest does not round-trip (a text field needs quoting the renderer does not do)")
	}
	if err := writeFileAtomic(*out, []byte(final), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "krewmanifest: wrote %s: %s, %d platforms\n", *out, *version, len(p.Spec.Platforms))
	return nil
}

// checkRendered keeps the platforms whose archive was built (dropping, and
// saying so, those that were not: PLATFORMS=host) and checks that the
// manifest describes exactly those archives: each archive in dist is one
// platform's, with that platform's os and arch, and holds the files the
// platform copies.
func checkRendered(p *Plugin, version string, archives map[string]localArchive, used map[string]bool) error {
	if p.APIVersion != apiVersion || p.Kind != kind || p.Metadata.Name != PluginName {
		return fmt.Errorf("not the %s plugin's manifest (%s %s %q)", PluginName, p.APIVersion, p.Kind, p.Metadata.Name)
	}
	if p.Spec.Version != version {
		return fmt.Errorf("spec.version renders as %q, not %s: write it as {{ .TagName }}", p.Spec.Version, version)
	}
	var kept []Platform
	for i, pl := range p.Spec.Platforms {
		if pl.Selector == nil {
			return fmt.Errorf("spec.platforms[%d] has no selector", i)
		}
		goos, goarch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		name := path.Base(pl.URI)
		if pl.Sha256 == "" {
			fmt.Fprintf(os.Stderr, "krewmanifest: %s/%s left out: no %s in dist\n", goos, goarch, name)
			continue
		}
		if want := ArchiveName(version, goos, goarch); name != want {
			return fmt.Errorf("spec.platforms[%d] (%s/%s) names %s, want %s", i, goos, goarch, name, want)
		}
		if err := checkFiles(pl, goos); err != nil {
			return fmt.Errorf("spec.platforms[%d] (%s/%s): %w", i, goos, goarch, err)
		}
		if err := checkArchive(archives[name], pl, goos); err != nil {
			return err
		}
		kept = append(kept, pl)
	}
	for name := range archives {
		if !used[name] {
			return fmt.Errorf("no platform for %s in dist (add it to the template, or remove it)", name)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no %s_%s_OS_ARCH archives in dist: run make dist VERSION=%s first", BinName, version, version)
	}
	p.Spec.Platforms = kept
	return nil
}

// checkFiles checks that a platform installs what every platform must: the
// plugin as its bin, its license and the completion helper kubectl runs.
func checkFiles(pl Platform, goos string) error {
	bin, completion := BinName, CompletionName
	if goos == "windows" {
		bin, completion = BinName+".exe", CompletionName+".bat"
	}
	if pl.Bin != bin {
		return fmt.Errorf("bin is %q, want %s", pl.Bin, bin)
	}
	copied := map[string]bool{}
	for _, f := range pl.Files {
		copied[f.From] = true
	}
	for _, want := range []string{bin, LicenseName, completion} {
		if !copied[want] {
			return fmt.Errorf("files do not copy %s", want)
		}
	}
	return nil
}

// checkArchive checks that an archive holds what its platform copies: the
// bin and every file, executables executable outside Windows.
func checkArchive(a localArchive, pl Platform, goos string) error {
	modes, err := ArchiveModes(a.path)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	wants := []string{pl.Bin}
	for _, f := range pl.Files {
		wants = append(wants, f.From)
	}
	for _, want := range wants {
		mode, ok := modes[want]
		if !ok {
			return fmt.Errorf("%s: has no %s", a.name, want)
		}
		if want != LicenseName && goos != "windows" && mode&0o111 == 0 {
			return fmt.Errorf("%s: %s is not executable (mode %o)", a.name, want, mode)
		}
	}
	return nil
}

var archiveRE = regexp.MustCompile(`^` + regexp.QuoteMeta(BinName) + `_(.+)_([a-z0-9]+)_([a-z0-9]+)\.(tar\.gz|zip)$`)

// localArchive is one platform's archive in dist.
type localArchive struct {
	name, path, sha256 string
}

// localArchives are the archives of version in dir, by file name, each
// checked against SHA256SUMS when that is there.
func localArchives(dir, version string) (map[string]localArchive, error) {
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
	archives := map[string]localArchive{}
	for _, de := range names {
		m := archiveRE.FindStringSubmatch(de.Name())
		if m == nil || m[1] != version {
			continue
		}
		goos, goarch := m[2], m[3]
		if de.Name() != ArchiveName(version, goos, goarch) {
			return nil, fmt.Errorf("%s: %s archives must be %s", de.Name(), goos, filepath.Ext(ArchiveName(version, goos, goarch)))
		}
		p := filepath.Join(dir, de.Name())
		sum, err := fileSHA256(p)
		if err != nil {
			return nil, err
		}
		if want, ok := sums[de.Name()]; ok && want != sum {
			return nil, fmt.Errorf("%s: sha256 %s, but SHA256SUMS says %s (stale dist? rerun make dist)", de.Name(), sum, want)
		}
		archives[de.Name()] = localArchive{name: de.Name(), path: p, sha256: sum}
	}
	return archives, nil
}
