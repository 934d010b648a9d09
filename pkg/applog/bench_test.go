package applog

import (
	"strings"
	"testing"
)

// bigLog is a 10,000-line container log: the corpus's logs, stamped and
// repeated, so every format and crash report is in the mix.
func bigLog(tb testing.TB) string {
	var b strings.Builder
	lines := 0
	for lines < 10000 {
		for _, tc := range corpus() {
			text := stamp(tabbed(strings.Trim(tc.log, "\n")))
			b.WriteString(text)
			b.WriteByte('\n')
			lines += strings.Count(text, "\n") + 1
			if lines >= 10000 {
				break
			}
		}
	}
	return b.String()
}

// BenchmarkDecide measures Parse and Decisive on a 10k-line log: the
// investigator runs it on every container log of a bundle (tails of at
// most a few thousand lines), so it must stay well under a second.
func BenchmarkDecide(b *testing.B) {
	text := bigLog(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(Decide(text, Options{})) == 0 {
			b.Fatal("no decisive line")
		}
	}
}
