// Package kubectlcmd reads a kubectl command line as kubectl would: which
// calls it makes, with which verb, on which objects, in which namespace.
// It is the one reading of a command for whoever judges one: the safe-fix
// policy (what a proposed command would change) and the claim check (what
// a cited command must have read).
package kubectlcmd

import (
	"strings"

	"github.com/google/shlex"
)

// Command is one kubectl invocation of a command line.
type Command struct {
	Line string // the whole command line it came from
	Verb string // get, logs, delete, rollout, set, create, drain…
	Sub  string // restart (rollout), selector (set), secret (create), can-i (auth)…
	// Args are the positional words after the verb (and Sub): TYPE NAME…,
	// TYPE/NAME…, a pod and container for logs, nodes for drain.
	Args []string

	Namespace     string
	AllNamespaces bool
	Container     string // -c
	Previous      bool   // logs -p / --previous
	Selector      string // -l
	FieldSelector string
	Patch         string // patch -p
	Files         []string
	Force         bool
	For           string // events --for
	Output        string // the file a `> FILE` redirect writes
}

// Object is one object a command names.
type Object struct {
	Type     string // the type word as written, lower-case: pod, svc, deployments.apps
	Resource string // its plural resource, as API paths name it: pods, services
	Name     string // "" for every object of the type
}

// subVerbs take a sub-command before their arguments.
var subVerbs = map[string]bool{"rollout": true, "set": true, "create": true, "auth": true, "config": true}

// nodeVerbs take node names, not a type: kubectl drain NODE.
var nodeVerbs = map[string]bool{"drain": true, "cordon": true, "uncordon": true}

// valueFlags are the flags whose value is the next word when not given
// with "=". -p is one only for patch (for logs it is --previous).
var valueFlags = map[string]bool{
	"-n": true, "--namespace": true, "-l": true, "--selector": true, "-f": true, "--filename": true,
	"--patch": true, "--type": true, "-o": true, "--output": true, "-c": true, "--container": true,
	"--field-selector": true, "--grace-period": true, "--to-revision": true, "--replicas": true,
	"--limits": true, "--requests": true, "--context": true, "--kubeconfig": true, "--cluster": true,
	"--user": true, "--from-literal": true, "--from-file": true, "--since": true, "--since-time": true,
	"--tail": true, "--sort-by": true, "--for": true, "--types": true, "--template": true,
	"-L": true, "--label-columns": true, "--chunk-size": true, "--timeout": true,
}

// Parse splits a command line into its kubectl calls (a pipeline or a
// list runs several; words that are not kubectl calls are left out).
// Placeholders such as <value> are words, not redirections. A line shell
// quoting cannot split gives none.
func Parse(line string) []Command {
	words, err := shlex.Split(line)
	if err != nil {
		return nil
	}
	var out []Command
	var cur []string
	flush := func() {
		if c, ok := parseCall(cur); ok {
			c.Line = line
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

// verbOf finds the verb before the flags are read, since what -p takes
// depends on it; only the value flags that may come first are skipped.
func verbOf(words []string) string {
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			return w
		}
		if !strings.Contains(w, "=") && valueFlags[w] {
			i++
		}
	}
	return ""
}

func parseCall(words []string) (Command, bool) {
	if len(words) == 0 || words[0] != "kubectl" {
		return Command{}, false
	}
	patchFlag := verbOf(words) == "patch"
	c := Command{}
	var pos []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == ">" && i+1 < len(words) {
			c.Output = words[i+1]
			i++
			continue
		}
		if strings.HasPrefix(w, ">") && len(w) > 1 {
			c.Output = w[1:]
			continue
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			pos = append(pos, w)
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		takesValue := valueFlags[name] || name == "-p" && patchFlag
		if !hasVal && takesValue && i+1 < len(words) {
			val, hasVal = words[i+1], true
			i++
		}
		if strings.HasPrefix(name, "-n") && len(name) > 2 && !strings.HasPrefix(name, "--") {
			name, val = "-n", name[2:] // -nshop
		}
		switch name {
		case "-n", "--namespace":
			c.Namespace = val
		case "-A", "--all-namespaces":
			c.AllNamespaces = !hasVal || val == "true"
		case "-c", "--container":
			c.Container = val
		case "-l", "--selector":
			c.Selector = val
		case "--field-selector":
			c.FieldSelector = val
		case "-p", "--patch", "--previous":
			if name == "--previous" || name == "-p" && !patchFlag {
				c.Previous = !hasVal || val == "true"
			} else {
				c.Patch = val
			}
		case "-f", "--filename":
			c.Files = append(c.Files, val)
		case "--force":
			c.Force = !hasVal || val == "true"
		case "--for":
			c.For = val
		}
	}
	if len(pos) == 0 {
		return Command{}, false
	}
	c.Verb, pos = pos[0], pos[1:]
	if subVerbs[c.Verb] && len(pos) > 0 {
		c.Sub, pos = pos[0], pos[1:]
	}
	c.Args = pos
	return c, true
}

// Kind is the lower-case type word the command names ("pod", "svc",
// "node" for drain), "" when it names none.
func (c Command) Kind() string {
	if nodeVerbs[c.Verb] {
		return "node"
	}
	if len(c.Args) == 0 {
		return ""
	}
	kind, _, _ := strings.Cut(c.Args[0], "/")
	return strings.ToLower(kind)
}

// Names are the object names the command gives after its type (TYPE
// NAME… or TYPE/NAME…; the nodes of drain). For `set selector svc NAME
// SELECTOR` the selector is the second "name", as kubectl reads it.
func (c Command) Names() []string {
	var out []string
	switch {
	case nodeVerbs[c.Verb]:
		for _, a := range c.Args {
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(a, "node/"), "nodes/"))
		}
	case len(c.Args) > 0 && strings.Contains(c.Args[0], "/"):
		for _, a := range c.Args {
			if _, n, ok := strings.Cut(a, "/"); ok {
				out = append(out, n)
			}
		}
	case len(c.Args) > 0:
		out = append(out, c.Args[1:]...)
	}
	return out
}

// Objects are the objects a get or describe names: TYPE [NAME…],
// TYPE/NAME…, TYPE1,TYPE2 [NAME…] (`all` names none).
func (c Command) Objects() []Object {
	if len(c.Args) == 0 {
		return nil
	}
	var out []Object
	if strings.Contains(c.Args[0], "/") {
		for _, a := range c.Args {
			kind, name, _ := strings.Cut(a, "/")
			out = append(out, Object{Type: strings.ToLower(kind), Resource: ResourceOf(kind), Name: name})
		}
		return out
	}
	for _, kind := range strings.Split(c.Args[0], ",") {
		if kind == "all" || kind == "" {
			continue
		}
		o := Object{Type: strings.ToLower(kind), Resource: ResourceOf(kind)}
		if len(c.Args) == 1 {
			out = append(out, o)
		}
		for _, name := range c.Args[1:] {
			o.Name = name
			out = append(out, o)
		}
	}
	return out
}

// resources maps kubectl's names for a resource (singular, short) to its
// plural, as the API paths and the gateway's audit name it.
var resources = map[string]string{
	"po": "pods", "pod": "pods", "deploy": "deployments", "rs": "replicasets", "sts": "statefulsets",
	"ds": "daemonsets", "cj": "cronjobs", "svc": "services", "cm": "configmaps", "no": "nodes",
	"ns": "namespaces", "pvc": "persistentvolumeclaims", "pv": "persistentvolumes", "ing": "ingresses",
	"ingress": "ingresses", "hpa": "horizontalpodautoscalers", "sa": "serviceaccounts",
	"netpol": "networkpolicies", "networkpolicy": "networkpolicies", "ep": "endpoints", "endpoints": "endpoints",
	"sc": "storageclasses", "storageclass": "storageclasses", "ev": "events", "limits": "limitranges",
	"quota": "resourcequotas", "pdb": "poddisruptionbudgets", "ingressclass": "ingressclasses",
	"priorityclass": "priorityclasses", "pc": "priorityclasses",
}

// ResourceOf is the plural resource for a kubectl type word (pod,
// deployments.apps, Pod, cm).
func ResourceOf(kind string) string {
	k, _, _ := strings.Cut(strings.ToLower(kind), ".")
	if r, ok := resources[k]; ok {
		return r
	}
	if strings.HasSuffix(k, "s") {
		return k
	}
	if strings.HasSuffix(k, "y") {
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}
