package sandbox

import (
	"fmt"
	"strings"
)

// SeatbeltProfile is the macOS sandbox-exec profile with the same read
// denials: allow by default (the agent CLI needs its runtime), deny reading
// the masked paths, deny writing anywhere but the writable ones.
func SeatbeltProfile(spec Spec) string {
	spec = spec.Normalize()
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	for _, m := range spec.Mask {
		fmt.Fprintf(&b, "(deny file-read* (subpath %q))\n", m)
	}
	b.WriteString("(deny file-write*)\n")
	for _, w := range spec.Writable {
		fmt.Fprintf(&b, "(allow file-write* (subpath %q))\n", w)
	}
	b.WriteString("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\"))\n")
	return b.String()
}
