package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/relaydb/relaydb/internal/server"
)

// stopRequest is a process's graceful-stop request (the shutdown
// command): Request never blocks, repeated requests are one.
type stopRequest chan struct{}

func newStopRequest() stopRequest { return make(stopRequest, 1) }

func (s stopRequest) Request() {
	select {
	case s <- struct{}{}:
	default:
	}
}

// bindAddrs are host:port for each address of a --bind_ip list.
func bindAddrs(bindIP string, port int) []string {
	var out []string
	for _, ip := range strings.Split(bindIP, ",") {
		if ip = strings.TrimSpace(ip); ip != "" {
			out = append(out, net.JoinHostPort(ip, strconv.Itoa(port)))
		}
	}
	return out
}

// serveUntilStopped listens with srv and serves until SIGTERM, SIGINT or
// stop; then beginShutdown wakes waiting requests and srv shuts down
// within shutdownGrace. It returns the process's exit code; cmd names the
// subcommand in errors ("relaydb serve").
func serveUntilStopped(cmd string, srv *server.Server, stop stopRequest, beginShutdown func(), log *slog.Logger) int {
	if err := srv.Listen(); err != nil {
		log.Error("cannot listen", "err", err)
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		if errors.Is(err, server.ErrAddrInUse) {
			return exitNetError
		}
		return exitError
	}
	go srv.Serve()
	log.Info("waiting for connections", "addr", srv.Addr().String())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	select {
	case s := <-sigs:
		log.Info("received signal; shutting down", "signal", s.String())
	case <-stop:
		log.Info("shutting down on request")
	}
	beginShutdown()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	srv.Shutdown(ctx)
	log.Info("shutdown complete")
	return exitOK
}
