package applog

import (
	"regexp"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

var (
	// A Java/Kotlin/Scala exception line: a dotted class name ending in
	// Exception/Error/Throwable, optionally after "Exception in thread".
	javaExcRe   = regexp.MustCompile(`^(?:Exception in thread "[^"]*" )?(?:Caused by: )?(?P<class>[a-zA-Z_$][\w$]*(?:\.[\w$]+)+(?:Exception|Error|Throwable|Failure|Fault)[\w$]*)(?::\s*(?P<msg>.*))?$`)
	javaFrameRe = regexp.MustCompile(`^\s+at \S+|^\s+\.\.\. \d+ (more|common frames omitted)`)
	// .NET: "Unhandled exception. System.X: msg", " ---> System.Y: inner".
	dotnetExcRe = regexp.MustCompile(`^(?:Unhandled [Ee]xception\. |\s*---> )?((?:[A-Z][\w]*\.)+[A-Z]\w*(?:Exception|Error)(?: \(\d+\))?)(?::\s*(.*))?$`)
	// Node prints the throwing source line before the error:
	// "/app/server.js:12" or "node:internal/process/promises:288".
	nodeHeadRe   = regexp.MustCompile(`^(\S+\.(?:js|mjs|cjs|ts)|node:\S+|/\S+|file:///\S+|[A-Za-z]:\\\S+):\d+$`)
	nodeErrRe    = regexp.MustCompile(`^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[A-Z_0-9]+\])?: `)
	rustPanicRe  = regexp.MustCompile(`^thread '[^']*'(?: \(\d+\))? panicked at `)
	rubyExcRe    = regexp.MustCompile(`^\S+\.rb:\d+:in [^:]+: .*\([A-Z][\w:]*\)$`)
	aspnetHeadRe = regexp.MustCompile(`^(trce|dbug|info|warn|fail|crit): \S+\[\d+\]$`)
	pyChainRe    = regexp.MustCompile(`^(During handling of the above exception|The above exception was the direct cause)`)
)

// Parse reads a container log tail. Lines may carry the kubelet's
// timestamp prefix; blank lines are kept out of events except inside a
// crash report.
func Parse(text string) *Log {
	raw := strings.Split(strings.TrimRight(text, "\n"), "\n")
	p := parser{lines: make([]string, len(raw))}
	times := make([]time.Time, len(raw))
	for i, l := range raw {
		times[i], p.lines[i] = SplitTimestamp(strings.TrimRight(l, "\r"))
	}
	log := &Log{Lines: len(raw)}
	counts := map[Format]int{}
	for i := 0; i < len(p.lines); {
		line := p.lines[i]
		if strings.TrimSpace(line) == "" {
			i++
			continue
		}
		end, ev := p.event(i)
		ev.Time = times[i]
		ev.Line, ev.Lines = i, end-i
		ev.Raw = p.lines[i:end]
		ev.Hint = ev.Trace == "" && isHint(ev.Text())
		counts[ev.Format]++
		log.Events = append(log.Events, ev)
		i = end
	}
	log.Format = FormatPlain
	best := 0
	for _, f := range []Format{FormatJSON, FormatLogfmt, FormatKlog, FormatPlain} {
		if counts[f] > best {
			log.Format, best = f, counts[f]
		}
	}
	return log
}

type parser struct{ lines []string }

// event reads the event starting at line i and returns where it ends.
func (p *parser) event(i int) (int, Event) {
	line := p.lines[i]
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: "):
		end := p.goPanicEnd(i)
		kind := TraceGoPanic
		if strings.HasPrefix(t, "fatal error: ") {
			kind = TraceGoroutine
		}
		return end, Event{Format: FormatPlain, Level: LevelFatal, Message: t, Trace: kind, Headline: t}
	case nodeHeadRe.MatchString(t):
		if end, head, ok := p.nodeCrash(i); ok {
			return end, Event{Format: FormatPlain, Level: LevelFatal, Message: head, Trace: TraceNode, Headline: head}
		}
	case rustPanicRe.MatchString(t):
		return p.rustPanic(i)
	case strings.HasPrefix(t, "Traceback (most recent call last)"):
		end, head := p.pythonTraceback(i)
		if h := continued(p.lines[i:end], head); h != "" {
			head = h
		}
		return end, Event{Format: FormatPlain, Level: LevelFatal, Message: head, Trace: TracePython, Headline: head}
	case t == "APPLICATION FAILED TO START" || strings.HasPrefix(t, "*** FATAL CONFIG FILE ERROR"):
		return p.report(i)
	}

	r := parseLine(line)
	ev := Event{Format: r.format, Level: r.level, Implied: r.implied, Message: r.msg, Error: r.err}
	end := i + 1
	// Continuation lines: indented lines (stack frames, ASP.NET's message
	// body), Java's "Caused by:", and a traceback or exception that a
	// logger printed right under its record (logger.exception(…),
	// log.error("…", e)).
	for end < len(p.lines) {
		l := p.lines[end]
		lt := strings.TrimSpace(l)
		switch {
		case lt == "":
			// A blank line inside a Java/.NET trace is rare; end here.
		case l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(lt, "Caused by: ") || strings.HasPrefix(lt, "Suppressed: ") || lt == "}" || strings.HasPrefix(lt, "--- End of"):
			end++
			continue
		// Not under an INFO record: gunicorn's "[INFO] Starting gunicorn"
		// is followed by the worker's own uncaught traceback, which is
		// an event of its own (logger.exception logs at ERROR).
		case strings.HasPrefix(lt, "Traceback (most recent call last)") && r.format == FormatPlain && !startsRecord(lt) && !(r.level >= LevelTrace && r.level <= LevelInfo):
			e, _ := p.pythonTraceback(end)
			end = e
			continue
		case (javaExcRe.MatchString(lt) || dotnetExcRe.MatchString(lt)) && end+1 < len(p.lines) && javaFrameRe.MatchString(p.lines[end+1]) && !strings.HasPrefix(lt, "Exception in thread ") && !framed(p.lines[i+1:end]):
			// (The JVM's uncaught-exception handler prints a record of its
			// own, not the trace of the line above.) An exception after
			// frames already read is another report: install4j's launcher
			// prints its lock file's FileNotFoundException, then the
			// application its own.
			end++
			continue
		}
		if e := p.extendsEvent(i, end, r); e > end {
			end = e
			continue
		}
		break
	}
	values := map[string]string(nil)
	if end > i+1 {
		values = multilineValues(p.lines[i:end])
	}
	for _, k := range valueErrKeys {
		if v := values[k]; v != "" && ev.Error == "" {
			ev.Error = valueLine(v)
		}
	}
	if end > i+1 && values == nil {
		ev.Trace, ev.Headline = traceHeadline(p.lines[i:end])
		if h := wholeHeadline(p.lines[i:end], ev.Headline, r.level); h != "" {
			ev.Headline = h
		}
		// ASP.NET's console logger: "fail: Category[0]" then the message
		// indented on the next line.
		if aspnetHeadRe.MatchString(t) {
			ev.Message = strings.TrimSpace(p.lines[i+1])
		}
	}
	// The record itself may be the exception line of an uncaught
	// exception: "Exception in thread "main" java.lang.X: …" or ".NET's
	// "Unhandled exception. System.X: …".
	if ev.Trace == "" && r.format == FormatPlain {
		if m, ok := submatch.Find(javaExcRe, t); ok && strings.HasPrefix(t, "Exception in thread") {
			ev.Trace, ev.Headline = TraceJava, strings.TrimPrefix(t[strings.Index(t, m.Get("class")):], "")
		} else if strings.HasPrefix(t, "Unhandled exception. ") || strings.HasPrefix(t, "Unhandled Exception: ") {
			ev.Trace, ev.Headline = TraceDotNet, t[strings.Index(t, " ")+1:]
			ev.Headline = strings.TrimPrefix(strings.TrimPrefix(ev.Headline, "exception. "), "Exception: ")
			if parts := strings.Split(ev.Headline, " ---> "); len(parts) > 1 {
				ev.Headline = parts[len(parts)-1]
			}
		} else if rubyExcRe.MatchString(t) {
			ev.Trace, ev.Headline = TraceRuby, t
		}
	}
	if r.stack != "" {
		if kind, head := traceHeadline(strings.Split(r.stack, "\n")); head != "" && kind != TraceGoPanic {
			ev.Trace, ev.Headline = kind, head
		}
	}
	if ev.Trace != "" && ev.Headline == "" {
		ev.Trace = ""
	}
	if ev.Trace != "" && (strings.HasPrefix(t, "Exception in thread") || strings.HasPrefix(t, "Unhandled")) {
		ev.Level, ev.Implied = LevelFatal, false
	}
	// An error printed with its frames is an error report by its shape:
	// the words that guessed its level (ioredis' unlevelled "Unhandled
	// error event") no longer matter.
	if ev.Trace != "" && ev.Level <= LevelError && ev.Implied {
		ev.Level, ev.Implied = LevelError, false
	}
	if ev.Trace != "" && ev.Level == LevelUnknown {
		ev.Level = LevelError
	}
	return end, ev
}

// framed: the lines hold a stack frame.
func framed(lines []string) bool {
	for _, l := range lines {
		if javaFrameRe.MatchString(l) {
			return true
		}
	}
	return false
}

// startsRecord reports whether a line is a structured record of its own.
func startsRecord(l string) bool {
	return strings.HasPrefix(l, "{") || klogRe.MatchString(l)
}

// goPanicEnd finds the end of a Go panic: the goroutine dump runs to the
// end of the output unless a structured record follows (another process
// in the container writing on).
func (p *parser) goPanicEnd(i int) int {
	for j := i + 1; j < len(p.lines); j++ {
		l := strings.TrimSpace(p.lines[j])
		if l == "" {
			continue
		}
		if startsRecord(l) {
			return j
		}
		if r, ok := parseLogfmt(l); ok && r.level != LevelUnknown {
			return j
		}
	}
	return len(p.lines)
}

// nodeCrash reads Node's uncaught exception report:
//
//	/app/server.js:12
//	    throw er; // Unhandled 'error' event
//	    ^
//
//	Error: listen EADDRINUSE: address already in use :::3000
//	    at …
//	Node.js v18.17.0
func (p *parser) nodeCrash(i int) (end int, head string, ok bool) {
	for j := i + 1; j < len(p.lines) && j < i+12; j++ {
		l := strings.TrimSpace(p.lines[j])
		if head == "" && (nodeErrRe.MatchString(l) || strings.HasPrefix(l, "[Error")) {
			head = l
			end = j + 1
			for end < len(p.lines) {
				n := p.lines[end]
				nt := strings.TrimSpace(n)
				if nt == "" || n[0] == ' ' || n[0] == '\t' || nt == "}" || strings.HasPrefix(nt, "Emitted 'error' event") || strings.HasPrefix(nt, "Require stack:") || strings.HasPrefix(nt, "- ") {
					end++
					continue
				}
				if strings.HasPrefix(nt, "Node.js v") {
					end++
				}
				break
			}
			// Trailing blank lines belong to nobody.
			for end > j+1 && strings.TrimSpace(p.lines[end-1]) == "" {
				end--
			}
			return end, head, true
		}
	}
	return 0, "", false
}

// rustPanic reads "thread 'main' panicked at src/main.rs:5:10:" and its
// message line (Rust ≥ 1.73) or the older one-line form, and the note.
func (p *parser) rustPanic(i int) (int, Event) {
	t := strings.TrimSpace(p.lines[i])
	head := t
	end := i + 1
	if strings.HasSuffix(t, ":") && end < len(p.lines) {
		head = t + " " + strings.TrimSpace(p.lines[end])
		end++
	}
	for end < len(p.lines) {
		l := strings.TrimSpace(p.lines[end])
		if strings.HasPrefix(l, "note: ") || strings.HasPrefix(l, "stack backtrace:") || (len(p.lines[end]) > 0 && p.lines[end][0] == ' ') {
			end++
			continue
		}
		break
	}
	return end, Event{Format: FormatPlain, Level: LevelFatal, Message: head, Trace: TraceRust, Headline: head}
}

// pythonTraceback reads a traceback, chained ones included, and returns
// its end and its last exception line.
func (p *parser) pythonTraceback(i int) (int, string) {
	head := ""
	end := i + 1
	for end < len(p.lines) {
		l := p.lines[end]
		lt := strings.TrimSpace(l)
		switch {
		case lt == "":
			// blank lines separate chained tracebacks
			if k := nextNonBlank(p.lines, end); k < len(p.lines) && (pyChainRe.MatchString(strings.TrimSpace(p.lines[k])) || strings.HasPrefix(strings.TrimSpace(p.lines[k]), "Traceback (")) && head != "" {
				end = k
				continue
			}
			return end, head
		case l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(lt, "Traceback ("):
			end++
		case pyChainRe.MatchString(lt):
			end++
		default:
			// The exception line ends this traceback (or a chain link).
			head = lt
			end++
			// Exception messages may continue indented ("  DETAIL: …").
			for end < len(p.lines) && len(p.lines[end]) > 0 && (p.lines[end][0] == ' ' || p.lines[end][0] == '\t') {
				end++
			}
			if pydanticHeadRe.MatchString(head) {
				end = pydanticEnd(p.lines, end)
			}
			if k := nextNonBlank(p.lines, end); k < len(p.lines) && pyChainRe.MatchString(strings.TrimSpace(p.lines[k])) {
				end = k
				continue
			}
			return end, head
		}
	}
	return end, head
}

func nextNonBlank(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

// traceHeadline names a block's crash report and its decisive line: the
// root cause (innermost "Caused by:" / " ---> "), or a Python traceback's
// exception line.
func traceHeadline(block []string) (Trace, string) {
	var kind Trace
	head := ""
	// A traceback printed under its record may be indented as a whole
	// (JupyterHub's "[E … app:1623]" then "    Traceback …"): its
	// exception line is the one at the Traceback line's own indentation.
	base := 0
	for k, l := range block {
		lt := strings.TrimSpace(l)
		switch {
		case k > 0 && strings.HasPrefix(lt, "Traceback (most recent call last)"):
			kind, base = TracePython, len(l)-len(strings.TrimLeft(l, " \t"))
		case kind == TracePython:
			// pydantic's field list goes on unindented under its
			// exception line, which stays the headline.
			if lt != "" && len(l)-len(strings.TrimLeft(l, " \t")) <= base && !pyChainRe.MatchString(lt) && !pydanticHeadRe.MatchString(head) {
				head = lt
			}
		case strings.HasPrefix(lt, "Caused by: "):
			kind, head = TraceJava, strings.TrimPrefix(lt, "Caused by: ")
		case strings.HasPrefix(lt, "---> "):
			kind, head = TraceDotNet, strings.TrimPrefix(lt, "---> ")
		case head == "" && strings.Contains(lt, " ---> ") && dotnetExcRe.MatchString(strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(lt, "Unhandled exception. "), "Unhandled Exception: "), " ---> ", 2)[0]):
			// Older .NET prints inner exceptions on the same line.
			parts := strings.Split(lt, " ---> ")
			kind, head = TraceDotNet, parts[len(parts)-1]
		case head == "" && (k > 0 || len(block) == 1) && dotnetExcRe.MatchString(lt):
			kind, head = TraceDotNet, strings.TrimPrefix(lt, "Unhandled exception. ")
		case head == "" && (k > 0 || len(block) == 1) && javaExcRe.MatchString(lt):
			kind, head = TraceJava, lt
			if i := strings.Index(lt, `" `); strings.HasPrefix(lt, "Exception in thread") && i > 0 {
				head = lt[i+2:]
			}
		case head == "" && k > 0 && nodeErrRe.MatchString(lt):
			kind, head = TraceNode, lt
		case head == "" && strings.HasPrefix(lt, "panic: "):
			kind, head = TraceGoPanic, lt
		}
	}
	// Java prints "Caused by" chains outermost first: the last one seen is
	// the root cause. .NET's " ---> " chains are the same.
	if kind == "" && len(block) > 1 && (javaFrameRe.MatchString(block[1]) || strings.HasPrefix(strings.TrimSpace(block[1]), "at ")) {
		// A bare message followed by frames: the message is the error
		// (.NET's runtime prefixes its own report "Unhandled exception. ").
		kind, head = TraceJava, strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(block[0]), "Unhandled exception. "), "Unhandled Exception: ")
		switch {
		case dotnetExcRe.MatchString(head):
			kind = TraceDotNet
		case nodeErrRe.MatchString(head):
			kind = TraceNode
		}
	}
	return kind, head
}

// report reads the failure reports some servers print as a paragraph
// instead of a log record: Spring Boot's failure analysis
//
//	***************************
//	APPLICATION FAILED TO START
//	***************************
//
//	Description:
//
//	Web server failed to start. Port 8080 was already in use.
//
//	Action: …
//
// whose Description is the cause, and Redis's "*** FATAL CONFIG FILE
// ERROR ***" whose last line is.
func (p *parser) report(i int) (int, Event) {
	t := strings.TrimSpace(p.lines[i])
	ev := Event{Format: FormatPlain, Level: LevelFatal, Message: t}
	end := i + 1
	if strings.HasPrefix(t, "***") { // Redis: the block runs to a blank line
		for end < len(p.lines) && end < i+6 && strings.TrimSpace(p.lines[end]) != "" && !startsRecord(p.lines[end]) {
			end++
		}
		ev.Headline = redisConfigHeadline(p.lines[i:end])
		return end, ev
	}
	var desc []string
	section := ""
	for end < len(p.lines) && end < i+40 {
		l := strings.TrimSpace(p.lines[end])
		switch {
		case l == "Description:" || l == "Action:":
			section = l
		case l == "" || strings.Trim(l, "*") == "":
		case section == "Description:":
			desc = append(desc, l)
		case section == "Action:":
			// the action paragraph ends the report
			for end < len(p.lines) && strings.TrimSpace(p.lines[end]) != "" {
				end++
			}
			ev.Headline = strings.Join(desc, " ")
			return end, ev
		}
		end++
	}
	ev.Headline = strings.Join(desc, " ")
	return end, ev
}
