package applog

import (
	"regexp"
	"strings"
)

// Hint lines: what command-line programs print after their error to point
// elsewhere (a flag for more detail, the help, a log file), often at the
// error's own level. They state nothing about the failure, so they are
// never its decisive line: the error above them is. Each wording is the
// program's own:
//
//   - Keycloak's picocli ExecutionExceptionHandler: "For more details run
//     the same command passing the '--verbose' option. Also you can use
//     '--help' to see the details about the usage of the particular
//     command." (https://github.com/keycloak/keycloak/issues/12803)
//   - cobra's "Run 'kubectl --help' for usage." and "Use \"helm [command]
//     --help\" for more information about a command."
//     (https://github.com/spf13/cobra/blob/main/command.go), the Docker
//     CLI's "See 'docker run --help'.", GNU's "Try 'ls --help' for more
//     information."
//   - Gradle's "* Try:" section: "> Run with --stacktrace option to get the
//     stack trace.", "> Run with --info or --debug option to get more log
//     output.", "> Run with --scan to get full insights.", "* Get more help
//     at https://help.gradle.org"
//     (https://github.com/gradle/gradle/issues/16271)
//   - Maven's tail: "To see the full stack trace of the errors, re-run Maven
//     with the -e switch.", "Re-run Maven using the -X switch to enable full
//     debug logging.", "For more information about the errors and possible
//     solutions, please read the following articles:", "[Help 1]
//     http://cwiki.apache.org/…", "After correcting the problems, you can
//     resume the build with the command" and its "mvn <goals> -rf :x" (https://github.com/apache/maven/blob/maven-3.9.x/maven-embedder/src/main/java/org/apache/maven/cli/MavenCli.java)
//   - npm's "A complete log of this run can be found in:" and the log's path
//     under it, "This is probably not a problem with npm. There is likely
//     additional logging output above."
//     (https://github.com/npm/cli/issues/1182)
//   - rake's "(See full trace by running task with --trace)".
//
// A record with nothing after its prefix ("[ERROR] ", npm's "npm ERR!
// enoent" code line) states nothing either, nor do the build tools'
// summaries ("FAILURE: Build failed with an exception.", "BUILD FAILED in
// 1s") and npm's "This is related to npm not being able to find a file."
// (https://github.com/npm/cli/blob/latest/lib/utils/error-message.js).
var hintRe = regexp.MustCompile(`(?i)` +
	`for more (?:details|information|info)\b[ ,:]*(?:run|re-?run|use|see|try|pass|about|check|visit|refer|on|,|:)` +
	`|(?:run|use|try|see) ['"\x60]?[\w./:\[\] -]*?--help['"\x60]?(?: for (?:more information|usage|details)|\.|$)` +
	`|(?:re-?run|run)(?: \w+)?(?: with| using) (?:the )?--?\w` +
	`|to see the full stack trace of the errors` +
	`|get more help at ` +
	`|^try:$` +
	`|a complete log of this run can be found in` +
	`|this is probably not a problem with npm|there is likely additional logging output above` +
	`|\(see full trace by running task with --trace\)` +
	`|^\[help \d+\](?: \S+)?$` +
	`|after correcting the problems, you can resume the build|^mvn <goals> -rf :\S+$` +
	`|^(?:failure: )?build failed(?: in [\dhms .]+| with an exception\.?)$` +
	`|^this is related to npm not being able to find a file`)

// hintWords spare most events the expression: every hint holds one.
var hintWords = []string{"for more", "--help", "with --", "with -", "with the -", "using the -", "stack trace of the errors", "more help", "try:", "complete log", "not a problem with npm", "logging output above", "--trace", "[help ", "resume the build", "-rf :", "build failed", "related to npm"}

// npmCodeRe is npm's error code alone after "npm ERR!" ("enoent", the
// code's own line above its explanation).
var npmCodeRe = regexp.MustCompile(`^[a-z]+$`)

// logPathRe is the path of a log file alone on its line, as npm prints it
// under "A complete log of this run can be found in:".
var logPathRe = regexp.MustCompile(`^\S+\.log$`)

// isHint reports whether an event's text is a hint line: a hint's wording
// that starts the message, after the logger's own prefix (a date, a level,
// a [bracketed] or (parenthesised) field, "npm ERR!", a "*" or ">"). A
// hint appended to an error ("connection refused; see --help") is the
// error's, and stays.
func isHint(text string) bool {
	lower := strings.ToLower(text)
	msg := stripPrefix(lower)
	if msg == "" || strings.HasPrefix(lower, "npm err! ") && npmCodeRe.MatchString(msg) {
		return true
	}
	if logPathRe.MatchString(msg) && strings.Contains(msg, "/") {
		return true
	}
	if !containsAny(lower, hintWords) {
		return false
	}
	if loc := hintRe.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		return true
	}
	// npm words its explanation after the code: "npm ERR! enoent This is
	// related to npm not being able to find a file."
	if code, rest, ok := strings.Cut(msg, " "); ok && strings.HasPrefix(lower, "npm err! ") && npmCodeRe.MatchString(code) {
		loc := hintRe.FindStringIndex(rest)
		return loc != nil && loc[0] == 0
	}
	return false
}

// prefixGroupRe is a bracketed or parenthesised field of a logger's prefix:
// "[org.keycloak…ExecutionExceptionHandler]", "(main)".
var prefixGroupRe = regexp.MustCompile(`^(?:\[[^\]]*\]|\([^)]*\))$`)

// stripPrefix removes a text logger's prefix from a lower-cased line: the
// leading fields that are dates, numbers, levels, bracketed groups, "npm
// err!" or markers ("*", ">", "->"); the message is what follows.
func stripPrefix(lower string) string {
	rest := strings.TrimSpace(lower)
	for k := 0; k < 12 && rest != ""; k++ {
		field := rest
		if rest[0] == '[' || rest[0] == '(' {
			close := map[byte]byte{'[': ']', '(': ')'}[rest[0]]
			if i := strings.IndexByte(rest, close); i > 0 {
				field = rest[:i+1]
			}
		} else if i := strings.IndexAny(rest, " \t"); i > 0 {
			field = rest[:i]
		}
		if !prefixField(field) {
			break
		}
		rest = strings.TrimSpace(rest[len(field):])
	}
	return rest
}

func prefixField(f string) bool {
	switch {
	case prefixGroupRe.MatchString(f):
		return !strings.HasPrefix(f, "[help ")
	case f == "npm" || f == "err!":
		return true
	case levelWord(strings.Trim(f, ":!")) >= LevelTrace && len(strings.Trim(f, ":!")) > 1:
		return true
	case strings.Trim(f, "0123456789-:.,/tz+*>|") == "":
		return true
	}
	return false
}
