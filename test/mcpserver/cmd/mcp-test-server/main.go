// Command mcp-test-server serves the mcpserver stand-in for
// kubernetes-mcp-server's events feature, to try `kubectl triage watch`
// without one:
//
//	go run ./test/mcpserver/cmd/mcp-test-server -addr 127.0.0.1:8089
//	kubectl triage watch --mcp-endpoint http://127.0.0.1:8089/mcp --max-incidents 2
//
// It prints the endpoint on stdout, waits for a client that subscribed
// (after logging/setLevel), then sends the replay file's notification
// frames to it, one every -interval, with the timestamps set to the time
// of sending. Without -replay it sends a few built-in faults about
// resources in namespace "default". With -loop it starts over after the
// last frame; otherwise it keeps serving, silently, until interrupted.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

//go:embed demo-faults.jsonl
var demoFaults []byte

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "listen address")
	replay := flag.String("replay", "", "a .jsonl file of notifications/message frames to send (default: built-in faults in namespace default)")
	interval := flag.Duration("interval", time.Second, "time between frames")
	loop := flag.Bool("loop", false, "start over after the last frame")
	token := flag.String("token", "", "require this bearer token")
	cluster := flag.String("cluster", "", "the cluster name subscriptions report")
	verbose := flag.Bool("v", false, "log the MCP server's activity")
	flag.Parse()
	if err := run(*addr, *replay, *interval, *loop, *token, *cluster, *verbose); err != nil {
		fmt.Fprintf(os.Stderr, "mcp-test-server: %v\n", err)
		os.Exit(1)
	}
}

func run(addr, replay string, interval time.Duration, loop bool, token, cluster string, verbose bool) error {
	if interval <= 0 {
		return fmt.Errorf("invalid -interval %v: must be positive", interval)
	}
	frames := mcpserver.SplitFrames(demoFaults)
	if replay != "" {
		var err error
		if frames, err = mcpserver.ReadFrames(replay); err != nil {
			return err
		}
		if len(frames) == 0 {
			return fmt.Errorf("%s has no frames", replay)
		}
	}

	level := slog.LevelInfo
	if !verbose {
		level = slog.LevelWarn
	}
	serverLog := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	srv := mcpserver.New(mcpserver.Options{Addr: addr, Token: token, Cluster: cluster, Logger: serverLog})
	endpoint, err := srv.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(endpoint)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for {
		log.Info("waiting for a subscriber")
		if err := srv.WaitSubscribed(ctx, 1); err != nil {
			return nil // interrupted
		}
		log.Info("sending notifications", "frames", len(frames), "interval", interval)
		for i, f := range frames {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(interval):
			}
			n, err := srv.SendFrame(restamp(f, time.Now()))
			if err != nil {
				log.Warn("send failed", "frame", i+1, "error", err)
				continue
			}
			log.Info("sent", "frame", i+1, "subscribers", n)
		}
		if !loop {
			break
		}
	}
	log.Info("all frames sent; serving until interrupted")
	<-ctx.Done()
	return nil
}

// restamp sets a frame's fault or event timestamp to now, so a replayed
// fault reads as new.
func restamp(frame []byte, now time.Time) []byte {
	var f map[string]any
	if err := json.Unmarshal(frame, &f); err != nil {
		return frame
	}
	params, _ := f["params"].(map[string]any)
	data, _ := params["data"].(map[string]any)
	if data == nil {
		return frame
	}
	ts := now.UTC().Format(time.RFC3339)
	if _, ok := data["timestamp"]; ok {
		data["timestamp"] = ts
	}
	if ev, ok := data["event"].(map[string]any); ok {
		for _, k := range []string{"timestamp", "lastTimestamp"} {
			if _, ok := ev[k]; ok {
				ev[k] = ts
			}
		}
	}
	out, err := json.Marshal(f)
	if err != nil {
		return frame
	}
	return out
}
