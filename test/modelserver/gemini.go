package modelserver

import (
	"encoding/json"
	"net/http"
)

// The Gemini API (models/NAME:generateContent and
// :streamGenerateContent?alt=sse), as documented at
// https://ai.google.dev/api/generate-content: a streamed reply is a series
// of data-only events, each a GenerateContentResponse; the last carries the
// finishReason and usageMetadata. A tool call is a functionCall part, its
// result comes back as a functionResponse part.

type geminiRequest struct {
	Contents []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []map[string]any `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseSchema     map[string]any `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (s *Server) gemini(w http.ResponseWriter, body []byte, stream bool, e *Entry) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"bad json","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	if req.SystemInstruction != nil {
		e.System = textOf(toAny(req.SystemInstruction.Parts))
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			e.Tools = append(e.Tools, f.Name)
		}
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				e.Results = append(e.Results, textOf(fr["response"]))
			}
		}
	}

	var part map[string]any
	tool := shellTool(e.Tools)
	switch t := s.next(e.Results); {
	case req.GenerationConfig.ResponseMimeType == "application/json":
		// A side request that wants JSON (routing, next-speaker and loop
		// checks): an answer that satisfies the schema's required fields.
		e.Reply = "json"
		schema := req.GenerationConfig.ResponseJSONSchema
		if schema == nil {
			schema = req.GenerationConfig.ResponseSchema
		}
		b, _ := json.Marshal(fillSchema(schema))
		part = map[string]any{"text": string(b)}
	case tool == "":
		e.Reply = "text"
		part = map[string]any{"text": "Triage of a Kubernetes resource"}
	case t.command != "":
		e.Reply = "tool:" + t.command
		part = map[string]any{"functionCall": map[string]any{"name": tool, "args": map[string]any{"command": t.command, "description": "Run " + t.command}}}
	default:
		e.Reply = "report"
		part = map[string]any{"text": t.report}
	}
	usage := map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 10, "totalTokenCount": len(body)/4 + 10}
	final := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": "gemini-scripted", "responseId": newID("gem"),
	}
	if !stream {
		writeJSON(w, final)
		return
	}
	out := newSSE(w)
	if text, ok := part["text"].(string); ok && e.Reply == "report" {
		pieces := chunks(text, 200)
		for _, piece := range pieces[:len(pieces)-1] {
			out.event("", map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": piece}}}, "index": 0}},
				"modelVersion": "gemini-scripted"})
		}
		final["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"] = []any{map[string]any{"text": pieces[len(pieces)-1]}}
	}
	out.event("", final)
}

// fillSchema makes a value satisfying a JSON schema's required properties:
// the first enum value, else an empty value of the type.
func fillSchema(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schema["type"] {
	case "object", "OBJECT":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			if sub, ok := v.(map[string]any); ok {
				out[k] = fillSchema(sub)
			}
		}
		return out
	case "array", "ARRAY":
		return []any{}
	case "boolean", "BOOLEAN":
		return false
	case "number", "integer", "NUMBER", "INTEGER":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1 // scores and counts start at 1
	default:
		return "scripted"
	}
}

func toAny(parts []map[string]any) []any {
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}
