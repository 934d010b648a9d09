// Package objconv converts API objects to and from their unstructured
// form through their JSON, as the API server's own decoding reads it
// (case-sensitive field names, integers kept int64).
//
// apimachinery's runtime.DefaultUnstructuredConverter caches every struct
// field's JSON name in a copy-on-write map that it copies whole on each new
// field: the first conversions of a Pod and its neighbours allocate some
// 5 MiB, more than the rest of a one-pod triage, and the heap the GC lets
// grow from them was the largest part of its resident memory. A watch that
// runs for days amortises that; a one-shot command paid it on every run.
package objconv

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"
)

// Converter is a runtime.UnstructuredConverter over JSON.
var Converter runtime.UnstructuredConverter = jsonConverter{}

type jsonConverter struct{}

// ToUnstructured is obj's JSON as a map, numbers as int64 or float64 as
// DefaultUnstructuredConverter gives them.
func (jsonConverter) ToUnstructured(obj any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%T is not an object", obj)
	}
	return m, nil
}

// FromUnstructured fills obj from u.
func (jsonConverter) FromUnstructured(u map[string]any, obj any) error {
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, obj)
}
