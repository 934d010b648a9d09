package term

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

type uid string

// Log records quote object names and errors: with CleanAttr, the JSON and
// text handlers write no hidden or control character, in values, lists,
// errors, groups, the message or keys.
func TestCleanAttr(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			opts := &slog.HandlerOptions{ReplaceAttr: CleanAttr}
			h := slog.Handler(slog.NewJSONHandler(&buf, opts))
			if format == "text" {
				h = slog.NewTextHandler(&buf, opts)
			}
			log := slog.New(h).With("cluster", "prod\u2066")
			log.WithGroup("obj").Info("incident created\u202e", "resource", "Pod/api\u202egnp.sh", "uid", uid("u\u200b1"),
				"error", errors.New("get pod\x1b[2J: not found\U000E0041"), "command", []string{"claude", "-p\u2069"},
				"key\u200b", 1, "emoji", "👩‍💻 ❤️")
			out := buf.String()
			emoji := "👩‍💻 ❤️"
			if format == "text" {
				emoji = `👩\u200d💻 ❤️` // slog quotes what is not printable
			}
			for _, want := range []string{"Pod/api<U+202E>gnp.sh", "incident created<U+202E>", "u<U+200B>1", "prod<U+2066>", "-p<U+2069>", "not found<U+E0041>", "key<U+200B>", emoji} {
				if !strings.Contains(out, want) {
					t.Errorf("the log lacks %q:\n%s", want, out)
				}
			}
			for _, r := range out {
				if (Hidden(r) && r != 0x200d && r != 0xfe0f) || r == 0x1b {
					t.Errorf("the log keeps %U:\n%s", r, out)
				}
			}
			if format == "json" && !json.Valid(buf.Bytes()) {
				t.Errorf("not JSON: %s", out)
			}
		})
	}
}
