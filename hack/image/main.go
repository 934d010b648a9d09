// Command image writes the plugin's OCI image layout (make image): the
// static binary on an empty base, no Docker needed.
package main

import (
	"flag"
	"fmt"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/ociimage"
)

func main() {
	o := ociimage.Options{}
	out := flag.String("out", "dist/image", "OCI layout directory to (re)create")
	flag.StringVar(&o.Binary, "binary", "", "static linux binary of the plugin")
	flag.StringVar(&o.Version, "version", "", "image version label and tag")
	flag.StringVar(&o.Source, "source", "https://github.com/kubectl-triage/kubectl-triage", "image source label")
	flag.StringVar(&o.Platform, "platform", "linux/amd64", "the binary's platform")
	flag.Parse()
	if err := run(o, *out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(o ociimage.Options, out string) error {
	if o.Binary == "" || o.Version == "" {
		return fmt.Errorf("-binary and -version are required")
	}
	created, err := ociimage.EpochFromEnv(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	o.Created = created
	img, err := ociimage.Build(o)
	if err != nil {
		return err
	}
	p, err := v1.ParsePlatform(o.Platform)
	if err != nil {
		return err
	}
	if err := ociimage.WriteLayout(out, img, *p, o.Version); err != nil {
		return err
	}
	d, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s\n", out, d)
	return nil
}
