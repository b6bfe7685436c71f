package sim

import (
	"context"
	"log/slog"
	"time"
)

// simTime stamps log records with the simulated clock, so a member's log
// lines line up with the event log.
type simTime struct {
	h   slog.Handler
	now func() time.Time
}

func (s simTime) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s simTime) Handle(ctx context.Context, r slog.Record) error {
	r.Time = s.now()
	return s.h.Handle(ctx, r)
}

func (s simTime) WithAttrs(as []slog.Attr) slog.Handler {
	return simTime{h: s.h.WithAttrs(as), now: s.now}
}

func (s simTime) WithGroup(name string) slog.Handler {
	return simTime{h: s.h.WithGroup(name), now: s.now}
}
