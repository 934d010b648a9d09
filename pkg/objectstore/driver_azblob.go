package objectstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// The Azure driver reads its settings as gocloud.dev's azureblob opener
// did (https://pkg.go.dev/gocloud.dev/blob/azureblob, "URLs"), which the
// README documents: the credential from AZURE_STORAGE_ACCOUNT +
// AZURE_STORAGE_KEY, else AZURE_STORAGE_SAS_TOKEN, else a connection
// string, else azidentity's default credential; the endpoint from
// AZURE_STORAGE_DOMAIN, _PROTOCOL, _IS_CDN and _IS_LOCAL_EMULATOR or the URL's
// domain, protocol, cdn, localemu and storage_account.
func init() {
	register("azblob", driver{
		kind: "container",
		open: openAzure,
		describe: func(err error) (string, bool) {
			var az *azcore.ResponseError
			if !errors.As(err, &az) {
				return "", false
			}
			return fmt.Sprintf("%s (HTTP %d)", orString(az.ErrorCode, "error"), az.StatusCode), true
		},
	})
}

// azureEndpoint is where the service is: gocloud's ServiceURLOptions.
type azureEndpoint struct {
	account, sas, domain, protocol string
	cdn, emulator                  bool
}

func azureEndpointFromEnv() azureEndpoint {
	e := azureEndpoint{
		account:  os.Getenv("AZURE_STORAGE_ACCOUNT"),
		sas:      os.Getenv("AZURE_STORAGE_SAS_TOKEN"),
		domain:   os.Getenv("AZURE_STORAGE_DOMAIN"),
		protocol: os.Getenv("AZURE_STORAGE_PROTOCOL"),
	}
	e.cdn, _ = strconv.ParseBool(os.Getenv("AZURE_STORAGE_IS_CDN"))
	e.emulator, _ = strconv.ParseBool(os.Getenv("AZURE_STORAGE_IS_LOCAL_EMULATOR"))
	// A connection string names the account and protocol too.
	for part := range strings.SplitSeq(azureConnectionString(), ";") {
		k, v, ok := strings.Cut(part, "=")
		switch {
		case ok && k == "AccountName" && e.account == "":
			e.account = v
		case ok && k == "DefaultEndpointsProtocol" && e.protocol == "":
			e.protocol = v
		}
	}
	return e
}

func azureConnectionString() string {
	if s := os.Getenv("AZURE_STORAGE_CONNECTION_STRING"); s != "" {
		return s
	}
	return os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
}

// withQuery is e with the URL's overrides.
func (e azureEndpoint) withQuery(q url.Values) (azureEndpoint, error) {
	if err := onlyParams(q, "domain", "protocol", "cdn", "localemu", "storage_account"); err != nil {
		return e, err
	}
	for k, vs := range q {
		if len(vs) > 1 {
			return e, fmt.Errorf("multiple values of %s", k)
		}
		var err error
		switch v := vs[0]; k {
		case "domain":
			e.domain = v
		case "protocol":
			e.protocol = v
		case "cdn":
			e.cdn, err = strconv.ParseBool(v)
		case "localemu":
			e.emulator, err = strconv.ParseBool(v)
		case "storage_account":
			e.account = v
		}
		if err != nil {
			return e, fmt.Errorf("%s=%q: %w", k, vs[0], err)
		}
	}
	return e, nil
}

// serviceURL is <protocol>://<account>.<domain>, the account after the
// host for an emulator and without it for a CDN, then the SAS token.
func (e azureEndpoint) serviceURL() (string, error) {
	if e.account == "" {
		return "", errors.New("no storage account: set AZURE_STORAGE_ACCOUNT (or a connection string)")
	}
	domain, protocol := e.domain, e.protocol
	if domain == "" {
		domain = "blob.core.windows.net"
	}
	switch protocol {
	case "":
		protocol = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("invalid protocol %q", protocol)
	}
	var u string
	switch {
	case e.emulator || strings.HasPrefix(domain, "127.0.0.1") || strings.HasPrefix(domain, "localhost"):
		u = fmt.Sprintf("%s://%s/%s", protocol, domain, e.account)
	case e.cdn:
		u = fmt.Sprintf("%s://%s", protocol, domain)
	default:
		u = fmt.Sprintf("%s://%s.%s", protocol, e.account, domain)
	}
	if e.sas != "" {
		u += "?" + e.sas
	}
	return u, nil
}

func openAzure(_ context.Context, u *url.URL, _ bool) (bucket, error) {
	env := azureEndpointFromEnv()
	e, err := env.withQuery(u.Query())
	if err != nil {
		return nil, err
	}
	svc, err := e.serviceURL()
	if err != nil {
		return nil, err
	}
	// The SAS token is part of the service URL: the URL may not send it
	// to another endpoint.
	if env.sas != "" {
		def, err := env.serviceURL()
		if err != nil {
			return nil, err
		}
		a, _ := url.Parse(def)
		b, _ := url.Parse(svc)
		if a == nil || b == nil || !strings.EqualFold(a.Scheme, b.Scheme) || !strings.EqualFold(a.Host, b.Host) {
			return nil, errors.New("the URL cannot change the service endpoint when AZURE_STORAGE_SAS_TOKEN is set")
		}
	}
	c, err := newContainerClient(svc, u.Host)
	if err != nil {
		return nil, err
	}
	return &azureBucket{c: c}, nil
}

// newContainerClient signs with the first credential the environment
// has, in gocloud's order.
func newContainerClient(svc, name string) (*container.Client, error) {
	opts := &container.ClientOptions{ClientOptions: policy.ClientOptions{Telemetry: policy.TelemetryOptions{ApplicationID: "kubectl-triage"}}}
	containerURL, err := url.JoinPath(svc, name)
	if err != nil {
		return nil, err
	}
	account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
	sas, conn := os.Getenv("AZURE_STORAGE_SAS_TOKEN"), azureConnectionString()
	switch {
	case account != "" && key != "":
		cred, err := azblob.NewSharedKeyCredential(account, key)
		if err != nil {
			return nil, fmt.Errorf("AZURE_STORAGE_KEY: %w", err)
		}
		return container.NewClientWithSharedKeyCredential(containerURL, cred, opts)
	case sas != "":
		return container.NewClientWithNoCredential(containerURL, opts)
	case conn != "":
		return container.NewClientFromConnectionString(conn, name, opts)
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("no Azure credential: %w", err)
	}
	return container.NewClient(containerURL, cred, opts)
}

type azureBucket struct{ c *container.Client }

// escapeAzureKey names a key as gocloud's azureblob does: Azure mishandles
// backslashes, control characters, '"', '#', '%' and '?', a trailing '/'
// and "../".
func escapeAzureKey(key string, isPrefix bool) string {
	return hexEscape(key, func(r []rune, i int) bool {
		c := r[i]
		return c == '\\' || c < 32 || c == '"' || c == '#' || c == '%' || c == '?' || c == 127 ||
			!isPrefix && i == len(r)-1 && c == '/' || dotDotSlash(r, i)
	})
}

// Exists lists at most one blob, as gocloud's IsAccessible did: a
// credential allowed to list but not to read the container's properties
// (a container SAS) still reaches it.
func (b *azureBucket) Exists(ctx context.Context) (bool, error) {
	one := int32(1)
	_, err := b.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: &one}).NextPage(ctx)
	if bloberror.HasCode(err, bloberror.ContainerNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b *azureBucket) Create(ctx context.Context) error {
	_, err := b.c.Create(ctx, nil)
	if bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return alreadyThere{err}
	}
	return err
}

func (b *azureBucket) List(ctx context.Context, prefix string, dirs bool, fn func(string, bool) error) error {
	p := escapeAzureKey(prefix, true)
	if !dirs {
		pager := b.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &p})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return err
			}
			for _, it := range page.Segment.BlobItems {
				if it.Name != nil {
					if err := fn(hexUnescape(*it.Name), false); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	pager := b.c.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: &p})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, it := range page.Segment.BlobPrefixes {
			if it.Name != nil {
				if err := fn(hexUnescape(*it.Name), true); err != nil {
					return err
				}
			}
		}
		for _, it := range page.Segment.BlobItems {
			if it.Name != nil {
				if err := fn(hexUnescape(*it.Name), false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *azureBucket) Read(ctx context.Context, key string, limit int64) ([]byte, error) {
	resp, err := b.c.NewBlobClient(escapeAzureKey(key, false)).DownloadStream(ctx, nil)
	if err != nil {
		return nil, azureNotFound(err)
	}
	body := resp.NewRetryReader(ctx, nil)
	defer body.Close()
	size := int64(-1)
	if resp.ContentLength != nil {
		size = *resp.ContentLength
	}
	data, err := readLimited(body, size, limit)
	return data, azureNotFound(err)
}

func (b *azureBucket) Write(ctx context.Context, key string, data []byte, contentType string) error {
	_, err := b.c.NewBlockBlobClient(escapeAzureKey(key, false)).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)),
		&blockblob.UploadOptions{HTTPHeaders: &azblobblob.HTTPHeaders{BlobContentType: &contentType}})
	return err
}

func (b *azureBucket) Delete(ctx context.Context, key string) error {
	_, err := b.c.NewBlobClient(escapeAzureKey(key, false)).Delete(ctx, nil)
	return azureNotFound(err)
}

func (b *azureBucket) Close() error { return nil }

// azureNotFound marks a missing blob or container as fs.ErrNotExist.
func azureNotFound(err error) error {
	var az *azcore.ResponseError
	if errors.As(err, &az) && az.StatusCode == http.StatusNotFound {
		return notFound{err}
	}
	return err
}
