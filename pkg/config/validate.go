package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// connectionFlags are cli-runtime's ConfigFlags. As with kubectl they come
// from the kubeconfig (or the command line), never from this file, so a
// config file cannot silently point the plugin at another cluster or
// identity.
var connectionFlags = map[string]bool{
	"kubeconfig": true, "cluster": true, "user": true, "context": true, "namespace": true,
	"server": true, "tls-server-name": true, "insecure-skip-tls-verify": true,
	"client-certificate": true, "client-key": true, "certificate-authority": true,
	"token": true, "as": true, "as-uid": true, "as-group": true, "as-user-extra": true,
	"username": true, "password": true, "request-timeout": true, "cache-dir": true,
	"disable-compression": true, "proxy-url": true,
}

// notSettings are flags that make no sense in a config file.
var notSettings = map[string]bool{ConfigFlag: true, "help": true, "version": true}

// refusal says why key cannot be in the config file, or "" when it may be.
func refusal(fl *pflag.Flag, key string) string {
	switch {
	case connectionFlags[key]:
		return fmt.Sprintf("%q cannot be set in the config file: connection settings come from your kubeconfig, as with kubectl; pass --%s or change the kubeconfig", key, key)
	case notSettings[key]:
		return fmt.Sprintf("%q cannot be set in the config file", key)
	case fl != nil && len(fl.Annotations[NoConfigAnnotation]) > 0:
		return fmt.Sprintf("%q cannot be set in the config file: pass --%s on the command line", key, key)
	}
	return ""
}

// Validate checks every key against the command tree under root: a
// top-level key must be a flag of some command in the tree, a key in a
// section a flag of that subcommand (or of one below it), a section must
// name a subcommand, and every value must parse as its flag's type. All
// problems are reported at once.
func (f *File) Validate(root *cobra.Command) error {
	var errs []error
	f.validateSection(root, f.top, "", &errs)
	return joinByLine(errs)
}

func (f *File) validateSection(cmd *cobra.Command, sec *section, prefix string, errs *[]error) {
	cmds := subtree(cmd)
	where := ""
	if prefix != "" {
		where = fmt.Sprintf(" in section %q", strings.TrimSuffix(prefix, "."))
	}
	for _, st := range sec.settings {
		if reason := refusal(nil, st.key); reason != "" {
			*errs = append(*errs, f.errorf(st.line, "%s", reason))
			continue
		}
		found := false
		for _, c := range cmds {
			fl := lookup(c, st.key)
			if fl == nil {
				continue
			}
			found = true
			if reason := refusal(fl, st.key); reason != "" {
				if elsewhere := settableBelow(cmd, c, st.key, prefix); elsewhere != "" {
					at := "at the top level"
					if prefix != "" {
						at = fmt.Sprintf("in section %q", strings.TrimSuffix(prefix, "."))
					}
					reason = fmt.Sprintf("%q cannot be set %s: pass --%s on the command line; it can be set %s", st.key, at, st.key, elsewhere)
				}
				*errs = append(*errs, f.errorf(st.line, "%s", reason))
				break
			}
			// One error per setting is enough even when several commands
			// share the flag.
			if err := f.checkValues(fl, st, prefix, forCommand(c, cmd)); err != nil {
				*errs = append(*errs, err)
				break
			}
		}
		switch {
		case found:
		case childCommand(cmd, st.key) != nil:
			*errs = append(*errs, f.errorf(st.line, "%q is a section: give it settings, e.g. %s", prefix+st.key, sectionExample(cmd, childCommand(cmd, st.key))))
		default:
			*errs = append(*errs, f.errorf(st.line, "unknown setting %q%s%s", st.key, where, suggest(st.key, settingNames(cmds))))
		}
	}
	for _, sub := range sec.sections {
		child := childCommand(cmd, sub.name)
		if child != nil {
			f.validateSection(child, sub, prefix+sub.name+".", errs)
			continue
		}
		isSetting := false
		for _, c := range cmds {
			isSetting = isSetting || lookup(c, sub.name) != nil
		}
		if isSetting {
			*errs = append(*errs, f.errorf(sub.line, "%s: takes a value, not a mapping", prefix+sub.name))
			continue
		}
		names := map[string]string{}
		for _, c := range cmd.Commands() {
			names[c.Name()] = c.Name()
		}
		*errs = append(*errs, f.errorf(sub.line, "unknown section %q%s: sections are named after subcommands of %s%s", sub.name, where, cmd.CommandPath(), suggest(sub.name, names)))
	}
}

// checkValues parses st's values with a fresh value of fl's type, so that
// Validate finds bad values without touching the flags. Flag types it
// cannot copy are left to Apply.
func (f *File) checkValues(fl *pflag.Flag, st *setting, prefix, forCmd string) error {
	if st.list && !isList(fl.Value) {
		return f.errorf(st.line, "%s: takes one value, not a list%s", prefix+st.key, forCmd)
	}
	v := scratch(fl.Value)
	if v == nil {
		return nil
	}
	if !st.list {
		if err := v.Set(st.values[0].text); err != nil {
			return f.errorf(st.values[0].line, "%s: invalid value %q%s: %v", prefix+st.key, st.values[0].text, forCmd, err)
		}
		return nil
	}
	sv, ok := v.(pflag.SliceValue)
	if !ok {
		return nil
	}
	for _, item := range st.values {
		if err := sv.Append(item.text); err != nil {
			return f.errorf(item.line, "%s: invalid value %q%s: %v", prefix+st.key, item.text, forCmd, err)
		}
	}
	return nil
}

func forCommand(c, section *cobra.Command) string {
	if c == section {
		return ""
	}
	return " for " + c.CommandPath()
}

// settableBelow says where else key may be set, when the file may not set
// it in cmd's section (refused's flag) but may in the sections of commands
// below cmd: "for watch in the watch section", or "in the list and watch
// sections". The root's --output is for the command line only, watch's is
// not. "" when there is nowhere else.
func settableBelow(cmd, refused *cobra.Command, key, prefix string) string {
	var sections []string
	name := ""
	for _, c := range subtree(cmd) {
		if c == refused || c == cmd {
			continue
		}
		if fl := lookup(c, key); fl != nil && refusal(fl, key) == "" {
			name = c.Name()
			sections = append(sections, prefix+strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), cmd.CommandPath()+" "), " ", "."))
		}
	}
	switch len(sections) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("for %s in the %s section", name, sections[0])
	}
	return fmt.Sprintf("in the %s and %s sections", strings.Join(sections[:len(sections)-1], ", "), sections[len(sections)-1])
}

// sectionExample is a section for sub, the subcommand of cmd, holding one
// of its settings, for messages: "watch:\n  min-severity: warning". It
// prefers a setting that only sub has, with a default to show.
func sectionExample(cmd, sub *cobra.Command) string {
	example := ""
	lookup(sub, "") // for its side effect: merge inherited flags into Flags()
	sub.Flags().VisitAll(func(fl *pflag.Flag) {
		if example != "" || lookup(cmd, fl.Name) != nil || refusal(fl, fl.Name) != "" || fl.Hidden ||
			fl.Value.Type() == "bool" || fl.DefValue == "" || fl.DefValue == "[]" {
			return
		}
		example = fmt.Sprintf("\n  %s: %s", fl.Name, fl.DefValue)
	})
	if example == "" {
		example = "\n  SETTING: VALUE"
	}
	return sub.Name() + ":" + example
}

func isList(v pflag.Value) bool {
	_, ok := v.(pflag.SliceValue)
	return ok
}

// Scratcher is a flag value that can make a fresh value of its own kind,
// with the same checks, not bound to the flag's variable. Validate tries
// the file's values on one so that a bad value for any command fails every
// command, before any runs, without touching the flags. Implement it on
// custom values that scratch cannot copy by reflection: a struct holding a
// pointer and a check function, say.
type Scratcher interface {
	Scratch() pflag.Value
}

// scratch returns a new, empty value of v's type, or nil when it cannot
// make one. A Scratcher makes its own; values over a basic kind (pflag's
// bool, int, duration, string, count, and enum-like custom types) are
// copied by reflection; pflag's slice types are built by name.
func scratch(v pflag.Value) pflag.Value {
	if s, ok := v.(Scratcher); ok {
		return s.Scratch()
	}
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		switch t.Elem().Kind() {
		case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if nv, ok := reflect.New(t.Elem()).Interface().(pflag.Value); ok {
				return nv
			}
		}
	}
	fs := pflag.NewFlagSet("scratch", pflag.ContinueOnError)
	switch v.Type() {
	case "stringSlice":
		fs.StringSlice("v", nil, "")
	case "stringArray":
		fs.StringArray("v", nil, "")
	case "intSlice":
		fs.IntSlice("v", nil, "")
	case "int32Slice":
		fs.Int32Slice("v", nil, "")
	case "int64Slice":
		fs.Int64Slice("v", nil, "")
	case "uintSlice":
		fs.UintSlice("v", nil, "")
	case "float32Slice":
		fs.Float32Slice("v", nil, "")
	case "float64Slice":
		fs.Float64Slice("v", nil, "")
	case "boolSlice":
		fs.BoolSlice("v", nil, "")
	case "durationSlice":
		fs.DurationSlice("v", nil, "")
	default:
		return nil
	}
	if _, ok := fs.Lookup("v").Value.(pflag.SliceValue); !ok {
		return nil
	}
	return fs.Lookup("v").Value
}

// lookup finds a flag of cmd, local or inherited.
func lookup(cmd *cobra.Command, name string) *pflag.Flag {
	// InheritedFlags merges the parents' persistent flags into Flags(),
	// as cobra does before it runs a command.
	cmd.InheritedFlags()
	return cmd.Flags().Lookup(name)
}

// subtree is cmd and every command below it.
func subtree(cmd *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{cmd}
	for _, c := range cmd.Commands() {
		out = append(out, subtree(c)...)
	}
	return out
}

func childCommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// settingNames are the keys the file may set for cmds, plus their one-letter
// shorthands mapped to the long name, for suggestions.
func settingNames(cmds []*cobra.Command) map[string]string {
	names := map[string]string{}
	for _, c := range cmds {
		lookup(c, "") // for its side effect: merge inherited flags into Flags()
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if refusal(fl, fl.Name) != "" {
				return
			}
			names[fl.Name] = fl.Name
			if fl.Shorthand != "" {
				names[fl.Shorthand] = fl.Name
			}
		})
	}
	return names
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to typed,
// or "" when none is close. candidates maps what may be typed to what to
// suggest (a shorthand to its long name).
func suggest(typed string, candidates map[string]string) string {
	pairs := candidates
	keys := make([]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestDist := "", 0
	for _, k := range keys {
		d := levenshtein(strings.ToLower(typed), strings.ToLower(k))
		// Two edits, or a prefix, as cobra suggests subcommands.
		if d > 2 && !(len(typed) >= 3 && strings.HasPrefix(k, typed)) {
			continue
		}
		if best == "" || d < bestDist {
			best, bestDist = pairs[k], d
		}
	}
	if best == "" || best == typed {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Settable reports whether fl may be set in the config file.
func Settable(fl *pflag.Flag) bool { return refusal(fl, fl.Name) == "" }
