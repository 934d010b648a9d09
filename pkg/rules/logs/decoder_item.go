package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// decoderItemRe is the first item of a configuration decoder's error list:
// go-yaml's "line 44: field enabled not found in type aggregation.Config"
// and "line 6: cannot unmarshal !!seq into map[string]…", mapstructure's
// "error decoding 'exporters': unknown type: "logging"" and "” has invalid
// keys: endpoint, method".
var decoderItemRe = regexp.MustCompile("(?P<item>line \\d+: (?:field \\S+ not found in (?:type|struct) [\\w.*\\[\\]]+|cannot unmarshal !!\\w+ (?:`[^`]*` )?into [\\w.*\\[\\]]+))|\\* (?P<item>error decoding '[^']*': unknown type: \"[^\"]+\")|\\* (?P<item>'[^']*' has invalid keys: [\\w, -]+)")

// decoderItem names what a decoder rejects, "" when the line holds no list
// item.
func decoderItem(line string) string {
	var items []string
	for _, m := range submatch.FindAll(decoderItemRe, line, 3) {
		items = append(items, strings.TrimRight(m.Get("item"), ".,; "))
	}
	return strings.Join(items, "; ")
}
