package kubectlcmd

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	type call struct {
		verb, sub, kind, ns string
		names               []string
		output              string
		force, previous     bool
		container, patch    string
	}
	tests := []struct {
		line string
		want []call
	}{
		{"kubectl get pod api -n shop -o yaml > api.yaml   # set resources.limits.memory: <a higher limit, e.g. 2x> for container app",
			[]call{{verb: "get", kind: "pod", names: []string{"api"}, ns: "shop", output: "api.yaml"}}},
		{"kubectl delete secret regcred -n shop && kubectl create secret docker-registry regcred -n shop --docker-server=<registry>",
			[]call{{verb: "delete", kind: "secret", names: []string{"regcred"}, ns: "shop"}, {verb: "create", sub: "secret", kind: "docker-registry", names: []string{"regcred"}, ns: "shop"}}},
		{"kubectl rollout undo deployment/checkout -n shop --to-revision=2", []call{{verb: "rollout", sub: "undo", kind: "deployment", names: []string{"checkout"}, ns: "shop"}}},
		{"kubectl delete pod db-0 --namespace=shop --grace-period=0 --force", []call{{verb: "delete", kind: "pod", names: []string{"db-0"}, ns: "shop", force: true}}},
		{"ssh worker-3 'systemctl status kubelet'", nil},
		// -p is --previous for logs and the patch for patch.
		{"kubectl logs api -nshop -c app -p | grep FATAL", []call{{verb: "logs", kind: "api", ns: "shop", container: "app", previous: true}}},
		{"kubectl -n shop patch configmap api-settings -p '{\"data\":{\"DB_HOST\":\"db\"}}'",
			[]call{{verb: "patch", kind: "configmap", names: []string{"api-settings"}, ns: "shop", patch: `{"data":{"DB_HOST":"db"}}`}}},
		{"kubectl drain node/worker-3 --ignore-daemonsets", []call{{verb: "drain", kind: "node", names: []string{"worker-3"}}}},
		{"kubectl get 'pods -n", nil}, // unbalanced quoting: no reading
	}
	for _, tt := range tests {
		got := Parse(tt.line)
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %d calls, want %d: %+v", tt.line, len(got), len(tt.want), got)
		}
		for i, g := range got {
			c := call{verb: g.Verb, sub: g.Sub, kind: g.Kind(), ns: g.Namespace, names: g.Names(), output: g.Output,
				force: g.Force, previous: g.Previous, container: g.Container, patch: g.Patch}
			w := tt.want[i]
			if len(c.names) == 0 && len(w.names) == 0 {
				c.names, w.names = nil, nil
			}
			if !reflect.DeepEqual(c, w) {
				t.Errorf("%s: call %d = %+v, want %+v", tt.line, i, c, w)
			}
			if g.Line != tt.line {
				t.Errorf("call %d keeps line %q", i, g.Line)
			}
		}
	}
}

func TestObjects(t *testing.T) {
	tests := []struct {
		line string
		want []Object
	}{
		{"kubectl get pods,svc -n shop", []Object{{"pods", "pods", ""}, {"svc", "services", ""}}},
		{"kubectl get deploy/api sts/db", []Object{{"deploy", "deployments", "api"}, {"sts", "statefulsets", "db"}}},
		{"kubectl describe networkpolicy deny-all allow-dns", []Object{{"networkpolicy", "networkpolicies", "deny-all"}, {"networkpolicy", "networkpolicies", "allow-dns"}}},
		{"kubectl get deployments.apps api", []Object{{"deployments.apps", "deployments", "api"}}},
		{"kubectl get ingressclass", []Object{{"ingressclass", "ingressclasses", ""}}},
		{"kubectl get all", nil},
	}
	for _, tt := range tests {
		cmds := Parse(tt.line)
		if len(cmds) != 1 {
			t.Fatalf("%s: %d calls", tt.line, len(cmds))
		}
		if got := cmds[0].Objects(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: objects %+v, want %+v", tt.line, got, tt.want)
		}
	}
}
