package gateway

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		method, path                     string
		verb, group, ns, kind, name, sub string
		resource                         bool
	}{
		{"GET", "/api/v1/namespaces/shop/pods", "list", "", "shop", "pods", "", "", true},
		{"GET", "/api/v1/namespaces/shop/pods?watch=true", "watch", "", "shop", "pods", "", "", true},
		{"GET", "/api/v1/watch/namespaces/shop/pods", "watch", "", "shop", "pods", "", "", true},
		{"GET", "/api/v1/namespaces/shop/pods/api/log?follow=true", "get", "", "shop", "pods", "api", "log", true},
		{"GET", "/apis/apps/v1/namespaces/shop/deployments/web", "get", "apps", "shop", "deployments", "web", "", true},
		{"GET", "/api/v1/namespaces/shop", "get", "", "", "namespaces", "shop", "", true},
		{"GET", "/api/v1/nodes", "list", "", "", "nodes", "", "", true},
		{"GET", "/api/v1", "get", "", "", "", "", "", false},
		{"GET", "/apis/apps/v1", "get", "apps", "", "", "", "", false},
		{"GET", "/openapi/v3", "get", "", "", "", "", "", false},
		{"POST", "/api/v1/namespaces/shop/pods", "create", "", "shop", "pods", "", "", true},
		{"POST", "/api/v1/namespaces/shop/pods/api/exec", "connect", "", "shop", "pods", "api", "exec", true},
		{"PATCH", "/apis/apps/v1/namespaces/shop/deployments/web/scale", "patch", "apps", "shop", "deployments", "web", "scale", true},
		{"DELETE", "/api/v1/namespaces/shop/pods", "deletecollection", "", "shop", "pods", "", "", true},
		{"GET", "/api/v1/namespaces/shop/services/web:80/proxy/metrics", "get", "", "shop", "services", "web:80", "proxy/metrics", true},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.path)
		r := Parse(tt.method, u)
		if r.Verb != tt.verb || r.Group != tt.group || r.Namespace != tt.ns || r.Kind != tt.kind || r.Name != tt.name || r.Subresource != tt.sub || r.Resource != tt.resource {
			t.Errorf("%s %s: got %+v", tt.method, tt.path, r)
		}
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		method, path string
		allowed      bool
		reason       string
	}{
		{"GET", "/api/v1/namespaces/shop/pods", true, ""},
		{"GET", "/api/v1/namespaces/shop/pods?watch=true", true, ""},
		{"GET", "/api/v1/namespaces/shop/pods/api/log?follow=true", true, ""},
		{"GET", "/api/v1/namespaces/shop/events", true, ""},
		{"GET", "/apis/apps/v1/namespaces/shop/deployments/web", true, ""},
		{"GET", "/version", true, ""},
		{"GET", "/openapi/v3/api/v1", true, ""},
		{"GET", "/apis", true, ""},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", true, ""},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", true, ""},
		{"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", false, ReadOnlyMessage},
		{"POST", "/apis/authorization.k8s.io/v1/namespaces/x/localsubjectaccessreviews", false, ReadOnlyMessage},
		{"POST", "/api/v1/namespaces/shop/pods", false, ReadOnlyMessage},
		{"PUT", "/api/v1/namespaces/shop/pods/api", false, ReadOnlyMessage},
		{"PATCH", "/apis/apps/v1/namespaces/shop/deployments/web/scale", false, ReadOnlyMessage},
		{"DELETE", "/api/v1/namespaces/shop/pods/api", false, ReadOnlyMessage},
		{"POST", "/api/v1/namespaces/shop/pods/api/eviction", false, ReadOnlyMessage},
		{"GET", "/api/v1/namespaces/shop/secrets", false, SecretMessage},
		{"GET", "/api/v1/namespaces/shop/secrets/db", false, SecretMessage},
		{"GET", "/api/v1/secrets", false, SecretMessage},
		{"GET", "/api/v1/watch/namespaces/shop/secrets", false, SecretMessage},
		{"GET", "/api/v1/namespaces/shop/pods/api/exec?command=sh", false, "exec"},
		{"POST", "/api/v1/namespaces/shop/pods/api/exec", false, "exec"},
		{"GET", "/api/v1/namespaces/shop/pods/api/attach", false, "attach"},
		{"POST", "/api/v1/namespaces/shop/pods/api/portforward", false, "port-forwarding"},
		{"GET", "/api/v1/namespaces/shop/services/web:80/proxy/", false, "proxying"},
		{"GET", "/api/v1/nodes/n1/proxy/logs/", false, "proxying"},
		{"POST", "/api/v1/namespaces/shop/serviceaccounts/default/token", false, "minting tokens"},
		{"PATCH", "/api/v1/namespaces/shop/pods/api/ephemeralcontainers", false, "debug containers"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.path)
		d := Decide(tt.method, Parse(tt.method, u))
		if d.Allowed != tt.allowed {
			t.Errorf("%s %s: allowed=%v, want %v (%s)", tt.method, tt.path, d.Allowed, tt.allowed, d.Reason)
		}
		if !tt.allowed && (d.Code != http.StatusForbidden || !contains(d.Reason, tt.reason)) {
			t.Errorf("%s %s: %d %q, want 403 mentioning %q", tt.method, tt.path, d.Code, d.Reason, tt.reason)
		}
	}
}

func contains(s, sub string) bool {
	return strings.Contains(s, sub)
}
