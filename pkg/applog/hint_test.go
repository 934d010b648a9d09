package applog

import (
	"strings"
	"testing"
)

// TestHintLinesAreNeverDecisive: the lines programs print after their
// error to point elsewhere (a flag for more detail, the help, the debug
// log's path) are not the error, though they are the last lines and often
// carry the error's level; the error above them is the decisive line.
func TestHintLinesAreNeverDecisive(t *testing.T) {
	tests := []struct{ name, source, log, want string }{
		{"keycloak-picocli-verbose", "https://github.com/keycloak/keycloak/issues/12803",
			"2022-06-29 04:31:58,011 INFO  [io.quarkus.deployment.QuarkusAugmentor] (main) Quarkus augmentation completed in 7902ms\n" +
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Failed to start server in (production) mode\n" +
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ERROR: Key material not provided to setup HTTPS. Please configure your keys/certificates or start the server in development mode.\n" +
				"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) For more details run the same command passing the '--verbose' option. Also you can use '--help' to see the details about the usage of the particular command.\n",
			"Key material not provided to setup HTTPS"},
		{"gradle-try-and-docker-cli-help", "https://github.com/spring-guides/gs-spring-boot-docker/issues/65",
			"> Task :docker FAILED\nflag provided but not defined: --build-arg\nSee 'docker build --help'.\n\nFAILURE: Build failed with an exception.\n\n" +
				"* What went wrong:\nExecution failed for task ':docker'.\n\n* Try:\n" +
				"Run with --stacktrace option to get the stack trace. Run with --info or --debug option to get more log output. Run with --scan to get full insights.\n\n" +
				"* Get more help at https://help.gradle.org\n\nBUILD FAILED in 1s\n",
			"flag provided but not defined: --build-arg"},
		{"maven-tail", "https://github.com/movsim/movsim/issues/20",
			"[INFO] BUILD FAILURE\n" +
				"[ERROR] Failed to execute goal on project MovsimCore: Could not resolve dependencies for project org.movsim:MovsimCore:jar:1.3.1-SNAPSHOT: Could not find artifact org.movsim:MovsimNetwork:jar:1.3.1-SNAPSHOT -> [Help 1]\n" +
				"[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n" +
				"[ERROR] Re-run Maven using the -X switch to enable full debug logging.\n[ERROR] \n" +
				"[ERROR] For more information about the errors and possible solutions, please read the following articles:\n" +
				"[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/DependencyResolutionException\n[ERROR] \n" +
				"[ERROR] After correcting the problems, you can resume the build with the command\n[ERROR]   mvn <goals> -rf :MovsimCore\n",
			"Could not find artifact org.movsim:MovsimNetwork"},
		{"npm-complete-log", "https://github.com/backstopmedia/nest-book-example/issues/29",
			"npm ERR! path /app/package.json\nnpm ERR! code ENOENT\nnpm ERR! errno -2\nnpm ERR! syscall open\n" +
				"npm ERR! enoent ENOENT: no such file or directory, open '/app/package.json'\n" +
				"npm ERR! enoent This is related to npm not being able to find a file.\nnpm ERR! enoent\n\n" +
				"npm ERR! A complete log of this run can be found in:\nnpm ERR!     /root/.npm/_logs/2019-10-01T17_44_52_053Z-debug.log\n",
			"no such file or directory, open '/app/package.json'"},
		{"cobra-usage-hint", "https://github.com/spf13/cobra/blob/main/command.go (ExecuteC: \"Run '%v --help' for usage.\")",
			"Error: unknown flag: --metrics-bind-addres\nRun 'manager --help' for usage.\n",
			"unknown flag: --metrics-bind-addres"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := Parse(tt.log).Decisive(Options{})
			if len(ds) == 0 || !strings.Contains(ds[0].Text, tt.want) {
				t.Fatalf("%s: decisive %+v, want %q", tt.source, ds, tt.want)
			}
			for _, d := range ds {
				if d.Event.Hint {
					t.Errorf("hint line %q among the decisive lines", d.Text)
				}
			}
		})
	}
}

// TestIsHint: a hint's wording counts only where the message starts; an
// error that ends by pointing at the help is an error.
func TestIsHint(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"2022-06-29 04:32:07,232 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) For more details run the same command passing the '--verbose' option.", true},
		{`Use "helm [command] --help" for more information about a command.`, true},
		{"Try 'ls --help' for more information.", true},
		{"> Run with --stacktrace option to get the stack trace.", true},
		{"[ERROR] -> [Help 1]", true},
		{"npm ERR!     /root/.npm/_logs/2019-10-01T17_44_52_053Z-debug.log", true},
		{"npm ERR! This is probably not a problem with npm. There is likely additional logging output above.", true},
		{"Error: unknown flag: --foo. Run 'app --help' for usage.", false},
		{"ERROR: could not connect to db:5432; for more details see https://example.org/db", false},
		{"2022-06-29 04:32:07,232 ERROR [x.Y] (main) ERROR: Failed to start server in (production) mode", false},
		{"open /var/log/app.log: permission denied", false},
	} {
		if got := isHint(tt.line); got != tt.want {
			t.Errorf("isHint(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
