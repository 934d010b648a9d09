package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusterwatch"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// Bounds of a namespace overview: it investigates at most this many faulty
// objects, this many at once, each with a smaller bundle than a triage's.
const (
	defaultNamespaceLimit = 10
	maxNamespaceLimit     = 25
	namespaceWorkers      = 2
)

var namespaceBundle = bundle.Options{TailLines: 100, LimitBytes: 64 << 10, MaxPods: 3, Concurrency: 4}

// NamespaceInput is triage_namespace's input.
type NamespaceInput struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"the namespace (default: the kubeconfig context's namespace)"`
	Context   string `json:"context,omitempty" jsonschema:"kubeconfig context (default: the current context)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"investigate at most this many faulty objects (default 10, at most 25)"`
}

// FailingObject is one faulty object and its cause.
type FailingObject struct {
	Rank            int      `json:"rank"`
	Resource        Resource `json:"resource"`
	FaultType       string   `json:"faultType"`
	Severity        string   `json:"severity"`
	Cause           string   `json:"cause" jsonschema:"one-line root cause from the builtin investigator"`
	Confidence      float64  `json:"confidence"`
	ConfidenceLevel string   `json:"confidenceLevel"`
	Culprit         string   `json:"culprit,omitempty"`
	Target          string   `json:"target" jsonschema:"what to pass to the triage tool for the full report"`
	Error           string   `json:"error,omitempty" jsonschema:"why the object could not be investigated"`
}

// NamespaceOutput is triage_namespace's result.
type NamespaceOutput struct {
	Namespace string          `json:"namespace"`
	Context   string          `json:"context,omitempty"`
	Failing   []FailingObject `json:"failing"`
	Found     int             `json:"found" jsonschema:"faulty objects found"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"more were found than the limit: the most severe were investigated"`
	Warnings  []string        `json:"warnings,omitempty"`
	// OutputTruncated is the output cap's, as truncated is in the other
	// tools' results (here truncated says the limit cut the list).
	OutputTruncated bool `json:"outputTruncated,omitempty" jsonschema:"this result was cut at the server's output cap (--max-output)"`
}

func (s *Server) triageNamespace(ctx context.Context, req *mcp.CallToolRequest, in NamespaceInput) (*mcp.CallToolResult, NamespaceOutput, error) {
	out := NamespaceOutput{Failing: []FailingObject{}}
	limit := in.Limit
	switch {
	case limit < 0:
		return nil, out, fmt.Errorf("limit must not be negative, got %d", limit)
	case limit == 0:
		limit = defaultNamespaceLimit
	case limit > maxNamespaceLimit:
		limit = maxNamespaceLimit
	}
	report := s.progressFor(ctx, req)
	release, err := s.acquire(ctx, report)
	if err != nil {
		return nil, out, err
	}
	defer release()
	c, err := s.opts.Engine.Cluster(ctx, in.Context)
	if err != nil {
		return nil, out, err
	}
	ns := in.Namespace
	if ns == "" {
		ns = c.Info.Namespace
	}
	if ns == "" {
		ns = "default"
	}
	out.Namespace, out.Context = ns, c.Info.Context
	report.Printf("Scanning namespace %s for faulty deployments, jobs and pods", ns)
	events, err := clusterwatch.Scan(ctx, clusterwatch.Options{Client: c.Client, Cluster: c.Info.Context, Namespace: ns})
	if ctx.Err() != nil {
		return nil, out, context.Cause(ctx)
	}
	if err != nil {
		if len(events) == 0 {
			return nil, out, fmt.Errorf("scan namespace %s: %w", ns, err)
		}
		out.Warnings = append(out.Warnings, err.Error())
	}
	out.Found = len(events)
	// The most severe first, so that the limit keeps them.
	sort.SliceStable(events, func(i, j int) bool {
		return fault.SeverityRank(events[i].Severity) > fault.SeverityRank(events[j].Severity)
	})
	if len(events) > limit {
		events, out.Truncated = events[:limit], true
	}
	out.Failing = s.investigateAll(ctx, c, events, report)
	if ctx.Err() != nil {
		return nil, out, context.Cause(ctx)
	}
	rank(out.Failing)

	var b strings.Builder
	if len(out.Failing) == 0 {
		fmt.Fprintf(&b, "Nothing is failing in namespace %s: no faulty deployment, job or pod.\n", ns)
	} else {
		fmt.Fprintf(&b, "Failing in namespace %s (%d found, most severe first):\n", ns, out.Found)
		for _, f := range out.Failing {
			cause := f.Cause
			if f.Error != "" {
				cause = "(not investigated: " + f.Error + ")"
			} else if f.ConfidenceLevel != "" {
				cause += " [" + f.ConfidenceLevel + "]"
			}
			fmt.Fprintf(&b, "%d. %s/%s  %s  %s: %s\n", f.Rank, f.Resource.Kind, f.Resource.Name, f.Severity, f.FaultType, cause)
		}
		if out.Truncated {
			fmt.Fprintf(&b, "Only the %d most severe were investigated.\n", len(out.Failing))
		}
		b.WriteString("Call triage with a target above for the full report with evidence.\n")
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	text, _ := s.cap(redact.Clean(b.String()))
	fitNamespace(&out, s.opts.MaxOutput)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// investigateAll runs the builtin investigator over each faulty object,
// namespaceWorkers at a time, in memory: no incident, no workspace.
func (s *Server) investigateAll(ctx context.Context, c *Cluster, events []*fault.Event, report progress.Func) []FailingObject {
	out := make([]FailingObject, len(events))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(namespaceWorkers, len(events)) {
		wg.Go(func() {
			for i := range work {
				out[i] = investigateOne(ctx, c, events[i])
				mu.Lock()
				done++
				report.Printf("Investigated %d of %d: %s/%s", done, len(events), out[i].Resource.Kind, out[i].Resource.Name)
				mu.Unlock()
			}
		})
	}
	for i := range events {
		select {
		case work <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	return out
}

func investigateOne(ctx context.Context, c *Cluster, ev *fault.Event) FailingObject {
	r := ev.Resource
	f := FailingObject{
		Resource:  Resource{Kind: r.Kind, Name: r.Name, Namespace: r.Namespace},
		FaultType: ev.FaultType, Severity: ev.Severity,
		Target: strings.ToLower(r.Kind) + "/" + r.Name,
	}
	if ctx.Err() != nil {
		f.Error = "cancelled"
		return f
	}
	obj, err := c.Get(r.Namespace, strings.ToLower(r.Kind), r.Name)
	if err != nil {
		f.Error = oneLine(err.Error())
		return f
	}
	info := c.Info
	info.Namespace = r.Namespace
	b, err := bundle.Collect(ctx, c.Client, obj, info, namespaceBundle)
	if err != nil {
		f.Error = oneLine(err.Error())
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			f.Error = "cancelled"
		}
		return f
	}
	rep := investigate.Investigate(b, investigate.Options{Agent: "builtin", Severity: ev.Severity, Now: time.Now()})
	f.Cause = oneLine(orElse(rep.RootCause.Statement, rep.Title))
	f.Confidence, f.ConfidenceLevel, f.Culprit = rep.Confidence, string(rep.ConfidenceLevel), rep.RootCause.Culprit
	return f
}

// rank orders the overview: investigated before not, then severity, then
// confidence in the cause, then kind (a workload before its pods) and name.
func rank(fs []FailingObject) {
	kindOrder := map[string]int{"Node": 0, "Deployment": 1, "Job": 2, "Pod": 3}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if (a.Error == "") != (b.Error == "") {
			return a.Error == ""
		}
		if ra, rb := fault.SeverityRank(a.Severity), fault.SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if ka, kb := kindOrder[a.Resource.Kind], kindOrder[b.Resource.Kind]; ka != kb {
			return ka < kb
		}
		return a.Resource.Name < b.Resource.Name
	})
	for i := range fs {
		fs[i].Rank = i + 1
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
