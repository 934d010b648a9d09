package agent

import (
	"encoding/json"
	"fmt"
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

// parseClaude reads Claude Code's --output-format stream-json.
func parseClaude(line []byte) (streamEvent, bool) {
	var m struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
		Message struct {
			Content []struct {
				Type  string         `json:"type"`
				Text  string         `json:"text"`
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "assistant":
		var ev streamEvent
		for _, c := range m.Message.Content {
			switch c.Type {
			case "tool_use":
				ev.Progress = describeTool(c.Name, c.Input)
			case "text":
				ev.Text = c.Text
			}
		}
		return ev, ev.Progress != "" || ev.Text != ""
	case "result":
		return streamEvent{Result: m.Result, IsError: m.IsError || (m.Subtype != "" && m.Subtype != "success"), Progress: "finished: " + orDefault(m.Subtype, "result")}, true
	}
	return streamEvent{}, false
}

// parseCodex reads `codex exec --json` JSONL events.
func parseCodex(line []byte) (streamEvent, bool) {
	var m struct {
		Type string `json:"type"`
		Item struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Command string `json:"command"`
		} `json:"item"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "item.started":
		if m.Item.Type == "command_execution" {
			return streamEvent{Progress: "shell: " + oneLine(m.Item.Command)}, true
		}
	case "item.completed":
		if m.Item.Type == "agent_message" {
			return streamEvent{Text: m.Item.Text}, true
		}
	case "turn.failed", "error":
		msg := m.Error.Message
		if msg == "" {
			msg = m.Message
		}
		return streamEvent{Progress: "error: " + oneLine(msg), IsError: true}, true
	case "turn.completed":
		return streamEvent{Progress: "finished"}, true
	}
	return streamEvent{}, false
}

// parseGemini reads Gemini CLI's --output-format stream-json.
func parseGemini(line []byte) (streamEvent, bool) {
	var m struct {
		Type       string         `json:"type"`
		Role       string         `json:"role"`
		Content    string         `json:"content"`
		Delta      bool           `json:"delta"`
		ToolName   string         `json:"tool_name"`
		Parameters map[string]any `json:"parameters"`
		Status     string         `json:"status"`
		Response   string         `json:"response"`
	}
	if json.Unmarshal(line, &m) != nil {
		return streamEvent{}, false
	}
	switch m.Type {
	case "tool_use":
		return streamEvent{Progress: describeTool(m.ToolName, m.Parameters)}, true
	case "message":
		if m.Role == "assistant" && m.Content != "" {
			return streamEvent{Text: m.Content, Delta: m.Delta}, true
		}
	case "result":
		return streamEvent{Result: m.Response, IsError: m.Status == "error", Progress: "finished: " + orDefault(m.Status, "result")}, true
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
