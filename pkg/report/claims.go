package report

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// What an evidence item claims to have read, as Parse finds it (checked by
// pkg/claims against the agent's actual reads):
//
//   - a command: inline code or a code-block line that is a kubectl command;
//   - an object: kind/name (pod/api, Deployment/web; the short forms such
//     as deploy/web or cm/settings only in code);
//   - a quote: inline code that reads as a quoted line (at least 12
//     characters with a space), and each line of a code block under an item
//     about logs (one that cites `kubectl logs` or says "log").
//
// Other code blocks (a table kubectl printed) are not quotes: kubectl lays
// them out itself, so their text is in no response; the command that
// printed them is the claim.

var (
	// objectRef: kind/name with the kind's full name, anywhere.
	objectRef = regexp.MustCompile(`(?i)(?:^|[^\w/.:-])(?P<ref>(?:` + fullKinds + `)/[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)\b`)
	// codeObjectRef: a code span that is kind/name, short forms included.
	codeObjectRef = regexp.MustCompile(`(?i)^(?:` + fullKinds + `|` + shortKinds + `)/[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$`)
	logMention    = regexp.MustCompile(`(?i)\blogs?\b`)
)

const (
	fullKinds  = `pods?|deployments?|replicasets?|statefulsets?|daemonsets?|jobs?|cronjobs?|services?|configmaps?|secrets?|nodes?|namespaces?|persistentvolumeclaims?|persistentvolumes?|ingress(?:es)?|horizontalpodautoscalers?|serviceaccounts?|networkpolic(?:y|ies)|endpoints|endpointslices?|storageclass(?:es)?|roles?|rolebindings?|clusterroles?|clusterrolebindings?|events?|limitranges?|resourcequotas?`
	shortKinds = `po|deploy|rs|sts|ds|cj|svc|cm|no|ns|pvc|pv|ing|hpa|sa|netpol|ep|sc|ev|quota`
)

// claims lists what the item lines [it.from, it.to) cite, each once.
func (d *doc) claims(it item) []Claim {
	var out []Claim
	seen := map[string]bool{}
	add := func(kind ClaimKind, text string, line int) {
		text = strings.TrimSpace(text)
		if text == "" || seen[string(kind)+"\x00"+text] {
			return
		}
		seen[string(kind)+"\x00"+text] = true
		out = append(out, Claim{Kind: kind, Text: text, Line: line + 1})
	}
	aboutLogs := false
	for i := it.from; i < it.to; i++ {
		if d.fence[i] {
			continue
		}
		if logMention.MatchString(inlineCodeRe.ReplaceAllString(d.lines[i], "")) {
			aboutLogs = true
		}
		for _, code := range inlineCode(d.lines[i]) {
			switch {
			case isKubectl(code):
				add(ClaimCommand, code, i)
				if kubectlVerb(code) == "logs" {
					aboutLogs = true
				}
			case codeObjectRef.MatchString(code):
				add(ClaimObject, code, i)
			case len(code) >= 12 && strings.ContainsAny(code, " \t"):
				add(ClaimQuote, code, i)
			}
		}
		for _, m := range submatch.FindAll(objectRef, inlineCodeRe.ReplaceAllString(d.lines[i], " "), -1) {
			add(ClaimObject, m.Get("ref"), i)
		}
	}
	for i := it.from; i < it.to; i++ {
		l := strings.TrimSpace(d.lines[i])
		if !d.fence[i] || strings.HasPrefix(l, "```") || l == "" {
			continue
		}
		switch cmd := strings.TrimPrefix(l, "$ "); {
		case isKubectl(cmd):
			add(ClaimCommand, cmd, i)
		case aboutLogs && len(l) >= 8:
			add(ClaimQuote, l, i)
		}
	}
	return out
}

func isKubectl(s string) bool { return strings.HasPrefix(s, "kubectl ") }

// kubectlVerb is the first word after kubectl that is not a flag.
func kubectlVerb(cmd string) string {
	words := strings.Fields(cmd)
	for i := 1; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if !strings.Contains(w, "=") && (w == "-n" || w == "--namespace" || w == "--context" || w == "--kubeconfig") {
				i++
			}
			continue
		}
		return w
	}
	return ""
}
