package pod

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// Log lines as real programs print them:
//   - kelseyhightower/envconfig (envconfig.go, Process): fmt.Errorf("required
//     key %s missing value", info.Key), logged by the caller with log.Fatal.
//   - Go's flag package (flag.go, parseOne): "invalid value %q for flag -%s:
//     %v", with strconv's error reduced to "parse error" (numError).
const (
	envconfigLine = "2026/11/26 10:02:11 required key DATABASE_URL missing value\n"
	flagLine      = "invalid value \"$(PORT)\" for flag -port: parse error\nUsage of /app/server:\n  -port int\n    \tport to listen on (default 8080)\n"
)

func envPod(ctrs ...corev1.Container) *corev1.Pod {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	var sts []corev1.ContainerStatus
	for i, c := range ctrs {
		st := corev1.ContainerStatus{Name: c.Name, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
		if i == 0 {
			st = corev1.ContainerStatus{Name: c.Name, RestartCount: 5,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(1 + i), Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}
		}
		sts = append(sts, st)
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-7d9f", Namespace: "shop", UID: "p1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "api-6b", UID: "rs1", Controller: ptrTo(true)}}},
		Spec:   corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: ctrs},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: sts}}
}

func ptrTo[T any](v T) *T { return &v }

func envBundle(p *corev1.Pod, log string) *bundle.Bundle {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "api-6b", Namespace: "shop", UID: "rs1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "api", UID: "d1", Controller: ptrTo(true)}}}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "d1"}}
	return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
		ReplicaSets: []*appsv1.ReplicaSet{rs}, Deployments: []*appsv1.Deployment{d},
		Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: p.Name, Container: p.Spec.Containers[0].Name, Previous: true, Text: log}}}
}

func TestEnvSpec(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 5, 0, 0, time.UTC)
	app := func(env []corev1.EnvVar, args ...string) corev1.Container {
		return corev1.Container{Name: "app", Image: "shop/api:1", Env: env, Args: args}
	}
	for _, tt := range []struct {
		name     string
		pod      *corev1.Pod
		log      string
		category string   // "" when the rule must stay silent
		culprit  []string // each must appear in the culprit
		fix      []string // each must appear in the fix's commands
		notFix   string   // must not appear in the fix
	}{
		{"misspelled", envPod(app([]corev1.EnvVar{{Name: "DATABSE_URL", Value: "postgres://db:5432/shop"}})), envconfigLine,
			"CrashLoop/Exit1/MissingEnv/Misspelled", []string{"env DATABSE_URL", "reads DATABASE_URL"},
			[]string{`"name":"DATABASE_URL"`, `"$patch":"delete"`, "deployment/api"}, `"value":"<value>"`},
		{"empty", envPod(app([]corev1.EnvVar{{Name: "DATABASE_URL"}})), envconfigLine,
			"CrashLoop/Exit1/MissingEnv/EmptyValue", []string{"env DATABASE_URL", "empty"}, []string{`"name":"DATABASE_URL"`}, ""},
		{"undefined", envPod(app([]corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}})), envconfigLine,
			"CrashLoop/Exit1/MissingEnv/Undefined", []string{"env DATABASE_URL (not defined", "LOG_LEVEL"}, []string{`"name":"DATABASE_URL"`}, ""},
		{"other container", envPod(app(nil), corev1.Container{Name: "migrate", Env: []corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://db/shop"}}}), envconfigLine,
			"CrashLoop/Exit1/MissingEnv/OtherContainer", []string{"DATABASE_URL", "container migrate"}, []string{`"value":"postgres://db/shop"`}, ""},
		{"literal ref", envPod(app([]corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}}, "-port=$(PORT)")), flagLine,
			"CrashLoop/Exit1/MissingEnv/UndefinedRef", []string{"$(PORT)", "PORT is not defined"}, []string{`"name":"PORT"`}, ""},
		{"literal ref misspelled", envPod(app([]corev1.EnvVar{{Name: "APP_PORT", Value: "8080"}}, "-port=$(APP_PROT)")), "invalid value \"$(APP_PROT)\" for flag -port: parse error\n",
			"CrashLoop/Exit1/MissingEnv/UndefinedRef", []string{"env APP_PORT is defined, APP_PROT is not"}, []string{`$(APP_PORT)`}, `"name":"APP_PROT"`},
		// Rails reads SECRET_KEY_BASE; the spec renamed it
		// (AlverezYari/phillips-homelab#285): a near miss by a prefix, fixed
		// by adding the name with the same source, the old one kept.
		{"near miss by prefix", envPod(app([]corev1.EnvVar{{Name: "RAILS_ENV", Value: "prod_k8s"}, {Name: "RAILS_SECRET_KEY_BASE", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "rails"}, Key: "skb"}}}})),
			"/usr/local/bundle/gems/railties-7.1.3/lib/rails/application.rb:665:in `validate_secret_key_base': Missing `secret_key_base` for 'prod_k8s' environment, set this string with `bin/rails credentials:edit` (ArgumentError)\n",
			"CrashLoop/Exit1/MissingEnv/NearMiss", []string{"env SECRET_KEY_BASE (not defined; the near miss RAILS_SECRET_KEY_BASE is)"},
			[]string{`"name":"SECRET_KEY_BASE"`, `"secretKeyRef":{"name":"rails","key":"skb"}`}, `"$patch":"delete"`},
		// A shared part without "_" is no near miss: PORT is not REDIS_PORT.
		{"no near miss for a one-word name", envPod(app([]corev1.EnvVar{{Name: "REDIS_PORT", Value: "6379"}})), "FATAL: PORT is not set\n",
			"CrashLoop/Exit1/MissingEnv/Undefined", []string{"env PORT (not defined"}, []string{`"name":"PORT"`}, "REDIS_PORT"},
		// Escaped $$(PORT) is literal on purpose; a set literal is no spec
		// fault; envFrom may provide the variable; a ConfigMap reference is
		// pod/config-source's.
		// A literal the log does not blame: a refused connection is the
		// cause the crash finding names.
		{"literal ref, other cause", envPod(app(nil, "-region=$(REGION)")), "2026/11/26 10:02:11 dial tcp 10.96.0.12:5432: connect: connection refused\n", "", nil, nil, ""},
		{"escaped ref", envPod(app(nil, "-port=$$(PORT)")), "starting\nexit: bad port\n", "", nil, nil, ""},
		{"set", envPod(app([]corev1.EnvVar{{Name: "DATABASE_URL", Value: "postgres://db/shop"}})), envconfigLine, "", nil, nil, ""},
		{"envFrom", envPod(corev1.Container{Name: "app", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}}), envconfigLine, "", nil, nil, ""},
		{"configmap ref", envPod(app([]corev1.EnvVar{{Name: "DATABASE_URL", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "url"}}}})), envconfigLine, "", nil, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := ruletest.Run(EnvSpec, envBundle(tt.pod, tt.log), now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %q: %s", fs[0].Category, fs[0].Title)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d", len(fs))
			}
			f := fs[0]
			if string(f.Category) != tt.category || f.Strength != rule.Traced || !f.Current {
				t.Errorf("category %q strength %v current %v, want %s Traced", f.Category, f.Strength, f.Current, tt.category)
			}
			for _, s := range tt.culprit {
				if !strings.Contains(f.Culprit+" "+f.Title, s) {
					t.Errorf("culprit %q / title %q do not name %q", f.Culprit, f.Title, s)
				}
			}
			cmds, _ := json.Marshal(f.Actions[0].Commands)
			fix := strings.ReplaceAll(string(cmds), `\"`, `"`)
			for _, s := range tt.fix {
				if !strings.Contains(fix, s) {
					t.Errorf("fix %s does not hold %s", fix, s)
				}
			}
			if tt.notFix != "" && strings.Contains(fix, tt.notFix) {
				t.Errorf("fix %s holds %s", fix, tt.notFix)
			}
			// It outranks the crash loop's own reading.
			all := ruletest.Run(CrashLoop, envBundle(tt.pod, tt.log), now)
			if !rule.Outranks(&f, &all[0]) {
				t.Errorf("does not outrank the crash finding %q", all[0].Category)
			}
		})
	}
}
