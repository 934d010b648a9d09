package agent

import (
	"strings"
	"testing"
)

// TestDefinitionSandboxFields checks the fields the sandbox and the egress
// proxy act on: each bad value is refused with a message naming it.
func TestDefinitionSandboxFields(t *testing.T) {
	base := "name: x\nbinary: x\noutput: text\nreport: stdout\n"
	tests := []struct {
		yaml string
		want string // "" = valid
	}{
		{"homeFiles: [\"~/.x/settings.json\", \"~/.xrc\"]\nmodelHosts: [api.example.com:443, 10.0.0.1:8443]\nbaseURLEnv: [X_BASE_URL]\ntestedVersion: 1.2.3\nversionArgs: [version]\n", ""},
		{"testedVersion: v0.61.0-nightly.1\n", ""},
		{"homeFiles: [/etc/passwd]\n", `homeFiles entry "/etc/passwd"`},
		{"homeFiles: [\"~/../other/.ssh/id_rsa\"]\n", `homeFiles entry "~/../other/.ssh/id_rsa"`},
		{"homeFiles: [\"~/\"]\n", `homeFiles entry "~/"`},
		{"homeFiles: [\"~/.x/./y\"]\n", `homeFiles entry "~/.x/./y"`},
		{"modelHosts: [api.example.com]\n", `modelHosts entry "api.example.com"`},
		{"modelHosts: [\"https://api.example.com:443\"]\n", `modelHosts entry "https://api.example.com:443"`},
		{"modelHosts: [api.example.com:0]\n", `modelHosts entry "api.example.com:0"`},
		{"modelHosts: [\"*.example.com:443\"]\n", `modelHosts entry "*.example.com:443"`},
		{"baseURLEnv: [\"X-URL\"]\n", `variable name "X-URL"`},
		{"testedVersion: latest\n", `testedVersion "latest"`},
	}
	for _, tt := range tests {
		_, err := ParseDefinition([]byte(base+tt.yaml), "test.yaml")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.yaml, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one naming %s", tt.yaml, err, tt.want)
		}
	}
}

// TestEmbeddedDefinitionsTested: the three CLIs the e2e tests run record
// the version they were tested with and what the sandbox needs.
func TestEmbeddedDefinitionsTested(t *testing.T) {
	defs, err := Definitions("")
	if err != nil {
		t.Fatal(err)
	}
	for name, version := range map[string]string{"claude": "2.1.328", "codex": "0.169.0", "gemini": "0.61.0"} {
		d := defs[name]
		if d == nil || d.TestedVersion != version || len(d.HomeFiles) == 0 || len(d.ModelHosts) == 0 {
			t.Errorf("%s: %+v", name, d)
		}
	}
	if defs["goose"].TestedVersion != "" {
		t.Errorf("goose has no npm package and is untested")
	}
}

func TestTopLevelString(t *testing.T) {
	tests := []struct {
		data, key string
		json      bool
		want      string
	}{
		{"model = \"o3\"\nopenai_base_url = \"http://127.0.0.1:8080/v1\" # local\n", "openai_base_url", false, "http://127.0.0.1:8080/v1"},
		{"openai_base_url='https://gw.example.com/v1'\n", "openai_base_url", false, "https://gw.example.com/v1"},
		{"[profiles.x]\nopenai_base_url = \"http://in-a-table\"\n", "openai_base_url", false, ""},
		{"# openai_base_url = \"http://commented\"\n", "openai_base_url", false, ""},
		{`{"baseUrl":"http://127.0.0.1:9/","other":1}`, "baseUrl", true, "http://127.0.0.1:9/"},
	}
	for _, tt := range tests {
		if got := topLevelString([]byte(tt.data), tt.key, tt.json); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.data, got, tt.want)
		}
	}
}
