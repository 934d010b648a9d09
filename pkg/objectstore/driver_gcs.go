//go:build store_gcs || store_all

package objectstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/gcsblob" // gs://
	"google.golang.org/api/googleapi"
)

func init() {
	register("gs", driver{
		kind: "bucket",
		open: openGocloud(createGCS, gcsExists),
		describe: func(err error) (string, bool) {
			var g *googleapi.Error
			if !errors.As(err, &g) {
				return "", false
			}
			return fmt.Sprintf("%s (HTTP %d)", firstLine(g.Message), g.Code), true
		},
	})
}

// createGCS makes the bucket in GOOGLE_CLOUD_PROJECT.
func createGCS(ctx context.Context, b *blob.Bucket, name string) error {
	var c *storage.Client
	if !b.As(&c) {
		return errors.New("no GCS client")
	}
	// A GCS bucket belongs to a project, which the URL does not name.
	project := os.Getenv("GOOGLE_CLOUD_PROJECT")
	if project == "" {
		return errors.New("set GOOGLE_CLOUD_PROJECT to the project it should be created in, or create it yourself")
	}
	return c.Bucket(name).Create(ctx, project, nil)
}

// gcsExists: 409 is GCS's answer to a bucket name in use, ours (another
// replica's CreateBucket won) or another project's; Open checks again that
// this one can reach it.
func gcsExists(err error) bool {
	var g *googleapi.Error
	return errors.As(err, &g) && g.Code == http.StatusConflict
}
