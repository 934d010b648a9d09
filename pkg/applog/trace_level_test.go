package applog

import "testing"

// An error printed with its stack frames is an error report, declared by
// its shape whatever words guessed the level: ioredis' "Unhandled error
// event" (redis/ioredis#1036, #1399) prints no level but its frames. A
// frameless line whose words say error stays a guess.
func TestTraceDeclaresError(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		level      Level
		implied    bool
	}{
		{"ioredis refused, with its frame",
			"[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (net.js:1129:14)\n",
			LevelError, false},
		{"ioredis NOAUTH, with its frames",
			"[ioredis] Unhandled error event: ReplyError: NOAUTH Authentication required.\n    at parseError (/usr/src/app/node_modules/redis-parser/lib/parser.js:179:12)\n    at parseType (/usr/src/app/node_modules/redis-parser/lib/parser.js:302:14)\n",
			LevelError, false},
		{"the same words without frames", "[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379\n",
			LevelError, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := Parse(tt.text).Events
			if len(evs) != 1 {
				t.Fatalf("want one event, got %d", len(evs))
			}
			if evs[0].Level != tt.level || evs[0].Implied != tt.implied {
				t.Errorf("level %v implied %v, want %v %v", evs[0].Level, evs[0].Implied, tt.level, tt.implied)
			}
		})
	}
}
