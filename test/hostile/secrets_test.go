package hostile

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// secret is one planted credential: where it was put and the value that
// must never be found.
type secret struct {
	where, value string
}

// unique makes every planted value distinct per run, assembled at run time
// so secret scanners do not flag this file.
func unique(prefix, body string) string { return prefix + body }

// pemKey generates a private key block; its body lines are what must not
// survive.
func pemKey(t *testing.T, rsaKey bool) (block string, body []string) {
	t.Helper()
	var der []byte
	var typ string
	if rsaKey {
		k, err := rsa.GenerateKey(rand.Reader, 1024)
		if err != nil {
			t.Fatal(err)
		}
		der, typ = x509.MarshalPKCS1PrivateKey(k), "RSA PRIVATE KEY"
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if der, err = x509.MarshalECPrivateKey(k); err != nil {
			t.Fatal(err)
		}
		typ = "EC PRIVATE KEY"
	}
	block = string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	lines := strings.Split(strings.TrimSpace(block), "\n")
	return block, lines[1 : len(lines)-1]
}

// TestPlantedSecretsNeverLeak plants a credential of every family in every
// place the cluster and a fault can carry text (container env and args,
// annotations, a ConfigMap the pod uses, logs fetched with timestamps, an
// event's message, every string field of a fault event), triages the pod
// and the fault, runs every reading command, then scans the whole workspace
// root and everything printed.
func TestPlantedSecretsNeverLeak(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	root := filepath.Join(t.TempDir(), "incidents")

	jwt := func(sig string) string {
		return "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5sQ0Z3In0" + "." + "eyJpc3MiOiJrdWJlcm5ldGVzIiwic3ViIjoic3lzdGVtOmhvc3RpbGUifQ" + "." + sig
	}
	s := map[string]string{
		"env password":        unique("Pl4nted-", "DbPass-91x"),
		"env curl -u":         unique("Cu7l-", "PassW0rd-z"),
		"arg --token":         unique("tok", "en8f1c2e9a77b04dQq"),
		"arg redis-cli -a":    unique("R3dis-", "Pl4nted-q"),
		"annotation google":   unique("AI"+"za", "SyHostileKey0123456789abcdefghijklmn"),
		"annotation bearer":   jwt("QW5ub3RhdGlvbkJlYXJlclNpZ25hdHVyZTAx"),
		"configmap password":  unique("Cm-", "Passw0rd-77"),
		"configmap npm":       unique("np"+"m_", "HostileNpmToken0123456789abcdefghijk"),
		"log glpat":           unique("gl"+"pat-", "HostileGitlab0123456"),
		"log credentials":     unique("Cr3ds-", "Pl4nted-k"),
		"log aws secret":      "Zq3v9+Tb1YkR0mW8sLx2NcJd7HfPaE4uGi6oB5tV",
		"log vault":           unique("hv"+"s.", "CAESIHostileVaultToken0123456789"),
		"event password":      unique("Ev3nt-", "Passw0rd-1"),
		"event github":        unique("gh"+"p_", "HostileEventGithub0123456789abcdefghij"),
		"event bearer":        jwt("RXZlbnRCZWFyZXJTaWduYXR1cmVfMDEyMzQ1"),
		"fault type password": unique("F4ult-", "TypePw-3"),
		"fault message ghp":   unique("gh"+"p_", "HostileFaultGithub0123456789abcdefghi"),
		"fault bearer":        jwt("RmF1bHRCZWFyZXJTaWduYXR1cmVfMDEyMzQ1"),
		"fault sendgrid":      "S" + "G." + "aB3dE5gH7jK9mN1pQ3sT5v" + "." + "xY9wV7uT5sR3qP1oN9mL7kJ5hG3fE1dC9bA7zX5wV3u",
		"fault redis-cli":     unique("F4ultR3dis-", "x"),
		"fault log sample":    unique("S4mple-", "Pw-xx"),
	}
	keyBlock, keyBody := pemKey(t, true)
	faultKey, faultKeyBody := pemKey(t, false)

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "leaky-config", Namespace: ns},
		Data: map[string]string{
			"app.properties": "spring.datasource.password=" + s["configmap password"] + "\nserver.port=8080\n",
			".npmrc":         "//registry.npmjs.org/:_authToken=" + s["configmap npm"] + "\n",
		},
	}
	c.Create(t, cm)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "leaky", Namespace: ns, Labels: map[string]string{"app": "leaky"},
			Annotations: map[string]string{
				"example.com/maps-key": s["annotation google"],
				"example.com/notes":    "call with Authorization: Bearer " + s["annotation bearer"],
			}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "busybox:1.36",
			Command: []string{"/app/server", "--token", s["arg --token"]},
			Args:    []string{"sh", "-c", "redis-cli -h redis -a " + s["arg redis-cli -a"] + " ping"},
			Env: []corev1.EnvVar{
				{Name: "DB_PASSWORD", Value: s["env password"]},
				{Name: "HEALTHCHECK", Value: "curl -sf -u admin:" + s["env curl -u"] + " http://localhost/health"},
			},
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "leaky-config"}}}},
		}}},
	}
	pod.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.31",
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: "busybox:1.36", ImageID: "docker.io/library/busybox@sha256:01", ContainerID: "containerd://h1", RestartCount: 7,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=app"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
				StartedAt: metav1.NewTime(time.Now().Add(-2 * time.Minute)), FinishedAt: metav1.NewTime(time.Now().Add(-time.Minute))}},
		}},
	}
	pod = c.CreatePod(t, pod)
	logs := "starting server\nloaded TLS key:\n" + keyBlock +
		"git push with " + s["log glpat"] + "\n" +
		"auth failed: credentials deploy:" + s["log credentials"] + " rejected\n" +
		"aws s3 cp failed with key AKIA" + "4QZ7XN2LB6HKW3RT " + s["log aws secret"] + "\n" +
		"vault token " + s["log vault"] + "\n" +
		"FATAL cannot start\n"
	c.SetLogs(ns, "leaky", "app", true, logs)
	c.SetLogs(ns, "leaky", "app", false, logs)
	c.Event(t, testcluster.EventSpec{Object: pod, Reason: "BackOff", Count: 9, FieldPath: "spec.containers{app}",
		Message: "Back-off restarting failed container app; last error: password=" + s["event password"] + " using " + s["event github"] +
			" and Authorization: Bearer " + s["event bearer"]})

	// The fault event: every string field carries a secret.
	fault := map[string]any{
		"faultId":   "hostile-1",
		"faultType": "CrashLoop password=" + s["fault type password"],
		"severity":  "critical",
		"cluster":   "hostile",
		"resource":  map[string]any{"apiVersion": "v1", "kind": "Pod", "name": "leaky", "namespace": ns, "uid": string(pod.UID)},
		"context":   "clone with " + s["fault message ghp"] + "; Authorization: Bearer " + s["fault bearer"] + "; mail key " + s["fault sendgrid"] + "; redis-cli -a " + s["fault redis-cli"] + "\n" + faultKey,
		"timestamp": time.Now().UTC().Format(time.RFC3339),
		"logs":      []map[string]any{{"container": "app", "sample": "2026-11-26T06:55:01Z DB_PASSWORD=" + s["fault log sample"]}},
	}
	faultFile := filepath.Join(t.TempDir(), "fault.json")
	data, _ := json.Marshal(fault)
	if err := os.WriteFile(faultFile, data, 0o600); err != nil {
		t.Fatal(err)
	}

	var printed []string
	record := func(what string, r result) {
		printed = append(printed, "== "+what+" stdout\n"+r.stdout, "== "+what+" stderr\n"+r.stderr)
	}
	r1 := run(t, c, root, "pod/leaky", "-n", ns)
	record("triage pod", r1)
	r2 := run(t, c, root, "--fault-file", faultFile)
	record("triage --fault-file", r2)
	r3 := run(t, c, root, "--fault-file", faultFile, "-o", "json")
	record("triage --fault-file -o json", r3)
	if r1.code != 0 || r2.code != 0 {
		t.Fatalf("triage exit %d / %d\n%s\n%s", r1.code, r2.code, r1.stderr, r2.stderr)
	}
	record("list", run(t, c, root, "list", "-o", "wide"))
	for _, inc := range listJSON(t, c, root) {
		id := inc.IncidentID
		record("status "+id, run(t, c, root, "status", id))
		record("status -o json "+id, run(t, c, root, "status", id, "-o", "json"))
		record("show "+id, run(t, c, root, "show", id))
		if inc.Redaction == nil || !inc.Redaction.Applied {
			t.Errorf("incident %s does not say redaction was applied: %+v", id, inc.Redaction)
		}
	}

	var planted []secret
	for where, v := range s {
		planted = append(planted, secret{where, v})
	}
	for i, l := range keyBody {
		planted = append(planted, secret{fmt.Sprintf("log PEM line %d", i+1), l})
	}
	for i, l := range faultKeyBody {
		planted = append(planted, secret{fmt.Sprintf("fault PEM line %d", i+1), l})
	}
	figures.secretsPlanted.Add(int64(len(planted)))

	leak := func(where, text string) {
		for _, p := range planted {
			if strings.Contains(text, p.value) {
				figures.secretsFound.Add(1)
				t.Errorf("secret planted in %s found in %s", p.where, where)
			}
		}
	}
	files := 0
	walkFiles(t, root, func(path string, data []byte) {
		files++
		figures.filesScanned.Add(1)
		figures.bytesScanned.Add(int64(len(data)))
		rel, _ := filepath.Rel(root, path)
		leak(rel, string(data))
	})
	for _, p := range printed {
		figures.bytesScanned.Add(int64(len(p)))
		leak(strings.SplitN(p, "\n", 2)[0], p)
	}
	if files < 20 {
		t.Errorf("scanned only %d files: the runs did not write what they should", files)
	}
	// The redaction kept the evidence readable: names stay, values go.
	if !strings.Contains(r1.stdout+r2.stdout, "leaky") {
		t.Errorf("the report lost the resource name:\n%s", r1.stdout)
	}
}
