package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// A second batch of scenarios from real material (issue threads, the
// Kubernetes components' own message strings, frameworks' log lines), each
// citing its source; captured into test/scenarios and then removed from here.

func init() { register(corpus2Scenarios...) }

// c2Template is a pod template of one container app listening on port.
func c2Template(app, container, image string, port int32, mutate ...func(*corev1.PodSpec)) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: container, Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}}}},
	}
	for _, m := range mutate {
		m(&t.Spec)
	}
	return t
}

// c2CrashDeployment is a Deployment whose pods crash-loop with exit code
// and the previous instance's log.
func c2CrashDeployment(t *testing.T, c *testcluster.Cluster, ns, name, image string, port int32, code int32, log string, mutate ...func(*corev1.PodSpec)) []*corev1.Pod {
	t.Helper()
	tmpl := c2Template(name, name, image, port, mutate...)
	st := crashStatus(name, code, "Error", 7)
	st.ContainerStatuses[0].Image = image
	st.ContainerStatuses[0].ImageID = image + "@sha256:0c"
	_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: name, Replicas: 1, Template: &tmpl, PodStatus: st})
	for _, p := range pods {
		c.SetLogs(ns, p.Name, name, true, log)
		c.SetLogs(ns, p.Name, name, false, "")
		c.Event(t, testcluster.EventSpec{Object: p, Reason: "BackOff", Count: 31, First: time.Now().Add(-24 * time.Minute), FieldPath: "spec.containers{" + name + "}",
			Message: fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", name, p.Name, ns, p.UID)})
	}
	return pods
}

// scenarioScoped marks a cluster-scoped object (a Node, a PersistentVolume,
// a StorageClass) that only its own scenario may see: the control plane is
// shared, and a node or volume left behind changes what later scenarios
// count and list.
const scenarioScoped = "kubectl-triage.test/scenario-scoped"

// dropAfterScenario deletes, when the scenario ends, a cluster-scoped object
// it created with the scenarioScoped annotation (finalizers removed first:
// no controller runs here to release them).
func dropAfterScenario(t *testing.T, c *testcluster.Cluster, kind, name string, annotations map[string]string) {
	if annotations[scenarioScoped] != "true" {
		return
	}
	t.Cleanup(func() {
		ctx := context.Background()
		var err error
		switch kind {
		case "Node":
			err = c.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
		case "PersistentVolume":
			pvs := c.Client.CoreV1().PersistentVolumes()
			if pv, gerr := pvs.Get(ctx, name, metav1.GetOptions{}); gerr == nil && len(pv.Finalizers) > 0 {
				pv.Finalizers = nil
				_, err = pvs.Update(ctx, pv, metav1.UpdateOptions{})
			}
			if err == nil {
				err = pvs.Delete(ctx, name, metav1.DeleteOptions{})
			}
		case "StorageClass":
			err = c.Client.StorageV1().StorageClasses().Delete(ctx, name, metav1.DeleteOptions{})
		case "IngressClass":
			err = c.Client.NetworkingV1().IngressClasses().Delete(ctx, name, metav1.DeleteOptions{})
		case "APIService":
			err = c.Client.CoreV1().RESTClient().Delete().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices", name).Do(ctx).Error()
		default:
			t.Errorf("%s %s: scenario-scoped cleanup handles Nodes, PersistentVolumes, StorageClasses, IngressClasses and APIServices", kind, name)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete scenario-scoped %s %s: %v", kind, name, err)
		}
	})
}

func c2Env(kv ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
	}
}

func c2PodEnv(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { c2Env(kv...)(&p.Spec) }
}

var corpus2Scenarios = []scenario{}
