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
//	krewmanifest manifest -version vX.Y.Z -dist DIR [-uri-base URL] [-in krew-manifest.yaml] [-out DIR/triage.yaml]
//	    renders the manifest template (krew-release-bot's convention:
//	    {{ .TagName }}, {{ addURIAndSha "URL" .TagName }}) for the
//	    archives of that version in DIR: each platform's sha256 is its
//	    archive's, a platform whose archive is not in DIR is left out, and
//	    an archive no platform names is an error. The output must be named
//	    triage.yaml: krew's validator wants the file named after the plugin.
package main

import (
	"fmt"
	"os"
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
  krewmanifest manifest -version vX.Y.Z -dist DIR [-uri-base URL] [-in krew-manifest.yaml] [-out DIR/triage.yaml]`)
	os.Exit(2)
}
