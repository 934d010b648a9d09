package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// streamEvent is what a dialect parser makes of one line of agent output.
type streamEvent struct {
	Progress string // a tool call or step, shown live on stderr
	Text     string // assistant text; the last one is a fallback report
	Delta    bool   // Text continues the previous assistant text
	Result   string // the final result message
	IsError  bool   // the final result reports an error
	// Tools are the tool calls started and the results that came back on
	// this line (a claude line can carry several).
	Tools []toolEvent
	// Usage is what the line reports of the run's cost, if anything.
	Usage *usage
}

// usage is a stream line's cost figures. Total lines (claude's and
// gemini's final result) replace what came before; the others (codex's
// per-turn usage) add to it.
type usage struct {
	Total             bool
	In, Out, CachedIn int64
	Turns             int // 0: not reported (inferred from the stream instead)
	CostUSD           float64
	Stopped           string // a limit of the CLI's own ended the run
}

// toolEvent is a tool call starting (Call set) or its result (Done).
type toolEvent struct {
	ID     string // joins a result to its call; may be empty
	Call   string // the call as one line, e.g. "Bash: kubectl get pods -n shop"
	Done   bool
	Failed string // on a result: why the call failed ("exit 127: … command not found", "denied by the CLI's policy")
}

// ToolCalls follows one run's tool calls to their results, so a failed call
// (a command not found, a non-zero exit, a call the CLI's policy denied, a
// request the read-only gateway refused) shows as failed in the progress
// and is counted for the report footer.
type ToolCalls struct {
	Calls, Failed int
	// Refused are the failed calls the CLI's own policy denied: they never
	// ran.
	Refused int
	// Failures are the failed calls as progress shows them, in order.
	Failures []string

	pending map[string]string // call id → description
	last    string            // the last call, for results without an id
}

// observe records one tool event and returns the progress line for a
// failure ("" otherwise; calls are already shown as they start).
func (t *ToolCalls) observe(ev toolEvent) string {
	if t.pending == nil {
		t.pending = map[string]string{}
	}
	if !ev.Done {
		t.Calls++
		t.last = ev.Call
		if ev.ID != "" {
			t.pending[ev.ID] = ev.Call
		}
		return ""
	}
	call := ev.Call
	if _, ok := t.pending[ev.ID]; !ok && call != "" {
		t.Calls++ // a call reported only when it ended
	}
	if call == "" {
		if c, ok := t.pending[ev.ID]; ok && ev.ID != "" {
			call = c
		} else {
			call = t.last
		}
	}
	delete(t.pending, ev.ID)
	if ev.Failed == "" {
		return ""
	}
	t.Failed++
	if refusal(ev.Failed) {
		t.Refused++
	}
	line := "failed: " + orDefault(call, "tool call") + " (" + ev.Failed + ")"
	t.Failures = append(t.Failures, line)
	return line
}

// Summary is the footer line, e.g. "7 tool calls, 2 failed"; "" when the
// agent called no tool.
func (t *ToolCalls) Summary() string {
	if t.Calls == 0 {
		return ""
	}
	plural := "s"
	if t.Calls == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d tool call%s, %d failed", t.Calls, plural, t.Failed)
}

// refusal: a failure reason that says the CLI's policy denied the call.
func refusal(reason string) bool {
	return strings.HasPrefix(reason, "denied by") || strings.HasPrefix(reason, "declined by")
}

type streamParser func(line []byte) (streamEvent, bool)

// streamParsers reads each CLI's JSON lines. Unknown lines are ignored; the
// raw stream always goes to agent.log.
var streamParsers = map[string]streamParser{
	"":       func([]byte) (streamEvent, bool) { return streamEvent{}, false },
	"claude": parseClaude,
	"codex":  parseCodex,
	"gemini": parseGemini,
	"goose":  parseGoose,
}

func streamNames() []string {
	var out []string
	for k := range streamParsers {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// describeTool renders a tool call as one progress line, e.g.
// "Bash: kubectl get events -n shop".
func describeTool(name string, input map[string]any) string {
	for _, k := range []string{"command", "cmd", "file_path", "path", "pattern", "query", "url"} {
		if v, ok := input[k]; ok {
			switch s := v.(type) {
			case string:
				return name + ": " + oneLine(s)
			case []any:
				var parts []string
				for _, p := range s {
					parts = append(parts, fmt.Sprint(p))
				}
				return name + ": " + oneLine(strings.Join(parts, " "))
			}
		}
	}
	return name
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// parseClaude reads Claude Code's --output-format stream-json: tool calls
// are tool_use blocks of assistant messages, their results tool_result
// blocks of the user messages that follow (is_error marks a failure: a
// non-zero exit or a call its permission mode denied).
func parseClaude(line []byte) (streamEvent, bool) {
	var m struct {
		Type     string  `json:"type"`
		Subtype  string  `json:"subtype"`
		Result   string  `json:"result"`
		IsError  bool    `json:"is_error"`
		NumTurns int     `json:"num_turns"`
		CostUSD  float64 `json:"total_cost_usd"`
		Usage    struct {
			In            int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Out           int64 `json:"output_tokens"`
		} `json:"usage"`
		Message struct {
			Content []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     map[string]any  `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "assistant":
		var ev streamEvent
		var calls []string
		for _, c := range m.Message.Content {
			switch c.Type {
			case "tool_use":
				call := describeTool(c.Name, c.Input)
				calls = append(calls, call)
				ev.Tools = append(ev.Tools, toolEvent{ID: c.ID, Call: call})
			case "text":
				ev.Text = c.Text
			}
		}
		ev.Progress = strings.Join(calls, "; ")
		return ev, ev.Progress != "" || ev.Text != ""
	case "user":
		var ev streamEvent
		for _, c := range m.Message.Content {
			if c.Type != "tool_result" {
				continue
			}
			te := toolEvent{ID: c.ToolUseID, Done: true}
			if c.IsError {
				te.Failed = claudeFailure(rawText(c.Content))
			}
			ev.Tools = append(ev.Tools, te)
		}
		return ev, len(ev.Tools) > 0
	case "result":
		u := &usage{Total: true, In: m.Usage.In + m.Usage.CacheCreation + m.Usage.CacheRead, Out: m.Usage.Out,
			CachedIn: m.Usage.CacheRead, Turns: m.NumTurns, CostUSD: m.CostUSD}
		switch m.Subtype {
		case "error_max_turns":
			u.Stopped = "max turns reached"
		case "error_max_budget_usd":
			u.Stopped = "max budget reached"
		}
		return streamEvent{Result: m.Result, IsError: m.IsError || (m.Subtype != "" && m.Subtype != "success"), Progress: "finished: " + orDefault(m.Subtype, "result"), Usage: u}, true
	}
	return streamEvent{}, false
}

// claudeFailure says why a tool_result with is_error failed: "Exit code N"
// then the output, or the permission mode's refusal.
func claudeFailure(text string) string {
	text = strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(text, "Permission to use") || strings.Contains(text, "requested permissions") || strings.Contains(text, "has been denied"):
		return "denied by the CLI's permission policy"
	case strings.HasPrefix(text, "Exit code "):
		first, rest, _ := strings.Cut(text, "\n")
		return "exit " + strings.TrimPrefix(first, "Exit code ") + withReason(rest)
	}
	return orDefault(firstLine(text), "error")
}

// rawText flattens a tool result's content: a string or text blocks.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// withReason appends ": <the telling line of output>" when there is one.
func withReason(output string) string {
	if l := tellingLine(output); l != "" {
		return ": " + l
	}
	return ""
}

// tellingLine picks the line of a failed command's output that says why:
// an error line if there is one, else the last non-empty line.
func tellingLine(output string) string {
	var last string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if shellError(l) {
			return clipLine(l)
		}
		last = l
	}
	return clipLine(last)
}

// shellError recognises the lines a failed command prints: the shell's
// own errors ("command not found", "bash: line 4: FILE: No such file or
// directory"), kubectl's "error: …" and "Error from server (…)" (a request
// the read-only gateway refused is "Error from server (Forbidden)"), and
// curl's "curl: (7) Failed to connect …" (the API server unreachable from
// the sandbox; "(56) CONNECT tunnel failed, response 403": the egress proxy
// refused it).
func shellError(l string) bool {
	return strings.Contains(l, "command not found") || strings.HasPrefix(l, "error: ") ||
		strings.HasPrefix(l, "Error from server") || strings.HasPrefix(l, "Unable to connect to the server") ||
		strings.HasPrefix(l, "The connection to the server") || shellErrorLine.MatchString(l)
}

var shellErrorLine = regexp.MustCompile(`^(?:(?:\S*/)?(?:ba|da|z)?sh: |curl: \(\d+\) )`)

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return clipLine(first)
}

func clipLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// parseCodex reads `codex exec --json` JSONL events: a shell command is a
// command_execution item, started and then completed with its exit code
// and a status of completed, failed or declined (refused by codex's policy).
func parseCodex(line []byte) (streamEvent, bool) {
	var m struct {
		Type string `json:"type"`
		Item struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Text     string `json:"text"`
			Command  string `json:"command"`
			Status   string `json:"status"`
			ExitCode *int   `json:"exit_code"`
			Output   string `json:"aggregated_output"`
		} `json:"item"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
		Usage   struct {
			In       int64 `json:"input_tokens"`
			CachedIn int64 `json:"cached_input_tokens"`
			Out      int64 `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "item.started":
		if m.Item.Type == "command_execution" {
			call := "shell: " + oneLine(m.Item.Command)
			return streamEvent{Progress: call, Tools: []toolEvent{{ID: m.Item.ID, Call: call}}}, true
		}
	case "item.completed":
		switch m.Item.Type {
		case "agent_message":
			return streamEvent{Text: m.Item.Text}, true
		case "command_execution":
			te := toolEvent{ID: m.Item.ID, Call: "shell: " + oneLine(m.Item.Command), Done: true}
			switch {
			case m.Item.Status == "declined":
				te.Failed = "declined by the CLI's policy"
			case m.Item.ExitCode != nil && *m.Item.ExitCode != 0:
				te.Failed = fmt.Sprintf("exit %d", *m.Item.ExitCode) + withReason(m.Item.Output)
			case m.Item.Status == "failed":
				te.Failed = "failed" + withReason(m.Item.Output)
			}
			return streamEvent{Tools: []toolEvent{te}}, true
		}
	case "turn.failed", "error":
		msg := m.Error.Message
		if msg == "" {
			msg = m.Message
		}
		return streamEvent{Progress: "error: " + oneLine(msg), IsError: true}, true
	case "turn.completed":
		// OpenAI's input_tokens include the cached ones.
		return streamEvent{Progress: "finished", Usage: &usage{In: m.Usage.In, CachedIn: m.Usage.CachedIn, Out: m.Usage.Out}}, true
	}
	return streamEvent{}, false
}

// parseGemini reads Gemini CLI's --output-format stream-json: tool_use,
// then tool_result with a status of success or error (error.type
// policy_violation: denied by its policy). A shell command that exited
// non-zero is still "success" there (the exit code goes to the model only),
// so its output is searched for the error lines failed commands print.
func parseGemini(line []byte) (streamEvent, bool) {
	var m struct {
		Type       string         `json:"type"`
		Role       string         `json:"role"`
		Content    string         `json:"content"`
		Delta      bool           `json:"delta"`
		ToolName   string         `json:"tool_name"`
		ToolID     string         `json:"tool_id"`
		Parameters map[string]any `json:"parameters"`
		Status     string         `json:"status"`
		Output     string         `json:"output"`
		Response   string         `json:"response"`
		Error      struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		Stats struct {
			In     int64 `json:"input_tokens"`
			Out    int64 `json:"output_tokens"`
			Cached int64 `json:"cached"`
		} `json:"stats"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "tool_use":
		call := describeTool(m.ToolName, m.Parameters)
		return streamEvent{Progress: call, Tools: []toolEvent{{ID: m.ToolID, Call: call}}}, true
	case "tool_result":
		te := toolEvent{ID: m.ToolID, Done: true}
		switch {
		case m.Status == "error" && m.Error.Type == "policy_violation":
			te.Failed = "denied by the CLI's policy"
		case m.Status == "error":
			te.Failed = orDefault(clipLine(orDefault(m.Error.Message, m.Output)), "error")
		default:
			for _, l := range strings.Split(m.Output, "\n") {
				if l = strings.TrimSpace(l); shellError(l) {
					te.Failed = clipLine(l)
					break
				}
			}
		}
		return streamEvent{Tools: []toolEvent{te}}, true
	case "message":
		if m.Role == "assistant" && m.Content != "" {
			return streamEvent{Text: m.Content, Delta: m.Delta}, true
		}
	case "result":
		return streamEvent{Result: m.Response, IsError: m.Status == "error", Progress: "finished: " + orDefault(m.Status, "result"),
			Usage: &usage{Total: true, In: m.Stats.In, Out: m.Stats.Out, CachedIn: m.Stats.Cached}}, true
	}
	return streamEvent{}, false
}

// parseGoose reads goose run --output-format stream-json.
func parseGoose(line []byte) (streamEvent, bool) {
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Role    string `json:"role"`
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ToolCall *struct {
					Value struct {
						Name      string         `json:"name"`
						Arguments map[string]any `json:"arguments"`
					} `json:"value"`
				} `json:"toolCall"`
			} `json:"content"`
		} `json:"message"`
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "message":
		var ev streamEvent
		for _, c := range m.Message.Content {
			switch {
			case c.Type == "toolRequest" && c.ToolCall != nil:
				ev.Progress = describeTool(c.ToolCall.Value.Name, c.ToolCall.Value.Arguments)
			case c.Type == "text" && m.Message.Role == "assistant":
				ev.Text = c.Text
			}
		}
		return ev, ev.Progress != "" || ev.Text != ""
	case "error":
		return streamEvent{Progress: "error: " + oneLine(m.Error), IsError: true}, true
	case "complete":
		return streamEvent{Progress: "finished"}, true
	}
	return streamEvent{}, false
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
