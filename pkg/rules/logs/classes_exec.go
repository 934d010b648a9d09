package logs

import (
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The entrypoint cannot run: the command, its binary, its libraries, its
// script or its modules are not what the image holds. The runtime's own
// words explain the exit better than anything the application could log.
const (
	CommandNotFound   Class = "CommandNotFound"
	ExecFormat        Class = "ExecFormat"
	MissingLibrary    Class = "MissingLibrary"
	ShellSyntax       Class = "ShellSyntax"
	ScriptLineEndings Class = "ScriptLineEndings"
	MissingModule     Class = "MissingModule"
)

var _ = register(Def{
	Class: CommandNotFound,
	Patterns: []Pattern{{re: regexp.MustCompile(`(exec:? "?[^"\s:]+"?: (no such file or directory|executable file not found in \$PATH)|^(/bin/)?(ba|da)?sh: (\d+: )?(line \d+: )?[^\s:]+: (command )?not found|: command not found$)`),
		Explains: "the command the container runs does not exist in the image",
		Fix:      "Fix the container's command/args (or the image's ENTRYPOINT) to a path that exists in the image, or rebuild the image so it ships the binary. If the file is there, its interpreter (#! line) or dynamic loader is not: a glibc binary on a musl/Alpine image also fails with \"no such file or directory\".", Priority: 95}},
	// A wording the log component knows and the expression misses
	// ("/bin/sh: 1: exec: /bin/x: not found") still lands here.
	Signals:    []applog.Signal{applog.SigCommandNotFound},
	NamesImage: true, // the image decides: the commands it ships
	Subject: func(line string) string {
		// The runtime's "exec failed: … exec: "curl": executable file not
		// found" holds "exec failed:" first: the command is the quoted one.
		for _, m := range submatch.FindAll(CommandRe, line, -1) {
			if cmd := m.Get("cmd"); cmd != "failed" {
				return "command " + cmd
			}
		}
		if c := applog.Extract(line).Commands; len(c) > 0 {
			return "command " + c[0]
		}
		return ""
	},
	// Exit 127 is the shell's "command not found": a script's "X: No such
	// file or directory" is then about the command X, not a file it reads
	// (a missing redirect target ends a script with 1).
	Exit: func(code int32, line string) (string, bool) {
		if code != 127 {
			return "", false
		}
		if m, ok := submatch.Find(scriptNoFileRe, line); ok {
			return "command " + m.Get("cmd"), true
		}
		return "", false
	},
})

var (
	// CommandRe names the missing command: `exec "foo": …` / `exec /app/x: …`
	// or a shell's `sh: 1: foo: not found`.
	CommandRe = regexp.MustCompile(`exec:? "?(?P<cmd>[^"\s:]+)"?:|sh: (?:\d+: )?(?:line \d+: )?(?P<cmd>[^\s:]+): (?:command )?not found`)
	// scriptNoFileRe is bash's wording when a start script runs a command
	// by a path that does not exist: "/myapp/start: line 10: bin/rails: No
	// such file or directory" (dash: "/start: 10: bin/rails: not found").
	scriptNoFileRe = regexp.MustCompile(`^\S+: (?:line )?\d+: (?:exec: )?(?P<cmd>[^\s:]+): (?:No such file or directory|not found)`)
)

var _ = register(Def{
	Class: ExecFormat,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)exec format error`),
		Explains: "the entrypoint binary is built for another CPU architecture than the node's",
		Fix:      "Use an image built for the node's architecture (a multi-arch image, or docker buildx --platform). A script entrypoint fails the same way without its #! line.", Priority: 95}},
	Rank:    1, // a line of both is a CommandNotFound
	Signals: []applog.Signal{applog.SigExecFormat},
	Subject: lastPath,
})

// The dynamic loader cannot find a shared library (glibc binary on a musl
// image, a missing package).
var _ = register(Def{
	Class: MissingLibrary,
	Patterns: []Pattern{{
		Explains: "the entrypoint binary needs a shared library (or dynamic loader) the image does not have",
		Fix:      "Install the library in the image, or build the binary for the image's libc (a glibc binary on an Alpine/musl image fails this way; build it static or use a glibc base image).", Priority: 95}},
	Rank:    2, // a line of it and CommandNotFound or ExecFormat is theirs
	Signals: []applog.Signal{applog.SigLoader},
	Subject: func(line string) string {
		if l := applog.Extract(line).Libraries; len(l) > 0 {
			return "library " + l[0]
		}
		return ""
	},
})

// A shell script the container runs does not parse: CRLF line endings or
// a bash-only construct under /bin/sh.
var _ = register(Def{
	Class: ShellSyntax,
	Patterns: []Pattern{{
		Explains: "a shell script the container runs (entrypoint or command) has a syntax error",
		Fix:      "Fix the script: Windows line endings (CRLF), bash-only syntax run by /bin/sh (dash or busybox), or an unbalanced quote in the command/args.", Priority: 93}},
	Signals: []applog.Signal{applog.SigShellSyntax},
	Subject: lastPathMatch,
})

// A script saved with Windows line endings: the kernel reads the shebang's
// interpreter as "/bin/bash\r" (bash: "/bin/bash^M: bad interpreter: No
// such file or directory"; env: "/usr/bin/env: 'bash\r': No such file or
// directory").
var _ = register(Def{
	Class: ScriptLineEndings,
	Patterns: []Pattern{{re: regexp.MustCompile(`(\^M|\r): bad interpreter|/usr/bin/env: '[\w.-]+\r'`),
		Explains: "a script in the image has Windows line endings (CRLF): its shebang names an interpreter ending in a carriage return, which does not exist",
		Fix:      "Convert the script to Unix line endings (dos2unix, or `* text=auto eol=lf` in .gitattributes so the checkout the image is built from has LF) and rebuild the image.", Priority: 96}},
	Subject: func(line string) string {
		if m, ok := submatch.Find(crlfScriptRe, line); ok {
			return "script " + m.Get("script")
		}
		return ""
	},
})

var crlfScriptRe = regexp.MustCompile(`(?:bash|sh): (?P<script>\S+): \S+(?:\^M|\r): bad interpreter`)

var _ = register(Def{
	Class: MissingModule,
	Patterns: []Pattern{{
		Explains: "the application cannot load a module, package or class it imports",
		Fix:      "Install the dependency in the image (node_modules, site-packages, the jar on the classpath) or fix the entrypoint path the runtime loads.", Priority: 84}},
	Signals: []applog.Signal{applog.SigModule},
	Subject: lastPathMatch,
})
