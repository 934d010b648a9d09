package redact

import (
	"strings"
	"testing"
)

// Scheduling fields name label keys and label values: node labels,
// selectors, tolerations. None is a credential, and masking any of them
// would hide why a pod does not schedule (or invent a mismatch between a
// selector and the labels it should match).
func TestSchedulingFieldsAreKept(t *testing.T) {
	obj := decode(t, `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "api", "namespace": "shop", "labels": {"auth": "oidc"}},
  "spec": {
    "selector": {"matchLabels": {"app": "api", "auth": "oidc", "api-key": "v2", "token-service": "enabled"}},
    "template": {
      "metadata": {"labels": {"app": "api", "auth": "oidc", "api-key": "v2", "token-service": "enabled"}},
      "spec": {
        "nodeSelector": {"node-role.kubernetes.io/control-plane": "", "secret-zone": "eu-1", "auth": "hardware"},
        "tolerations": [
          {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
          {"key": "dedicated", "operator": "Equal", "value": "auth", "effect": "NoExecute"}
        ],
        "topologySpreadConstraints": [
          {"topologyKey": "topology.kubernetes.io/zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"auth": "oidc"}}, "matchLabelKeys": ["pod-template-hash"]}
        ],
        "affinity": {
          "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}},
          "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {
            "topologyKey": "kubernetes.io/hostname",
            "labelSelector": {"matchExpressions": [{"key": "auth", "operator": "In", "values": ["oidc"]}]}}}]}
        },
        "containers": [{"name": "api", "image": "registry.example.com/api:1"}]
      }
    }
  }
}`)
	want := mustJSON(t, obj)
	if n := Object(obj); n != 0 {
		t.Errorf("masked %d values in scheduling fields:\n%s", n, mustJSON(t, obj))
	}
	if got := mustJSON(t, obj); got != want {
		t.Errorf("scheduling fields changed:\n got %s\nwant %s", got, want)
	}
	spec := []any{"spec", "template", "spec"}
	for _, tc := range []struct {
		path []any
		want string
	}{
		{append(spec, "topologySpreadConstraints", 0, "topologyKey"), "topology.kubernetes.io/zone"},
		{append(spec, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", 0, "podAffinityTerm", "topologyKey"), "kubernetes.io/hostname"},
		{append(spec, "tolerations", 0, "key"), "node-role.kubernetes.io/control-plane"},
		{append(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0, "matchExpressions", 0, "key"), "kubernetes.io/hostname"},
		{append(spec, "nodeSelector", "secret-zone"), "eu-1"},
		{append(spec, "nodeSelector", "auth"), "hardware"},
		{[]any{"spec", "selector", "matchLabels", "auth"}, "oidc"},
		{[]any{"spec", "selector", "matchLabels", "api-key"}, "v2"},
		{[]any{"spec", "selector", "matchLabels", "token-service"}, "enabled"},
		{append(spec, "topologySpreadConstraints", 0, "labelSelector", "matchLabels", "auth"), "oidc"},
	} {
		if got := get(t, obj, tc.path...); got != tc.want {
			t.Errorf("%v = %v, want %q", tc.path, got, tc.want)
		}
	}
}

// A Service's selector must read like the pod labels it is compared with.
func TestServiceSelectorIsKept(t *testing.T) {
	obj := decode(t, `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "auth"},
  "spec": {"selector": {"app": "auth", "auth": "oidc", "session-token": "v1"}, "ports": [{"port": 80}]}}`)
	if n := Object(obj); n != 0 {
		t.Errorf("masked %d values: %s", n, mustJSON(t, obj))
	}
	if got := get(t, obj, "spec", "selector", "session-token"); got != "v1" {
		t.Errorf("selector session-token = %v, want v1", got)
	}
}

// The exemption covers what a label can hold and nothing else: a
// "selector" map carrying something no label can be is judged as usual,
// and a credential's shape is masked whatever the key.
func TestLabelMapExemptionIsBounded(t *testing.T) {
	long := strings.Repeat("s3cr3t", 12) // 72 characters: not a label value
	obj := decode(t, `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
  "spec": {
    "selector": {"password": "`+long+`", "app": "w"},
    "nodeSelector": {"token": "has spaces, not a label"},
    "matchLabels": {"app": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}
  }}`)
	Object(obj)
	if got := get(t, obj, "spec", "selector", "password"); got != Mask {
		t.Errorf("selector password (not a label value) = %v, want masked", got)
	}
	if got := get(t, obj, "spec", "selector", "app"); got != "w" {
		t.Errorf("selector app = %v, want w", got)
	}
	if got := get(t, obj, "spec", "nodeSelector", "token"); got != Mask {
		t.Errorf("nodeSelector token (not a label value) = %v, want masked", got)
	}
	if got := get(t, obj, "spec", "matchLabels", "app").(string); strings.Contains(got, "eyJzdWIi") {
		t.Errorf("a bearer token under matchLabels survived: %v", got)
	}
}

func TestIsLabelValue(t *testing.T) {
	for s, want := range map[string]bool{
		"":                      true,
		"a":                     true,
		"oidc":                  true,
		"v1.2_3-x":              true,
		strings.Repeat("a", 63): true,
		strings.Repeat("a", 64): false,
		"-a":                    false,
		"a-":                    false,
		"a b":                   false,
		"a/b":                   false,
		"a=b":                   false,
	} {
		if got := isLabelValue(s); got != want {
			t.Errorf("isLabelValue(%q) = %v, want %v", s, got, want)
		}
	}
}

// The same fields printed as text (a ConfigMap holding a manifest, a log
// line dumping a pod spec) keep their values too.
func TestSchedulingFieldsInText(t *testing.T) {
	runTextCases(t, []textCase{
		{"yaml topologyKey", "      topologyKey: topology.kubernetes.io/zone", "      topologyKey: topology.kubernetes.io/zone", 0},
		{"json topologyKey", `{"topologyKey":"kubernetes.io/hostname","maxSkew":1}`, `{"topologyKey":"kubernetes.io/hostname","maxSkew":1}`, 0},
		{"toleration key", "- key: node-role.kubernetes.io/control-plane", "- key: node-role.kubernetes.io/control-plane", 0},
	})
}
