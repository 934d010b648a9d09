package config_test

import (
	"reflect"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		in   scenario
		want []string // each must be a line of the error; PATH is the default file, DIR the temporary directory
	}{
		{
			name: "bad duration names the key and the line",
			in:   scenario{file: "agent: claude\ntimeout: ten\n"},
			want: []string{`config file PATH line 2: timeout: invalid value "ten": time: invalid duration "ten"`},
		},
		{
			name: "bad value in a section is found whatever command runs",
			in:   scenario{file: "watch:\n  max-queue: lots\n  dedup-window: soon\n"},
			want: []string{
				`config file PATH line 2: watch.max-queue: invalid value "lots": strconv.ParseInt: parsing "lots": invalid syntax`,
				`config file PATH line 3: watch.dedup-window: invalid value "soon": time: invalid duration "soon"`,
			},
		},
		{
			name: "top-level value bad for the subcommand that has the flag",
			in:   scenario{file: "max-queue: lots\n"},
			want: []string{`config file PATH line 1: max-queue: invalid value "lots" for kubectl triage watch: strconv.ParseInt: parsing "lots": invalid syntax`},
		},
		{
			name: "custom flag type checked before the subcommand runs",
			in:   scenario{file: "watch:\n  min-severity: urgent\n"},
			want: []string{`config file PATH line 2: watch.min-severity: invalid value "urgent": want info, warning or critical`},
		},
		{
			name: "a custom value that makes its own scratch values is checked before the subcommand runs",
			in:   scenario{file: "agent: claude\nwatch:\n  overflow: drop-all\n"},
			want: []string{`config file PATH line 3: watch.overflow: invalid value "drop-all": want one of drop-oldest, drop-new`},
		},
		{
			name: "bad bool",
			in:   scenario{file: "quiet: yes please\n"},
			want: []string{`config file PATH line 1: quiet: invalid value "yes please": strconv.ParseBool: parsing "yes please": invalid syntax`},
		},
		{
			name: "bad list item names its own line",
			in:   scenario{file: "watch:\n  labels: [a, b]\nsandbox-mask:\n  - /a\n  - [nested]\n"},
			want: []string{`config file PATH line 5: sandbox-mask: list items must be plain values`},
		},
		{
			name: "list for a single-valued flag",
			in:   scenario{file: "timeout: [1m, 2m]\n"},
			want: []string{`config file PATH line 1: timeout: takes one value, not a list`},
		},
		{
			name: "key without a value",
			in:   scenario{file: "agent:\n"},
			want: []string{`config file PATH line 1: agent: no value: give one, or remove the line to use the default`},
		},
		{
			name: "unknown key with a suggestion",
			in:   scenario{file: "agent: claude\ntiemout: 5m\n"},
			want: []string{`config file PATH line 2: unknown setting "tiemout" (did you mean "timeout"?)`},
		},
		{
			name: "shorthand suggests the long name",
			in:   scenario{file: "q: true\n"},
			want: []string{`config file PATH line 1: unknown setting "q" (did you mean "quiet"?)`},
		},
		{
			name: "unknown key without anything close",
			in:   scenario{file: "slack-channel: ops\n"},
			want: []string{`config file PATH line 1: unknown setting "slack-channel"`},
		},
		{
			name: "unknown key in a section",
			in:   scenario{file: "watch:\n  min-severty: critical\n", args: []string{"watch"}},
			want: []string{`config file PATH line 2: unknown setting "min-severty" in section "watch" (did you mean "min-severity"?)`},
		},
		{
			name: "a root-only flag is unknown in the subcommand's section",
			in:   scenario{file: "watch:\n  sandbox-mask: [/a]\n"},
			want: []string{`config file PATH line 2: unknown setting "sandbox-mask" in section "watch"`},
		},
		{
			name: "unknown section",
			in:   scenario{file: "wach:\n  agent: claude\n"},
			want: []string{`config file PATH line 1: unknown section "wach": sections are named after subcommands of kubectl triage (did you mean "watch"?)`},
		},
		{
			name: "mapping under a setting",
			in:   scenario{file: "timeout:\n  agent: 5m\n"},
			want: []string{`config file PATH line 1: timeout: takes a value, not a mapping`},
		},
		{
			name: "connection flag",
			in:   scenario{file: "namespace: prod\n"},
			want: []string{`config file PATH line 1: "namespace" cannot be set in the config file: connection settings come from your kubeconfig, as with kubectl; pass --namespace or change the kubeconfig`},
		},
		{
			name: "connection flag in a section",
			in:   scenario{file: "watch:\n  kubeconfig: /tmp/kc\n", args: []string{"watch"}},
			want: []string{`config file PATH line 2: "kubeconfig" cannot be set in the config file: connection settings come from your kubeconfig, as with kubectl; pass --kubeconfig or change the kubeconfig`},
		},
		{
			name: "config, help and annotated flags",
			in:   scenario{file: "config: /x\nhelp: true\nfault-file: /f\n"},
			want: []string{
				`config file PATH line 1: "config" cannot be set in the config file`,
				`config file PATH line 2: "help" cannot be set in the config file`,
				`config file PATH line 3: "fault-file" cannot be set in the config file: pass --fault-file on the command line`,
			},
		},
		{
			name: "all problems at once",
			in:   scenario{file: "tiemout: 5m\nnamespace: prod\nwatch:\n  max-queue: lots\n"},
			want: []string{
				`config file PATH line 1: unknown setting "tiemout" (did you mean "timeout"?)`,
				`config file PATH line 2: "namespace" cannot be set in the config file: connection settings come from your kubeconfig, as with kubectl; pass --namespace or change the kubeconfig`,
				`config file PATH line 4: watch.max-queue: invalid value "lots": strconv.ParseInt: parsing "lots": invalid syntax`,
			},
		},
		{
			name: "problems read top to bottom",
			in:   scenario{file: "watch:\n  max-queue: lots\n  overflow: drop-all\nnamespace: prod\nwach:\n  agent: x\ntiemout: 5m\n"},
			want: []string{
				`config file PATH line 2: watch.max-queue: invalid value "lots": strconv.ParseInt: parsing "lots": invalid syntax`,
				`config file PATH line 3: watch.overflow: invalid value "drop-all": want one of drop-oldest, drop-new`,
				`config file PATH line 4: "namespace" cannot be set in the config file: connection settings come from your kubeconfig, as with kubectl; pass --namespace or change the kubeconfig`,
				`config file PATH line 5: unknown section "wach": sections are named after subcommands of kubectl triage (did you mean "watch"?)`,
				`config file PATH line 7: unknown setting "tiemout" (did you mean "timeout"?)`,
			},
		},
		{
			name: "a section given a list",
			in:   scenario{file: "agent: claude\nwatch: []\n"},
			want: []string{`config file PATH line 2: "watch" is a section: give it settings, e.g. watch:`, `  dedup-window: 15m0s`},
		},
		{
			name: "a section given a value",
			in:   scenario{file: "watch: true\n", args: []string{"watch"}},
			want: []string{`config file PATH line 1: "watch" is a section: give it settings, e.g. watch:`, `  dedup-window: 15m0s`},
		},
		{
			name: "a setting refused at the top level but settable in a section",
			in:   scenario{file: "agent: claude\noutput: json\n"},
			want: []string{`config file PATH line 2: "output" cannot be set at the top level: pass --output on the command line; it can be set for watch in the watch section`},
		},
		{
			name: "duplicate keys",
			in:   scenario{file: "agent: a\nwatch:\n  agent: b\n  agent: c\nagent: d\n"},
			want: []string{
				`config file PATH line 4: "watch.agent" is set twice (first on line 3)`,
				`config file PATH line 5: "agent" is set twice (first on line 1)`,
			},
		},
		{
			name: "top level must be a mapping",
			in:   scenario{file: "- agent\n- claude\n"},
			want: []string{`config file PATH line 1: the top level must be a mapping of settings, like "timeout: 10m"`},
		},
		{
			name: "top level scalar",
			in:   scenario{file: "\nagent=claude\n"},
			want: []string{`config file PATH line 2: the top level must be a mapping of settings, like "timeout: 10m"`},
		},
		{
			name: "YAML syntax error",
			in:   scenario{file: "agent: claude\nsandbox-mask: [/a\n"},
			want: []string{`config file PATH line 2: did not find expected ',' or ']'`},
		},
		{
			name: "YAML parser error",
			in:   scenario{file: "agent: claude\n- sandbox-mask\n"},
			want: []string{`config file PATH line 2: did not find expected key`},
		},
		{
			name: "YAML scanner error",
			in:   scenario{file: "agent: claude\nmodel: opus: 4\n"},
			want: []string{`config file PATH line 2: mapping values are not allowed in this context`},
		},
		{
			name: "tab indentation",
			in:   scenario{file: "agent: claude\nwatch:\n\tmin-severity: warning\n"},
			want: []string{`config file PATH line 3: tabs cannot indent YAML: use spaces`},
		},
		{
			name: "tab indentation on the first line",
			in:   scenario{file: "\tagent: claude\n"},
			want: []string{`config file PATH line 1: tabs cannot indent YAML: use spaces`},
		},
		{
			name: "tab indentation after spaces",
			in:   scenario{file: "# tabs\n\t# a comment may follow a tab\nwatch:\n  max-queue: 3\n\tlabels: [a]\n"},
			want: []string{`config file PATH line 5: tabs cannot indent YAML: use spaces`},
		},
		{
			name: "tab in a list's indentation",
			in:   scenario{file: "sandbox-mask:\n  - /a\n\t- /b\n"},
			want: []string{`config file PATH line 3: tabs cannot indent YAML: use spaces`},
		},
		{
			name: "a tab inside a value is not indentation",
			in:   scenario{file: "agent: \"a\tb\"\nmodel: `opus`\n"},
			want: []string{`config file PATH line 2: found character that cannot start any token`},
		},
		{
			name: "two documents",
			in:   scenario{file: "agent: a\n---\nagent: b\n"},
			want: []string{`config file PATH line 2: more than one YAML document: a config file holds one mapping of settings`},
		},
		{
			name: "invalid environment value names the variable",
			in:   scenario{env: map[string]string{"AGENT_TIMEOUT": "ten"}},
			want: []string{`invalid AGENT_TIMEOUT="ten": time: invalid duration "ten"`},
		},
		{
			name: "invalid environment value beats a good file value",
			in:   scenario{file: "timeout: 5m\n", env: map[string]string{"AGENT_TIMEOUT": "5"}},
			want: []string{`invalid AGENT_TIMEOUT="5": time: missing unit in duration "5"`},
		},
		{
			name: "--config names a missing file",
			in:   scenario{file: "agent: claude\n", args: []string{"--config", "DIR/missing.yaml"}},
			want: []string{`read config file: open DIR/missing.yaml: no such file or directory`},
		},
		{
			name: "$KUBECTL_TRIAGE_CONFIG names a missing file",
			in:   scenario{env: map[string]string{"KUBECTL_TRIAGE_CONFIG": "DIR/missing.yaml"}},
			want: []string{`read config file: open DIR/missing.yaml: no such file or directory`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.in.execute(t)
			if r.err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			got := strings.Split(r.err.Error(), "\n")
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = r.expand(w)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("error:\n got %q\nwant %q", got, want)
			}
		})
	}
}
