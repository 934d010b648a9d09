package objectstore

import (
	"context"
	"errors"
	"os"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// create makes the missing container or bucket with the store's own
// credentials, through the SDK client gocloud opened (so it reaches the same
// endpoint with the same identity). A directory is made by fileblob itself
// (create_dir), so reaching here for one means it could not be.
func (s *Store) create(ctx context.Context) error {
	switch s.scheme {
	case "azblob":
		var c *container.Client
		if !s.bucket.As(&c) {
			return errors.New("no Azure container client")
		}
		_, err := c.Create(ctx, nil)
		return err
	case "s3":
		var c *s3.Client
		if !s.bucket.As(&c) {
			return errors.New("no S3 client")
		}
		in := &s3.CreateBucketInput{Bucket: aws.String(s.name)}
		// us-east-1 is the one region that takes no location constraint.
		if r := c.Options().Region; r != "" && r != "us-east-1" {
			in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(r)}
		}
		_, err := c.CreateBucket(ctx, in)
		return err
	case "gs":
		var c *storage.Client
		if !s.bucket.As(&c) {
			return errors.New("no GCS client")
		}
		// A GCS bucket belongs to a project, which the URL does not name.
		project := os.Getenv("GOOGLE_CLOUD_PROJECT")
		if project == "" {
			return errors.New("set GOOGLE_CLOUD_PROJECT to the project it should be created in, or create it yourself")
		}
		return c.Bucket(s.name).Create(ctx, project, nil)
	}
	return errors.New("create it first")
}
