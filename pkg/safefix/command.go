package safefix

import (
	"strings"

	"github.com/google/shlex"
)

// call is one kubectl invocation of a proposed command line, as far as the
// policy needs it: what it does to which objects.
type call struct {
	line      string // the whole command line it came from
	verb      string // delete, replace, patch, set, rollout, scale, drain, create, get…
	sub       string // rollout restart, set selector, create secret…
	kind      string // lower-case resource: pod, pods, service, deployment…
	names     []string
	namespace string
	selector  string // -l
	fields    string // --field-selector
	patch     string // -p
	files     []string
	force     bool
	output    string // the file a `kubectl get … -o yaml > FILE` writes
}

// readOnlyVerbs change nothing in the cluster.
var readOnlyVerbs = map[string]bool{
	"get": true, "describe": true, "logs": true, "top": true, "explain": true, "events": true,
	"api-resources": true, "api-versions": true, "cluster-info": true, "version": true,
	"diff": true, "auth": true, "config": true, "debug": false,
}

// writes reports whether the call changes the cluster.
func (c call) writes() bool {
	if c.verb == "rollout" {
		return c.sub != "history" && c.sub != "status"
	}
	return !readOnlyVerbs[c.verb]
}

// destroys reports whether the call deletes or recreates what it names.
func (c call) destroys() bool {
	switch c.verb {
	case "delete", "drain":
		return true
	case "replace":
		return c.force
	case "rollout":
		return c.sub == "restart"
	}
	return false
}

// parse splits a proposed command line into its kubectl calls. Placeholders
// such as <value> are words, not redirections; what follows # is a comment.
func parse(line string) []call {
	words, err := shlex.Split(line)
	if err != nil {
		return nil
	}
	var out []call
	var cur []string
	flush := func() {
		if c, ok := parseCall(cur); ok {
			c.line = line
			out = append(out, c)
		}
		cur = nil
	}
	for _, w := range words {
		switch w {
		case "&&", "||", ";", "|":
			flush()
		default:
			cur = append(cur, w)
		}
	}
	flush()
	return out
}

// flagsWithValue are the kubectl flags whose value is the next word.
var flagsWithValue = map[string]bool{
	"-n": true, "--namespace": true, "-l": true, "--selector": true, "-f": true, "--filename": true,
	"-p": true, "--patch": true, "--type": true, "-o": true, "--output": true, "-c": true, "--container": true,
	"--field-selector": true, "--grace-period": true, "--to-revision": true, "--replicas": true,
	"--limits": true, "--requests": true, "--context": true, "--from-literal": true, "--from-file": true,
}

func parseCall(words []string) (call, bool) {
	if len(words) == 0 || words[0] != "kubectl" {
		return call{}, false
	}
	c := call{}
	var pos []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == ">" && i+1 < len(words) {
			c.output = words[i+1]
			i++
			continue
		}
		if strings.HasPrefix(w, ">") && len(w) > 1 {
			c.output = w[1:]
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		if strings.HasPrefix(w, "-") {
			if !hasVal && flagsWithValue[name] && i+1 < len(words) {
				val, hasVal = words[i+1], true
				i++
			}
			switch name {
			case "-n", "--namespace":
				c.namespace = val
			case "-l", "--selector":
				c.selector = val
			case "--field-selector":
				c.fields = val
			case "-p", "--patch":
				c.patch = val
			case "-f", "--filename":
				c.files = append(c.files, val)
			case "--force":
				c.force = !hasVal || val == "true"
			}
			continue
		}
		pos = append(pos, w)
	}
	if len(pos) == 0 {
		return call{}, false
	}
	c.verb, pos = pos[0], pos[1:]
	switch c.verb {
	case "rollout", "set", "create", "auth", "config":
		if len(pos) > 0 {
			c.sub, pos = pos[0], pos[1:]
		}
	}
	if len(pos) > 0 {
		// TYPE NAME… or TYPE/NAME…
		if kind, name, ok := strings.Cut(pos[0], "/"); ok {
			c.kind = strings.ToLower(kind)
			for _, p := range pos {
				if _, n, ok := strings.Cut(p, "/"); ok {
					c.names = append(c.names, n)
				}
			}
			_ = name
		} else {
			c.kind = strings.ToLower(pos[0])
			c.names = pos[1:]
		}
	}
	return c, true
}
