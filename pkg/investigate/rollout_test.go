package investigate

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

func TestRollout(t *testing.T) {
	probeEvent := func(b *bundle.Bundle) {
		b.Events = append(b.Events, event(b.Pods[0], "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 404", 60))
	}
	runWorkloadCases(t, []workloadCase{
		{
			name:         "readiness probe changed: the rollout is the root cause",
			bundle:       twoRevisions(podTemplate("shop/web:2.4.0", readinessPath("/ready")), runningUnready),
			wantCategory: "Rollout/Stuck/NotReady",
			wantCulprit:  []string{"web-new", "revision 2", "readinessProbe httpGet /healthz port 8080 → httpGet /ready port 8080"},
			wantTitle:    []string{"never become Ready"},
			wantText:     []string{"kubectl rollout undo deployment/web -n shop --to-revision=1", "still serves 2 ready pod(s)", "image shop/web:2.3.1 → shop/web:2.4.0"},
			minConf:      0.8,
		},
		{
			name: "probe failure message is quoted",
			bundle: func() *bundle.Bundle {
				b := twoRevisions(podTemplate("shop/web:2.4.0", readinessPath("/ready")), runningUnready)
				probeEvent(b)
				return b
			}(),
			wantCategory: "Rollout/Stuck/NotReady",
			wantTitle:    []string{"statuscode: 404"},
		},
		{
			name: "crash introduced by the rollout: the pod cause wins, the rollout is context",
			bundle: func() *bundle.Bundle {
				b := twoRevisions(podTemplate("shop/web:2.4.0", withoutEnv("DATABASE_URL")), crashing(1, "Error"))
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-new-aaaaa", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}
				return b
			}(),
			wantCategory: "CrashLoop/Exit1/MissingEnv",
			wantCulprit:  []string{"DATABASE_URL"},
			wantRule:     "Rollout/Stuck/PodsFailing",
			wantText:     []string{"Revision 2 introduced the pods' failure: it changed container app env DATABASE_URL removed"},
		},
		{
			name:         "new pods pending with no scheduling decision",
			bundle:       twoRevisions(podTemplate("shop/web:2.4.0"), pendingNoDecision),
			wantCategory: "Rollout/Stuck/Pending",
			wantTitle:    []string{"no scheduling decision"},
			isolated:     true,
		},
		{
			name:     "new pods pending: a pod-level finding explains them",
			bundle:   twoRevisions(podTemplate("shop/web:2.4.0"), pendingNoDecision),
			wantRule: "Rollout/Stuck/",
			anyRoot:  true,
		},
		{
			name: "new replicaset created no pod and no event says why",
			bundle: func() *bundle.Bundle {
				b := twoRevisions(podTemplate("shop/web:2.4.0"))
				b.Pods = b.Pods[1:]
				b.ReplicaSets[1].Status.Replicas = 0
				return b
			}(),
			wantCategory: "Rollout/Stuck/NoPods",
			wantTitle:    []string{"0 of 1 pods"},
		},
		{
			name: "single revision unavailable",
			bundle: workloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := newDeployment(1,
					appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."})
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{newReplicaSet("web-one", 1, time.Hour, podTemplate("shop/web:2.4.0"), 1, 0)}
				b.Pods = []*corev1.Pod{ownedPod("web-one-aaaaa", ctrlRef("ReplicaSet", "web-one"), runningUnready)}
			}),
			wantCategory: "Deployment/Unavailable/NotReady",
			wantTitle:    []string{"deployment web is unavailable"},
		},
		{
			name: "no replicaset at all",
			bundle: workloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				b.Deployments = []*appsv1.Deployment{newDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable"})}
			}),
			wantCategory: "Deployment/Unavailable/NoReplicaSet",
		},
		{
			name: "healthy deployment",
			bundle: workloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := newDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue},
					appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"})
				d.Status.AvailableReplicas, d.Status.ReadyReplicas, d.Status.UpdatedReplicas = 1, 1, 1
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{newReplicaSet("web-one", 1, time.Hour, podTemplate("shop/web:2.4.0"), 1, 1)}
				b.Pods = []*corev1.Pod{ownedPod("web-one-aaaaa", ctrlRef("ReplicaSet", "web-one"), healthy)}
			}),
			healthy: true,
		},
	})
}

func TestDiffTemplates(t *testing.T) {
	old := podTemplate("shop/web:2.3.1", func(s *corev1.PodSpec) {
		s.Containers[0].Command = []string{"/app", "serve"}
		s.Containers[0].Env = append(s.Containers[0].Env,
			corev1.EnvVar{Name: "API_TOKEN", Value: "[REDACTED]"},
			corev1.EnvVar{Name: "OLD_FLAG", Value: "1"},
			corev1.EnvVar{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-v1"}, Key: "password"}}})
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config-v1"}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web"}}
		s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 1}
		s.Containers = append(s.Containers, corev1.Container{Name: "sidecar", Image: "envoy:1.30"})
		s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-files-v1"}}}},
			{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	})
	cur := podTemplate("shop/web:2.4.0", withoutEnv("DATABASE_URL"), func(s *corev1.PodSpec) {
		s.Containers[0].Command = []string{"/app", "serve", "--fast"}
		s.Containers[0].Args = []string{"-v"}
		s.Containers[0].Env = append(s.Containers[0].Env,
			corev1.EnvVar{Name: "API_TOKEN", Value: "[REDACTED]x"},
			corev1.EnvVar{Name: "NEW_FLAG", Value: "yes"},
			corev1.EnvVar{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-v2"}, Key: "password"}}})
		s.Containers[0].Env[0].Value = "debug"
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config-v2"}}}}
		s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi"), corev1.ResourceCPU: resource.MustParse("500m")}
		s.Containers[0].ReadinessProbe.HTTPGet.Path = "/ready"
		s.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 5}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web/conf.d"}}
		s.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/migrate:2.4.0"}}
		s.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-files-v2"}}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}}}
		s.ServiceAccountName = "web"
		s.NodeSelector = map[string]string{"pool": "fast"}
		s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: boolPtr(true)}
		s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	})
	d := workload.DiffTemplates(&old, &cur)
	got := strings.Join(d.Changes, "\n")
	for _, want := range []string{
		"container app image shop/web:2.3.1 → shop/web:2.4.0",
		"container app command [/app serve] → [/app serve --fast]",
		"container app args [] → [-v]",
		`container app env LOG_LEVEL changed ("info" → "debug")`,
		"container app env API_TOKEN changed (value redacted → value redacted)",
		`container app env NEW_FLAG added ("yes")`,
		"container app env DB_PASSWORD changed (from Secret db-v1 key password → from Secret db-v2 key password)",
		"container app env DATABASE_URL removed",
		"container app env OLD_FLAG removed",
		"container app envFrom ConfigMap web-config-v2 added",
		"container app envFrom ConfigMap web-config-v1 removed",
		"container app limits.cpu 500m added",
		"container app limits.memory 512Mi → 128Mi",
		"container app livenessProbe tcpSocket port 8080 (initialDelaySeconds 0, periodSeconds 0, timeoutSeconds 1, failureThreshold 0) → tcpSocket port 8080 (initialDelaySeconds 0, periodSeconds 0, timeoutSeconds 5, failureThreshold 0)",
		"container app readinessProbe httpGet /healthz port 8080 → httpGet /ready port 8080",
		"container app mounts config at /etc/web/conf.d",
		"container app no longer mounts config at /etc/web",
		"init container migrate added (image shop/migrate:2.4.0)",
		"container sidecar removed",
		"volume config now ConfigMap web-files-v2 (was ConfigMap web-files-v1)",
		"volume data added (PVC web-data)",
		"volume cache removed (emptyDir)",
		"serviceAccountName (default) → web",
		"nodeSelector {} → {pool=fast}",
		"tolerations changed (0 → 1)",
		"pod securityContext changed",
		"imagePullSecrets [] → [regcred]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	cause := &rule.Finding{Title: "container app crashes: environment variable DATABASE_URL"}
	if m := d.Explains(cause); !strings.Contains(m, "DATABASE_URL removed") {
		t.Errorf("explains = %q, want the DATABASE_URL change", m)
	}
	if m := d.Explains(&rule.Finding{Title: "unrelated"}); m != "" {
		t.Errorf("explains an unrelated cause: %q", m)
	}
	if same := workload.DiffTemplates(&old, &old); len(same.Changes) != 0 {
		t.Errorf("identical templates differ: %v", same.Changes)
	}
}
