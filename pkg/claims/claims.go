// Package claims checks what an external agent's report says it read
// against what it did read (DESIGN.md §6). report.Parse finds the claims
// of each evidence item: a kubectl command it cites, an object (kind/name),
// a log or output line it quotes. Check holds each against the reads: the
// requests the agent made through the read-only gateway (with their
// response bodies) and the context files the collector wrote for it. A
// claim no read backs is unverified; a root cause that rests only on
// unverified claims is capped at speculation.
//
// Everything here is pure: the reads come in as data.
package claims

import (
	"fmt"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

// Origin is where a read came from.
type Origin string

const (
	// Gateway: a request the agent made through the read-only gateway.
	Gateway Origin = "gateway"
	// Context: a file of the context bundle the collector wrote for the
	// agent (context/resources, events.json, logs.txt).
	Context Origin = "context"
)

// Read is one thing the agent read, or was handed in context/.
type Read struct {
	Origin Origin
	// Where names it for a reader: "GET /api/v1/namespaces/shop/pods" or
	// "context/logs.txt".
	Where string
	// Resource is the API resource (pods, configmaps, events), lower-case
	// plural; Subresource e.g. log. A discovery or other non-resource
	// request has Path only.
	Resource, Subresource string
	Path                  string
	// Namespace and Name of what was read; Name "" is a list.
	Namespace, Name string
	// Container and Previous qualify a log read ("" container: the pod's
	// only or default one).
	Container string
	Previous  bool
	// Text is what came back, as text: a JSON body's keys and values, one
	// per line; a log as it is.
	Text string
}

// ClaimCap is the confidence a root cause resting only on unverified
// claims is held to: speculation (DESIGN.md §7: < 0.5).
const ClaimCap = 0.45

// Result counts a report's claims after Check.
type Result struct {
	Verified, Unverified int
	// RootCause are the claims the root cause rests on (those of the
	// evidence it cites, else of all evidence) and how many are verified.
	RootCauseClaims, RootCauseVerified int
	// Capped: the confidence was lowered to ClaimCap.
	Capped bool
}

// Total is every claim checked.
func (r Result) Total() int { return r.Verified + r.Unverified }

// Footer is the report footer's line.
func (r Result) Footer() string {
	if r.Total() == 0 {
		return "kubectl-triage: the report cites no kubectl command, object or log line that could be checked against what the agent read."
	}
	s := fmt.Sprintf("kubectl-triage: %d of the report's claims were checked against what the agent read through the gateway and in context/: %d verified, %d unverified (marked in the report).",
		r.Total(), r.Verified, r.Unverified)
	if r.Capped {
		s += fmt.Sprintf(" The root cause rests only on unverified claims: its confidence is capped at speculation (%.2f).", ClaimCap)
	}
	return s
}

// Check marks every claim of r's evidence verified or unverified against
// reads, caps r's confidence when its root cause rests only on unverified
// claims, and returns the counts. namespace is the one a command without
// -n reads: the agent's kubeconfig context's.
func Check(r *report.Report, reads []Read, namespace string) Result {
	var res Result
	idx := newIndex(reads)
	for i := range r.Evidence {
		for j := range r.Evidence[i].Claims {
			c := &r.Evidence[i].Claims[j]
			if basis, ok := idx.back(*c, namespace); ok {
				c.Status, c.Basis = report.ClaimVerified, basis
				res.Verified++
			} else {
				c.Status, c.Basis = report.ClaimUnverified, basis
				res.Unverified++
			}
		}
	}
	res.RootCauseClaims, res.RootCauseVerified = rootCauseClaims(r)
	if res.RootCauseClaims > 0 && res.RootCauseVerified == 0 && (r.Confidence > ClaimCap || r.Confidence == 0 && r.ConfidenceLevel != report.Speculation) {
		res.Capped = true
		r.SetConfidence(ClaimCap)
		r.ConfidenceCap = fmt.Sprintf("capped at speculation (%.2f): the root cause rests only on claims that nothing the agent read backs (%s)", ClaimCap, strings.Join(citedIDs(r), ", "))
	}
	return res
}

// rootCauseClaims counts the claims of the evidence the root cause cites
// (all evidence when it cites none, or none that exists) and the verified
// ones among them.
func rootCauseClaims(r *report.Report) (total, verified int) {
	cited := map[string]bool{}
	for _, id := range r.RootCause.Evidence {
		cited[id] = true
	}
	any := false
	for _, e := range r.Evidence {
		if cited[e.ID] {
			any = true
		}
	}
	for _, e := range r.Evidence {
		if any && !cited[e.ID] {
			continue
		}
		for _, c := range e.Claims {
			total++
			if c.Status == report.ClaimVerified {
				verified++
			}
		}
	}
	return total, verified
}

// citedIDs names the evidence the root cause rests on, for the cap's
// reason: its citations, or "all evidence".
func citedIDs(r *report.Report) []string {
	var ids []string
	for _, e := range r.Evidence {
		for _, id := range r.RootCause.Evidence {
			if e.ID == id && len(e.Claims) > 0 {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return []string{"all of its evidence"}
	}
	return ids
}
