package agent

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// baseURLs are the model endpoints the user set for this CLI: the values of
// its BaseURLEnv variables, then the BaseURLConfig settings in its own
// config files (codex 0.169 reads its endpoint only from config.toml).
func (e *Exec) baseURLs() []string {
	var out []string
	for _, name := range e.Def.BaseURLEnv {
		if v := e.getenv(name); v != "" {
			out = append(out, v)
		}
	}
	for _, c := range e.Def.BaseURLConfig {
		file, key, _ := strings.Cut(c, "#")
		data, err := os.ReadFile(expandHome(file, e.home()))
		if err != nil {
			continue
		}
		if v := topLevelString(data, key, strings.HasSuffix(file, ".json")); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// topLevelString reads a top-level string setting: a JSON object's key, or
// a TOML `key = "value"` line before the first [table].
func topLevelString(data []byte, key string, isJSON bool) string {
	if isJSON {
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			if s, ok := m[key].(string); ok {
				return s
			}
		}
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			break // the rest belongs to tables
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.Trim(strings.TrimSpace(k), `"'`) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if lit, ok := strings.CutPrefix(v, "'"); ok {
			s, _, _ := strings.Cut(lit, "'") // a literal string: no escapes
			return s
		}
		if q, err := strconv.QuotedPrefix(v); err == nil {
			s, _ := strconv.Unquote(q)
			return s
		}
	}
	return ""
}
