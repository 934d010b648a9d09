package logs

import (
	"cmp"
	"regexp"
	"slices"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
)

// Class is what a decisive log line says went wrong. Its string is the
// category suffix reports render ("CrashLoop/Exit1/ConnectionRefused"),
// which scenario tables and stored incidents match on: it never changes.
type Class string

func (c Class) String() string { return string(c) }

// Def is everything about one class: the rows that recognise its lines and
// their wording, the log component's signals that put a line in it, what a
// line of it is about, and the exceptions that move a line to or from it.
// Each class is defined once, in the classes_*.go file of its family.
type Def struct {
	Class Class
	// Patterns are the class's rows, each with its own wording. The first
	// is the class's own: the one its signals, Also, Instead and Exit
	// yield.
	Patterns []Pattern
	// Rank orders rows of equal priority of different classes, lowest
	// first: of the rows a line matches, the first of the highest
	// priority wins.
	Rank int
	// Signals are the log component's signals that put a line in the
	// class whatever its words (it knows each runtime's and library's
	// wording).
	Signals []applog.Signal
	// Also puts a line in the class as surely as a signal.
	Also func(line string) bool
	// BroadWords: the class's expressions match common words ("not found",
	// "permission denied", a path) that other failures' lines hold too, so
	// a line they match by words alone yields to the class of its most
	// specific signal. The other classes' expressions quote one failure's
	// own wording (`database "x" does not exist`) and stand.
	BroadWords bool
	// Instead, when it returns a class, moves a line of this class there.
	Instead func(line string) Class
	// Crash: a crash report's root-cause line that matches nothing more
	// specific is of this class.
	Crash bool
	// Declared: a structured record its logger calls error or fatal, whose
	// words match nothing specific, is of this class.
	Declared bool
	// Dependency: the line is about reaching a dependency; when it names no
	// endpoint, the one its event names is its subject.
	Dependency bool
	// PeerHost: the line is about a peer it does not name (the JVM's
	// innermost "unable to find valid certification path" names no host);
	// when the line names none, the host an earlier line of its event
	// names (the URL it was fetching) is its subject.
	PeerHost bool
	// Subject names what a line of the class is about (the variable, the
	// file, the endpoint); "" when the line does not say.
	Subject func(line string) string
	// NamesImage: the cause lies in what the image ships (a server of
	// another version, a plugin it lacks, the flags its release accepts,
	// the commands it holds, its default user), so the report names the
	// image: its tag is what a fix often pins or moves.
	NamesImage bool
	// Exit: a line of another class is of this one when its container
	// exited with a code that says so; it returns the line's subject then.
	Exit func(code int32, line string) (subject string, ok bool)
}

// Pattern is one row of a class: a line matching re explains why a
// container exited.
type Pattern struct {
	Class    Class          // its Def's, set when the Def is registered
	re       *regexp.Regexp // nil: matched by its class's signals only
	Explains string         // what the line means, for the report
	Fix      string         // what a human should change
	// Priority orders classes when several match: a specific line beats a
	// generic "error" line.
	Priority int
	// yields: the row words only a status (an HTTP 403), so a later row of
	// its class whose own wording the line also has is the line's row.
	yields bool
	def    *Def
}

// Generic: the row names no cause of its own, only that an error was
// logged (ErrorLine, a declared error record).
func (p *Pattern) Generic() bool { return p.Priority <= 10 }

var (
	// defs are the registered classes, in no meaningful order.
	defs    []*Def
	byClass = map[Class]*Def{}
	// catalogue is every row, in the order classify tries them: priority,
	// highest first, then rank, then the row's place in its class.
	catalogue []*Pattern
	bySignal  = map[applog.Signal]*Def{}
	// declared is the Declared class's row.
	declared *Pattern
)

// register adds a class. It runs as the classes_*.go files' variables are
// initialised, before init builds the catalogue from them; duplicates and
// ambiguous ranks are the registry test's to report.
func register(d Def) *Def {
	def := &d
	for i := range def.Patterns {
		def.Patterns[i].Class, def.Patterns[i].def = def.Class, def
	}
	defs = append(defs, def)
	return def
}

func init() {
	for _, d := range defs {
		if _, dup := byClass[d.Class]; !dup {
			byClass[d.Class] = d
		}
		for _, s := range d.Signals {
			if _, dup := bySignal[s]; !dup {
				bySignal[s] = d
			}
		}
		for i := range d.Patterns {
			catalogue = append(catalogue, &d.Patterns[i])
		}
		if d.Declared && declared == nil {
			declared = &d.Patterns[0]
		}
	}
	slices.SortStableFunc(catalogue, func(a, b *Pattern) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.def.Rank, b.def.Rank), cmp.Compare(a.Class, b.Class))
	})
}

// defOf is a class's definition; nil for a string that names none.
func defOf(c Class) *Def { return byClass[c] }

// patternOf is a class's own row.
func patternOf(c Class) *Pattern { return &byClass[c].Patterns[0] }

// SubjectOf names what a decisive line of the class is about: the
// variable, the file, the endpoint. Empty when the line does not say.
func SubjectOf(c Class, line string) string {
	if d := defOf(c); d != nil && d.Subject != nil {
		return d.Subject(line)
	}
	return ""
}

// hasSignal: one of sigs puts a line in d's class.
func (d *Def) hasSignal(sigs []applog.Signal) bool {
	for _, s := range sigs {
		if slices.Contains(d.Signals, s) {
			return true
		}
	}
	return false
}

// NamesImage: the row's class is about what the image ships (Def.NamesImage).
func (p *Pattern) NamesImage() bool { return p.def.NamesImage }

// Dependency: the row's class is about reaching a dependency (Def.Dependency).
func (p *Pattern) Dependency() bool { return p.def.Dependency }
