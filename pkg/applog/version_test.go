package applog

import (
	"slices"
	"testing"
)

// TestVersionSignals: a compatibility check naming the versions it compares
// and a server's 400 naming a key it does not know are their own signals,
// whatever the program; an address, a time or a phrase without versions is
// neither. Wordings: https://github.com/meilisearch/meilisearch/issues/5534,
// https://github.com/immich-app/immich/issues/14654,
// https://github.com/StatCan/aaw/issues/1505 (Jaeger against Elasticsearch 8),
// https://github.com/fluent/fluent-bit/issues/4825 (Elasticsearch 8's bulk
// refusal of _type).
func TestVersionSignals(t *testing.T) {
	for _, tt := range []struct {
		line     string
		want     Signal // "" = neither
		versions []string
		subject  string
	}{
		{"ERROR meilisearch: error=Your database version (1.48.2) is incompatible with your current engine version (1.49.0).", SigVersion, []string{"1.48.2", "1.49.0"}, ""},
		{"Error: The pgvecto.rs extension version is 0.4.0, but Immich only supports >=0.2 <0.4.", SigVersion, []string{"0.4.0", "0.2", "0.4"}, ""},
		{"server version 3.6 is not supported", SigVersion, []string{"3.6"}, ""},
		{`"msg":"Failed to create span writer","error":"elastic: Error 400 (Bad Request): unknown key [template] in the template [type=parse_exception]"`, SigAPIMismatch, nil, "unknown key [template]"},
		{`{"reason":"Action/metadata line [1] contains an unknown parameter [_type]"},"status":400}`, SigAPIMismatch, []string{}, "unknown parameter [_type]"},
		// Not versions: an address, a clock, a count.
		{"dial tcp 10.0.3.41:5432: protocol not supported", "", nil, ""},
		{"12:04:05.123 feature is not supported on this platform", "", nil, ""},
		{"requires at least 2 replicas", "", nil, ""},
	} {
		sigs := Signals(tt.line)
		if got := slices.Contains(sigs, SigVersion) || slices.Contains(sigs, SigAPIMismatch); got != (tt.want != "") || tt.want != "" && !slices.Contains(sigs, tt.want) {
			t.Errorf("%q: signals %v, want %q", tt.line, sigs, tt.want)
		}
		if tt.versions != nil && !slices.Equal(Versions(tt.line), tt.versions) && len(tt.versions) > 0 {
			t.Errorf("%q: versions %q, want %q", tt.line, Versions(tt.line), tt.versions)
		}
		if got := APIMismatchSubject(tt.line); got != tt.subject {
			t.Errorf("%q: subject %q, want %q", tt.line, got, tt.subject)
		}
	}
}
