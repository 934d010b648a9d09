package workload_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

func TestRollout(t *testing.T) {
	probeEvent := func(b *bundle.Bundle) {
		b.Events = append(b.Events, bundletest.Event(b.Pods[0], "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 404", 60))
	}
	investigatetest.RunWorkloadCases(t, []investigatetest.WorkloadCase{
		{
			Name:         "readiness probe changed: the rollout is the root cause",
			Bundle:       bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0", bundletest.ReadinessPath("/ready")), bundletest.RunningUnready),
			WantCategory: "Rollout/Stuck/NotReady",
			WantCulprit:  []string{"web-new", "revision 2", "readinessProbe httpGet /healthz port 8080 → httpGet /ready port 8080"},
			WantTitle:    []string{"never become Ready"},
			WantText:     []string{"kubectl rollout undo deployment/web -n shop --to-revision=1", "still serves 2 ready pod(s)", "image shop/web:2.3.1 → shop/web:2.4.0"},
			MinConf:      0.8,
		},
		{
			Name: "probe failure message is quoted",
			Bundle: func() *bundle.Bundle {
				b := bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0", bundletest.ReadinessPath("/ready")), bundletest.RunningUnready)
				probeEvent(b)
				return b
			}(),
			WantCategory: "Rollout/Stuck/NotReady",
			WantTitle:    []string{"statuscode: 404"},
		},
		{
			Name: "crash introduced by the rollout: the pod cause wins, the rollout is context",
			Bundle: func() *bundle.Bundle {
				b := bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0", bundletest.WithoutEnv("DATABASE_URL")), bundletest.Crashing(1, "Error"))
				b.Logs = []bundle.ContainerLog{{Namespace: "shop", Pod: "web-new-aaaaa", Container: "app", Previous: true, Text: "FATAL config: required env DATABASE_URL is empty\n"}}
				return b
			}(),
			WantCategory: "CrashLoop/Exit1/MissingEnv",
			WantCulprit:  []string{"DATABASE_URL"},
			WantRule:     "Rollout/Stuck/PodsFailing",
			WantText:     []string{"Revision 2 introduced the pods' failure: it changed container app env DATABASE_URL removed"},
		},
		{
			Name:         "new pods pending with no scheduling decision",
			Bundle:       bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0"), bundletest.PendingNoDecision),
			WantCategory: "Rollout/Stuck/Pending",
			WantTitle:    []string{"no scheduling decision"},
			Isolated:     true,
		},
		{
			Name:     "new pods pending: a pod-level finding explains them",
			Bundle:   bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0"), bundletest.PendingNoDecision),
			WantRule: "Rollout/Stuck/",
			AnyRoot:  true,
		},
		{
			Name: "new replicaset created no pod and no event says why",
			Bundle: func() *bundle.Bundle {
				b := bundletest.TwoRevisions(bundletest.PodTemplate("shop/web:2.4.0"))
				b.Pods = b.Pods[1:]
				b.ReplicaSets[1].Status.Replicas = 0
				return b
			}(),
			WantCategory: "Rollout/Stuck/NoPods",
			WantTitle:    []string{"0 of 1 pods"},
		},
		{
			Name: "single revision unavailable",
			Bundle: bundletest.WorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := bundletest.NewDeployment(1,
					appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."})
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{bundletest.NewReplicaSet("web-one", 1, time.Hour, bundletest.PodTemplate("shop/web:2.4.0"), 1, 0)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("web-one-aaaaa", bundletest.CtrlRef("ReplicaSet", "web-one"), bundletest.RunningUnready)}
			}),
			WantCategory: "Deployment/Unavailable/NotReady",
			WantTitle:    []string{"deployment web is unavailable"},
		},
		{
			Name: "no replicaset at all",
			Bundle: bundletest.WorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				b.Deployments = []*appsv1.Deployment{bundletest.NewDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable"})}
			}),
			WantCategory: "Deployment/Unavailable/NoReplicaSet",
		},
		{
			Name: "healthy deployment",
			Bundle: bundletest.WorkloadBundle("Deployment", "web", func(b *bundle.Bundle) {
				d := bundletest.NewDeployment(1, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue},
					appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"})
				d.Status.AvailableReplicas, d.Status.ReadyReplicas, d.Status.UpdatedReplicas = 1, 1, 1
				b.Deployments = []*appsv1.Deployment{d}
				b.ReplicaSets = []*appsv1.ReplicaSet{bundletest.NewReplicaSet("web-one", 1, time.Hour, bundletest.PodTemplate("shop/web:2.4.0"), 1, 1)}
				b.Pods = []*corev1.Pod{bundletest.OwnedPod("web-one-aaaaa", bundletest.CtrlRef("ReplicaSet", "web-one"), bundletest.Healthy)}
			}),
			Healthy: true,
		},
	})
}

func TestDiffTemplates(t *testing.T) {
	old := bundletest.PodTemplate("shop/web:2.3.1", func(s *corev1.PodSpec) {
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
	cur := bundletest.PodTemplate("shop/web:2.4.0", bundletest.WithoutEnv("DATABASE_URL"), func(s *corev1.PodSpec) {
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
		s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: bundletest.BoolPtr(true)}
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
