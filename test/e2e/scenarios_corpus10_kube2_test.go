package e2e

import (
	"fmt"
	"maps"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The tenth Kubernetes batch's second half (see
// scenarios_corpus10_kube_test.go for the batch and its first-round
// record).

// c10kubeContainerStatus is a running container of a multi-container pod.
func c10kubeContainerStatus(name, image string, ready bool, since time.Duration) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:c1", ContainerID: "containerd://" + name, Ready: ready, Started: ptr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: wlAgo(since)}}}
}

var c10kubeScenarios2 = []scenario{
	{
		// First round: MISS. Today: Rollout (0.85) "deployment my-paused-deployment runs an older template on 32 of 32 pods (... nginx:1.17.4, the template now has nginx:1.17.5) and will not replace them: spec.paused: true". The diagnosis is right; the check misses on its wording (the culprit "is paused" was chosen because the Deployment's own name contains "paused"; the report says spec.paused: true).
		// Missing: nothing of substance: only the words "is paused".
		name:     "real-deployment-paused-zero-of-32-new-replicas-updated",
		source:   "material: https://github.com/spinnaker/spinnaker/issues/5101 (a Spinnaker Deploy (Manifest) stage on a paused Deployment waits until its timeout: Stage kubernetes/deployment my-paused-deployment timed out after 10 minutes 1 second, while kubectl rollout status deployment my-paused-deployment says Waiting for deployment \"my-paused-deployment\" rollout to finish: 0 out of 32 new replicas have been updated...; .spec.progressDeadlineSeconds is 480 yet no progress deadline fires, since a paused Deployment reports Progressing Unknown DeploymentPaused instead; the Deployment is paused (spec.paused), kubectl rollout resume lets the new template roll out); the images and the old ReplicaSet's hash are not in the thread",
		category: "Rollout",
		culprit:  []string{"is paused"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "my-paused-deployment"
			labels := map[string]string{"app": "my-app"}
			tmplOf := func(image string) corev1.PodTemplateSpec {
				return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "my-app", Image: image, Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}}}}}
			}
			oldImage, newImage := "nginx:1.17.4", "nginx:1.17.5"
			dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{testcluster.AnnotationRevision: "1",
				"artifact.spinnaker.io/name": name, "artifact.spinnaker.io/type": "kubernetes/deployment", "artifact.spinnaker.io/location": ns,
				"moniker.spinnaker.io/application": "my-app", "moniker.spinnaker.io/cluster": "deployment " + name}},
				Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(32)), Paused: true, ProgressDeadlineSeconds: ptr(int32(480)),
					Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)}, Template: tmplOf(newImage)}}
			c.Create(t, dep)
			rs := c10kubeReplicaSet(t, c, dep, "5d9c7f8b6f", "1", 32, tmplOf(oldImage))
			for i := 0; i < 32; i++ {
				st := c10kubeIP(wlReadyStatus("my-app", oldImage, 6*24*time.Hour), fmt.Sprintf("10.2.%d.%d", i/8, 20+i), "")
				c8kubePod(t, c, rs, fmt.Sprintf("%c%c%c%c%c", 'b'+i%20, 'x'+i%3, 'k', '2'+i%8, 'q'+i%9), "", st)
			}
			dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 32, UpdatedReplicas: 0, ReadyReplicas: 32, AvailableReplicas: 32,
				Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.",
						LastUpdateTime: wlAgo(6 * 24 * time.Hour), LastTransitionTime: wlAgo(6 * 24 * time.Hour)},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionUnknown, Reason: "DeploymentPaused", Message: "Deployment is paused",
						LastUpdateTime: wlAgo(26 * time.Hour), LastTransitionTime: wlAgo(26 * time.Hour)}}}
			c.SetObjectStatus(t, dep)
			return []string{"deployment/" + name}
		},
	},
	{
		// First round: MISS. Today: Volume/Mount/Timeout (0.55) "volumes storage (PVC storage-mail-0) did not attach or mount in time (error processing PVC .../storage-mail-0: PVC is not bound)".
		// Missing: following the unbound claim: storage-mail-0 waits for first consumer (class WaitForFirstConsumer) while its consumer mail-0 exists but was never scheduled, since the pod template sets spec.nodeName (no selected-node annotation is ever written); fix: nodeSelector/nodeAffinity instead of nodeName.
		name:     "real-statefulset-wait-for-first-consumer-pod-pinned-by-nodename",
		source:   "material: https://github.com/openebs/openebs/issues/2915 (StatefulSet mail with a volumeClaimTemplate storage (30Gi, ReadWriteOnce, storageClassName openebs-hostpath, WaitForFirstConsumer): mail-0 0/4 ContainerCreating for 62m and storage-mail-0 Pending, the provisioner never asked; title: waitForFirstConsumer PVCs fail to bind when Pod spec.nodeName is specified) with https://github.com/openebs/lvm-localpv/issues/379 (the same: a claim of a WaitForFirstConsumer class is not provisioned when its pod is pinned with nodeName; it is with nodeAffinity) and the resolution in https://github.com/openebs/website/pull/528 (nodeName bypasses the scheduler, so the claim never gets a selected node: do not set nodeName with WaitForFirstConsumer, use a nodeSelector or nodeAffinity); the node's name, the pod's four containers and the kubelet's event are not in the threads (one container stands for them)",
		category: "PVC/Pending",
		culprit:  []string{"nodeName"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			node := "mail-worker-1"
			c8kubeNode(t, c, node, c8kubeNodeInfo("Ubuntu 18.04.3 LTS", "4.15.0-76-generic", "docker://19.3.5", "v1.17.2"))
			class := "openebs-hostpath-" + ns
			if len(class) > 63 {
				class = class[:63]
			}
			c10kubeClass(t, c, class, "openebs.io/local", storagev1.VolumeBindingWaitForFirstConsumer, false, false, nil)
			labels := map[string]string{"app": "mail"}
			image := "docker.io/mailserver/docker-mailserver:release-v6.2.1"
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "mail", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(1)), ServiceName: "mail", Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)}, Spec: corev1.PodSpec{NodeName: node,
						Containers: []corev1.Container{{Name: "mail", Image: image, Ports: []corev1.ContainerPort{{Name: "smtp", ContainerPort: 25, Protocol: corev1.ProtocolTCP}},
							VolumeMounts: []corev1.VolumeMount{{Name: "storage", MountPath: "/var/mail"}}}}}},
					VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "storage"},
						Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
							Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("30Gi")}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
				CurrentRevision: "mail-7b9d5c6f8d", UpdateRevision: "mail-7b9d5c6f8d"}
			c.SetObjectStatus(t, sts)
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "storage-mail-0", Namespace: ns, Labels: maps.Clone(labels)},
				Spec:   *sts.Spec.VolumeClaimTemplates[0].Spec.DeepCopy(),
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			c.Create(t, pvc)
			c8kubeEvent(t, c, pvc, "", corev1.EventTypeNormal, "WaitForFirstConsumer", "persistentvolume-controller", "", "waiting for first consumer to be created before binding", 247, 62*time.Minute, 12*time.Second)
			st := c8kubeWaiting("mail", image, "ContainerCreating", "", 62*time.Minute, "")
			p := c9kubeStsPod(t, c, sts, 0, node, st)
			c8kubeEvent(t, c, p, node, corev1.EventTypeWarning, "FailedMount", "kubelet", "",
				fmt.Sprintf("Unable to attach or mount volumes: unmounted volumes=[storage], unattached volumes=[storage kube-api-access-9xk2p]: error processing PVC %s/storage-mail-0: PVC is not bound", ns),
				29, 62*time.Minute, 70*time.Second)
			return []string{"statefulset/mail"}
		},
	},
	{
		// First round: MISS. Today: OOMKilled (0.95) "container guides3 is OOMKilled at its memory limit 512Mi" (of pod ...-s5rfh); the HPA's ScalingActive=False is not connected to it (the OOMKilled last state is the thread's reproduction, not its recorded pod).
		// Missing: the HPA view: ScalingActive False because the ContainerResource metric fails as a whole when one pod (s5rfh, CrashLoopBackOff) has no metrics for guides3 (Kubernetes before the fix of PR 127193); fix: repair or delete that pod, or upgrade.
		name:     "real-hpa-container-metric-stalled-by-one-crashlooping-pod",
		source:   "material: https://github.com/kubernetes/kubernetes/issues/127169 (an HPA on a ContainerResource cpu metric stays at its scale and makes no decision while one pod is in CrashLoopBackOff: resource cpu of container \"mycontainer\" on pods (as a percentage of request): <unknown> / 50%, Warning FailedGetResourceMetric 78s (x7 over 4m7s) horizontal-pod-autoscaler unable to get metric cpu: failed to get container metrics: container guides3 not present in metrics for pod namesapce/mycontainer-20240904t1338-433ca6a1-db998df74-s5rfh; the pod was in CrashLoopBackOff, and only removing it let the HPA scale; the pods also run an istio sidecar) and the fix https://github.com/kubernetes/kubernetes/pull/127193 (ContainerResource calculations fail when a container of a pod that is not ready (OOM'd, crash-looping) has no metrics; since the fix they skip it as Resource calculations do); the images, replica counts, requests and the crash's last state (OOMKilled, the thread's reproduction) are not in the thread",
		category: "HPA",
		culprit:  []string{"s5rfh", "CrashLoopBackOff"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name, container := "mycontainer-20240904t1338-433ca6a1", "guides3"
			image, proxy := "registry.example.com/guides3:20240904t1338", "docker.io/istio/proxyv2:1.22.3"
			labels := map[string]string{"app": "mycontainer", "version": "20240904t1338"}
			res := func(cpu, mem string) corev1.ResourceRequirements {
				return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
					Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(mem)}}
			}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"sidecar.istio.io/inject": "true"}}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: container, Image: image, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					Resources: res("500m", "512Mi")}}}}
			st := c9kubeAvailable(name+"-db998df74", 4, 20*time.Hour)
			st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas = 3, 3, 1
			_, rs := c8kubeDeployment(t, c, ns, name, "db998df74", 4, tmpl, c9kubeReadyRS(4, 3), st)
			var bad *corev1.Pod
			for i, sfx := range []string{"s5rfh", "8kq2m", "tz4xw", "l9vbn"} {
				spec := *rs.Spec.Template.Spec.DeepCopy()
				spec.Containers = append(spec.Containers, corev1.Container{Name: "istio-proxy", Image: proxy, Args: []string{"proxy", "sidecar"}, Resources: res("100m", "128Mi")})
				pst := c10kubeIP(wlReadyStatus(container, image, 20*time.Hour), fmt.Sprintf("10.12.%d.%d", i, 31+i), "")
				pst.ContainerStatuses = []corev1.ContainerStatus{c10kubeContainerStatus(container, image, true, 20*time.Hour), c10kubeContainerStatus("istio-proxy", proxy, true, 20*time.Hour)}
				if i == 0 {
					crash := c8kubeCrash(container, image, pst.PodIP, 137, 6)
					cs := crash.ContainerStatuses[0]
					cs.LastTerminationState.Terminated.Reason = "OOMKilled"
					pst.Conditions = crash.Conditions
					pst.ContainerStatuses = []corev1.ContainerStatus{cs, c10kubeContainerStatus("istio-proxy", proxy, true, 20*time.Hour)}
				}
				p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-" + sfx, Namespace: ns, Labels: maps.Clone(rs.Spec.Template.Labels),
					Annotations: maps.Clone(rs.Spec.Template.Annotations), OwnerReferences: []metav1.OwnerReference{wlController("ReplicaSet", rs)}}, Spec: spec, Status: pst})
				if i == 0 {
					bad = p
				}
			}
			c8appBackOff(t, c, bad, container, 23)
			missing := fmt.Sprintf("failed to get container metrics: container %s not present in metrics for pod %s/%s", container, ns, bad.Name)
			h := c4bHPA(t, c, ns, name, name, 2, 10, []autoscalingv2.MetricSpec{{Type: autoscalingv2.ContainerResourceMetricSourceType,
				ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: corev1.ResourceCPU, Container: container,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(50))}}}},
				autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 4, LastScaleTime: ptr(wlAgo(19 * time.Hour)),
					Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
						c4bHPACond(autoscalingv2.AbleToScale, true, "SucceededGetScale", "the HPA controller was able to get the target's current scale", 19*time.Hour),
						c4bHPACond(autoscalingv2.ScalingActive, false, "FailedGetContainerResourceMetric", "the HPA was unable to compute the replica count: "+missing, 4*time.Minute+7*time.Second)}})
			c8kubeEvent(t, c, h, "", corev1.EventTypeWarning, "FailedGetResourceMetric", "horizontal-pod-autoscaler", "", "unable to get metric cpu: "+missing, 7, 4*time.Minute+7*time.Second, 78*time.Second)
			return []string{"hpa/" + name}
		},
	},
}
