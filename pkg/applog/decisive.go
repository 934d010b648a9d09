package applog

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Options say what happened to the container whose log is read.
type Options struct {
	// Running is true for a container that still runs (e.g. never becomes
	// Ready): there are no last words, and an error the application keeps
	// repeating is the likeliest cause. Otherwise the log ends with the
	// process's exit, and the records just before it weigh most.
	Running bool
	// Killed is true when something outside ended the process (exit 137
	// or 143: the OOM killer, a failed liveness probe, a drain): its last
	// words did not end it, so position gives no weight.
	Killed bool
	// Max bounds the lines returned; 0 means 3.
	Max int
}

// Decisive is a log line that explains the container's state.
type Decisive struct {
	Event   *Event
	Text    string   // the line, in one line (see Event.Text)
	Signals []Signal // what kinds of failure it states, most specific first
	Score   int
	Repeats int      // how many events say the same thing (1 = once)
	Reasons []string // why it was picked, for the report's evidence
	Entities
}

// Signal returns the most specific signal, or "".
func (d *Decisive) Signal() Signal {
	if len(d.Signals) == 0 {
		return ""
	}
	return d.Signals[0]
}

// gaveUpRe is a line that says the process stopped waiting for what it
// kept retrying: Thanos' "aborting as no external labels found after
// waiting 10m0s", "giving up after 5 attempts", client-go's "timed out
// waiting for the condition".
var gaveUpRe = regexp.MustCompile(`(?i)after waiting \d|\bgiv(?:e|ing) up\b|\bgave up\b|timed out waiting|timeout waiting|retries exhausted|exhausted (?:all )?(?:\d+ )?(?:retries|attempts)`)

// minScore is what a line must reach to be called decisive: an error-level
// record, a warning that states a specific failure, or any line naming one
// right before the exit. An INFO line mentioning "error" stays below it.
const minScore = 35

// Decide parses a log and picks its decisive lines.
func Decide(text string, opt Options) []Decisive { return Parse(text).Decisive(opt) }

// Decisive ranks the log's events and returns the ones that explain the
// container's state, best first. Repeated events are returned once (the
// last occurrence) with their count.
func (l *Log) Decisive(opt Options) []Decisive {
	if opt.Max <= 0 {
		opt.Max = 3
	}
	type cand struct {
		ev      *Event
		text    string
		key     string
		sigs    []Signal
		base    int
		reasons []string
	}
	var cands []cand
	counts := map[string]int{}
	for i := range l.Events {
		ev := &l.Events[i]
		if ev.Hint {
			continue
		}
		text := ev.Text()
		full := text
		if ev.Message != "" && !strings.Contains(full, ev.Message) {
			full = ev.Message + ": " + full
		}
		// A record its logger calls INFO or below cannot become decisive
		// (see baseScore): spare it the signal table.
		var sigs []Signal
		if ev.Level == LevelUnknown || ev.Level >= LevelWarn {
			// A message quoted inside a logfmt or JSON value keeps its escapes.
			sigs = signalsOf(strings.ReplaceAll(full, `\"`, `"`))
		}
		base, reasons := baseScore(ev, sigs)
		if base < minScore-20 { // even the last line could not make it
			continue
		}
		// Events that say the same thing score the same, so only
		// candidates need counting.
		key := normalise(text)
		counts[key]++
		cands = append(cands, cand{ev: ev, text: text, key: key, sigs: sigs, base: base, reasons: reasons})
	}
	// Position: the records closest to the exit are the process's last
	// words. Ranked among candidates, each distinct message once.
	posBonus := []int{20, 12, 6, 3}
	switch {
	case opt.Killed:
		posBonus = nil
	case opt.Running:
		posBonus = []int{10, 6, 3}
	}
	rank := map[string]int{}
	for i := len(cands) - 1; i >= 0; i-- {
		if _, seen := rank[cands[i].key]; !seen {
			rank[cands[i].key] = len(rank)
		}
	}
	// The last words may be the end of a cascade that an earlier record of
	// the same moment explains (cascade.go): that record takes their place.
	cascade := ""
	if !opt.Running && !opt.Killed {
		evs, texts := make([]*Event, len(cands)), make([]string, len(cands))
		for i := range cands {
			evs[i], texts[i] = cands[i].ev, cands[i].text
		}
		if i := cascadeCause(evs, texts); i >= 0 && rank[cands[i].key] > 0 {
			cascade = cands[i].key
			for k, r := range rank {
				if r < rank[cascade] {
					rank[k] = r + 1
				}
			}
			rank[cascade] = 0
		}
	}
	// A process that gave up waiting did not get past its retry loop: what
	// it retried is what it waited for.
	gaveUp := !opt.Running && !opt.Killed && len(cands) > 0 && gaveUpRe.MatchString(cands[len(cands)-1].text)
	best := map[string]Decisive{}
	for _, c := range cands {
		score, reasons := c.base, append([]string(nil), c.reasons...)
		r := rank[c.key]
		if r < len(posBonus) {
			score += posBonus[r]
			switch {
			case r == 0 && c.key == cascade:
				reasons = append(reasons, "first record of the failure the process exited on (the later ones name nothing of their own)")
			case r == 0 && !opt.Running && !opt.Killed:
				reasons = append(reasons, "last error-like record before the exit")
			}
		}
		n := counts[c.key]
		switch {
		case n >= 3 && opt.Running && r < 2:
			score += 8
			reasons = append(reasons, fmt.Sprintf("repeated %d times and still being logged", n))
		case n >= 3 && gaveUp && r > 0:
			score += 8
			reasons = append(reasons, fmt.Sprintf("repeated %d times until the process gave up waiting", n))
		case n >= 3 && !opt.Running && r > 0:
			// A retry loop the process got past: it went on to fail (or
			// exit) for another reason.
			score -= 12
			reasons = append(reasons, fmt.Sprintf("repeated %d times (a retry loop), then something else ended the process", n))
		case n >= 2:
			reasons = append(reasons, fmt.Sprintf("repeated %d times", n))
		}
		if score < minScore {
			continue
		}
		if prev, ok := best[c.key]; ok && prev.Score > score {
			continue
		}
		best[c.key] = Decisive{Event: c.ev, Text: c.text, Signals: c.sigs, Score: score, Repeats: n, Reasons: reasons}
	}
	out := make([]Decisive, 0, len(best))
	for _, d := range best {
		out = append(out, d)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Event.Line > out[b].Event.Line // later wins ties
	})
	if len(out) > opt.Max {
		out = out[:opt.Max]
	}
	for i := range out {
		ev := out[i].Event
		out[i].Entities = Extract(entityText(ev))
	}
	return out
}

// baseScore weighs an event by its severity, the failure it states and
// whether it is a crash report.
func baseScore(ev *Event, sigs []Signal) (int, []string) {
	var reasons []string
	score := 0
	switch {
	case ev.Level == LevelFatal:
		score = 40
	case ev.Level == LevelError && ev.Implied:
		score = 18
	case ev.Level == LevelError:
		score = 30
	case ev.Level == LevelWarn:
		score = 12
	case ev.Level == LevelUnknown:
		score = 4
	case ev.Level == LevelInfo:
		score = 0
	default:
		score = -10
	}
	if ev.Level != LevelUnknown {
		what := "declared"
		if ev.Implied {
			what = "implied by its words"
		}
		reasons = append(reasons, fmt.Sprintf("level %s (%s)", ev.Level, what))
	}
	if len(sigs) > 0 {
		w := weightOf(sigs[0])
		// A record its own logger calls INFO or DEBUG is not a failure,
		// whatever words it contains ("error_count=0", "retrying after …").
		if ev.Level >= LevelTrace && ev.Level <= LevelInfo {
			w /= 4
		}
		score += w
		reasons = append(reasons, "states "+string(sigs[0]))
	}
	if ev.Trace != "" && ev.Level >= LevelError {
		score += 15
		reasons = append(reasons, "crash report ("+string(ev.Trace)+")")
	}
	return score, reasons
}

// normalise makes the same message with other numbers (attempt 3/10,
// timestamps, ids, addresses) one key: every run of digits and hex letters
// that holds a digit becomes '#'. A byte scan: it runs on every candidate.
func normalise(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		j := i
		digit := false
		for j < len(s) && isHexByte(s[j]) {
			digit = digit || isDigit(s[j])
			j++
		}
		switch {
		case j > i && digit:
			b = append(b, '#')
			i = j
		case j > i:
			for ; i < j; i++ {
				b = append(b, lowerByte(s[i]))
			}
		default:
			b = append(b, lowerByte(s[i]))
			i++
		}
	}
	return string(b)
}

func isHexByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// entityText is what an event says, without its stack frames: the frames
// name source files, not what the application was trying to reach.
func entityText(ev *Event) string {
	parts := []string{ev.Message, ev.Error, ev.Headline}
	for i, l := range ev.Raw {
		// A structured record's own line holds its other fields too
		// (zap's "caller":"cmd/main.go:51" reads as host:port): its
		// message and error are already in.
		if i == 0 && ev.Format != FormatPlain {
			continue
		}
		if !frameRe.MatchString(l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "\n")
}

// Entities are what the event names, stack frames aside: the endpoint an
// outer exception names when its innermost cause does not ("Connection to
// db:5432 refused" above "Caused by: ConnectException: Connection refused").
func (e *Event) Entities() Entities { return Extract(entityText(e)) }

// frameRe matches a stack frame of the common runtimes.
var frameRe = regexp.MustCompile(`^\s*(at |File "|from |\d+: |\.\.\. \d+ more)|^\s+/\S+\.go:\d+|^[\w./*()\[\]-]+\(.*\)$|^\s+\S+\.(?:go|rs|py|rb|js|java|cs):\d+`)

// LastWords returns the last n events: what the process printed before it
// exited, whatever their level (an exit-0 container's "nothing to do").
func (l *Log) LastWords(n int) []*Event {
	var out []*Event
	for i := len(l.Events) - 1; i >= 0 && len(out) < n; i-- {
		out = append([]*Event{&l.Events[i]}, out...)
	}
	return out
}
