package pod

import "testing"

func TestNearestConfigKey(t *testing.T) {
	keys := []string{"LOG_LEVEL", "database-url", "PORT"}
	for want, near := range map[string]string{"log_level": "LOG_LEVEL", "DATABASE_URL": "database-url", "PROT": "PORT", "TOTALLY_ELSE": ""} {
		if got := NearestConfigKey(want, keys); got != near {
			t.Errorf("nearestConfigKey(%q) = %q, want %q", want, got, near)
		}
	}
}
