package testcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
)

// Backdate sets the creationTimestamp of a stored object, which the API
// server sets itself on create and never lets a client change: it rewrites
// the object in etcd (through etcd's JSON gateway), as if it had been
// created at t, and waits until the API server serves it so. For histories
// faked on the cluster (the demo's, whose objects must be older than the
// events they caused). resource is the etcd key's resource part
// (deployments, replicasets, pods; the built-in types' plural), ns ""
// for a cluster-scoped object.
func (c *Cluster) Backdate(ctx context.Context, resource, ns, name string, t time.Time) error {
	key := path.Join("/registry", resource, ns, name)
	value, err := c.etcdGet(ctx, key)
	if err != nil {
		return fmt.Errorf("backdate %s: %w", key, err)
	}
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	obj, _, err := codec.Decode(value, nil, nil)
	if err != nil {
		return fmt.Errorf("backdate %s: decode: %w", key, err)
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Errorf("backdate %s: %w", key, err)
	}
	created := metav1.NewTime(t.Truncate(time.Second))
	acc.SetCreationTimestamp(created)
	var out bytes.Buffer
	if err := codec.Encode(obj, &out); err != nil {
		return fmt.Errorf("backdate %s: encode: %w", key, err)
	}
	if err := c.etcdPut(ctx, key, out.Bytes()); err != nil {
		return fmt.Errorf("backdate %s: %w", key, err)
	}
	// The API server's watch cache learns it from etcd's watch.
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := c.getObject(ctx, resource, ns, name)
		if err != nil {
			return false, nil
		}
		return got.Equal(&created), nil
	})
}

// getObject reads an object's creationTimestamp through the API server.
func (c *Cluster) getObject(ctx context.Context, resource, ns, name string) (*metav1.Time, error) {
	var m metav1.Object
	var err error
	switch resource {
	case "deployments":
		m, err = c.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	case "replicasets":
		m, err = c.Client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
	case "pods":
		m, err = c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	case "namespaces":
		m, err = c.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	default:
		return nil, fmt.Errorf("backdate: resource %q is not supported", resource)
	}
	if err != nil {
		return nil, err
	}
	ts := m.GetCreationTimestamp()
	return &ts, nil
}

// etcd's gRPC gateway (on the client port) speaks JSON with base64 bytes,
// which is how encoding/json writes and reads a []byte.
func (c *Cluster) etcdCall(ctx context.Context, method string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/v3/kv/%s", c.etcdPort, method), bytes.NewReader(body))
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s", method, res.Status)
	}
	return json.NewDecoder(res.Body).Decode(resp)
}

func (c *Cluster) etcdGet(ctx context.Context, key string) ([]byte, error) {
	var resp struct {
		Kvs []struct {
			Value []byte `json:"value"`
		} `json:"kvs"`
	}
	if err := c.etcdCall(ctx, "range", map[string][]byte{"key": []byte(key)}, &resp); err != nil {
		return nil, err
	}
	if len(resp.Kvs) != 1 {
		return nil, fmt.Errorf("not in etcd")
	}
	return resp.Kvs[0].Value, nil
}

func (c *Cluster) etcdPut(ctx context.Context, key string, value []byte) error {
	var resp json.RawMessage
	return c.etcdCall(ctx, "put", map[string][]byte{"key": []byte(key), "value": value}, &resp)
}
