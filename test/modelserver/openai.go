package modelserver

import (
	"encoding/json"
	"net/http"
	"time"
)

// The OpenAI Responses API (POST /v1/responses), as documented at
// https://platform.openai.com/docs/api-reference/responses-streaming: a
// streamed reply is response.created, per output item
// response.output_item.added / (response.output_text.delta) /
// response.output_item.done, then response.completed carrying the response
// with its usage. codex reads the items from output_item.done and ends the
// turn on response.completed.

type openaiRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Stream       bool              `json:"stream"`
	Input        []json.RawMessage `json:"input"`
	Tools        []openaiTool      `json:"tools"`
}

// openaiTool is a tool offered: a function, a custom (freeform) tool, a
// hosted one named by its type, or a namespace of tools (codex ≥ 0.16x sends
// its tools in an "additional_tools" input item as namespaces).
type openaiTool struct {
	Type       string         `json:"type"`
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters"`
	Tools      []openaiTool   `json:"tools"`
}

func (s *Server) openai(w http.ResponseWriter, body []byte, e *Entry) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	e.System = req.Instructions
	schemas := map[string]map[string]any{}
	var offer func([]openaiTool)
	offer = func(tools []openaiTool) {
		for _, t := range tools {
			if t.Type == "namespace" {
				offer(t.Tools)
				continue
			}
			name := t.Name
			if name == "" {
				name = t.Type // local_shell, web_search, … carry no name
			}
			e.Tools = append(e.Tools, name)
			schemas[name] = t.Parameters
		}
	}
	offer(req.Tools)
	for _, raw := range req.Input {
		var item map[string]any
		if json.Unmarshal(raw, &item) != nil {
			continue
		}
		switch item["type"] {
		case "additional_tools":
			var at struct {
				Tools []openaiTool `json:"tools"`
			}
			json.Unmarshal(raw, &at)
			offer(at.Tools)
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			e.Results = append(e.Results, textOf(item["output"]))
		case "message":
			// The developer/system messages carry instructions too.
			if role := item["role"]; role == "developer" || role == "system" {
				if e.System != "" {
					e.System += "\n"
				}
				e.System += textOf(item["content"])
			}
		}
	}

	var item map[string]any
	tool := shellTool(e.Tools)
	switch t := s.next(e.Results); {
	case tool == "":
		e.Reply = "text"
		item = openaiMessage("Triage of a Kubernetes resource")
	case t.command != "":
		e.Reply = "tool:" + t.command
		args, _ := json.Marshal(shellArgs(schemas[tool], t.command))
		item = map[string]any{"type": "function_call", "id": newID("fc"), "call_id": newID("call"), "name": tool, "arguments": string(args), "status": "completed"}
		switch tool {
		case "exec":
			// codex's code mode: one freeform tool running JavaScript that
			// calls the nested tools; the shell is tools.exec_command, whose
			// result is {output, exit_code, …}: both go back, as a model
			// would read them.
			js, _ := json.Marshal(t.command)
			item = map[string]any{"type": "custom_tool_call", "id": newID("ctc"), "call_id": newID("call"), "name": tool, "status": "completed",
				"input": "const r = await tools.exec_command({cmd: " + string(js) + "});\ntext(r.output ?? JSON.stringify(r));\n" +
					"if (r.exit_code !== undefined) text(\"Process exited with code \" + r.exit_code);\n"}
		case "local_shell":
			item = map[string]any{"type": "local_shell_call", "id": newID("lsc"), "call_id": newID("call"), "status": "completed",
				"action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", t.command}}}
		}
	default:
		e.Reply = "report"
		item = openaiMessage(t.report)
	}
	model := req.Model
	if model == "" {
		model = "gpt-scripted"
	}
	id := newID("resp")
	resp := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "model": model, "status": "in_progress", "output": []any{}}
	if !req.Stream {
		resp["status"], resp["output"], resp["usage"] = "completed", []any{item}, openaiUsage(len(body))
		writeJSON(w, resp)
		return
	}
	out := newSSE(w)
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		out.event(name, data)
	}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	if item["type"] == "message" {
		text := item["content"].([]map[string]any)[0]["text"].(string)
		for _, piece := range chunks(text, 200) {
			ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": piece})
		}
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	done := map[string]any{}
	for k, v := range resp {
		done[k] = v
	}
	done["status"], done["output"], done["usage"] = "completed", []any{item}, openaiUsage(len(body))
	ev("response.completed", map[string]any{"response": done})
}

func openaiMessage(text string) map[string]any {
	return map[string]any{"type": "message", "id": newID("msg"), "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func openaiUsage(n int) map[string]any {
	return map[string]any{"input_tokens": n / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": n/4 + 10}
}

// shellArgs fills the shell tool's arguments the way its schema asks: an
// argv array ("shell"), a command string ("shell_command") or "cmd"
// ("exec_command").
func shellArgs(schema map[string]any, command string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props["cmd"]; ok {
		return map[string]any{"cmd": command}
	}
	if p, ok := props["command"].(map[string]any); ok && p["type"] == "array" {
		return map[string]any{"command": []string{"bash", "-lc", command}}
	}
	return map[string]any{"command": command}
}
