//go:build store_all

package objectstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"google.golang.org/api/googleapi"
)

// TestAllDrivers: the image's build links every store, and each cloud
// driver is wired: it reaches the endpoint the URL names and says in one
// line that nothing answers there.
func TestAllDrivers(t *testing.T) {
	if got := Schemes(); !slices.Equal(got, []string{"azblob", "s3", "gs", "file"}) {
		t.Errorf("Schemes() = %v, want every store", got)
	}
	dead := "127.0.0.1:1"
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		dead = ln.Addr().String()
		ln.Close()
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	u := "s3://incidents?region=us-east-1&endpoint=http://" + dead + "&use_path_style=true"
	_, err := Open(context.Background(), u, Options{Create: true, Timeout: 20 * time.Second})
	if err == nil || !strings.HasPrefix(err.Error(), "--store s3://incidents: ") || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Open(%s) = %v; want one line saying the endpoint refused", u, err)
	}
}

// TestAlreadyExists: the SDKs' "it exists" answers to a create.
func TestAlreadyExists(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("operation error S3: CreateBucket: %w", err) }
	for _, tc := range []struct {
		name   string
		check  func(error) bool
		err    error
		exists bool
	}{
		{"s3 owned by you", s3Exists, wrap(&s3types.BucketAlreadyOwnedByYou{}), true},
		{"s3 taken", s3Exists, wrap(&s3types.BucketAlreadyExists{}), true},
		{"s3 denied", s3Exists, wrap(&smithy.GenericAPIError{Code: "AccessDenied"}), false},
		{"gcs conflict", gcsExists, &googleapi.Error{Code: http.StatusConflict, Message: "Your previous request to create the named bucket succeeded and you already own it."}, true},
		{"gcs forbidden", gcsExists, &googleapi.Error{Code: http.StatusForbidden}, false},
		{"plain", gcsExists, errors.New("x"), false},
	} {
		if got := tc.check(tc.err); got != tc.exists {
			t.Errorf("%s: exists = %v, want %v", tc.name, got, tc.exists)
		}
	}
}

func TestDescribeClouds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("op: %w", &smithy.GenericAPIError{Code: "AccessDenied", Message: "Access Denied"}), "AccessDenied: Access Denied"},
		{&googleapi.Error{Code: 403, Message: "caller does not have storage.buckets.create access\nmore"}, "caller does not have storage.buckets.create access (HTTP 403)"},
	} {
		if got := Describe(tc.err); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
	}
}
