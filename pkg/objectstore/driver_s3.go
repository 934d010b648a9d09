//go:build store_s3 || store_all

package objectstore

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // s3://
)

func init() {
	register("s3", driver{
		kind: "bucket",
		open: openGocloud(createS3, s3Exists),
		describe: func(err error) (string, bool) {
			var api smithy.APIError
			if !errors.As(err, &api) {
				return "", false
			}
			return strings.TrimSpace(api.ErrorCode() + ": " + api.ErrorMessage()), true
		},
	})
}

// createS3 makes the bucket in the client's region.
func createS3(ctx context.Context, b *blob.Bucket, name string) error {
	var c *s3.Client
	if !b.As(&c) {
		return errors.New("no S3 client")
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	// us-east-1 is the one region that takes no location constraint.
	if r := c.Options().Region; r != "" && r != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(r)}
	}
	_, err := c.CreateBucket(ctx, in)
	return err
}

// s3Exists: another replica's CreateBucket won. BucketAlreadyExists is
// also a bucket of another account's; Open checks again that this one can
// reach it.
func s3Exists(err error) bool {
	var mine *s3types.BucketAlreadyOwnedByYou
	var taken *s3types.BucketAlreadyExists
	return errors.As(err, &mine) || errors.As(err, &taken)
}
