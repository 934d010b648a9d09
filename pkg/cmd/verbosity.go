package cmd

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
)

// verbosity is kubectl's -v/--v: the client-go (klog) log level. kubectl
// users type `-v=6` by habit; without this flag cobra would give -v to
// --version and answer with a parse error.
type verbosity int

func (v *verbosity) String() string { return strconv.Itoa(int(*v)) }
func (v *verbosity) Type() string   { return "Level" }

// Set applies the level at once: klog logs to stderr from then on (Run
// silences it by default, so a transport retry is said once, by our error).
func (v *verbosity) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a log level such as 4 or 6, got %q", s)
	}
	*v = verbosity(n)
	if n == 0 {
		return nil
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if err := fs.Set("v", s); err != nil {
		return err
	}
	_ = fs.Set("logtostderr", "true")
	klog.ClearLogger()
	return nil
}

// addVerbosityFlag registers -v/--v on the root's persistent flags (before
// cobra adds --version, which then keeps no shorthand).
func addVerbosityFlag(fs *pflag.FlagSet) {
	var v verbosity
	fs.VarP(&v, "v", "v", "Log level of the Kubernetes client (client-go/klog), as kubectl's -v, e.g. -v=6 shows every API request")
	config.ExcludeFromConfig(fs, "v")
}
