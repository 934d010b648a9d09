package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

// release is what the manifest template is rendered with, under
// krew-release-bot's names, so that the bot renders the same file.
type release struct {
	TagName string // vX.Y.Z
	Version string // X.Y.Z
}

func newRelease(tag string) release {
	v := regexp.MustCompile(`\d+(\.\d+)+`).FindString(tag)
	if v == "" {
		v = tag
	}
	return release{TagName: tag, Version: v}
}

// archiveRef answers addURIAndSha for one expanded URL: the uri to write
// and the archive's sha256, or "" for a platform left out.
type archiveRef func(url string) (uri, sha256 string, err error)

// renderTemplate executes a krew-release-bot style manifest template:
// addURIAndSha "URL" .TagName writes `uri: …` and, on the next line, the
// sha256 (URL is itself a template of the release), and indent N TEXT
// indents TEXT, as the bot's functions do.
func renderTemplate(name string, text []byte, rel release, ref archiveRef) ([]byte, error) {
	funcs := template.FuncMap{
		"indent": func(spaces int, v string) string {
			v = strings.ReplaceAll(v, "    sha256:", "sha256:")
			pad := strings.Repeat(" ", spaces)
			return strings.TrimSpace(pad + strings.ReplaceAll(v, "\n", "\n"+pad))
		},
		"addURIAndSha": func(url, tag string) (string, error) {
			u, err := template.New("url").Option("missingkey=error").Parse(url)
			if err != nil {
				return "", fmt.Errorf("addURIAndSha %q: %w", url, err)
			}
			var expanded bytes.Buffer
			if err := u.Execute(&expanded, newRelease(tag)); err != nil {
				return "", fmt.Errorf("addURIAndSha %q: %w", url, err)
			}
			uri, sum, err := ref(expanded.String())
			if err != nil {
				return "", err
			}
			if sum == "" {
				sum = `""`
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", uri, sum), nil
		},
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(string(text))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, rel); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
