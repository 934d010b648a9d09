package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"
)

const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = time.Minute
	// shutdownTimeout bounds how long a scrape in flight may delay exit.
	shutdownTimeout = 5 * time.Second
)

// Serve listens on addr and serves m on /metrics and health on /healthz
// until ctx is done, then shuts down gracefully. It returns once listening,
// with the address actually bound (addr may use port 0), so that a busy port
// or a bad address is reported at startup rather than lost in a goroutine.
//
// /healthz answers 200 "ok" while health returns nil (or is nil) and 503 with
// health's error otherwise. A nil logger logs nothing.
func Serve(ctx context.Context, addr string, m *Metrics, health func() error, logger *slog.Logger) (string, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var lc net.ListenConfig
	listener, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", listenError(addr, err)
	}
	boundAddr := listener.Addr().String()

	errorLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.handler(errorLog))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if health != nil {
			if err := health(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if m != nil && m.role != nil {
			_, _ = io.WriteString(w, "ok: "+m.role()+"\n")
			return
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	server := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          errorLog,
	}

	go func() {
		if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server stopped", "addr", boundAddr, "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := server.Shutdown(shutdownCtx); err != nil {
			logger.Warn("metrics server shutdown", "addr", boundAddr, "err", err)
			_ = server.Close()
		}
	}()
	// The caller logs "serving metrics" once, with the paths it serves.
	return boundAddr, nil
}

// listenError names the flag and keeps only the cause, so the user reads
// "--metrics-addr 127.0.0.1:9090: address already in use" rather than
// "listen tcp 127.0.0.1:9090: bind: address already in use".
func listenError(addr string, err error) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		err = opErr.Err
	}
	var syscallErr *os.SyscallError
	if errors.As(err, &syscallErr) {
		err = syscallErr.Err
	}
	var addrErr *net.AddrError
	if errors.As(err, &addrErr) {
		err = errors.New(addrErr.Err)
	}
	return fmt.Errorf("--metrics-addr %s: %w", addr, err)
}
