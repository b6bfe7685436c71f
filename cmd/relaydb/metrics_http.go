package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/server"
)

// metricsReadTimeout bounds a metrics request's headers (slow clients).
const metricsReadTimeout = 5 * time.Second

// startMetrics serves GET /metrics (Prometheus text format, the
// serverStatus counters) on every --bind_ip address at --metricsPort; 0
// serves nothing. The returned stop closes it. A taken port is
// server.ErrAddrInUse.
func startMetrics(cfg *config.Serve, m *command.Metrics, log *slog.Logger) (stop func(), err error) {
	if cfg.MetricsPort == 0 {
		return func() {}, nil
	}
	ls, err := server.Bind(bindAddrs(cfg.BindIP, cfg.MetricsPort))
	if err != nil {
		return nil, fmt.Errorf("metricsPort: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		if err := m.WritePrometheus(w); err != nil {
			log.Debug("metrics: write failed", "err", err)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsReadTimeout}
	for _, l := range ls {
		go func(l net.Listener) {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Warn("metrics: serve failed", "addr", l.Addr().String(), "err", err)
			}
		}(l)
		log.Info("serving Prometheus metrics", "addr", l.Addr().String(), "path", "/metrics")
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
