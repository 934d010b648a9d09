// Package safefix is the safe-fix policy: before the builtin investigator's
// report is printed, every command it proposes is checked against the
// cluster state the collector read, in this one place, whatever rule
// proposed it.
//
//   - Nothing that is healthy now is deleted or recreated: a Running and
//     Ready pod, a Ready node, a fully available Deployment or StatefulSet,
//     a Bound claim.
//   - A fault that ended is history: it is reported at low severity and
//     drives no immediate action (what would prevent it again becomes a
//     long-term fix) and no deletion or recreation at all.
//   - A change of a Service's selector names the pods it will select, and is
//     not proposed when it selects none, or only pods of workloads the
//     Service is not for (a different name, and labels that are not a near
//     miss of the old selector).
//   - No fix introduces a name that looks like a misspelling of one that
//     exists: adding key DATABSE_URL to a ConfigMap that has DATABASE_URL
//     is refused in favour of correcting the reference.
//
// Refused actions are kept in the report as Withheld, with the reason.
package safefix

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Apply enforces the policy on r's actions against the state in b. history
// says the root cause is a fault that ended (the investigator knows: its
// finding is not about the present).
func Apply(r *report.Report, b *bundle.Bundle, history bool) {
	s := state{b: b, ns: b.Target.Namespace}
	if history {
		r.Severity = fault.SeverityInfo
	}
	var kept []report.Action
	for _, a := range r.Actions {
		lines := parseAll(a)
		reason, replacement := s.check(a, lines, history)
		if reason != "" {
			r.Withheld = append(r.Withheld, report.Withheld{Action: a, Reason: reason})
			if replacement != nil {
				kept = append(kept, *replacement)
			}
			continue
		}
		if history && a.Kind == report.Immediate {
			a.Kind = report.LongTerm
			a.Description = "Before it happens again: " + a.Description
		}
		kept = append(kept, s.annotate(a, lines))
	}
	r.Actions = kept
}

// Violations lists r's actions the policy refuses, without changing r: for
// checking reports the policy did not write (a golden, an agent's).
func Violations(r *report.Report, b *bundle.Bundle, history bool) []report.Withheld {
	s := state{b: b, ns: b.Target.Namespace}
	var out []report.Withheld
	for _, a := range r.Actions {
		if reason, _ := s.check(a, parseAll(a), history); reason != "" {
			out = append(out, report.Withheld{Action: a, Reason: reason})
		}
		if history && a.Kind == report.Immediate {
			out = append(out, report.Withheld{Action: a, Reason: "an immediate action for a fault that has ended"})
		}
	}
	return out
}

// parseAll parses each of a's command lines once, for every check on it.
func parseAll(a report.Action) [][]call {
	lines := make([][]call, len(a.Commands))
	for i, line := range a.Commands {
		lines[i] = parse(line)
	}
	return lines
}

// check returns why the action must not be proposed ("" when it may), and
// what to propose instead, if anything. lines is parseAll(a).
func (s state) check(a report.Action, lines [][]call, history bool) (string, *report.Action) {
	files := map[string][2]string{} // FILE of `kubectl get KIND NAME -o yaml > FILE`
	for _, calls := range lines {
		for _, c := range calls {
			if c.Verb == "get" && c.Output != "" && len(c.Names()) == 1 {
				files[c.Output] = [2]string{c.Kind(), c.Names()[0]}
			}
		}
	}
	for _, calls := range lines {
		for _, c := range calls {
			if !c.writes() {
				continue
			}
			if c.destroys() {
				if why := s.destroysHealthy(c, files); why != "" {
					return fmt.Sprintf("%s; `kubectl %s` would %s it", why, strings.TrimSpace(c.Verb+" "+c.Sub), verbEffect(c)), nil
				}
				if history {
					return "the fault has ended (history): deleting or recreating now fixes nothing", nil
				}
			}
			if why := s.selectorChange(c); why != "" {
				return why, readOnly(a, lines, "Find the workload this Service is for, and make the selector match its pods' labels (or fix the labels in its pod template).")
			}
			if key, near, cm := s.misspelledKey(c); key != "" {
				return fmt.Sprintf("it would add key %s to ConfigMap %s, which has %s: %s looks like a misspelling, so the reference is what to correct", key, cm, near, key),
					&report.Action{Kind: a.Kind, Description: fmt.Sprintf("Correct the key the pod references from %s to %s, the key ConfigMap %s has (in the workload's pod template, or the pod's manifest for a bare pod).", key, near, cm)}
			}
		}
	}
	return "", nil
}

// readOnly keeps what a withheld action would have had a human look at,
// as a check.
func readOnly(a report.Action, lines [][]call, description string) *report.Action {
	out := report.Action{Kind: report.Check, Description: description}
	for i, calls := range lines {
		if len(calls) > 0 && !slices.ContainsFunc(calls, call.writes) {
			out.Commands = append(out.Commands, a.Commands[i])
		}
	}
	return &out
}

func verbEffect(c call) string {
	switch {
	case c.Verb == "rollout":
		return "restart every pod of"
	case c.Verb == "drain":
		return "evict every pod from"
	case c.Verb == "replace":
		return "delete and recreate"
	}
	return "delete"
}

// destroysHealthy names the healthy object a destructive call would hit.
func (s state) destroysHealthy(c call, files map[string][2]string) string {
	ns := s.namespace(c)
	if c.Verb == "replace" {
		for _, f := range c.Files {
			if obj, ok := files[f]; ok {
				if why := s.healthy(obj[0], ns, obj[1]); why != "" {
					return why
				}
			}
		}
		return ""
	}
	kind := c.Kind()
	if c.Verb == "drain" {
		kind = "node"
	}
	for _, n := range c.Names() {
		if why := s.healthy(kind, ns, n); why != "" {
			return why
		}
	}
	if c.Selector != "" && (kind == "pod" || kind == "pods" || kind == "po") && !onlyNotRunning(c.FieldSelector) {
		sel, err := labels.Parse(c.Selector)
		if err != nil {
			return ""
		}
		for _, p := range s.pods() {
			if p.Namespace == ns && sel.Matches(labels.Set(p.Labels)) && podServing(p) {
				return fmt.Sprintf("pod %s, which -l %s selects, is Running and Ready now", p.Name, c.Selector)
			}
		}
	}
	return ""
}

// onlyNotRunning: a field selector that keeps Running pods out.
func onlyNotRunning(fields string) bool {
	for _, term := range strings.Split(fields, ",") {
		k, v, _ := strings.Cut(term, "=")
		if k == "status.phase" && v != string(corev1.PodRunning) && v != "" {
			return true
		}
	}
	return false
}

// newSelector is the selector a call gives a Service, or nil when the call
// does not change one.
func (s state) newSelector(c call) (*corev1.Service, map[string]string) {
	if c.Kind() != "service" && c.Kind() != "services" && c.Kind() != "svc" || len(c.Names()) == 0 {
		return nil, nil
	}
	svc := s.service(s.namespace(c), c.Names()[0])
	switch {
	case c.Verb == "set" && c.Sub == "selector" && len(c.Names()) > 1:
		sel, err := labels.ConvertSelectorToLabelsMap(c.Names()[1])
		if err != nil {
			return svc, map[string]string{}
		}
		return svc, sel
	case c.Verb == "patch" && strings.Contains(c.Patch, "selector"):
		var p struct {
			Spec struct {
				Selector map[string]*string `json:"selector"`
			} `json:"spec"`
		}
		if json.Unmarshal([]byte(c.Patch), &p) != nil || p.Spec.Selector == nil {
			return nil, nil
		}
		sel := map[string]string{}
		if svc != nil {
			for k, v := range svc.Spec.Selector {
				sel[k] = v
			}
		}
		for k, v := range p.Spec.Selector {
			if v == nil {
				delete(sel, k)
			} else {
				sel[k] = *v
			}
		}
		return svc, sel
	}
	return nil, nil
}

// selectorChange refuses a selector that selects nothing, or only pods the
// Service is not for.
func (s state) selectorChange(c call) string {
	svc, sel := s.newSelector(c)
	if sel == nil {
		return ""
	}
	if placeholder(sel) {
		return ""
	}
	pods := s.selected(s.namespace(c), sel)
	if len(pods) == 0 {
		return fmt.Sprintf("the new selector %s would select no pod", labels.Set(sel))
	}
	if svc == nil || nearMiss(svc.Spec.Selector, sel) {
		return ""
	}
	var workloads []string
	for _, p := range pods {
		_, w := bundle.WorkloadOf(p)
		if related(svc.Name, w) {
			return ""
		}
		workloads = append(workloads, w)
	}
	return fmt.Sprintf("the new selector %s would send service %s's traffic to pods of %s, which is not a near miss of its selector %s nor named like the Service: no pod of the workload it is for was found",
		labels.Set(sel), svc.Name, strings.Join(unique(workloads), ", "), labels.Set(svc.Spec.Selector))
}

// placeholder: a selector value the user is to fill in (<pod label value>).
func placeholder(sel map[string]string) bool {
	for _, v := range sel {
		if strings.HasPrefix(v, "<") {
			return true
		}
	}
	return false
}

// nearMiss: every value the new selector changes is a typo-like edit of the
// old one, and nothing else changes but removed terms.
func nearMiss(old, sel map[string]string) bool {
	changed := false
	for k, v := range sel {
		was, ok := old[k]
		if ok && was == v {
			continue
		}
		changed = true
		if !ok {
			// A renamed key keeping the value (tier=web → role=web).
			found := false
			for ok2, ov := range old {
				if ov == v && sel[ok2] == "" {
					found = true
				}
			}
			if !found {
				return false
			}
			continue
		}
		if !closeValues(was, v) {
			return false
		}
	}
	return changed || len(sel) < len(old)
}

func closeValues(a, b string) bool {
	d := levenshtein.ComputeDistance(a, b)
	return d <= 2 || float64(d) <= 0.34*float64(max(len(a), len(b)))
}

// related: a workload named like the Service (equal, one holding the
// other, or a typo apart).
func related(svc, workload string) bool {
	return svc == workload || strings.Contains(workload, svc) || strings.Contains(svc, workload) ||
		levenshtein.ComputeDistance(svc, workload) <= 2
}

// misspelledKey: a call that adds a ConfigMap key which does not exist while
// a near spelling of it does.
func (s state) misspelledKey(c call) (key, near, cm string) {
	if c.Kind() != "configmap" && c.Kind() != "configmaps" && c.Kind() != "cm" || len(c.Names()) == 0 || c.Verb != "patch" {
		return "", "", ""
	}
	var p struct {
		Data map[string]any `json:"data"`
	}
	if json.Unmarshal([]byte(c.Patch), &p) != nil {
		return "", "", ""
	}
	keys := s.configMapKeys(s.namespace(c), c.Names()[0])
	for k := range p.Data {
		if n := nearest(k, keys); n != "" {
			return k, n, c.Names()[0]
		}
	}
	return "", "", ""
}

// nearest returns the existing key that k misspells: equal but for case and
// separators, or at most two edits apart; "" when k exists or none is near.
func nearest(k string, keys []string) string {
	norm := func(x string) string {
		return strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(x))
	}
	best, bestD := "", 3
	for _, have := range keys {
		if have == k {
			return ""
		}
		d := levenshtein.ComputeDistance(k, have)
		if norm(have) == norm(k) {
			d = 0
		}
		if d < bestD && len(k) > 3 {
			best, bestD = have, d
		}
	}
	return best
}

// annotate makes a selector change say which pods it will select.
func (s state) annotate(a report.Action, lines [][]call) report.Action {
	for _, calls := range lines {
		for _, c := range calls {
			if _, sel := s.newSelector(c); sel != nil && !placeholder(sel) {
				var names []string
				for _, p := range s.selected(s.namespace(c), sel) {
					names = append(names, p.Name)
				}
				sort.Strings(names)
				if len(names) > 5 {
					names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
				}
				a.Description += fmt.Sprintf(" The new selector %s selects: %s.", labels.Set(sel), strings.Join(names, ", "))
			}
		}
	}
	return a
}

func unique(xs []string) []string {
	sort.Strings(xs)
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
