package agent

import (
	"bytes"
	"io"
	"sort"
)

// logMask writes agent.log with the agent's own credentials masked. The CLI
// passes its API key to its shell (every command's environment has it), so
// a model that prints the environment puts the key in the stream; the
// workspace must not keep it. The values are known exactly, so they are
// replaced exactly, not guessed by shape. Writes are held back to the end
// of a line, so a key split across two writes is still found.
type logMask struct {
	w       io.Writer
	secrets [][]byte // longest first, so one that contains another wins
	partial []byte
}

// maskedValue replaces a credential in agent.log.
const maskedValue = "[REDACTED]"

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
	if len(m.secrets) == 0 {
		return m.w.Write(p)
	}
	m.partial = append(m.partial, p...)
	end := bytes.LastIndexByte(m.partial, '\n') + 1
	if end == 0 && len(m.partial) > maxHeld {
		// Mask what is complete, then keep back only the bytes a secret
		// still being written could have begun in.
		m.partial = m.mask(m.partial)
		end = len(m.partial) - len(m.secrets[0]) + 1
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
			b = bytes.ReplaceAll(b, s, []byte(maskedValue))
		}
	}
	return b
}

// credentialValues are the values of the agent's own credential variables
// that it is given: what agent.log must not keep.
func (e *Exec) credentialValues() []string {
	var out []string
	for _, k := range e.Def.APIKeyEnv {
		if v := e.getenv(k); v != "" {
			out = append(out, v)
		}
	}
	return out
}
