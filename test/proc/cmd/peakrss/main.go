// Command peakrss runs a command and writes its peak resident set size
// (ru_maxrss from wait4, in KiB) to a file:
//
//	peakrss -o FILE -- CMD [ARG...]
//
// Benchmarks start the binary they measure through it, not directly:
// Linux carries the exec'ing process's high-water mark into the new
// program's ru_maxrss (exec_mmap), so a child exec'd by a large test
// process reports at least the test's own peak. This process is a few MiB.
// Its exit status is the command's.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	out := flag.String("o", "", "file to write the command's peak RSS to, in KiB")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: peakrss -o FILE -- CMD [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	kib := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if werr := os.WriteFile(*out, []byte(strconv.FormatInt(kib, 10)+"\n"), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
