package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The eighth "work" batch, continued (see scenarios_corpus8_work_test.go).

func init() {
	if os.Getenv("KUBECTL_TRIAGE_CORPUS8") != "" {
		register(c8work2Scenarios...)
	}
}

var c8work2Scenarios = []scenario{
	{
		// First round: MISS. Healthy (0.80): updatedNumberScheduled 0 of 7 under updateStrategy OnDelete is not checked.
		//
		// The kube2iam chart created its DaemonSet with updateStrategy
		// OnDelete: after the helm upgrade to 0.10.9 the template changed
		// but no pod was replaced (UP-TO-DATE 0); each pod must be deleted
		// by hand, or the strategy set to RollingUpdate.
		name:     "real-kube2iam-daemonset-ondelete-upgrade-not-rolled",
		source:   "material: https://github.com/helm/charts/issues/23537 (after helm upgrade kube2iam-2.1.0 (0.10.7) -> kube2iam-2.5.1 (0.10.9) the daemonset was not updating: kubectl get daemonset kube2iam -n kube-system DESIRED 7 CURRENT 7 READY 7 UP-TO-DATE 0 AVAILABLE 7 NODE SELECTOR specialty=default AGE 136d; no pod was updated); the chart's default updateStrategy OnDelete from https://github.com/helm/charts/pull/1510 and https://github.com/jtblin/kube2iam/issues/190 (unlike Deployments the old spec keeps running until the pods are killed; set RollingUpdate)",
		category: "DaemonSet",
		culprit:  []string{"OnDelete"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			labels := map[string]string{"app": "kube2iam", "release": "kube2iam"}
			oldImage, newImage := "jtblin/kube2iam:0.10.7", "jtblin/kube2iam:0.10.9"
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "kube2iam", Namespace: ns,
				Labels:      map[string]string{"app": "kube2iam", "chart": "kube2iam-2.1.0", "release": "kube2iam", "heritage": "Helm"},
				Annotations: map[string]string{"meta.helm.sh/release-name": "kube2iam", "meta.helm.sh/release-namespace": ns}},
				Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec: corev1.PodSpec{HostNetwork: true, NodeSelector: map[string]string{"specialty": "default"},
							Containers: []corev1.Container{{Name: "kube2iam", Image: oldImage,
								Args: []string{"--host-interface=eni+", "--node=$(NODE_NAME)", "--host-ip=$(HOST_IP)", "--iptables=true", "--auto-discover-base-arn", "--app-port=8181"},
								Env: []corev1.EnvVar{{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
									{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
								Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8181, HostPort: 8181, Protocol: corev1.ProtocolTCP}},
								SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}}}}}}}
			c.Create(t, ds)
			oldTmpl := *ds.Spec.Template.DeepCopy()
			// helm upgrade: the new chart's template, the strategy kept.
			ds.Labels["chart"] = "kube2iam-2.5.1"
			ds.Spec.Template.Spec.Containers[0].Image = newImage
			ds.Spec.Template.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8181)}},
				InitialDelaySeconds: 30, PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
			c.Replace(t, ds)
			oldHash, newHash := "5d7b8c9f6", "7f9c6d8b4"
			c8workRevision(t, c, ds, oldHash, 1, oldTmpl)
			c8workRevision(t, c, ds, newHash, 2, ds.Spec.Template)
			age := 51 * 24 * time.Hour
			for i := 0; i < 7; i++ {
				node := fmt.Sprintf("ip-10-20-%d-%d.eu-central-1.compute.internal", 11+i*16, 40+i*7)
				c4bNode(t, c, node, c4bLabel("specialty", "default", "node.kubernetes.io/instance-type", "m5.xlarge"))
				podLabels := maps.Clone(labels)
				podLabels["controller-revision-hash"] = oldHash
				podLabels["pod-template-generation"] = "1"
				spec := *oldTmpl.Spec.DeepCopy()
				spec.NodeName = node
				spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
				ip := fmt.Sprintf("10.20.%d.%d", 11+i*16, 40+i*7)
				st := c4bReady("kube2iam", oldImage, ip, age)
				st.HostIP, st.HostIPs = ip, []corev1.HostIP{{IP: ip}}
				c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kube2iam-" + []string{"2xk4p", "7hq9d", "b4m2w", "fj8tn", "lq5vc", "r9z3k", "w6d7s"}[i], Namespace: ns, Labels: podLabels,
					OwnerReferences: []metav1.OwnerReference{wlController("DaemonSet", ds)}}, Spec: spec, Status: st})
			}
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: 7, CurrentNumberScheduled: 7, NumberReady: 7, NumberAvailable: 7,
				UpdatedNumberScheduled: 0, NumberMisscheduled: 0}
			c.SetObjectStatus(t, ds)
			return []string{"daemonset/kube2iam"}
		},
	},
	{
		// First round: MISS. Job/BackoffLimitExceeded (0.80): the deleted pod's events (cluster-autoscaler ScaleDown: deleting pod for node scale down) are not read.
		//
		// A Metaflow step runs as a Job with backoffLimit 0; the cluster
		// autoscaler found its node underused, evicted the pod and removed
		// the node, and the Job failed. Fix: annotate the task pods
		// cluster-autoscaler.kubernetes.io/safe-to-evict: "false".
		name:     "real-metaflow-job-pod-evicted-by-autoscaler-scale-down",
		source:   "material: https://github.com/Netflix/metaflow/issues/1371 (flows on kubernetes can be killed by the autoscaler during scale down events: with @kubernetes(cpu=2, memory=33000) foreach steps on 64 GB nodes and a 0.75 utilization threshold, after 5 minutes one of the remaining steps failed and the event was ScaleDown configmap/cluster-autoscaler-status Scale-down: removing node ip-10-10-...); the fix, the cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\" annotation on the task pods, in https://github.com/Netflix/metaflow/pull/1370; the autoscaler's pod event (ScaleDown: deleting pod for node scale down) as quoted in https://github.com/kubernetes/kubernetes/issues/94435",
		category: "Job",
		culprit:  []string{"autoscaler"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			node := "ip-10-10-57-212.ec2.internal"
			name, image := "t-a4f2c9e1", "python:3.9"
			labels := map[string]string{"app.kubernetes.io/name": "metaflow-task", "app.kubernetes.io/part-of": "metaflow", "metaflow/flow_name": "ForeachFlow",
				"metaflow/step_name": "process_item", "metaflow/run_id": "1682431873204515"}
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels), Annotations: map[string]string{"metaflow/user": "tylerpotts", "metaflow/flow_name": "ForeachFlow"}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: name, Image: image,
					Command:   []string{"bash", "-c", "mkdir -p $PWD/.logs && python foreach_flow.py --quiet --metadata=service --environment=local --datastore=s3 --event-logger=nullSidecarLogger --monitor=nullSidecarMonitor --no-pylint step process_item --run-id 1682431873204515 --task-id 7 --input-paths 1682431873204515/start/1 --split-index 3 --retry-count 0 --max-user-code-retries 0"},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("33000M")}}}}}}
			started, failed := 34*time.Minute, 27*time.Minute
			j := wlJob(t, c, ns, name, batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: tmpl},
				wlFailedJobStatus("BackoffLimitExceeded", "Job has reached the specified backoff limit", 1, started, failed))
			podName := name + "-xk7vq"
			spec := *tmpl.Spec.DeepCopy()
			spec.NodeName = node
			p := c.CreatePod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podName, Namespace: ns, Labels: maps.Clone(j.Spec.Template.Labels), Annotations: maps.Clone(tmpl.Annotations),
				OwnerReferences: []metav1.OwnerReference{wlController("Job", j)}}, Spec: spec,
				Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.10.57.212", PodIP: "10.10.60.14", StartTime: ptr(wlAgo(started)),
					ContainerStatuses: []corev1.ContainerStatus{c8workRunning(name, image, true, 0, started-20*time.Second)}}})
			kubelet := func(typ, reason, msg string, ago time.Duration) {
				c.Event(t, testcluster.EventSpec{Object: p, Type: typ, Reason: reason, Component: "kubelet", Host: node, FieldPath: "spec.containers{" + name + "}", Message: msg,
					First: time.Now().Add(-ago), Last: time.Now().Add(-ago)})
			}
			c8workEvent(t, c, j, corev1.EventTypeNormal, "SuccessfulCreate", "job-controller", "", "Created pod: "+podName, 1, started, started)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Scheduled", "default-scheduler", "", fmt.Sprintf("Successfully assigned %s/%s to %s", ns, podName, node), 1, started, started)
			kubelet(corev1.EventTypeNormal, "Pulled", fmt.Sprintf("Container image %q already present on machine", image), started-15*time.Second)
			kubelet(corev1.EventTypeNormal, "Created", "Created container "+name, started-20*time.Second)
			kubelet(corev1.EventTypeNormal, "Started", "Started container "+name, started-20*time.Second)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "ScaleDown", "cluster-autoscaler", "", "deleting pod for node scale down", 1, failed+30*time.Second, failed+30*time.Second)
			kubelet(corev1.EventTypeNormal, "Killing", "Stopping container "+name, failed+29*time.Second)
			c8workEvent(t, c, j, corev1.EventTypeWarning, "BackoffLimitExceeded", "job-controller", "", "Job has reached the specified backoff limit", 1, failed, failed)
			// The eviction deleted the pod; its node is gone with it.
			if err := c.Client.CoreV1().Pods(ns).Delete(context.Background(), podName, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
				t.Fatal(err)
			}
			return []string{"job/" + name}
		},
	},
	{
		// First round: MISS. CrashLoop/Exit0 (0.85) "its command does not keep running"; the FailedPostStartHook event is not read.
		//
		// influxdb2's postStart hook creates a DBRP mapping, but the command
		// ends with a stray --default that the influx CLI reads as the
		// value of --bucket-id; the hook exits 1, the kubelet kills the
		// container and it crash-loops. Fix: drop the extra --default.
		name:     "real-influxdb2-poststart-hook-bad-flag-kills-container",
		source:   "material: https://github.com/influxdata/helm-charts/issues/336 (influxdb2 with a postStart hook sh -c sleep 5; influx v1 dbrp create --db default --rp default-rp --bucket-id $(influx bucket list -n default --json | ...) --default: Warning FailedPostStartHook kubelet Exec lifecycle hook ([...]) for Container \"influxdb2\" in Pod \"monitor1-influxdb2-0_perf(...)\" failed - error: command '...' exited with 1: , message: \"Error: invalid argument \\\"--default\\\" for \\\"--bucket-id\\\" flag: id must have a length of 16 bytes\\nSee 'influx v1 dbrp create -h' for help\\n\"; the pod in CrashLoopBackOff; resolution: an extra --default at the end of the command)",
		category: "CrashLoop",
		culprit:  []string{"--default"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			image := "influxdb:2.0.7"
			labels := map[string]string{"app.kubernetes.io/name": "influxdb2", "app.kubernetes.io/instance": "monitor1"}
			c.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "monitor1-influxdb2-auth", Namespace: ns, Labels: maps.Clone(labels)},
				StringData: map[string]string{"admin-password": "Xq3v9LkP2mWz7RtY", "admin-token": "b2f8e1c4d7a94f3e9c2b6a1d8e7f4c3b"}})
			c4bService(t, c, ns, "monitor1-influxdb2", labels, []corev1.ServicePort{c4bPort("http", 80, intstr.FromString("http"))})
			hook := `sleep 5; influx v1 dbrp create --db default --rp default-rp --bucket-id $(influx bucket list -n default --json | grep -o '"id": "[^"]*' | grep -o '[^"]*$') --default`
			secretEnv := func(name, key string) corev1.EnvVar {
				return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "monitor1-influxdb2-auth"}, Key: key}}}
			}
			probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
				PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "monitor1-influxdb2", Namespace: ns, Labels: maps.Clone(labels)},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(1)), ServiceName: "monitor1-influxdb2", Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "influxdb2", Image: image,
							Env: []corev1.EnvVar{{Name: "DOCKER_INFLUXDB_INIT_MODE", Value: "setup"}, {Name: "DOCKER_INFLUXDB_INIT_USERNAME", Value: "admin"},
								secretEnv("DOCKER_INFLUXDB_INIT_PASSWORD", "admin-password"), {Name: "DOCKER_INFLUXDB_INIT_ORG", Value: "influxdata"},
								{Name: "DOCKER_INFLUXDB_INIT_BUCKET", Value: "default"}, {Name: "DOCKER_INFLUXDB_INIT_RETENTION", Value: "0s"},
								secretEnv("DOCKER_INFLUXDB_INIT_ADMIN_TOKEN", "admin-token"),
								{Name: "INFLUXD_BOLT_PATH", Value: "/var/lib/influxdbv2/influxd.bolt"}, {Name: "INFLUXD_ENGINE_PATH", Value: "/var/lib/influxdbv2"}},
							Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8086, Protocol: corev1.ProtocolTCP}},
							LivenessProbe:  probe.DeepCopy(),
							ReadinessProbe: probe.DeepCopy(),
							Lifecycle:      &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", hook}}}}}}}}}}
			c.Create(t, sts)
			sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
				CurrentRevision: "monitor1-influxdb2-6d4b9c7f58", UpdateRevision: "monitor1-influxdb2-6d4b9c7f58", CollisionCount: ptr(int32(0))}
			c.SetObjectStatus(t, sts)
			st := crashStatus("influxdb2", 0, "Completed", 6)
			cs := &st.ContainerStatuses[0]
			cs.Image, cs.ImageID = image, "docker.io/library/influxdb@sha256:3f1c9a2e"
			cs.LastTerminationState.Terminated.StartedAt, cs.LastTerminationState.Terminated.FinishedAt = wlAgo(3*time.Minute), wlAgo(3*time.Minute-9*time.Second)
			st.PodIP, st.PodIPs = "10.244.1.73", []corev1.PodIP{{IP: "10.244.1.73"}}
			p := c4bStatefulPod(t, c, sts, 0, st, "monitor1-influxdb2-6d4b9c7f58")
			cs = &p.Status.ContainerStatuses[0]
			cs.State.Waiting.Message = fmt.Sprintf("back-off 2m40s restarting failed container=influxdb2 pod=%s_%s(%s)", p.Name, ns, p.UID)
			p = c.SetStatus(t, p)
			layout := "2006-01-02T15:04:05.000000Z"
			at := func(d time.Duration) string { return time.Now().Add(-d).UTC().Format(layout) }
			c.SetLogs(ns, p.Name, "influxdb2", true, c5Lines(
				fmt.Sprintf(`ts=%s lvl=info msg="Welcome to InfluxDB" log_id=0V2Wa1yW000 version=2.0.7 commit=2a45f0c037 build_date=2021-06-04T19:17:40Z`, at(3*time.Minute)),
				fmt.Sprintf(`ts=%s lvl=info msg="Using data dir" log_id=0V2Wa1yW000 service=storage-engine service=store path=/var/lib/influxdbv2/data`, at(3*time.Minute)),
				fmt.Sprintf(`ts=%s lvl=info msg=Listening log_id=0V2Wa1yW000 service=tcp-listener transport=http addr=:8086 port=8086`, at(3*time.Minute-time.Second)),
			))
			c.SetLogs(ns, p.Name, "influxdb2", false, "")
			fp := "spec.containers{influxdb2}"
			hookMsg := fmt.Sprintf(`Exec lifecycle hook ([sh -c %s]) for Container "influxdb2" in Pod "%s_%s(%s)" failed - error: command 'sh -c %s' exited with 1: , message: "Error: invalid argument \"--default\" for \"--bucket-id\" flag: id must have a length of 16 bytes\nSee 'influx v1 dbrp create -h' for help\n"`,
				hook, p.Name, ns, p.UID, hook)
			c8workEvent(t, c, p, corev1.EventTypeWarning, "FailedPostStartHook", "kubelet", fp, hookMsg, 7, 14*time.Minute, 3*time.Minute-8*time.Second)
			c8workEvent(t, c, p, corev1.EventTypeNormal, "Killing", "kubelet", fp, "FailedPostStartHook", 7, 14*time.Minute, 3*time.Minute-8*time.Second)
			c8workEvent(t, c, p, corev1.EventTypeWarning, "BackOff", "kubelet", fp, fmt.Sprintf("Back-off restarting failed container influxdb2 in pod %s_%s(%s)", p.Name, ns, p.UID), 24, 13*time.Minute, 10*time.Second)
			return []string{"pod/" + p.Name}
		},
	},
	{
		// First round: MISS. FailedCreate/Invalid (0.85) quotes the request-above-limit error but not the LimitRange mem-limit-range whose default cpu limit 10m caused it.
		//
		// The namespace's LimitRange gives a container without limits the
		// default cpu limit 10m; the container asks for 700m, so the pod is
		// invalid (request above limit) and the ReplicaSet creates none.
		// Fix: set a limit on the container, or raise the default.
		name:     "real-limitranger-default-cpu-limit-below-request",
		source:   "material: https://github.com/kubernetes/kubernetes/issues/112835 (LimitRange mem-limit-range default cpu 10m memory 512Mi, defaultRequest cpu 10m memory 256Mi, max cpu 1, min cpu 1m; a pod nginx (label app: remove) requesting cpu 700m without a limit: Pod \"nginx-to-be-removed-4\" is invalid: spec.containers[0].resources.requests: Invalid value: \"700m\": must be less than or equal to cpu limit; the default limit is applied, not the max; Kubernetes v1.24) and https://github.com/kubernetes/kubernetes/issues/79988 (a container requesting more than the LimitRange default limit fails the deployment with must be less than or equal to cpu limit)",
		category: "FailedCreate",
		culprit:  []string{"mem-limit-range", "700m"},
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			c.Create(t, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "mem-limit-range", Namespace: ns},
				Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
					Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
					DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Max:            corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
					Min:            corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m")}}}}})
			tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "remove"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx", ImagePullPolicy: corev1.PullIfNotPresent,
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("700m")}}}}}}
			c3FailedCreateDeployment(t, c, ns, "nginx-to-be-removed", tmpl,
				`Pod "nginx-to-be-removed-6d9f7c8b5-q7x2m" is invalid: spec.containers[0].resources.requests: Invalid value: "700m": must be less than or equal to cpu limit`)
			return []string{"deployment/nginx-to-be-removed"}
		},
	},
}
