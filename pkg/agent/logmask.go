package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sort"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
)

// logMask writes agent.log with the agent's own credentials masked. The CLI
// passes its API key to its shell (every command's environment has it), so
// a model that prints the environment puts the key in the stream; the
// workspace must not keep it. The values are known exactly, so they are
// replaced exactly, not guessed by shape. Any other credential the agent
// prints (one it read from a log, a config file or its environment) is
// masked by shape, with redact.Text, as the report that quotes it is.
// Writes are held back to the end of a line, so a key split across two
// writes is still found.
type logMask struct {
	w       io.Writer
	secrets [][]byte // longest first, so one that contains another wins
	partial []byte
}

// minSecret: shorter values are not masked (they would mangle the log and
// are no real key).
const minSecret = 8

// maxHeld bounds a line held back; past it the line is written up to the
// last bytes a secret could still be straddling.
const maxHeld = 1 << 20

func newLogMask(w io.Writer, values []string) *logMask {
	m := &logMask{w: w}
	seen := map[string]bool{}
	for _, v := range values {
		if len(v) >= minSecret && !seen[v] {
			seen[v] = true
			m.secrets = append(m.secrets, []byte(v))
		}
	}
	sort.Slice(m.secrets, func(i, j int) bool { return len(m.secrets[i]) > len(m.secrets[j]) })
	return m
}

func (m *logMask) Write(p []byte) (int, error) {
	m.partial = append(m.partial, p...)
	end := bytes.LastIndexByte(m.partial, '\n') + 1
	if end == 0 && len(m.partial) > maxHeld {
		// Mask what is complete, then keep back only the bytes a secret
		// still being written could have begun in.
		m.partial = m.mask(m.partial)
		end = len(m.partial)
		if len(m.secrets) > 0 {
			end -= len(m.secrets[0]) - 1
		}
	}
	if end > 0 {
		if _, err := m.w.Write(m.mask(m.partial[:end])); err != nil {
			return 0, err
		}
		m.partial = append(m.partial[:0], m.partial[end:]...)
	}
	return len(p), nil
}

// Flush writes what is held back (a last line without a newline).
func (m *logMask) Flush() error {
	if len(m.partial) == 0 {
		return nil
	}
	_, err := m.w.Write(m.mask(m.partial))
	m.partial = m.partial[:0]
	return err
}

func (m *logMask) mask(b []byte) []byte {
	for _, s := range m.secrets {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, []byte(redact.Mask))
		}
	}
	if text, n := redact.Text(string(b)); n > 0 {
		b = []byte(text)
	}
	return b
}

// credentialValues are the agent's own credentials, what agent.log must
// not keep: the values of its API key variables and the secret fields of
// its login files (OAuth access, refresh and id tokens, a stored key), which
// its in-memory home holds a copy of, so its shell can cat them. A token the
// CLI refreshes during the run is new and not known here.
func (e *Exec) credentialValues() []string {
	var out []string
	for _, k := range e.Def.APIKeyEnv {
		if v := e.getenv(k); v != "" {
			out = append(out, v)
		}
	}
	for _, f := range e.Def.LoginFiles {
		data, err := os.ReadFile(expandHome(f, e.home()))
		if err != nil || len(data) > 1<<20 {
			continue
		}
		var v any
		if json.Unmarshal(data, &v) == nil {
			out = secretFields(v, "", out)
		}
	}
	return out
}

// secretFields appends the string values under keys whose names say they
// are credentials (accessToken, refresh_token, OPENAI_API_KEY, …).
func secretFields(v any, key string, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			out = secretFields(c, k, out)
		}
	case []any:
		for _, c := range x {
			out = secretFields(c, key, out)
		}
	case string:
		if redact.IsSensitiveName(key) {
			out = append(out, x)
		}
	}
	return out
}
