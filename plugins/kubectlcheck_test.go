package plugins

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// kubectl invocation checks for the helper scripts

// Global kubectl flags that take a separate value (flag, then value).
var kubectlValueFlags = map[string]bool{
	"-n": true, "--namespace": true, "--context": true, "--kubeconfig": true, "--cluster": true,
	"--user": true, "-s": true, "--server": true, "--as": true, "--as-group": true, "--as-uid": true,
	"--token": true, "--request-timeout": true, "--certificate-authority": true,
	"--client-certificate": true, "--client-key": true, "--tls-server-name": true, "--cache-dir": true,
	"-v": true, "--v": true, "--vmodule": true, "--log-file": true, "--log-dir": true,
	"--profile": true, "--profile-output": true, "--username": true, "--password": true,
	// common subcommand flags with values (for finding positional arguments)
	"-o": true, "--output": true, "-l": true, "--selector": true, "--field-selector": true,
	"--sort-by": true, "-c": true, "--container": true, "--tail": true, "--since": true,
	"--since-time": true, "--template": true, "-L": true, "--label-columns": true, "--for": true,
	"--types": true, "--chunk-size": true, "--raw": true, "-f": true, "--filename": true,
}

// Verbs the scripts may use (the brief's list) and the sub-commands allowed after some of them.
var (
	allowedVerbs = map[string]bool{"get": true, "describe": true, "logs": true, "events": true,
		"top": true, "auth": true, "api-resources": true, "version": true}
	forbiddenVerb = regexp.MustCompile(`^(apply|create|delete|edit|patch|replace|scale|autoscale|expose|` +
		`rollout|label|annotate|cordon|uncordon|drain|taint|exec|attach|port-forward|cp|proxy|run|debug|set|` +
		`certificate|wait|kustomize|plugin|alpha|config)$`)
	mutatingRollout = regexp.MustCompile(`^(undo|restart|pause|resume)$`)
	secretResource  = regexp.MustCompile(`^secrets?(\.v1|\.core|\.)?$`)
)

// positional returns the non-flag arguments of args, skipping the values of
// flags that take one.
func positional(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if !strings.Contains(a, "=") && kubectlValueFlags[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// checkKubectlArgs returns why a kubectl invocation (its arguments after the
// word kubectl) is not an allowed read-only call, or "" if it is.
func checkKubectlArgs(args []string) string {
	verbAt := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				verbAt = i + 1
			}
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			// --flag=value, -nVALUE and boolean flags are one word; known value
			// flags take the next word.
			if !strings.Contains(a, "=") && kubectlValueFlags[a] {
				i++
			}
			continue
		}
		verbAt = i
		break
	}
	if verbAt < 0 {
		return "kubectl without a verb (indirection such as k=kubectl is not allowed)"
	}
	verb, rest := args[verbAt], args[verbAt+1:]
	pos := positional(rest)
	sub := ""
	if len(pos) > 0 {
		sub = pos[0]
	}
	switch {
	case verb == "rollout" && mutatingRollout.MatchString(sub):
		return "mutating verb: rollout " + sub
	case forbiddenVerb.MatchString(verb):
		return "mutating or non-read verb: " + verb
	case !allowedVerbs[verb]:
		return fmt.Sprintf("verb %q is not one of get|describe|logs|events|top|auth can-i|api-resources|version", verb)
	case verb == "auth" && sub != "can-i":
		return "auth " + sub + ": only auth can-i is allowed"
	}
	for i, a := range rest {
		raw := ""
		if a == "--raw" && i+1 < len(rest) {
			raw = rest[i+1]
		} else if strings.HasPrefix(a, "--raw=") {
			raw = strings.TrimPrefix(a, "--raw=")
		}
		if strings.Contains(raw, "/secrets") {
			return "reads Secrets through --raw " + raw
		}
	}
	if (verb == "get" || verb == "describe") && len(pos) > 0 {
		// The first positional argument names the resource type(s): secrets,
		// secret/NAME, cm,secret … Later ones (object names) only if TYPE/NAME.
		for j, p := range pos {
			for _, part := range strings.Split(p, ",") {
				typ, _, slash := strings.Cut(part, "/")
				if (j == 0 || slash) && secretResource.MatchString(strings.ToLower(typ)) {
					return "reads Secrets: kubectl " + verb + " " + p
				}
			}
		}
	}
	return ""
}

// stripShell blanks out shell comments and joins backslash-newline
// continuations, keeping every byte offset (and so every line number) of the
// original script.
func stripShell(src string) string {
	b := []byte(src)
	const (
		normal = iota
		single
		double
	)
	state := normal
	wordStart := true
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch state {
		case single:
			if c == '\'' {
				state = normal
			}
			wordStart = false
			continue
		case double:
			if c == '\\' && i+1 < len(b) {
				if b[i+1] == '\n' {
					b[i], b[i+1] = ' ', ' '
				}
				i++
			} else if c == '"' {
				state = normal
			}
			wordStart = false
			continue
		}
		switch {
		case c == '\\' && i+1 < len(b):
			if b[i+1] == '\n' {
				b[i], b[i+1] = ' ', ' '
			}
			i++
			wordStart = false
		case c == '\'':
			state, wordStart = single, false
		case c == '"':
			state, wordStart = double, false
		case c == '#' && wordStart:
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			wordStart = true
		default:
			wordStart = strings.IndexByte(" \t\n;|&()<>", c) >= 0
		}
	}
	return string(b)
}

// kubectlWord finds the word kubectl (also as /path/to/kubectl), not
// kubectl-something or mykubectl.
var kubectlWord = regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])kubectl(?:[^A-Za-z0-9_-]|$)`)

// wordsAfter lexes shell words from src up to the end of the simple command
// (an unquoted ; | & ) ` or newline), removing quotes and skipping
// redirections.
func wordsAfter(src string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(src) && len(words) < 200; i++ {
		c := src[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				j = len(src) - i - 1
			}
			cur.WriteString(src[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' && i+1 < len(src) {
					i++
				}
				cur.WriteByte(src[i])
			}
		case c == '\\' && i+1 < len(src):
			i++
			cur.WriteByte(src[i])
			inWord = true
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte(";|&)`\n", c) >= 0:
			flush()
			return words
		case c == '<' || c == '>':
			// Redirection: drop a pending fd number, the operator and its target.
			if inWord && strings.Trim(cur.String(), "0123456789") == "" {
				cur.Reset()
				inWord = false
			}
			flush()
			for i+1 < len(src) && strings.IndexByte("<>&", src[i+1]) >= 0 {
				i++
			}
			for i+1 < len(src) && (src[i+1] == ' ' || src[i+1] == '\t') {
				i++
			}
			for i+1 < len(src) && strings.IndexByte(" \t\n;|&)`", src[i+1]) < 0 {
				i++
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

type kubectlCall struct {
	line int
	args []string
}

// kubectlCalls finds every kubectl invocation in a shell script, comments
// excluded, including ones inside $( ), quotes, pipelines and after flags.
func kubectlCalls(script string) []kubectlCall {
	src := stripShell(script)
	var calls []kubectlCall
	for _, loc := range kubectlWord.FindAllStringIndex(src, -1) {
		start := strings.Index(src[loc[0]:loc[1]], "kubectl") + loc[0]
		calls = append(calls, kubectlCall{
			line: strings.Count(src[:start], "\n") + 1,
			args: wordsAfter(src[start+len("kubectl"):]),
		})
	}
	return calls
}

// scriptViolations lists every kubectl call in script that is not allowed.
func scriptViolations(script string) []string {
	var out []string
	for _, c := range kubectlCalls(script) {
		if why := checkKubectlArgs(c.args); why != "" {
			out = append(out, fmt.Sprintf("line %d: %s (kubectl %s)", c.line, why, strings.Join(c.args, " ")))
		}
	}
	return out
}

func TestKubectlCallChecker(t *testing.T) {
	for _, tc := range []struct {
		script string
		bad    int // number of violations expected
	}{
		{"kubectl get pods -n shop", 0},
		{`ns=$(kubectl get pod "$n" -o jsonpath='{.metadata.namespace}' 2>/dev/null || true)`, 0},
		{"kubectl --context=prod -n shop describe deploy/api", 0},
		{"kubectl -n shop --request-timeout 5s logs api-1 -c app --previous", 0},
		{"kubectl auth can-i list pods", 0},
		{"kubectl api-resources --no-headers", 0},
		{"kubectl version", 0},
		{"kubectl top pod -n x --containers", 0},
		{"kubectl events -n x --for pod/y", 0},
		{"kubectl logs p -c secret", 0},
		{"kubectl get pods -l app=secret", 0},
		{"kubectl get pods 2>/dev/null | grep x", 0},
		{"# kubectl delete pod x", 0},
		{"kubectl get pods # then kubectl delete pod x", 0},
		{"echo 'kubectl-triage is the plugin'", 0},
		{"x=\"#\"; kubectl get pods", 0},
		{"echo ${#x}; kubectl get pods", 0},
		{"kubectl -n x delete pod y", 1},
		{"kubectl --namespace x --context y apply -f -", 1},
		{"kubectl -v 6 patch pod x -p '{}'", 1},
		{"kubectl --kubeconfig /tmp/k exec p -- ls", 1},
		{"kubectl --insecure-skip-tls-verify edit deploy x", 1},
		{"kubectl rollout restart deploy/x", 1},
		{"kubectl rollout undo deploy/x", 1},
		{"kubectl -n x rollout pause deploy/x", 1},
		{"kubectl rollout history deploy/x", 1},
		{"kubectl get secret db -o yaml", 1},
		{"kubectl get secrets", 1},
		{"kubectl get cm,secrets -n x", 1},
		{"kubectl get secret/db", 1},
		{"kubectl get pod/a secret/db", 1},
		{"kubectl -n x get -o json Secrets", 1},
		{"kubectl describe secrets.v1", 1},
		{"kubectl get --raw /api/v1/namespaces/x/secrets", 1},
		{"kubectl \\\n  delete pod x", 1},
		{"echo x | kubectl apply -f -", 1},
		{"sh -c 'kubectl delete pod x'", 1},
		{"x=`kubectl delete pod x`", 1},
		{"/usr/local/bin/kubectl scale deploy x --replicas=0", 1},
		{"k=kubectl; $k delete pod x", 1},
		{`kubectl "$verb" pod`, 1},
		{"kubectl auth reconcile -f r.yaml", 1},
		{"kubectl 2>/dev/null delete pod x", 1},
		{"kubectl get pods; kubectl delete pod x", 1},
		{"kubectl get pods &&\nkubectl cordon n1 && kubectl drain n1", 2},
		{"kubectl label pod x a=b; kubectl annotate pod x a=b", 2},
		{"kubectl taint node n k=v:NoSchedule\nkubectl uncordon n", 2},
		{"kubectl port-forward svc/x 8080\nkubectl proxy\nkubectl attach p\nkubectl cp a b", 4},
		{"kubectl run x --image=y\nkubectl debug node/x\nkubectl set image deploy/x c=y", 3},
		{"kubectl create ns x\nkubectl replace -f x\nkubectl expose deploy x", 3},
		{"kubectl", 1},
	} {
		t.Run(tc.script, func(t *testing.T) {
			got := scriptViolations(tc.script)
			if len(got) != tc.bad {
				t.Errorf("got %d violations %q, want %d; calls: %+v", len(got), got, tc.bad, kubectlCalls(tc.script))
			}
		})
	}
}
