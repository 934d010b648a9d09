package logs

import "regexp"

// PathRe is an absolute path in a log line.
var PathRe = regexp.MustCompile(`(/[\w.@-]+)+`)

// lastPath is the last absolute path in line that is not a source location
// (path:line), "" when there is none. A source location (Rust's
// "src/main.rs:10:5") is where the program failed, not what it looked for.
func lastPath(line string) string {
	locs := PathRe.FindAllStringIndex(line, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		start, end := locs[i][0], locs[i][1]
		if sourceLineRe.MatchString(line[end:]) || start > 0 && (isPathChar(line[start-1])) {
			continue
		}
		return line[start:end]
	}
	return ""
}

// lastPathMatch is the last absolute path in line, whatever follows it;
// "" when there is none.
func lastPathMatch(line string) string {
	if m := PathRe.FindAllString(line, -1); len(m) > 0 {
		return m[len(m)-1]
	}
	return ""
}

// sourceLineRe follows a path that is a source location.
var sourceLineRe = regexp.MustCompile(`^:\d+`)

func isPathChar(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
