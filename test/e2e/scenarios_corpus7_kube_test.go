package e2e

import (
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A seventh batch of Kubernetes-side scenarios from real material (issue
// threads with the recorded kubectl describe/get output): the object's
// status and the controllers', scheduler's, provisioners' and kubelet's
// events say why. One is a healthy control. Each cites its source and
// carries the first round's result above it.

func init() {
	if os.Getenv("KUBECTL_TRIAGE_CORPUS7") != "" {
		register(c7kube...)
	}
}

// c7kubeEvent records an event about obj from component, repeated count
// times between first and last ago.
func c7kubeEvent(t *testing.T, c *testcluster.Cluster, obj runtime.Object, typ, reason, component, fieldPath, msg string, count int32, first, last time.Duration) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: obj, Type: typ, Reason: reason, Component: component, FieldPath: fieldPath, Message: msg, Count: count,
		First: time.Now().Add(-first), Last: time.Now().Add(-last)})
}

// c7kubeReadyDeployment is a Deployment of one container listening on port
// whose replicas are all serving, each with its own address.
func c7kubeReadyDeployment(t *testing.T, c *testcluster.Cluster, ns, name, container, image string, port, replicas int32, mutate ...func(*corev1.PodSpec)) (*appsv1.Deployment, []*corev1.Pod) {
	t.Helper()
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: container, Image: image,
			Ports: []corev1.ContainerPort{{ContainerPort: port, Protocol: corev1.ProtocolTCP}}}}}}
	for _, m := range mutate {
		m(&tmpl.Spec)
	}
	d, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Replicas: replicas, Template: &tmpl,
		PodStatus: wlReadyStatus(container, image, 6*time.Hour)})
	for i, p := range pods {
		ip := fmt.Sprintf("10.244.1.%d", 21+i)
		p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
		pods[i] = c.SetStatus(t, p)
	}
	return d, pods
}

// c7kubeBoundClaim creates claim name bound to a scenario-scoped
// PersistentVolume of class that provisioner created for it.
func c7kubeBoundClaim(t *testing.T, c *testcluster.Cluster, ns, name, class, provisioner string, labels map[string]string, mode corev1.PersistentVolumeAccessMode, size string) {
	t.Helper()
	pvName := fmt.Sprintf("pvc-%s-%s", name, ns)
	if len(pvName) > 63 {
		pvName = pvName[:63]
	}
	ann := map[string]string{"pv.kubernetes.io/provisioned-by": provisioner, scenarioScoped: "true"}
	c.Create(t, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Annotations: ann},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes: []corev1.PersistentVolumeAccessMode{mode}, StorageClassName: class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource: corev1.PersistentVolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{
				PDName: "gke-cluster-1-dyn-" + pvName, FSType: "ext4"}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: name},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	})
	dropAfterScenario(t, c, "PersistentVolume", pvName, ann)
	c.Create(t, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(labels),
			Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
				"volume.beta.kubernetes.io/storage-provisioner": provisioner}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: pvName,
			AccessModes: []corev1.PersistentVolumeAccessMode{mode},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{mode},
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	})
}

// c7kubePods sets a node's pod capacity (an EC2 instance type's ENI limit).
func c7kubePods(n string) func(*corev1.Node) {
	return func(node *corev1.Node) {
		node.Status.Capacity[corev1.ResourcePods] = resource.MustParse(n)
		node.Status.Allocatable[corev1.ResourcePods] = resource.MustParse(n)
	}
}

// c7kubeCompleteJob is the status of a Job whose one pod succeeded.
func c7kubeCompleteJob(started, took time.Duration) batchv1.JobStatus {
	done := wlAgo(started - took)
	return batchv1.JobStatus{Succeeded: 1, StartTime: ptr(wlAgo(started)), CompletionTime: &done, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: done, LastTransitionTime: done},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: done, LastTransitionTime: done},
		}}
}

// c7kubeSucceededPod is a Job pod whose container exited 0.
func c7kubeSucceededPod(container, image string, started, took time.Duration) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodSucceeded, HostIP: "127.0.0.1", PodIP: "10.244.0.41", StartTime: ptr(wlAgo(started)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(started)},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, Reason: "PodCompleted", LastTransitionTime: wlAgo(started)},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "PodCompleted", LastTransitionTime: wlAgo(started - took)},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodCompleted", LastTransitionTime: wlAgo(started - took)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:07", ContainerID: "containerd://s1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				StartedAt: wlAgo(started - 2*time.Second), FinishedAt: wlAgo(started - took), ContainerID: "containerd://s1"}}}},
	}
}

// c7kube are the batch's scenarios.
var c7kube = []scenario{
	{
		// First round: MISS. Today: ImagePull/Unknown (0.60) "container hello-app cannot pull image registry:5000/hello-app:1.0", the runtime's error not quoted nor classed.
		// Missing: a pull-error class for "server gave HTTP response to HTTPS client" (the registry speaks plain HTTP and the runtime is not configured to treat it as insecure), naming the registry host and quoting the error in the root cause.
		name:     "real-deployment-imagepull-plain-http-registry",
		source:   "https://github.com/containerd/cri/issues/1367 (kind cluster, kubectl create deployment hello-server --image=registry:5000/hello-app:1.0 against a local registry served over plain HTTP: Failed to pull image \"registry:5000/hello-app:1.0\": rpc error: code = Unknown desc = failed to pull and unpack image ...: failed to resolve reference ...: failed to do request: Head https://registry:5000/v2/hello-app/manifests/1.0: http: server gave HTTP response to HTTPS client; Error: ImagePullBackOff; containerd had to be told the registry is plain http); the same failure in https://github.com/cri-o/cri-o/issues/5045",
		category: "ImagePull",
		culprit:  []string{"registry:5000", "server gave HTTP response to HTTPS client"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry:5000/hello-app:1.0"
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "hello-server"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "hello-app", Image: image, ImagePullPolicy: corev1.PullIfNotPresent}}}}
			st := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "10.244.0.5", StartTime: ptr(minutesAgo(22)),
				Conditions: notReadyConditions(),
				ContainerStatuses: []corev1.ContainerStatus{{Name: "hello-app", Image: image,
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: fmt.Sprintf("Back-off pulling image %q", image)}}}}}
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "hello-server", Replicas: 1, Template: &tmpl, PodStatus: st})
			p := pods[0]
			fp := "spec.containers{hello-app}"
			c7kubeEvent(t, c, p, corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, p.Name, c.NodeName), 1, 22*time.Minute, 22*time.Minute)
			c7kubeEvent(t, c, p, corev1.EventTypeNormal, "Pulling", "kubelet", fp, fmt.Sprintf("Pulling image %q", image), 7, 22*time.Minute, 3*time.Minute)
			c7kubeEvent(t, c, p, corev1.EventTypeWarning, "Failed", "kubelet", fp, fmt.Sprintf("Failed to pull image %q: rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: failed to do request: Head https://registry:5000/v2/hello-app/manifests/1.0: http: server gave HTTP response to HTTPS client", image, image, image), 7, 22*time.Minute, 3*time.Minute)
			c7kubeEvent(t, c, p, corev1.EventTypeWarning, "Failed", "kubelet", fp, "Error: ErrImagePull", 7, 22*time.Minute, 3*time.Minute)
			c7kubeEvent(t, c, p, corev1.EventTypeNormal, "BackOff", "kubelet", fp, fmt.Sprintf("Back-off pulling image %q", image), 88, 22*time.Minute, 20*time.Second)
			c7kubeEvent(t, c, p, corev1.EventTypeWarning, "Failed", "kubelet", fp, "Error: ImagePullBackOff", 88, 22*time.Minute, 20*time.Second)
			return []string{"deployment/hello-server"}
		},
	},
	{
		// First round: hit.
		name:     "real-service-lb-multiple-tagged-security-groups",
		source:   "https://github.com/hashicorp-education/learn-terraform-provision-eks-cluster/issues/85 (kubectl describe svc of a type LoadBalancer Service on EKS: Warning SyncLoadBalancerFailed (x4 over 91s) service-controller Error syncing load balancer: failed to ensure load balancer: Multiple tagged security groups found for instance i-05f3a11329a20bb93; ensure only the k8s security group is tagged; the tagged groups were sg-08ca90265d3402e6c(education-eks-ooHfNJwm-node-20221205083117267100000007) sg-04ad04b5d3bb35e66(eks-cluster-sg-education-eks-ooHfNJwm-1857011925); Normal EnsuringLoadBalancer (x5 over 94s)); cause and fix (remove the kubernetes.io/cluster tag from one group) as in https://github.com/terraform-aws-modules/terraform-aws-eks/issues/3122",
		category: "Service",
		culprit:  []string{"Multiple tagged security groups"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			_, pods := c7kubeReadyDeployment(t, c, ns, "nginx", "nginx", "nginx:1.23", 80, 2)
			svc := c4bService(t, c, ns, "nginx", map[string]string{"app": "nginx"}, []corev1.ServicePort{c4bPort("http", 80, intstr.FromInt32(80))},
				func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer })
			c4bSlice(t, c, ns, "nginx", c4bSlicePort("http", 80), pods...)
			c7kubeEvent(t, c, svc, corev1.EventTypeNormal, "EnsuringLoadBalancer", "service-controller", "", "Ensuring load balancer", 9, 28*time.Minute, 40*time.Second)
			c7kubeEvent(t, c, svc, corev1.EventTypeWarning, "SyncLoadBalancerFailed", "service-controller", "",
				"Error syncing load balancer: failed to ensure load balancer: Multiple tagged security groups found for instance i-05f3a11329a20bb93; ensure only the k8s security group is tagged; the tagged groups were sg-08ca90265d3402e6c(education-eks-ooHfNJwm-node-20221205083117267100000007) sg-04ad04b5d3bb35e66(eks-cluster-sg-education-eks-ooHfNJwm-1857011925)",
				4, 28*time.Minute, 5*time.Minute)
			c7kubeEvent(t, c, svc, corev1.EventTypeWarning, "SyncLoadBalancerFailed", "service-controller", "",
				"Error syncing load balancer: failed to ensure load balancer: Multiple tagged security groups found for instance i-046c2cc46714af250; ensure only the k8s security group is tagged; the tagged groups were sg-08ca90265d3402e6c(education-eks-ooHfNJwm-node-20221205083117267100000007) sg-04ad04b5d3bb35e66(eks-cluster-sg-education-eks-ooHfNJwm-1857011925)",
				5, 27*time.Minute, 39*time.Second)
			return []string{"service/nginx"}
		},
	},
	{
		// First round: MISS. Today: Unknown (0.30) "cause not determined: Warning Translate on ingress/sippy ×14: Translation failed: ... is type \"ClusterIP\", expected \"NodePort\" or \"LoadBalancer\"".
		// Missing: an Ingress check that reads the ingress controller's warning events (GCE loadbalancer-controller Translate) and correlates them with the backend Service's type: a GCE ingress without NEG needs a NodePort or LoadBalancer Service.
		name:     "real-ingress-gce-backend-service-clusterip",
		source:   "https://github.com/kubernetes/k8s.io/pull/1915 (GKE ingress sippy: Normal Sync Scheduled for sync; Warning Translate Translation failed: invalid ingress spec: service \"sippy/sippy\" is type \"ClusterIP\", expected \"NodePort\" or \"LoadBalancer\"; fixed by changing the Service to NodePort); the objects as in kubernetes/k8s.io apps/sippy (ingress.yaml: kubernetes.io/ingress.class gce, backend sippy:9080; service.yaml: port 9080 targetPort 8080; deployment.yaml: quay.io/bparees/sippy:unstable); same message in https://github.com/kyma-project/test-infra/pull/3787",
		category: "Ingress",
		culprit:  []string{"ClusterIP", "NodePort"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			_, pods := c7kubeReadyDeployment(t, c, ns, "sippy", "sippy", "quay.io/bparees/sippy:unstable", 8080, 1)
			c4bService(t, c, ns, "sippy", map[string]string{"app": "sippy"}, []corev1.ServicePort{{Port: 9080, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
				func(s *corev1.Service) { s.Labels = map[string]string{"app": "sippy"} })
			c4bSlice(t, c, ns, "sippy", c4bSlicePort("", 8080), pods...)
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "sippy", Namespace: ns, Labels: map[string]string{"app": "sippy"},
				Annotations: map[string]string{"kubernetes.io/ingress.class": "gce", "kubernetes.io/ingress.global-static-ip-name": "sippy-ingress-prod",
					"networking.gke.io/managed-certificates": "sippy-k8s-io"}},
				Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "sippy", Port: networkingv1.ServiceBackendPort{Number: 9080}}}}}
			c.Create(t, ing)
			c7kubeEvent(t, c, ing, corev1.EventTypeNormal, "Sync", "loadbalancer-controller", "", "Scheduled for sync", 3, 40*time.Minute, 2*time.Minute)
			c7kubeEvent(t, c, ing, corev1.EventTypeWarning, "Translate", "loadbalancer-controller", "",
				fmt.Sprintf("Translation failed: invalid ingress spec: service \"%s/sippy\" is type \"ClusterIP\", expected \"NodePort\" or \"LoadBalancer\"", ns), 14, 40*time.Minute, time.Minute)
			return []string{"ingress/sippy"}
		},
	},
	{
		// First round: hit. (Category HPA/ScaleTargetMissing: the report says the target "cannot be read", while the Deployment exists; the extensions group it names is the real fault.)
		name:     "real-hpa-scale-target-ref-extensions-v1beta1",
		source:   "https://github.com/pegasystems/pega-helm-charts/issues/47 (HPA template still on the deprecated apiVersion: kubectl get hpa pega-web-hpa Deployment/pega-web <unknown>/85%, <unknown>/700% REPLICAS 0; describe hpa: AbleToScale False, FailedGetScale) and https://github.com/fiaas/fiaas-deploy-daemon/pull/110 (the HPA with scaleTargetRef apiVersion extensions/v1beta1 is accepted by the API server but: Warning FailedGetScale 3m30s (x751 over 20h) horizontal-pod-autoscaler no matches for kind \"Deployment\" in group \"extensions\"; fixed by apps/v1); the condition's wording as in https://github.com/kubernetes-sigs/metrics-server/issues/389",
		category: "HPA",
		culprit:  []string{"extensions"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c7kubeReadyDeployment(t, c, ns, "pega-web", "pega-web-tomcat", "pegasystems/pega:8.3.1", 8080, 1, func(s *corev1.PodSpec) {
				s.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("2Gi")},
					Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}}
			})
			h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "pega-web-hpa", Namespace: ns},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "extensions/v1beta1", Kind: "Deployment", Name: "pega-web"},
					MinReplicas:    ptr(int32(1)), MaxReplicas: 5,
					Metrics: []autoscalingv2.MetricSpec{
						{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceMemory,
							Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(85))}}},
						{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
							Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(700))}}},
					}}}
			c.Create(t, h)
			h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 0, DesiredReplicas: 0, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
				c4bHPACond(autoscalingv2.AbleToScale, false, "FailedGetScale", "the HPA controller was unable to get the target's current scale: no matches for kind \"Deployment\" in group \"extensions\"", 20*time.Hour)}}
			c.SetObjectStatus(t, h)
			c7kubeEvent(t, c, h, corev1.EventTypeWarning, "FailedGetScale", "horizontal-pod-autoscaler", "", "no matches for kind \"Deployment\" in group \"extensions\"", 751, 20*time.Hour, 3*time.Minute)
			return []string{"hpa/pega-web-hpa"}
		},
	},
	{
		// First round: MISS. Today: PVC/Pending/ProvisioningFailed (0.90) quotes "configuration error, no node was specified" but says nothing of the class's binding mode.
		// Missing: correlating a node-local provisioner's "no node was specified" with the StorageClass's volumeBindingMode Immediate (such provisioners need WaitForFirstConsumer, which gives them the selected node).
		name:     "real-pvc-local-path-immediate-no-node-specified",
		source:   "https://github.com/rancher/local-path-provisioner/issues/338 (local-path StorageClass with VOLUMEBINDINGMODE Immediate: Warning ProvisioningFailed failed to provision volume with StorageClass \"local-path\": configuration error, no node was specified, claim default/example-pvc); the cause as https://github.com/rancher/local-path-provisioner/issues/386 and https://github.com/rancher/local-path-provisioner/issues/466 establish (only with volumeBindingMode Immediate; provisioned with WaitForFirstConsumer, which gives the provisioner the selected node)",
		category: "PVC",
		culprit:  []string{"no node was specified", "Immediate"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := "local-path-" + ns
			c4bClass(t, c, class, "cluster.local/local-path-provisioner", true)
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "example-pvc", Namespace: ns,
				Annotations: map[string]string{"volume.beta.kubernetes.io/storage-provisioner": "cluster.local/local-path-provisioner",
					"volume.kubernetes.io/storage-provisioner": "cluster.local/local-path-provisioner"}},
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("128Mi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
			c.Create(t, pvc)
			prov := "cluster.local/local-path-provisioner_local-path-provisioner-6d59f47c7-4xmcz_9b1f6c3e-2a47-4d0e-8c51-77f2a9d1e0b4"
			c7kubeEvent(t, c, pvc, corev1.EventTypeNormal, "Provisioning", prov, "", fmt.Sprintf("External provisioner is provisioning volume for claim \"%s/example-pvc\"", ns), 12, 35*time.Minute, time.Minute)
			c7kubeEvent(t, c, pvc, corev1.EventTypeWarning, "ProvisioningFailed", prov, "", fmt.Sprintf("failed to provision volume with StorageClass %q: configuration error, no node was specified", class), 12, 35*time.Minute, time.Minute)
			c7kubeEvent(t, c, pvc, corev1.EventTypeNormal, "ExternalProvisioning", "persistentvolume-controller", "",
				"Waiting for a volume to be created either by the external provisioner 'cluster.local/local-path-provisioner' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.", 142, 35*time.Minute, 10*time.Second)
			return []string{"pvc/example-pvc"}
		},
	},
	{
		// First round: hit.
		name:     "real-statefulset-consul-fsgroup-forbidden",
		source:   "https://github.com/kelseyhightower/consul-on-kubernetes/issues/33 (kubectl describe statefulset consul: Replicas: 3 desired | 0 total, Pods Status: 0 Running / 0 Waiting / 0 Succeeded / 0 Failed, no consul pod at all; kubectl get events: create Pod consul-0 in StatefulSet consul failed error: pods \"consul-0\" is forbidden: SecurityContext.FSGroup is forbidden); the StatefulSet as in kelseyhightower/consul-on-kubernetes statefulsets/consul.yaml (securityContext fsGroup: 1000, volumeClaimTemplate data); the claim-first event order (create Claim ... success, then FailedCreate) as in https://github.com/apache/solr-operator/issues/438",
		category: "FailedCreate",
		culprit:  []string{"FSGroup"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			class := "standard-" + ns
			c4bClass(t, c, class, "kubernetes.io/gce-pd", false)
			ports := []corev1.ServicePort{}
			for _, p := range []struct {
				name string
				port int32
			}{{"http", 8500}, {"rpc", 8400}, {"serflan-tcp", 8301}, {"serfwan-tcp", 8302}, {"server", 8300}, {"consuldns", 8600}} {
				ports = append(ports, corev1.ServicePort{Name: p.name, Port: p.port, TargetPort: intstr.FromInt32(p.port), Protocol: corev1.ProtocolTCP})
			}
			c4bService(t, c, ns, "consul", map[string]string{"app": "consul"}, ports, func(s *corev1.Service) {
				s.Spec.ClusterIP = corev1.ClusterIPNone
				s.Labels = map[string]string{"name": "consul"}
			})
			cports := []corev1.ContainerPort{}
			for _, p := range []struct {
				name string
				port int32
			}{{"ui-port", 8500}, {"alt-port", 8400}, {"udp-port", 53}, {"https-port", 443}, {"http-port", 8080}, {"serflan", 8301}, {"serfwan", 8302}, {"consuldns", 8600}, {"server", 8300}} {
				cports = append(cports, corev1.ContainerPort{Name: p.name, ContainerPort: p.port, Protocol: corev1.ProtocolTCP})
			}
			labels := map[string]string{"app": "consul"}
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "consul", Namespace: ns},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), ServiceName: "consul",
					Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr(int64(10)),
							SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(1000))},
							Containers: []corev1.Container{{Name: "consul", Image: "consul:0.7.2",
								Env: []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}}},
								Args: []string{"agent", "-data-dir=/var/lib/consul", "-server", "-bootstrap-expect=3", "-bind=0.0.0.0", "-advertise=$(POD_IP)",
									"-client=0.0.0.0", "-ui", "-domain=cluster.local"},
								VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/consul"}},
								Ports:        cports}}}},
					VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data",
						Annotations: map[string]string{"volume.alpha.kubernetes.io/storage-class": "anything"}},
						Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 0, CurrentRevision: "consul-5d8f6c7b9d", UpdateRevision: "consul-5d8f6c7b9d"}
			c.SetObjectStatus(t, sts)
			c7kubeBoundClaim(t, c, ns, "data-consul-0", class, "kubernetes.io/gce-pd", labels, corev1.ReadWriteOnce, "10Gi")
			c7kubeEvent(t, c, sts, corev1.EventTypeNormal, "SuccessfulCreate", "statefulset-controller", "",
				"create Claim data-consul-0 Pod consul-0 in StatefulSet consul success", 1, 34*time.Minute, 34*time.Minute)
			c7kubeEvent(t, c, sts, corev1.EventTypeWarning, "FailedCreate", "statefulset-controller", "",
				"create Pod consul-0 in StatefulSet consul failed error: pods \"consul-0\" is forbidden: SecurityContext.FSGroup is forbidden",
				29, 34*time.Minute, 52*time.Second)
			return []string{"statefulset/consul"}
		},
	},
	{
		// First round: hit.
		name:     "real-daemonset-pod-pending-insufficient-pods-t3-small",
		source:   "https://github.com/aws-samples/eks-workshop/pull/1169 (Calico Enterprise on the workshop's t3.small nodes, which allow 11 pods each (amazon-eks-ami eni-max-pods.txt): kubectl get DaemonSet/compliance-benchmarker -n tigera-compliance DESIRED 3 CURRENT 3 READY 2, NODE SELECTOR kubernetes.io/os=linux; its pending pod: Warning FailedScheduling default-scheduler 0/3 nodes are available: 1 Insufficient pods, 2 node(s) didn't match node selector)",
		category: "Unschedulable",
		culprit:  []string{"Insufficient pods", "ip-192-168-58-217"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			full := "ip-192-168-58-217.us-west-2.compute.internal"
			other := "ip-192-168-12-4.us-west-2.compute.internal"
			eks := func(n *corev1.Node) {
				n.Labels["node.kubernetes.io/instance-type"] = "t3.small"
				n.Labels["eks.amazonaws.com/nodegroup"] = "nodegroup"
				n.Status.Capacity[corev1.ResourceCPU], n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("2"), resource.MustParse("1930m")
				n.Status.Capacity[corev1.ResourceMemory], n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse("1970512Ki"), resource.MustParse("1483088Ki")
			}
			c4bNode(t, c, full, eks, c7kubePods("11"))
			c4bNode(t, c, other, eks, c7kubePods("11"))
			// What fills the full node: the EKS and Calico Enterprise pods
			// scheduled there before the DaemonSet was created.
			for i, name := range []string{"aws-node-x7k2p", "kube-proxy-9qv4d", "coredns-6d97794cd5-lz8wn", "calico-node-h2l6t", "calico-typha-7b6b8d7c5-m4q9r",
				"tigera-manager-7c9b8d4f6-2kx7p", "compliance-controller-5f7c8b9d6-qz4lm", "compliance-server-6b8d9c7f5-w2n8k",
				"intrusion-detection-controller-7d8c9b6f4-p5j2r", "fluentd-node-c8x4m", "compliance-snapshotter-85d7b9c6f4-t7h3v"} {
				nodePod(t, c, ns, name, full, schedRunningStatus("app", "shop/"+name+":1.0.0"), func(p *corev1.Pod) {
					p.Status.PodIP = fmt.Sprintf("192.168.59.%d", 10+i)
				})
			}
			ds := c4bDaemonSet(t, c, ns, "compliance-benchmarker", "quay.io/tigera/compliance-benchmarker:v3.7.0", func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
				s.HostPID = true
			}, appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1, UpdatedNumberScheduled: 3})
			image := "quay.io/tigera/compliance-benchmarker:v3.7.0"
			c4bDaemonPod(t, c, ds, c.NodeName, "5xq2w", wlReadyStatus("compliance-benchmarker", image, 29*time.Minute))
			c4bDaemonPod(t, c, ds, other, "k8d4n", wlReadyStatus("compliance-benchmarker", image, 29*time.Minute))
			msg := "0/3 nodes are available: 1 Insufficient pods, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
			p := c4bDaemonPod(t, c, ds, full, "r9m6b", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
				Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg, LastTransitionTime: minutesAgo(29)}}})
			c7kubeEvent(t, c, p, corev1.EventTypeWarning, "FailedScheduling", "default-scheduler", "", msg, 23, 29*time.Minute, 43*time.Second)
			c7kubeEvent(t, c, ds, corev1.EventTypeNormal, "SuccessfulCreate", "daemonset-controller", "", "Created pod: "+p.Name, 1, 29*time.Minute, 29*time.Minute)
			return []string{"daemonset/compliance-benchmarker"}
		},
	},
	{
		// First round: MISS. Today: Job/BackoffLimitExceeded/UnexpectedAdmissionError (0.85) quotes the pod's "nvml: GPU is lost" message but blames the Job and names no node.
		// Missing: treating kubelet admission rejections (UnexpectedAdmissionError from a device plugin's Allocate) as a node fault, and noting that every failed pod was rejected by the same node (gpu-node-5), so the node must be drained and its GPU or driver fixed.
		name:     "real-job-pods-rejected-gpu-is-lost",
		source:   "https://github.com/kubernetes/kubernetes/issues/97131 (a GPU Job's pods rejected by the kubelet: kubectl get pods rojin-2q6ld 0/1 UnexpectedAdmissionError; the pod's Message: Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 5: nvml: GPU is lost, which is unexpected; recreating the Job no longer helped); the kubelet's event (Warning UnexpectedAdmissionError kubelet Allocate failed due to ..., which is unexpected) as in https://github.com/Project-HAMi/HAMi/issues/39",
		category: "Node",
		culprit:  []string{"GPU is lost", "gpu-node-5"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			node := "gpu-node-5"
			gpus := resource.MustParse("8")
			c4bNode(t, c, node, func(n *corev1.Node) {
				n.Labels["nvidia.com/gpu.present"] = "true"
				n.Status.Capacity["nvidia.com/gpu"], n.Status.Allocatable["nvidia.com/gpu"] = gpus, gpus.DeepCopy()
			})
			image := "pytorch/pytorch:1.7.0-cuda11.0-cudnn8-runtime"
			tmpl := wlJobTemplate("rojin", image, "python", "/workspace/train.py")
			tmpl.Spec.Containers[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}}
			j := wlJob(t, c, ns, "rojin", batchv1.JobSpec{BackoffLimit: ptr(int32(3)), Template: tmpl},
				wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 4, 9*time.Minute, 30*time.Second))
			allocate := "Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 5: nvml: GPU is lost, which is unexpected"
			for i, suffix := range []string{"2q6ld", "x8k4t", "m7v2p", "c9w5h"} {
				ago := time.Duration(9-2*i) * time.Minute
				name := "rojin-" + suffix
				spec := *j.Spec.Template.Spec.DeepCopy()
				spec.NodeName = node
				pod := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: maps.Clone(j.Spec.Template.Labels),
					OwnerReferences: []metav1.OwnerReference{wlController("Job", j)}}, Spec: spec,
					Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "UnexpectedAdmissionError", Message: "Pod " + allocate, StartTime: ptr(wlAgo(ago))}})
				c7kubeEvent(t, c, pod, corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, name, node), 1, ago, ago)
				c.Event(t, testcluster.EventSpec{Object: pod, Type: corev1.EventTypeWarning, Reason: "UnexpectedAdmissionError", Component: "kubelet", Host: node, Message: allocate,
					First: time.Now().Add(-ago), Last: time.Now().Add(-ago)})
				c7kubeEvent(t, c, j, corev1.EventTypeNormal, "SuccessfulCreate", "job-controller", "", "Created pod: "+name, 1, ago, ago)
			}
			c7kubeEvent(t, c, j, corev1.EventTypeWarning, "BackoffLimitExceeded", "job-controller", "", "Job has reached the specified backoff limit", 1, 30*time.Second, 30*time.Second)
			return []string{"job/rojin"}
		},
	},
	{
		// First round: MISS. Today: Unknown (0.30) "cause not determined: Warning UnexpectedJob on cronjob/tester ×8: Saw a job that the controller did not create or forgot: tester-manual-l5h2l", although every run succeeded.
		// Missing: recognising UnexpectedJob about a Job annotated cronjob.kubernetes.io/instantiate=manual (kubectl create job --from=cronjob) as benign, and calling a CronJob whose scheduled and manual runs all succeed healthy.
		//
		// Healthy: someone ran the CronJob by hand (kubectl create job
		// --from=cronjob/tester); the cronjob controller warns about the
		// Job it did not create, and the scheduled runs go on succeeding.
		name:    "real-healthy-cronjob-manual-run-unexpected-job-warning",
		source:  "https://github.com/ReallyLiri/kubescout/issues/13 (a manual job from a cronjob is reported un-healthy: Event by cronjob-controller: UnexpectedJob x8: Saw a job that the controller did not create or forgot: tester-manual-l5h2l; a false alarm to silence) and https://github.com/kubernetes/kubernetes/issues/120181 (job executions started manually for a cronjob are marked as unexpected); the manual Job's annotation cronjob.kubernetes.io/instantiate: manual is kubectl create job --from's",
		healthy: true,
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "registry.example.com/qa/tester:2.4.1"
			cj := wlCronJob(t, c, ns, "tester", "*/10 * * * *", func(s *batchv1.CronJobSpec) {
				s.ConcurrencyPolicy = batchv1.ForbidConcurrent
				s.SuccessfulJobsHistoryLimit, s.FailedJobsHistoryLimit = ptr(int32(3)), ptr(int32(1))
				s.JobTemplate.Spec.Template = wlJobTemplate("tester", image, "/bin/sh", "-c", "run-smoke-tests")
				s.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			}, batchv1.CronJobStatus{})
			now := time.Now().UTC()
			last := now.Truncate(10 * time.Minute)
			if now.Sub(last) < time.Minute {
				last = last.Add(-10 * time.Minute)
			}
			owner := wlController("CronJob", cj)
			for i := 2; i >= 0; i-- {
				sched := last.Add(-time.Duration(i) * 10 * time.Minute)
				started := now.Sub(sched)
				name := fmt.Sprintf("tester-%d", sched.Unix()/60)
				j := wlJob(t, c, ns, name, batchv1.JobSpec{BackoffLimit: ptr(int32(6)), Template: cj.Spec.JobTemplate.Spec.Template}, c7kubeCompleteJob(started, 41*time.Second), owner)
				p := wlJobPod(t, c, j, name+"-"+[]string{"q2xfk", "h7m4d", "z9c3w"}[i], c7kubeSucceededPod("tester", image, started, 41*time.Second))
				c.SetLogs(ns, p.Name, "tester", false, c5Lines("running 42 smoke tests against https://shop.example.com", "42 passed, 0 failed in 38.7s"))
				c7kubeEvent(t, c, cj, corev1.EventTypeNormal, "SuccessfulCreate", "cronjob-controller", "", "Created job "+name, 1, started, started)
				c7kubeEvent(t, c, cj, corev1.EventTypeNormal, "SawCompletedJob", "cronjob-controller", "", fmt.Sprintf("Saw completed job: %s, status: Complete", name), 1, started-41*time.Second, started-41*time.Second)
			}
			cj.Status = batchv1.CronJobStatus{LastScheduleTime: &metav1.Time{Time: last}, LastSuccessfulTime: ptr(wlAgo(now.Sub(last) - 41*time.Second))}
			c.SetObjectStatus(t, cj)
			// The manual run, 14 minutes ago.
			manual := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "tester-manual-l5h2l", Namespace: ns,
				Annotations: map[string]string{"cronjob.kubernetes.io/instantiate": "manual"}, OwnerReferences: []metav1.OwnerReference{owner}},
				Spec: batchv1.JobSpec{BackoffLimit: ptr(int32(6)), Template: *cj.Spec.JobTemplate.Spec.Template.DeepCopy()}}
			c.Create(t, manual)
			manual.Status = c7kubeCompleteJob(14*time.Minute, 44*time.Second)
			c.SetObjectStatus(t, manual)
			mp := wlJobPod(t, c, manual, "tester-manual-l5h2l-8wz6v", c7kubeSucceededPod("tester", image, 14*time.Minute, 44*time.Second))
			c.SetLogs(ns, mp.Name, "tester", false, c5Lines("running 42 smoke tests against https://shop.example.com", "42 passed, 0 failed in 41.2s"))
			c7kubeEvent(t, c, cj, corev1.EventTypeWarning, "UnexpectedJob", "cronjob-controller", "", "Saw a job that the controller did not create or forgot: tester-manual-l5h2l", 8, 14*time.Minute, 40*time.Second)
			return []string{"cronjob/tester"}
		},
	},
}
