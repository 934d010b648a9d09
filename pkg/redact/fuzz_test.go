package redact

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// planted is a line holding a credential that Text must mask wherever the
// line sits, whatever text surrounds it.
type planted struct{ line, secret string }

func plantedLines() []planted {
	return append([]planted{
		{"DB_PASSWORD=" + dbPassword, dbPassword},
		{`{"level":"info","apiKey":"` + awsSecret + `"}`, awsSecret},
		{"  client_secret: " + awsSecret, awsSecret},
		{"Authorization: Bearer " + jwt, jwt},
		{"Authorization: Basic " + basicHeader, basicHeader},
		{"token " + jwt + " issued", jwt},
		{"postgres://app:" + dbPassword + "@db:5432/orders", dbPassword},
		{"key id " + awsKeyID, awsKeyID},
		{"clone https://" + githubPAT + "@github.com/o/r", githubPAT},
		{githubFine, githubFine},
		{"notify " + slackToken, slackToken},
		{"using " + openAIKey, openAIKey},
		{"charge " + stripeKey, stripeKey},
		{rsaKeyPEM, pemBody(rsaKeyPEM)[1]},
		{ecKeyPEM, pemBody(ecKeyPEM)[0]},
		{timestamped(rsaKeyPEM), pemBody(rsaKeyPEM)[2]},
	}, Families()...)
}

// timestamped prefixes every line of s with a kubelet log timestamp.
func timestamped(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "2026-11-26T06:55:01.123456789Z " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// FuzzText checks that Text never panics, keeps valid UTF-8 valid, is
// idempotent, and masks a planted credential whatever text surrounds it;
// and that Clean, the pass reports cross, is idempotent, leaves no hidden
// character and masks the planted credential too.
func FuzzText(f *testing.F) {
	seeds := []string{
		"", "connection refused to db:5432", "password: |", "-----BEGIN RSA PRIVATE KEY-----",
		`{"token":"\"}`, `\"password\":\"`, "Bearer ", "a=b=c&token==x", "eyJ.eyJ.", "://:@", "\xff\xfe",
		"-----BEGIN EC PRIVATE KEY-----\nMHcC\n", `x: "unterminated`, "\r\n\r\n", "$(", "{{",
		"token=\u200bx", "DB_PASSWORD=\u202eabc", "\U000E0049\U000E0047", "\x1b]0;x", "👩\u200d💻",
	}
	for _, p := range plantedLines() {
		seeds = append(seeds, p.line)
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	lines := plantedLines()
	f.Fuzz(func(t *testing.T, noise string, pick uint8) {
		out, n := Text(noise)
		if n < 0 || (n == 0) != (out == noise) {
			t.Fatalf("Text(%q) = %q, %d: count and output disagree", noise, out, n)
		}
		if utf8.ValidString(noise) && !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q: invalid UTF-8", noise, out)
		}
		if again, n2 := Text(out); again != out || n2 != 0 {
			t.Fatalf("not idempotent: Text(%q) = %q, then %q (%d)", noise, out, again, n2)
		}

		p := lines[int(pick)%len(lines)]
		if strings.Contains(noise, p.secret) {
			return
		}
		in := noise + "\n" + p.line + "\n" + noise
		if out, _ := Text(in); strings.Contains(out, p.secret) {
			t.Fatalf("planted secret survived in\n%q\n→ %q", in, out)
		}
		c := Clean(in)
		if strings.Contains(c, p.secret) {
			t.Fatalf("planted secret survived Clean in\n%q\n→ %q", in, c)
		}
		if again := Clean(c); again != c {
			t.Fatalf("Clean is not idempotent: %q → %q → %q", in, c, again)
		}
		for _, r := range c {
			if term.Hidden(r) && r != 0x200c && r != 0x200d && !unicode.Is(unicode.Variation_Selector, r) && (r < 0xe0020 || r > 0xe007f) {
				t.Fatalf("Clean(%q) = %q keeps hidden %U", in, c, r)
			}
		}
	})
}
