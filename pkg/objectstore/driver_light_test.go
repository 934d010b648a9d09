//go:build !store_all && !store_s3 && !store_gcs

package objectstore

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestNotLinked: the krew build has the light stores; a cloud store it
// lacks is one line naming the build that has it and how to make one.
func TestNotLinked(t *testing.T) {
	if got := Schemes(); !slices.Equal(got, []string{"azblob", "file"}) {
		t.Errorf("Schemes() = %v, want [azblob file]", got)
	}
	for _, tc := range []struct{ url, want string }{
		{"s3://incidents?region=eu-west-1", "--store s3://incidents: this build of kubectl-triage has no s3:// driver (it has azblob://, file://); the container image (make image) has every store, or build the plugin with it: go install -tags store_s3 " + modulePath + "@latest"},
		{"gs://incidents", "--store gs://incidents: this build of kubectl-triage has no gs:// driver (it has azblob://, file://); the container image (make image) has every store, or build the plugin with it: go install -tags store_gcs " + modulePath + "@latest"},
	} {
		_, err := Open(context.Background(), tc.url, Options{Create: true})
		if err == nil || err.Error() != tc.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s) = %v\nwant %s", tc.url, err, tc.want)
		}
	}
}
