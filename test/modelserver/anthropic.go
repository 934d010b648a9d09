package modelserver

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Anthropic Messages API (POST /v1/messages), as documented at
// https://docs.anthropic.com/en/api/messages and .../messages-streaming:
// a streamed reply is message_start, per content block a
// content_block_start / _delta (text_delta or input_json_delta) / _stop,
// then message_delta with the stop_reason and message_stop.

type anthropicRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Stream   bool            `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		Type        string         `json:"type"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
}

func (s *Server) anthropic(w http.ResponseWriter, body []byte, e *Entry) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	e.System = anthropicText(req.System)
	for _, t := range req.Tools {
		e.Tools = append(e.Tools, t.Name)
	}
	for _, m := range req.Messages {
		var blocks []map[string]any
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				e.Results = append(e.Results, textOf(b["content"]))
			}
		}
	}

	var content []map[string]any
	stop := "end_turn"
	tool := shellTool(e.Tools)
	switch t := s.next(e.Results); {
	case tool == "":
		// A side request (a title, a summary): a short plain answer.
		e.Reply = "text"
		content = []map[string]any{{"type": "text", "text": "Triage of a Kubernetes resource"}}
	case t.command != "":
		e.Reply = "tool:" + t.command
		stop = "tool_use"
		content = []map[string]any{{"type": "tool_use", "id": newID("toolu"), "name": tool,
			"input": map[string]any{"command": t.command, "description": "Run " + t.command}}}
	default:
		e.Reply = "report"
		content = []map[string]any{{"type": "text", "text": t.report}}
	}
	model := req.Model
	if model == "" {
		model = "claude-scripted"
	}
	id := newID("msg")
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	out := newSSE(w)
	out.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	out.event("ping", map[string]any{"type": "ping"})
	for i, c := range content {
		switch c["type"] {
		case "text":
			out.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range chunks(c["text"].(string), 200) {
				out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "tool_use":
			out.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			args, _ := json.Marshal(c["input"])
			out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		}
		out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	out.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	out.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicText flattens a system field: a string or a list of text blocks.
func anthropicText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
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

// chunks splits s into pieces of at most n bytes on rune boundaries, so a
// streamed text arrives in several deltas as it does from the real API.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !isRuneStart(s[i]) {
			i--
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
