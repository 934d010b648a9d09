package applog

import (
	"regexp"
	"strings"
)

// Multi-line values of a structured record. hashicorp/go-hclog (Vault,
// Consul, Nomad, Terraform's plugins) writes a value that holds newlines on
// the lines after its record: "\n  key=\n" and each line of the value
// prefixed "  | ", the record's other fields going on after it
// (https://github.com/hashicorp/go-hclog/blob/main/intlogger.go, logPlain):
//
//	2024-03-01T09:43:22.942Z [ERROR] auth.handler: error authenticating:
//	  error=
//	  | Error making API request.
//	  |
//	  | Code: 403. Errors:
//	  |
//	  | * permission denied
//	   backoff=4.65s
//
// The lines are the record's (they start with spaces, so they are already
// its continuation); the value under an error key is its error, read in one
// line with the items of a go-multierror list ("2 errors occurred:" and its
// "\t* " bullets) or of an API error's "Errors:".

// valueKeyRe is the key line of a multi-line value.
var valueKeyRe = regexp.MustCompile(`^  ([\w.@-]+)=$`)

// multilineValues returns the multi-line values under a record's first
// line, by key; nil when it has none.
func multilineValues(block []string) map[string]string {
	var out map[string]string
	for k := 1; k < len(block); k++ {
		m := valueKeyRe.FindStringSubmatch(block[k])
		if m == nil {
			continue
		}
		var val []string
		j := k + 1
		for ; j < len(block) && strings.HasPrefix(block[j], "  |"); j++ {
			l := strings.TrimPrefix(block[j], "  |")
			val = append(val, strings.TrimPrefix(l, " "))
		}
		if len(val) == 0 {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[m[1]] = strings.Join(val, "\n")
		k = j - 1
	}
	return out
}

// valueErrKeys are the keys whose multi-line value is the record's error.
var valueErrKeys = []string{"error", "err", "errors", "reason"}

// valueLine is a multi-line error value in one line: its lines that say
// something (blank lines and stack frames left out), bounded like a
// headline's list.
func valueLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		lt := strings.TrimSpace(l)
		if lt == "" {
			continue
		}
		if frameRe.MatchString(l) || javaFrameRe.MatchString(l) {
			break
		}
		parts = append(parts, lt)
		if len(parts) > maxItems {
			break
		}
	}
	return joinItems(parts)
}

// listedLater: a value whose list header is not its first line ("Error
// making API request. … Code: 403. Errors:" then "* permission denied"),
// before any stack frame.
func listedLater(s string) bool {
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		if k == 0 {
			continue
		}
		if frameRe.MatchString(l) || javaFrameRe.MatchString(l) {
			return false
		}
		if lt := strings.TrimSpace(l); strings.HasSuffix(lt, ":") && listHeaderRe.MatchString(lt) {
			for _, n := range lines[k+1:] {
				if nt := strings.TrimSpace(n); nt != "" {
					return strings.HasPrefix(nt, "* ")
				}
			}
		}
	}
	return false
}
