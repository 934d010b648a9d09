package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// decode parses a JSON manifest the way the dynamic client hands objects
// over: unstructured.Unstructured.Object.
func decode(t *testing.T, manifest string) map[string]any {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(manifest)); err != nil {
		t.Fatalf("bad manifest: %v\n%s", err, manifest)
	}
	return u.Object
}

// get walks a path of map keys and list indexes.
func get(t *testing.T, obj any, path ...any) any {
	t.Helper()
	cur := obj
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not a map", p, cur)
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: %T is not a long enough list", p, cur)
			}
			cur = l[k]
		}
	}
	return cur
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonString quotes s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const deploymentLastApplied = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"checkout","namespace":"shop"},"spec":{"template":{"spec":{"containers":[{"env":[{"name":"DB_HOST","value":"db"},{"name":"DB_PASSWORD","value":"HUNTER2_PLACEHOLDER"}],"image":"registry.example.com/shop/checkout:1.4.2","name":"checkout"}]}}}}`

func podManifest() string {
	lastApplied := strings.Replace(deploymentLastApplied, "HUNTER2_PLACEHOLDER", dbPassword, 1)
	return `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "checkout-7d9f8c6b5-x2k4p",
    "namespace": "shop",
    "labels": {"app": "checkout", "pod-template-hash": "7d9f8c6b5"},
    "annotations": {
      "kubectl.kubernetes.io/last-applied-configuration": ` + jsonString(lastApplied) + `,
      "example.com/debug-token": "` + jwt + `",
      "nginx.ingress.kubernetes.io/auth-secret": "basic-auth",
      "vault.hashicorp.com/agent-inject-secret-db-creds": "database/creds/checkout"
    },
    "managedFields": [{"manager": "kube-controller-manager", "operation": "Update", "fieldsV1": {"f:metadata": {}}}]
  },
  "spec": {
    "serviceAccountName": "checkout",
    "automountServiceAccountToken": false,
    "initContainers": [{
      "name": "migrate",
      "image": "registry.example.com/shop/migrate:1.4.2",
      "env": [
        {"name": "AWS_ACCESS_KEY_ID", "value": "` + awsKeyID + `"},
        {"name": "AWS_SECRET_ACCESS_KEY", "value": "` + awsSecret + `"},
        {"name": "AWS_REGION", "value": "eu-west-1"}
      ],
      "command": ["sh", "-c", "migrate -database postgres://app:` + dbPassword + `@db:5432/orders up"]
    }],
    "containers": [{
      "name": "checkout",
      "image": "registry.example.com/shop/checkout:1.4.2",
      "args": ["--listen=:8080", "--api-key", "` + stripeKey + `", "--password-stdin", "--token-file", "/var/run/secrets/tokens/api", "-p=8080", "--db-password=$(DB_PASSWORD)", "--github-token=` + githubPAT + `"],
      "env": [
        {"name": "DB_HOST", "value": "db.shop.svc"},
        {"name": "DB_PASSWORD", "value": "` + dbPassword + `"},
        {"name": "DB_PASSWORD_FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "password"}}},
        {"name": "SECRET_NAME", "value": "db-credentials"},
        {"name": "PASSWORD_FILE", "value": "/etc/secret/pw"},
        {"name": "GOOGLE_APPLICATION_CREDENTIALS", "value": "/var/secrets/google/key.json"},
        {"name": "LOG_LEVEL", "value": "debug"},
        {"name": "SLACK_WEBHOOK", "value": "https://hooks.slack.com/services/T000/B000/XXXX"},
        {"name": "NOTIFY_WITH", "value": "` + slackToken + `"},
        {"name": "EMPTY_PASSWORD", "value": ""}
      ],
      "envFrom": [{"secretRef": {"name": "checkout-env"}}],
      "livenessProbe": {"exec": {"command": ["grpc_health_probe", "-addr=:8080", "-token", "8f1c2e9a77b04d"]}}
    }],
    "ephemeralContainers": [{
      "name": "debugger-abc",
      "image": "busybox",
      "env": [{"name": "GITHUB_TOKEN", "value": "` + githubPAT + `"}]
    }],
    "volumes": [{"name": "tls", "secret": {"secretName": "checkout-tls", "items": [{"key": "tls.key", "path": "tls.key"}]}}]
  },
  "status": {
    "phase": "Running",
    "containerStatuses": [{"name": "checkout", "restartCount": 4, "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
      "message": "panic: connect: password authentication failed, using DATABASE_URL=postgres://app:` + dbPassword + `@db:5432/orders"}}}]
  }
}`
}

func TestObjectPod(t *testing.T) {
	pod := decode(t, podManifest())
	n := Object(pod)

	checks := []struct {
		path []any
		want any
	}{
		// managedFields dropped
		{[]any{"metadata", "managedFields"}, nil},
		// annotations: by shape only
		{[]any{"metadata", "annotations", "example.com/debug-token"}, Mask},
		{[]any{"metadata", "annotations", "nginx.ingress.kubernetes.io/auth-secret"}, "basic-auth"},
		{[]any{"metadata", "annotations", "vault.hashicorp.com/agent-inject-secret-db-creds"}, "database/creds/checkout"},
		{[]any{"metadata", "labels", "app"}, "checkout"},
		// schema fields under sensitive names are not strings
		{[]any{"spec", "automountServiceAccountToken"}, false},
		// init container env and command
		{[]any{"spec", "initContainers", 0, "env", 0, "value"}, "AKIA[REDACTED]"},
		{[]any{"spec", "initContainers", 0, "env", 1, "value"}, Mask},
		{[]any{"spec", "initContainers", 0, "env", 2, "value"}, "eu-west-1"},
		{[]any{"spec", "initContainers", 0, "command", 2}, "migrate -database postgres://app:[REDACTED]@db:5432/orders up"},
		// args
		{[]any{"spec", "containers", 0, "args"}, []any{
			"--listen=:8080", "--api-key", Mask, "--password-stdin", "--token-file", "/var/run/secrets/tokens/api",
			"-p=8080", "--db-password=$(DB_PASSWORD)", "--github-token=[REDACTED]"}},
		// env
		{[]any{"spec", "containers", 0, "env", 0, "value"}, "db.shop.svc"},
		{[]any{"spec", "containers", 0, "env", 1, "value"}, Mask},
		{[]any{"spec", "containers", 0, "env", 2, "valueFrom", "secretKeyRef"}, map[string]any{"name": "db-credentials", "key": "password"}},
		{[]any{"spec", "containers", 0, "env", 3, "value"}, "db-credentials"},
		{[]any{"spec", "containers", 0, "env", 4, "value"}, "/etc/secret/pw"},
		{[]any{"spec", "containers", 0, "env", 5, "value"}, "/var/secrets/google/key.json"},
		{[]any{"spec", "containers", 0, "env", 6, "value"}, "debug"},
		{[]any{"spec", "containers", 0, "env", 7, "value"}, "https://hooks.slack.com/services/[REDACTED]"},
		{[]any{"spec", "containers", 0, "env", 8, "value"}, "xoxb-[REDACTED]"},
		{[]any{"spec", "containers", 0, "env", 9, "value"}, ""},
		{[]any{"spec", "containers", 0, "envFrom", 0, "secretRef", "name"}, "checkout-env"},
		{[]any{"spec", "containers", 0, "livenessProbe", "exec", "command"}, []any{"grpc_health_probe", "-addr=:8080", "-token", Mask}},
		{[]any{"spec", "ephemeralContainers", 0, "env", 0, "value"}, Mask},
		// references to Secrets are evidence, kept
		{[]any{"spec", "volumes", 0, "secret", "secretName"}, "checkout-tls"},
		{[]any{"spec", "volumes", 0, "secret", "items", 0, "key"}, "tls.key"},
		// status messages are free text
		{[]any{"status", "containerStatuses", 0, "lastState", "terminated", "message"},
			"panic: connect: password authentication failed, using DATABASE_URL=postgres://app:[REDACTED]@db:5432/orders"},
	}
	for _, c := range checks {
		if got := get(t, pod, c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v = %#v, want %#v", c.path, got, c.want)
		}
	}

	// last-applied-configuration: parsed, redacted, re-serialised.
	la := get(t, pod, "metadata", "annotations", lastAppliedKey).(string)
	want := strings.Replace(deploymentLastApplied, "HUNTER2_PLACEHOLDER", Mask, 1)
	if la != want {
		t.Errorf("last-applied-configuration\n got %s\nwant %s", la, want)
	}

	// 1 annotation JWT + 1 last-applied env + 2 init env + 1 init command
	// + 2 args + 1 env + 2 slack env + 1 probe + 1 ephemeral + 1 status
	if n != 13 {
		t.Errorf("Object masked %d values, want 13", n)
	}
	assertNoSecrets(t, mustJSON(t, pod))
}

// TestRedactedPodJSONHasNoSecrets is the end-to-end guarantee: whatever the
// collector writes to resources/ after Object holds none of the planted
// credentials, in whatever field they were planted.
func TestRedactedPodJSONHasNoSecrets(t *testing.T) {
	pod := decode(t, podManifest())
	raw := mustJSON(t, pod)
	found := 0
	for _, s := range plantedSecrets() {
		if strings.Contains(raw, s) {
			found++
		}
	}
	if found < 7 {
		t.Fatalf("fixture plants only %d secrets", found)
	}
	Object(pod)
	out := mustJSON(t, pod)
	assertNoSecrets(t, out)
	if strings.Contains(out, "managedFields") {
		t.Error("managedFields survived")
	}
	// And the evidence survived.
	for _, keep := range []string{"DB_PASSWORD", "db-credentials", "/etc/secret/pw", "checkout-tls", "postgres://app:", "--api-key"} {
		if !strings.Contains(out, keep) {
			t.Errorf("redaction removed evidence %q", keep)
		}
	}
}

func TestObjectSecret(t *testing.T) {
	secret := decode(t, `{
  "apiVersion": "v1",
  "kind": "Secret",
  "type": "kubernetes.io/tls",
  "metadata": {
    "name": "checkout-tls",
    "namespace": "shop",
    "annotations": {
      "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"data\":{\"tls.crt\":\"LS0t\",\"tls.key\":\"LS0tLS1CRUdJTg==\"},\"kind\":\"Secret\"}",
      "cert-manager.io/issuer-name": "letsencrypt"
    },
    "managedFields": [{"manager": "cert-manager"}]
  },
  "data": {"tls.crt": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t", "tls.key": "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t", "ca.crt": ""},
  "stringData": {"password": "`+dbPassword+`"}
}`)
	n := Object(secret)
	want := map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"type":       "kubernetes.io/tls",
		"metadata": map[string]any{
			"name":      "checkout-tls",
			"namespace": "shop",
			"annotations": map[string]any{
				lastAppliedKey:                Mask,
				"cert-manager.io/issuer-name": "letsencrypt",
			},
		},
		"data":       map[string]any{"tls.crt": Mask, "tls.key": Mask, "ca.crt": ""},
		"stringData": map[string]any{"password": Mask},
	}
	if !reflect.DeepEqual(secret, want) {
		t.Errorf("got  %s\nwant %s", mustJSON(t, secret), mustJSON(t, want))
	}
	if n != 4 {
		t.Errorf("masked %d, want 4", n)
	}
}

func TestObjectSecretListItemsWithoutKind(t *testing.T) {
	list := map[string]any{
		"apiVersion": "v1",
		"kind":       "SecretList",
		"items": []any{
			map[string]any{"metadata": map[string]any{"name": "a", "managedFields": []any{}}, "data": map[string]any{"token": "ZXlK", "namespace": "c2hvcA=="}},
		},
	}
	if n := Object(list); n != 2 {
		t.Errorf("masked %d, want 2", n)
	}
	item := get(t, list, "items", 0).(map[string]any)
	if !reflect.DeepEqual(item["data"], map[string]any{"token": Mask, "namespace": Mask}) {
		t.Errorf("data = %v", item["data"])
	}
	if _, ok := item["metadata"].(map[string]any)["managedFields"]; ok {
		t.Error("managedFields kept on a list item")
	}
}

func TestObjectConfigMap(t *testing.T) {
	cm := decode(t, `{
  "apiVersion": "v1",
  "kind": "ConfigMap",
  "metadata": {"name": "checkout-config", "namespace": "shop"},
  "data": {
    "password": "hunter2",
    "db.password": "hunter2",
    "DB_HOST": "db.shop.svc",
    "SECRET_NAME": "db-credentials",
    "key": "feature-x",
    "application.properties": "server.port=8080\nspring.datasource.url=jdbc:postgresql://db:5432/orders\nspring.datasource.username=app\nspring.datasource.password=`+dbPassword+`\n",
    "config.yaml": "upstream:\n  url: https://api.example.com\n  apiKey: `+openAIKey+`\n",
    "ca.crt": `+jsonString(certPEM)+`,
    "tls.key": `+jsonString(ecKeyPEM)+`
  },
  "binaryData": {"keystore.p12": "MIIKZgIBAzCCCiAGCSqGSIb3DQEHAaCCChEEggoNMIIKCTCCBa"}
}`)
	n := Object(cm)
	data := cm["data"].(map[string]any)
	wantData := map[string]any{
		"password":               Mask,
		"db.password":            Mask,
		"DB_HOST":                "db.shop.svc",
		"SECRET_NAME":            "db-credentials",
		"key":                    "feature-x",
		"application.properties": "server.port=8080\nspring.datasource.url=jdbc:postgresql://db:5432/orders\nspring.datasource.username=app\nspring.datasource.password=[REDACTED]\n",
		"config.yaml":            "upstream:\n  url: https://api.example.com\n  apiKey: [REDACTED]\n",
		"ca.crt":                 certPEM,
		"tls.key":                Mask,
	}
	for k, want := range wantData {
		if data[k] != want {
			t.Errorf("data[%q] = %q, want %q", k, data[k], want)
		}
	}
	if got := get(t, cm, "binaryData", "keystore.p12"); got != "MIIKZgIBAzCCCiAGCSqGSIb3DQEHAaCCChEEggoNMIIKCTCCBa" {
		t.Errorf("binaryData keystore.p12 = %v (no sensitive name, no credential shape: kept)", got)
	}
	if n != 5 {
		t.Errorf("masked %d, want 5", n)
	}
}

func TestObjectNestedPodTemplates(t *testing.T) {
	envList := `[{"name": "API_TOKEN", "value": "8f1c2e9a77b04d"}, {"name": "MODE", "value": "batch"}]`
	for name, manifest := range map[string]string{
		"Deployment":  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"c","env":` + envList + `}]}}}}`,
		"CronJob":     `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"initContainers":[{"name":"c","env":` + envList + `}]}}}}}}`,
		"StatefulSet": `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},"spec":{"template":{"spec":{"containers":[{"name":"c","env":` + envList + `}]}}}}`,
		"CustomResource": `{"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow","metadata":{"name":"w"},"spec":{"templates":[{"name":"main","container":{"env":` + envList + `}}],` +
			`"arguments":{"parameters":[{"name":"db-password","value":"hunter2"}]}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			obj := decode(t, manifest)
			n := Object(obj)
			out := mustJSON(t, obj)
			if strings.Contains(out, "8f1c2e9a77b04d") || strings.Contains(out, "hunter2") {
				t.Errorf("secret survived: %s", out)
			}
			if !strings.Contains(out, `"batch"`) || !strings.Contains(out, `"API_TOKEN"`) {
				t.Errorf("evidence lost: %s", out)
			}
			if want := map[bool]int{true: 2, false: 1}[name == "CustomResource"]; n != want {
				t.Errorf("masked %d, want %d", n, want)
			}
		})
	}
}

func TestObjectCustomResourceFields(t *testing.T) {
	obj := decode(t, `{
  "apiVersion": "example.com/v1",
  "kind": "Database",
  "metadata": {"name": "orders"},
  "spec": {
    "clientSecret": "Zx81-lp0Q",
    "tokens": ["a1b2c3", "d4e5f6"],
    "adminPasswords": ["p1", ""],
    "passwordSecretRef": {"name": "orders-admin", "key": "password"},
    "tokenTTL": "1h",
    "keyAlgorithm": "RSA",
    "maxTokens": 1024,
    "embedded": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "inline"}, "stringData": {"token": "abc"}},
    "notes": "rotate with: kubectl create secret generic x --from-literal=password=hunter2"
  }
}`)
	n := Object(obj)
	spec := obj["spec"].(map[string]any)
	want := map[string]any{
		"clientSecret":      Mask,
		"tokens":            []any{"a1b2c3", "d4e5f6"}, // "tokens" is a count word; see IsSensitiveName
		"adminPasswords":    []any{Mask, ""},
		"passwordSecretRef": map[string]any{"name": "orders-admin", "key": "password"},
		"tokenTTL":          "1h",
		"keyAlgorithm":      "RSA",
		"maxTokens":         int64(1024),
		"embedded":          map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "inline"}, "stringData": map[string]any{"token": Mask}},
		"notes":             "rotate with: kubectl create secret generic x --from-literal=password=[REDACTED]",
	}
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("got  %s\nwant %s", mustJSON(t, spec), mustJSON(t, want))
	}
	if n != 4 {
		t.Errorf("masked %d, want 4", n)
	}
}

func TestObjectLastApplied(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"nothing to mask keeps the bytes", `{"kind":"ConfigMap","data":{"a":"<b>"}}`, `{"kind":"ConfigMap","data":{"a":"<b>"}}`, 0},
		{"configmap password", `{"kind":"ConfigMap","data":{"password":"hunter2","url":"<x>"}}`, `{"data":{"password":"[REDACTED]","url":"<x>"},"kind":"ConfigMap"}`, 1},
		{"big numbers survive", `{"spec":{"replicas":12345678901234567890,"env":[{"name":"TOKEN","value":"abc"}]}}`, `{"spec":{"env":[{"name":"TOKEN","value":"[REDACTED]"}],"replicas":12345678901234567890}}`, 1},
		{"embedded secret", `{"apiVersion":"v1","kind":"Secret","data":{"k":"dg=="}}`, `{"apiVersion":"v1","data":{"k":"[REDACTED]"},"kind":"Secret"}`, 1},
		{"not json", `{"kind":"ConfigMap","data":{"password":"hunt`, Mask, 1},
		{"trailing garbage", `{"kind":"ConfigMap"} {"x":1}`, Mask, 1},
		{"empty", ``, ``, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"annotations": map[string]any{lastAppliedKey: tt.in}}}
			n := Object(obj)
			if got := get(t, obj, "metadata", "annotations", lastAppliedKey); got != tt.want || n != tt.n {
				t.Errorf("got %s, %d\nwant %s, %d", got, n, tt.want, tt.n)
			}
		})
	}
}

func TestObjectList(t *testing.T) {
	list := map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items": []any{
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "managedFields": []any{"x"}}, "data": map[string]any{"password": "aHVudGVyMg=="}},
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"API_KEY": "abc", "mode": "fast"}},
			"odd item: password=hunter2",
		},
	}
	if n := Object(list); n != 3 {
		t.Errorf("masked %d, want 3", n)
	}
	out := mustJSON(t, list)
	if strings.Contains(out, "aHVudGVyMg==") || strings.Contains(out, `"abc"`) || strings.Contains(out, "hunter2") || strings.Contains(out, "managedFields") {
		t.Errorf("got %s", out)
	}
	if !strings.Contains(out, `"fast"`) {
		t.Errorf("lost evidence: %s", out)
	}
}

func TestObjectOddInputs(t *testing.T) {
	if n := Object(nil); n != 0 {
		t.Errorf("Object(nil) = %d", n)
	}
	obj := map[string]any{
		"kind":       "Secret",
		"data":       "not-a-map",
		"stringData": nil,
		"metadata":   "not-a-map",
		"spec": map[string]any{
			"env":    []string{"PASSWORD=x"},
			"labels": map[string]string{"token": "abc", "team": "shop"},
			"args":   []any{"--token"},
			"weird":  []any{nil, 1.5, true, []any{"Bearer abcdef123456"}},
		},
	}
	n := Object(obj)
	want := map[string]any{
		"kind":       "Secret",
		"data":       Mask,
		"stringData": nil,
		"metadata":   "not-a-map",
		"spec": map[string]any{
			"env":    []string{"PASSWORD=[REDACTED]"},
			"labels": map[string]string{"token": Mask, "team": "shop"},
			"args":   []any{"--token"},
			"weird":  []any{nil, 1.5, true, []any{"Bearer [REDACTED]"}},
		},
	}
	if !reflect.DeepEqual(obj, want) || n != 4 {
		t.Errorf("got %#v, %d", obj, n)
	}
}

func TestStripManagedFields(t *testing.T) {
	obj := map[string]any{
		"kind":     "PodList",
		"metadata": map[string]any{"managedFields": []any{1}, "resourceVersion": "7"},
		"items":    []any{map[string]any{"metadata": map[string]any{"name": "p", "managedFields": []any{1}}}, "x"},
	}
	StripManagedFields(obj)
	want := map[string]any{
		"kind":     "PodList",
		"metadata": map[string]any{"resourceVersion": "7"},
		"items":    []any{map[string]any{"metadata": map[string]any{"name": "p"}}, "x"},
	}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("got %#v", obj)
	}
	StripManagedFields(map[string]any{}) // no metadata: no panic
}
