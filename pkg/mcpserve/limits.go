package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// DefaultReadTimeout bounds the tools that only read incidents
// (list_incidents, show_incident, get_evidence) and resource reads: they
// touch the local workspace root, never an agent, so seconds are plenty.
const DefaultReadTimeout = 30 * time.Second

// maxArgBytes bounds every string of a call's arguments, and every key: more
// than any name, ID, context or path a tool takes (PATH_MAX is 4096), so a
// megabyte of input is refused before it reaches the cluster or a log.
const maxArgBytes = 4096

// engineTools run the triage engine: --call-timeout bounds them (an agent
// may work for minutes), --read-timeout the others.
var engineTools = map[string]bool{ToolTriage: true, ToolTriageNamespace: true}

// bound is the receiving middleware that holds every call to the limits:
// arguments no longer than maxArgBytes, a deadline (the call timeout for
// the engine's tools, the read timeout for the rest and for resource
// reads), and an error text that quotes a long argument by its prefix only
// and stays under the output cap.
func (s *Server) bound(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if r.Params == nil {
				return next(ctx, method, req)
			}
			long, err := longStrings(r.Params.Name, r.Params.Arguments)
			if err != nil {
				return errorResult(err), nil
			}
			timeout, flag := s.opts.ReadTimeout, "--read-timeout"
			if engineTools[r.Params.Name] {
				timeout, flag = s.opts.CallTimeout, "--call-timeout"
			}
			// The engine's tools end their incident at the deadline
			// themselves (failed, reason timeout): wait for that. A read
			// is given up at the deadline, whatever the handler does.
			var giveUp func(error) (mcp.Result, error)
			if !engineTools[r.Params.Name] {
				giveUp = func(err error) (mcp.Result, error) { return errorResult(err), nil }
			}
			res, err := s.withDeadline(ctx, timeout, flag, giveUp, func(ctx context.Context) (mcp.Result, error) {
				return next(ctx, method, req)
			})
			return s.boundErrors(res, err, long)
		case *mcp.ReadResourceRequest:
			giveUp := func(err error) (mcp.Result, error) { return nil, err }
			return s.withDeadline(ctx, s.opts.ReadTimeout, "--read-timeout", giveUp, func(ctx context.Context) (mcp.Result, error) {
				return next(ctx, method, req)
			})
		case *mcp.GetPromptRequest:
			if r.Params != nil {
				for k, v := range r.Params.Arguments {
					if len(k) > maxArgBytes || len(v) > maxArgBytes {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: tooLong(k, max(len(k), len(v)))}
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}

func tooLong(key string, n int) string {
	return fmt.Sprintf("argument %s is %d bytes: at most %d", term.Quote(key), n, maxArgBytes)
}

// longStrings returns the tool name and every string of the arguments
// (keys included) longer than term.QuoteMax, the ones an error must not
// echo whole; one longer than maxArgBytes is an error.
func longStrings(name string, args any) ([]string, error) {
	if len(name) > maxArgBytes {
		return nil, fmt.Errorf("tool name %s is %d bytes: at most %d", term.Quote(name), len(name), maxArgBytes)
	}
	var v any = args
	if raw, ok := args.(json.RawMessage); ok && len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, nil // the SDK says what is wrong with it
		}
	}
	var long []string
	if len(name) > term.QuoteMax {
		long = append(long, name)
	}
	var walk func(key string, v any) error
	walk = func(key string, v any) error {
		switch v := v.(type) {
		case string:
			if len(v) > maxArgBytes {
				return errors.New(tooLong(key, len(v)))
			}
			if len(v) > term.QuoteMax {
				long = append(long, v)
			}
		case map[string]any:
			for k, e := range v {
				if len(k) > maxArgBytes {
					return errors.New(tooLong(k, len(k)))
				}
				if len(k) > term.QuoteMax {
					long = append(long, k)
				}
				if err := walk(k, e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range v {
				if err := walk(key, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", v); err != nil {
		return nil, err
	}
	// The longest first, so that one containing another is shortened whole.
	sort.Slice(long, func(i, j int) bool { return len(long[i]) > len(long[j]) })
	return long, nil
}

// withDeadline runs call under timeout (its cause names flag) and the
// server's life, counted in flight until it returns. With giveUp, the call
// is answered at the deadline with giveUp's result even if call has not
// returned yet; it then ends in the background, counted in flight still.
func (s *Server) withDeadline(ctx context.Context, timeout time.Duration, flag string, giveUp func(error) (mcp.Result, error), call func(context.Context) (mcp.Result, error)) (mcp.Result, error) {
	s.inflight.Add(1)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the call took longer than the server's %s %s", flag, timeout))
	unhook := context.AfterFunc(s.base, cancel)
	release := func() {
		unhook()
		cancel()
		s.inflight.Done()
	}
	if giveUp == nil {
		defer release()
		return call(ctx)
	}
	type answer struct {
		res mcp.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer release()
		res, err := call(ctx)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-ctx.Done():
		// The call's own release cancels ctx right after it answered:
		// both cases may be ready at once, and the answer wins.
		select {
		case a := <-done:
			return a.res, a.err
		default:
		}
		return giveUp(context.Cause(ctx))
	}
}

// errorResult is a tool error with err's text.
func errorResult(err error) *mcp.CallToolResult {
	var r mcp.CallToolResult
	r.SetError(err)
	return &r
}

// boundErrors shortens, in an error, every long argument it quotes, and caps
// its text.
func (s *Server) boundErrors(res mcp.Result, err error, long []string) (mcp.Result, error) {
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return res, &jsonrpc.Error{Code: werr.Code, Message: s.shorten(werr.Message, long), Data: werr.Data}
		}
		return res, errors.New(s.shorten(err.Error(), long))
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return res, nil
	}
	if oversized(r.StructuredContent, s.opts.MaxOutput) {
		// Every tool fits its result to the cap (fit.go): one that did not
		// is a bug, answered with an error rather than over the cap.
		s.log.Error("mcp result over the output cap", "bytes", jsonLen(r.StructuredContent), "max_output", s.opts.MaxOutput)
		return errorResult(fmt.Errorf("the result exceeds the server's --max-output %d bytes", s.opts.MaxOutput)), nil
	}
	if !r.IsError {
		return res, nil
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			t.Text = s.shorten(t.Text, long)
		}
	}
	return res, nil
}

// shorten replaces each long argument in text, quoted (%q) or as it is, by
// its short form (term.Quote, term.Abbrev), then caps the text.
func (s *Server) shorten(text string, long []string) string {
	for _, v := range long {
		text = strings.ReplaceAll(text, strconv.Quote(v), term.Quote(v))
		text = strings.ReplaceAll(text, v, term.Abbrev(v))
	}
	text, _ = s.cap(text)
	return text
}
