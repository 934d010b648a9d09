package sandbox

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// loopbackUp brings up lo, the namespace's only interface.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("read lo flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	return nil
}

// startRelays listens on each forward's loopback address inside the
// namespace and relays every connection to its socket in the directory
// open as dirFD. Sockets are dialled through /proc/self/fd, so no mount
// made later can hide them.
func startRelays(n *Net, dirFD int) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	for _, f := range n.Forwards {
		ln, err := net.Listen("tcp", f.Addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", f.Addr, err)
		}
		// Clients that resolve localhost to ::1 find the same relay.
		if _, port, err := net.SplitHostPort(f.Addr); err == nil {
			if ln6, err := net.Listen("tcp", "[::1]:"+port); err == nil {
				go relay(ln6, dirFD, f.Socket)
			}
		}
		go relay(ln, dirFD, f.Socket)
	}
	return nil
}

func relay(ln net.Listener, dirFD int, socket string) {
	path := "/proc/self/fd/" + strconv.Itoa(dirFD) + "/" + socket
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := net.DialTimeout("unix", path, 10*time.Second)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(up, c)
				up.(*net.UnixConn).CloseWrite()
				close(done)
			}()
			io.Copy(c, up)
			c.(*net.TCPConn).CloseWrite()
			<-done
		}()
	}
}
