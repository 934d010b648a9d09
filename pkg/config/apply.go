package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const (
	// ConfigFlag names the config file: --config.
	ConfigFlag = "config"
	// EnvConfig names the config file when --config is not given.
	EnvConfig = "KUBECTL_TRIAGE_CONFIG"

	// EnvAnnotation lists a flag's environment variables, first set wins.
	EnvAnnotation = "kubectl-triage/env"
	// NoConfigAnnotation marks a flag the config file may not set, such as
	// a one-shot input like --fault-file.
	NoConfigAnnotation = "kubectl-triage/no-config"
)

// BindEnv declares the environment variables that set flag when it is not
// on the command line. With several names the first one set (non-empty)
// wins, so the names existing deployments use and newer aliases can
// coexist. It panics when fs has
// no such flag: that is a programming error, as pflag's own redefinition.
func BindEnv(fs *pflag.FlagSet, flag string, envs ...string) {
	fl := fs.Lookup(flag)
	if fl == nil {
		panic(fmt.Sprintf("config.BindEnv: no flag %q", flag))
	}
	if err := fs.SetAnnotation(flag, EnvAnnotation, append(fl.Annotations[EnvAnnotation], envs...)); err != nil {
		panic(fmt.Sprintf("config.BindEnv: %v", err))
	}
}

// EnvNames are the environment variables bound to fl, for help text.
func EnvNames(fl *pflag.Flag) []string {
	return fl.Annotations[EnvAnnotation]
}

// ExcludeFromConfig marks flags the config file may not set.
func ExcludeFromConfig(fs *pflag.FlagSet, flags ...string) {
	for _, name := range flags {
		if err := fs.SetAnnotation(name, NoConfigAnnotation, []string{"true"}); err != nil {
			panic(fmt.Sprintf("config.ExcludeFromConfig: %v", err))
		}
	}
}

// SourceKind says where a flag's value came from.
type SourceKind int

const (
	FromDefault SourceKind = iota
	FromFlag
	FromEnv
	FromFile
)

// Source is where a flag's value came from.
type Source struct {
	Kind SourceKind
	Env  string // FromEnv: the variable
	Path string // FromFile: the config file
	Line int    // FromFile: the line of the setting
}

// String is "flag", "env AGENT_CLI", "config PATH:LINE" or "default".
func (s Source) String() string {
	switch s.Kind {
	case FromFlag:
		return "flag"
	case FromEnv:
		return "env " + s.Env
	case FromFile:
		return fmt.Sprintf("config %s:%d", s.Path, s.Line)
	}
	return "default"
}

// Source says where the last Apply took flag's value from.
func (f *File) Source(flag string) Source {
	return f.sources[flag]
}

// Apply fills each flag of cmd (local and inherited) that is not on the
// command line: from its first environment variable that is set, else from
// cmd's section of the file (the deepest section first, then the top
// level), else it keeps its default. List values replace a slice flag's
// default as a whole; other values go through the flag's Set, exactly as if
// typed, so bad values are errors that name the variable or the file line.
// A value from the file that starts with ~/ expands to the home directory.
//
// Apply sets values without marking flags Changed, so Changed keeps meaning
// the user typed the flag; Source tells where each value came from. Flags
// filled this way do not satisfy cobra's MarkFlagRequired. Apply is meant
// to run once per command.
func (f *File) Apply(cmd *cobra.Command, getenv func(string) string) error {
	lookup(cmd, "") // for its side effect: merge inherited flags into Flags()
	chain := f.sectionsFor(cmd)
	f.sources = map[string]Source{}
	var errs []error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		src, err := f.applyFlag(fl, chain, getenv)
		if err != nil {
			errs = append(errs, err)
			return
		}
		f.sources[fl.Name] = src
	})
	return joinByLine(errs)
}

func (f *File) applyFlag(fl *pflag.Flag, chain []sectionAt, getenv func(string) string) (Source, error) {
	if fl.Changed {
		return Source{Kind: FromFlag}, nil
	}
	for _, env := range EnvNames(fl) {
		v := getenv(env)
		if v == "" {
			continue
		}
		if err := fl.Value.Set(v); err != nil {
			return Source{}, fmt.Errorf("invalid %s=%q: %w", env, v, err)
		}
		return Source{Kind: FromEnv, Env: env}, nil
	}
	for _, sec := range chain {
		st := sec.setting(fl.Name)
		if st == nil {
			continue
		}
		// Validate reports these too; refusing here keeps a caller that
		// skipped Validate from applying them.
		if reason := refusal(fl, fl.Name); reason != "" {
			return Source{}, f.errorf(st.line, "%s", reason)
		}
		if err := f.set(fl, st, sec.prefix, getenv); err != nil {
			return Source{}, err
		}
		return Source{Kind: FromFile, Path: f.path, Line: st.line}, nil
	}
	return Source{Kind: FromDefault}, nil
}

func (f *File) set(fl *pflag.Flag, st *setting, prefix string, getenv func(string) string) error {
	items := make([]string, len(st.values))
	for i, v := range st.values {
		text, err := expandHome(v.text, getenv)
		if err != nil {
			return f.errorf(v.line, "%s: %v", prefix+st.key, err)
		}
		items[i] = text
	}
	if !st.list {
		if err := fl.Value.Set(items[0]); err != nil {
			return f.errorf(st.values[0].line, "%s: invalid value %q: %v", prefix+st.key, st.values[0].text, err)
		}
		return nil
	}
	sv, ok := fl.Value.(pflag.SliceValue)
	if !ok {
		return f.errorf(st.line, "%s: takes one value, not a list", prefix+st.key)
	}
	if err := sv.Replace([]string{}); err != nil {
		return f.errorf(st.line, "%s: %v", prefix+st.key, err)
	}
	for i, item := range items {
		if err := sv.Append(item); err != nil {
			return f.errorf(st.values[i].line, "%s: invalid value %q: %v", prefix+st.key, st.values[i].text, err)
		}
	}
	return nil
}

// expandHome expands a leading ~/ (or a lone ~) as a shell would.
func expandHome(s string, getenv func(string) string) (string, error) {
	if s != "~" && !strings.HasPrefix(s, "~/") {
		return s, nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("cannot expand %q: %w", s, err)
		}
	}
	return filepath.Join(home, strings.TrimPrefix(s, "~")), nil
}

// sectionAt is a section with the key prefix that names it in messages.
type sectionAt struct {
	*section
	prefix string
}

// sectionsFor lists the sections that apply to cmd, most specific first:
// for `kubectl triage watch` that is watch: and then the top level.
func (f *File) sectionsFor(cmd *cobra.Command) []sectionAt {
	var names []string
	for c := cmd; c.HasParent(); c = c.Parent() {
		names = append([]string{c.Name()}, names...)
	}
	chain := []sectionAt{{section: f.top}}
	sec, prefix := f.top, ""
	for _, name := range names {
		if sec = sec.section(name); sec == nil {
			break
		}
		prefix += name + "."
		chain = append([]sectionAt{{section: sec, prefix: prefix}}, chain...)
	}
	return chain
}

// AddFlag registers --config on fs, the root command's persistent flags,
// bound to $KUBECTL_TRIAGE_CONFIG.
func AddFlag(fs *pflag.FlagSet) {
	fs.String(ConfigFlag, "", "Config file (default $XDG_CONFIG_HOME/kubectl-triage/config.yaml). Env: "+EnvConfig)
	BindEnv(fs, ConfigFlag, EnvConfig)
}

// Locate says which config file cmd reads: --config, else its environment
// variable (explicit: it must exist), else the default path ("" when there
// is no home to put it in). --config="" means no file.
func Locate(cmd *cobra.Command, getenv func(string) string) (path string, explicit bool) {
	if fl := lookup(cmd, ConfigFlag); fl != nil {
		if fl.Changed {
			return fl.Value.String(), true
		}
		for _, env := range EnvNames(fl) {
			if v := getenv(env); v != "" {
				return v, true
			}
		}
	}
	if p, err := DefaultPath(getenv); err == nil {
		return p, false
	}
	return "", false
}

// Setup loads the config file named by --config, else $KUBECTL_TRIAGE_CONFIG,
// else DefaultPath; validates it against cmd's whole command tree; and
// applies it to cmd. A file named explicitly must exist; --config "" means
// no config file. When DefaultPath finds no home directory and no file is
// named, there is no config file.
func Setup(cmd *cobra.Command, getenv func(string) string) (*File, error) {
	path, explicit := Locate(cmd, getenv)
	f := &File{path: path, top: &section{}}
	if path != "" {
		var err error
		if f, err = Load(path, explicit); err != nil {
			return nil, err
		}
		if err := f.Validate(cmd.Root()); err != nil {
			return nil, err
		}
	}
	if err := f.Apply(cmd, getenv); err != nil {
		return nil, err
	}
	return f, nil
}
