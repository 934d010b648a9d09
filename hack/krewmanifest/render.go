package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

const header = `# krew plugin manifest of kubectl triage, generated: do not edit.
#
# Rendered by ` + "`make krew-manifest VERSION=vX.Y.Z`" + ` (hack/krewmanifest) from the
# template krew-manifest.yaml at the top of the repository (edit the text
# there) and the archives beside it. The binaries embed the commit they were
# built from, so these sha256 values match only the archives of this release.
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
