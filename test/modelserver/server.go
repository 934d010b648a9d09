// Package modelserver is a scripted stand-in for the model APIs the real
// agent CLIs call (Anthropic Messages, OpenAI Responses, Gemini
// generateContent), on loopback, so the end-to-end tests run claude, codex
// and gemini as installed from npm without any vendor account.
//
// A Script is a list of shell commands and a final report. Each request is
// answered from what it carries, not from server state: a request that
// holds k tool results gets the (k+1)th command as a call of the shell tool
// it offers, and once every command has a result, the final report, which
// quotes those results, so a test can prove the commands really ran. Side
// requests a CLI makes (titles, summaries, routing) get a short text.
//
// Every request is appended to the log as one JSON line (Entry): the
// system instructions, the tool names offered and the body, with the API key
// headers left out.
package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Script is what the model says.
type Script struct {
	// Commands are run one per turn through the shell tool the CLI offers.
	Commands []string
	// Report renders the final message from the tool results (one per
	// command, in order). Nil: DefaultReport.
	Report func(results []string) string
}

// DefaultReport is a valid triage report that quotes every tool result.
func DefaultReport(commands []string) func([]string) string {
	return func(results []string) string {
		var b strings.Builder
		b.WriteString("# Triage: scripted model\n\n## Summary\nThe scripted model ran ")
		fmt.Fprintf(&b, "%d command(s) and quotes what came back.\n\n", len(results))
		b.WriteString("## Root cause\n**The scripted root cause** (probable, 0.6)\n\n## Evidence\n")
		for i, r := range results {
			cmd := ""
			if i < len(commands) {
				cmd = commands[i]
			}
			fmt.Fprintf(&b, "\nTool result %d (`%s`):\n\n```\n%s\n```\n", i+1, cmd, clip(r, 4000))
		}
		return b.String()
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "\n…"
	}
	return s
}

// Entry is one logged request.
type Entry struct {
	Time    time.Time         `json:"time"`
	API     string            `json:"api"` // anthropic, openai, gemini or unknown
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Headers map[string]string `json:"headers"`
	// System is the system instructions the request carried, Tools the
	// names of the tools it offered, Results the tool results it held.
	System  string          `json:"system,omitempty"`
	Tools   []string        `json:"tools,omitempty"`
	Results []string        `json:"results,omitempty"`
	Reply   string          `json:"reply,omitempty"` // what the server answered: tool:<command>, report, text, …
	Body    json.RawMessage `json:"body,omitempty"`
}

// secretHeaders are never logged.
var secretHeaders = map[string]bool{"authorization": true, "x-api-key": true, "x-goog-api-key": true, "cookie": true, "proxy-authorization": true, "chatgpt-account-id": true}

// Server serves a Script on loopback.
type Server struct {
	Script Script
	// URL is the base URL (http://127.0.0.1:PORT); each CLI's base-URL
	// setting takes it with the path prefix it expects (see the e2e tests).
	URL string

	mu      sync.Mutex
	log     io.Writer
	entries []Entry
	srv     *http.Server
	ln      net.Listener
}

// Start serves script on 127.0.0.1 (addr "" picks a free port) and appends
// the request log to logPath when it is not empty.
func Start(addr string, script Script, logPath string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s := &Server{Script: script}
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open request log: %w", err)
		}
		s.log = f
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and closes the log.
func (s *Server) Close() error {
	err := s.srv.Close()
	if c, ok := s.log.(io.Closer); ok {
		c.Close()
	}
	return err
}

// Entries returns a copy of the requests seen so far.
func (s *Server) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

func (s *Server) record(e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, e)
	if s.log != nil {
		line, _ := json.Marshal(e)
		s.log.Write(append(line, '\n'))
	}
}

// turn is what the model does next for a request that offered tools and
// carried results.
type turn struct {
	command string // run this through the shell tool; empty: final report
	report  string
}

func (s *Server) next(results []string) turn {
	if len(results) < len(s.Script.Commands) {
		return turn{command: s.Script.Commands[len(results)]}
	}
	report := s.Script.Report
	if report == nil {
		report = DefaultReport(s.Script.Commands)
	}
	return turn{report: report(results)}
}

// ServeHTTP logs the request and dispatches on the API its path names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	e := Entry{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Headers: map[string]string{}}
	for k, v := range r.Header {
		if !secretHeaders[strings.ToLower(k)] {
			e.Headers[strings.ToLower(k)] = strings.Join(v, ", ")
		}
	}
	if json.Valid(body) {
		e.Body = body
	} else if len(body) > 0 {
		e.Body, _ = json.Marshal(string(body))
	}
	defer func() { s.record(e) }()

	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		e.API, e.Reply = "anthropic", "count_tokens"
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
	case strings.HasSuffix(p, "/messages") && r.Method == http.MethodPost:
		e.API = "anthropic"
		s.anthropic(w, body, &e)
	case strings.HasSuffix(p, "/responses"):
		e.API = "openai"
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			// Refused, so the CLI falls back to HTTP streaming.
			e.Reply = "websocket refused"
			http.Error(w, "websocket transport not supported", http.StatusUpgradeRequired)
			return
		}
		s.openai(w, body, &e)
	case strings.HasSuffix(p, "/models") && r.Method == http.MethodGet && !strings.Contains(p, "/v1beta/"):
		e.API, e.Reply = "openai", "models"
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	case strings.Contains(p, ":streamGenerateContent"), strings.Contains(p, ":generateContent"):
		e.API = "gemini"
		s.gemini(w, body, strings.Contains(p, ":streamGenerateContent"), &e)
	case strings.Contains(p, ":countTokens"):
		e.API, e.Reply = "gemini", "countTokens"
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
	default:
		e.API, e.Reply = "unknown", "404"
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes Server-Sent Events, flushing each.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w}
}

// event writes one event; name "" writes a data-only event.
func (s *sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// shellTool picks the tool a command runs through among those offered, by
// the CLIs' names for it, best first.
func shellTool(offered []string) string {
	set := map[string]bool{}
	for _, t := range offered {
		set[t] = true
	}
	for _, name := range []string{"Bash", "run_shell_command", "shell_command", "exec_command", "shell", "local_shell", "exec"} {
		if set[name] {
			return name
		}
	}
	return ""
}

// textOf flattens a tool result, whatever shape it came in.
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			parts = append(parts, textOf(p))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		for _, k := range []string{"text", "output", "content", "llmContent", "result"} {
			if v, ok := x[k]; ok {
				return textOf(v)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+": "+textOf(x[k]))
		}
		return strings.Join(parts, "\n")
	default:
		return fmt.Sprint(x)
	}
}

var idSeq struct {
	sync.Mutex
	n int
}

func newID(prefix string) string {
	idSeq.Lock()
	defer idSeq.Unlock()
	idSeq.n++
	return fmt.Sprintf("%s_%06d", prefix, idSeq.n)
}
