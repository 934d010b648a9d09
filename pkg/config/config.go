// Package config reads the kubectl-triage configuration file and applies the
// one precedence rule for every setting: flags > environment > config file >
// defaults.
//
// The file is driven by the commands' own flags, so every flag is
// configurable without a second list to keep in sync. A setting's key is its
// long flag name. Top-level keys apply to every command that has a flag of
// that name; a mapping named after a subcommand is a section whose keys apply
// to that subcommand (and its own subcommands) and override top-level keys:
//
//	agent: claude
//	timeout: 10m
//	workspace-root: ~/incidents        # a leading ~/ expands to $HOME
//	sandbox-mask: [~/secrets, /opt/creds]
//	watch:
//	  min-severity: warning
//	  dedup-window: 15m
//
// A flag's environment variables are declared on the flag itself with
// BindEnv. kubectl's connection flags (--kubeconfig, --context, --namespace,
// --as, …) cannot be set in the file: as with kubectl they come from the
// kubeconfig.
//
// Typical use, in the root command's PersistentPreRunE:
//
//	cfg, err := config.Setup(cmd, os.Getenv)
//
// Setup never marks a flag Changed: Changed keeps meaning "the user typed
// it", and File.Source says where each value came from.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
	"go.yaml.in/yaml/v3"
)

// File is a parsed configuration file. Load of a missing file gives a File
// with no settings.
type File struct {
	path  string
	found bool
	top   *section

	// sources records where the last Apply took each flag's value from.
	sources map[string]Source
}

// section is the top level of the file or a subcommand's section.
type section struct {
	name     string // subcommand name; "" at the top level
	line     int
	settings []*setting
	sections []*section
}

// setting is one key with its value or list of values.
type setting struct {
	key    string
	line   int
	list   bool
	values []value
}

type value struct {
	text string
	line int
}

func (s *section) setting(key string) *setting {
	for _, st := range s.settings {
		if st.key == key {
			return st
		}
	}
	return nil
}

func (s *section) section(name string) *section {
	for _, sub := range s.sections {
		if sub.name == name {
			return sub
		}
	}
	return nil
}

// DefaultPath is $XDG_CONFIG_HOME/kubectl-triage/config.yaml, or
// HOME/.config/kubectl-triage/config.yaml when XDG_CONFIG_HOME is unset (or,
// as the XDG spec asks, not an absolute path). HOME is getenv("HOME") when
// set, else os.UserHomeDir: Windows rarely sets $HOME but has a home
// directory (%USERPROFILE%), and tests pass HOME through getenv.
func DefaultPath(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "kubectl-triage", "config.yaml"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("cannot locate the config file: %w; set $XDG_CONFIG_HOME or pass --config", err)
		}
	}
	return filepath.Join(home, ".config", "kubectl-triage", "config.yaml"), nil
}

// Load reads and parses the config file at path. A missing file is fine
// (an empty File) unless explicit, i.e. the user named it with --config.
func Load(path string, explicit bool) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return &File{path: path, top: &section{}}, nil
		}
		return nil, fmt.Errorf("read config file: %w", err)
	}
	return Parse(path, data)
}

// Parse parses config file contents; path is used in error messages. The
// structure is checked here (a mapping of settings whose values are scalars
// or lists of scalars, and nested mappings as sections); whether the keys
// mean anything is up to Validate.
func Parse(path string, data []byte) (*File, error) {
	f := &File{path: path, found: true, top: &section{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		return nil, f.yamlError(err, data)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, f.errorf(next.Line, "more than one YAML document: a config file holds one mapping of settings")
	case !errors.Is(err, io.EOF):
		return nil, f.yamlError(err, data)
	}

	top := &doc
	if top.Kind == yaml.DocumentNode {
		if len(top.Content) == 0 {
			return f, nil
		}
		top = top.Content[0]
	}
	top = deref(top)
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return f, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, f.errorf(top.Line, "the top level must be a mapping of settings, like \"timeout: 10m\"")
	}
	// An alias of a list or a mapping expands (a "billion laughs" file
	// expands exponentially) into the same error many times: one line says
	// what is wrong instead.
	if n := collectionAlias(top); n != nil {
		return nil, f.errorf(n.Line, "YAML aliases of lists or mappings (*%s) are not supported: write the values out", n.Value)
	}
	var errs []error
	f.parseSection(top, f.top, "", &errs)
	if err := joinByLine(errs); err != nil {
		return nil, err
	}
	return f, nil
}

// parseSection fills sec from a mapping node; prefix names the enclosing
// sections for messages ("watch.").
func (f *File) parseSection(node *yaml.Node, sec *section, prefix string, errs *[]error) {
	firstLine := map[string]int{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], deref(node.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			*errs = append(*errs, f.errorf(k.Line, "setting names must be plain words like \"timeout\" (merge keys and complex keys are not supported)"))
			continue
		}
		key := k.Value
		// yaml.v3 only rejects duplicate keys when decoding into Go maps
		// and structs, not into a Node, so look for them here.
		if first, dup := firstLine[key]; dup {
			*errs = append(*errs, f.errorf(k.Line, "%q is set twice (first on line %d)", prefix+key, first))
			continue
		}
		firstLine[key] = k.Line
		switch v.Kind {
		case yaml.MappingNode:
			sub := &section{name: key, line: k.Line}
			f.parseSection(v, sub, prefix+key+".", errs)
			sec.sections = append(sec.sections, sub)
		case yaml.SequenceNode:
			st := &setting{key: key, line: k.Line, list: true, values: []value{}}
			for _, item := range v.Content {
				item = deref(item)
				if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
					*errs = append(*errs, f.errorf(item.Line, "%s: list items must be plain values", prefix+key))
					continue
				}
				st.values = append(st.values, value{text: item.Value, line: item.Line})
			}
			sec.settings = append(sec.settings, st)
		case yaml.ScalarNode:
			if v.Tag == "!!null" {
				*errs = append(*errs, f.errorf(k.Line, "%s: no value: give one, or remove the line to use the default", prefix+key))
				continue
			}
			sec.settings = append(sec.settings, &setting{key: key, line: k.Line, values: []value{{text: v.Value, line: v.Line}}})
		default:
			*errs = append(*errs, f.errorf(k.Line, "%s: unsupported value", prefix+key))
		}
	}
}

// deref follows YAML aliases (*anchor) to the node they name.
// collectionAlias returns the first alias of a sequence or mapping under n,
// without following any alias.
func collectionAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil && (n.Alias.Kind == yaml.SequenceNode || n.Alias.Kind == yaml.MappingNode) {
			return n
		}
		return nil
	}
	for _, c := range n.Content {
		if a := collectionAlias(c); a != nil {
			return a
		}
	}
	return nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Path is the file the settings were read from (or would have been, when
// it does not exist); "" when there is no config file at all.
func (f *File) Path() string { return f.path }

// Found reports whether the file existed and was read.
func (f *File) Found() bool { return f.found }

func (f *File) errorf(line int, format string, a ...any) error {
	return &lineError{path: f.path, line: line, msg: fmt.Sprintf(format, a...)}
}

// lineError is a problem on a line of the config file.
type lineError struct {
	path string
	line int
	msg  string
}

func (e *lineError) Error() string {
	return fmt.Sprintf("config file %s line %d: %s", e.path, e.line, e.msg)
}

// joinByLine joins errs ordered by their line in the file, so that they
// read top to bottom; errors without a line (an environment variable's)
// come first, in their order.
func joinByLine(errs []error) error {
	line := func(err error) int {
		if le, ok := errors.AsType[*lineError](err); ok {
			return le.line
		}
		return 0
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(line(a), line(b)) })
	return errors.Join(errs...)
}

var yamlLine = regexp.MustCompile(`^yaml: line (?P<line>\d+): (?P<msg>.*)$`)

// yamlParserProblems are yaml.v3's parser (not scanner) errors, whose line
// it reports counting from 0.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// The problems yaml.v3 reports for a tab in indentation. It gives the
// first without a line when the tab is on the first line, and the line of
// the second is sometimes the one before the tab's.
const (
	yamlBadTokenStart = "found character that cannot start any token"
	yamlTabIndent     = "found a tab character that violates indentation"
)

// yamlError restates a yaml.v3 syntax error, data's, in this package's
// "config file PATH line N: …" form. Tabs in indentation, an easy mistake
// that YAML forbids, are named as such.
func (f *File) yamlError(err error, data []byte) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m, ok := submatch.Find(yamlLine, err.Error()); ok {
		line, _ = strconv.Atoi(m.Get("line"))
		msg = m.Get("msg")
		if yamlParserProblems[msg] {
			line++
		}
	}
	if msg == yamlBadTokenStart || msg == yamlTabIndent {
		tabLine := firstTabIndentedLine(data)
		switch {
		case tabLine == 0:
		case msg == yamlTabIndent, line == 0, line == tabLine:
			return f.errorf(tabLine, "tabs cannot indent YAML: use spaces")
		}
	}
	if line == 0 {
		return fmt.Errorf("config file %s: %s", f.path, msg)
	}
	return f.errorf(line, "%s", msg)
}

// firstTabIndentedLine is the number of the first line of data indented
// with a tab (blank lines and comments aside), or 0 when there is none.
func firstTabIndentedLine(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		content := strings.TrimLeft(l, " \t")
		if content == "" || content == "\r" || content[0] == '#' {
			continue
		}
		if strings.ContainsRune(l[:len(l)-len(content)], '\t') {
			return i + 1
		}
	}
	return 0
}
