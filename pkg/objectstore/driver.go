package objectstore

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// A driver is one --store scheme as this build links it. Each cloud SDK
// costs the plugin megabytes of binary and of resident memory at every
// start, `version`'s too, so the drivers a laptop rarely needs are linked
// only by build tags (knownDrivers): the krew binary stays small, and the
// container image, where the watch uploads, has them all.
type driver struct {
	// kind names what the URL's host is: container, bucket or directory.
	kind string
	// open opens the bucket u names (its query without prefix=); create
	// says the caller may create it, for a driver that makes it as it
	// opens (a directory).
	open func(ctx context.Context, u *url.URL, create bool) (bucket, error)
	// describe is the SDK's error as one line; ok is false when err is
	// not one of its.
	describe func(err error) (line string, ok bool)
}

// drivers are the schemes this build links, registered by the driver_*.go
// files.
var drivers = map[string]driver{}

func register(scheme string, d driver) { drivers[scheme] = d }

// knownDrivers are every scheme the plugin has a driver for, and the build
// tag that links it ("" for every build); store_all links them all.
// Adding a cloud: its driver_X.go behind a tag, and a row here.
var knownDrivers = []struct{ scheme, tag string }{
	{"azblob", ""},
	{"s3", "store_s3"},
	{"gs", "store_gcs"},
	{"file", ""},
}

// Schemes are the URL schemes this build's --store accepts.
func Schemes() []string {
	var out []string
	for _, k := range knownDrivers {
		if _, ok := drivers[k.scheme]; ok {
			out = append(out, k.scheme)
		}
	}
	return out
}

const modulePath = "github.com/kubectl-triage/kubectl-triage/cmd/kubectl-triage"

// notLinked is the error for a scheme the plugin knows but this build does
// not link: which build has it, and how to get one.
func notLinked(display, scheme string) error {
	i := slices.IndexFunc(knownDrivers, func(k struct{ scheme, tag string }) bool { return k.scheme == scheme })
	if i < 0 {
		return fmt.Errorf("--store %s: unsupported scheme %q: %s", display, scheme, usage)
	}
	var has []string
	for _, s := range Schemes() {
		has = append(has, s+"://")
	}
	return fmt.Errorf("--store %s: this build of kubectl-triage has no %s:// driver (it has %s); the container image (make image) has every store, or build the plugin with it: go install -tags %s %s@latest",
		display, scheme, strings.Join(has, ", "), knownDrivers[i].tag, modulePath)
}

// describeDriver is the linked SDKs' one-line form of err.
func describeDriver(err error) (string, bool) {
	for _, k := range knownDrivers {
		if d, ok := drivers[k.scheme]; ok && d.describe != nil {
			if line, ok := d.describe(err); ok {
				return line, true
			}
		}
	}
	return "", false
}

// onlyParams refuses a URL query parameter the driver does not know, as
// gocloud.dev's openers do: a typo is not silently ignored.
func onlyParams(q url.Values, known ...string) error {
	for k := range q {
		if !slices.Contains(known, k) {
			return fmt.Errorf("unknown query parameter %q", k)
		}
	}
	return nil
}
