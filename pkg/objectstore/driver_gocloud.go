//go:build store_s3 || store_gcs || store_all

package objectstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// gocloudBucket is a bucket opened through gocloud.dev/blob (the S3 and
// GCS drivers); create makes it with the SDK client gocloud opened, and
// alreadyExists says whether its error means it is there already.
type gocloudBucket struct {
	b             *blob.Bucket
	name          string
	create        func(ctx context.Context, b *blob.Bucket, name string) error
	alreadyExists func(error) bool
}

func openGocloud(create func(context.Context, *blob.Bucket, string) error, alreadyExists func(error) bool) func(context.Context, *url.URL, bool) (bucket, error) {
	return func(ctx context.Context, u *url.URL, _ bool) (bucket, error) {
		b, err := blob.OpenBucket(ctx, u.String())
		if err != nil {
			return nil, err
		}
		return &gocloudBucket{b: b, name: u.Host, create: create, alreadyExists: alreadyExists}, nil
	}
}

func (g *gocloudBucket) Exists(ctx context.Context) (bool, error) { return g.b.IsAccessible(ctx) }

func (g *gocloudBucket) Create(ctx context.Context) error {
	err := g.create(ctx, g.b, g.name)
	if err != nil && (g.alreadyExists(err) || gcerrors.Code(err) == gcerrors.AlreadyExists) {
		return alreadyThere{err}
	}
	return err
}

func (g *gocloudBucket) List(ctx context.Context, prefix string, dirs bool, fn func(string, bool) error) error {
	opts := &blob.ListOptions{Prefix: prefix}
	if dirs {
		opts.Delimiter = "/"
	}
	it := g.b.List(opts)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(obj.Key, obj.IsDir); err != nil {
			return err
		}
	}
}

func (g *gocloudBucket) Read(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := g.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, gocloudNotFound(err)
	}
	defer r.Close()
	data, err := readLimited(r, r.Size(), limit)
	return data, gocloudNotFound(err)
}

// Write uploads whole (Upload, not a streamed writer, and no ContentMD5,
// which makes Upload stream again).
func (g *gocloudBucket) Write(ctx context.Context, key string, data []byte, contentType string) error {
	return g.b.Upload(ctx, key, bytes.NewReader(data), &blob.WriterOptions{ContentType: contentType})
}

func (g *gocloudBucket) Delete(ctx context.Context, key string) error {
	return gocloudNotFound(g.b.Delete(ctx, key))
}

func (g *gocloudBucket) Close() error { return g.b.Close() }

func gocloudNotFound(err error) error {
	if err != nil && gcerrors.Code(err) == gcerrors.NotFound {
		return notFound{err}
	}
	return err
}
