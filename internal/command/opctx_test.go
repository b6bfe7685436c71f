package command

import (
	"context"
	"testing"
	"time"
)

// TestOpContextLazy: an operation's context, made before or after killOp
// or the command's end, is cancelled by either; a live one is not.
func TestOpContextLazy(t *testing.T) {
	parent := func() context.Context { return context.Background() }
	cases := []struct {
		name      string
		steps     func(op *runningOp) context.Context
		cancelled bool
		killed    bool
	}{
		{"live", func(op *runningOp) context.Context { return op.context() }, false, false},
		{"made then killed", func(op *runningOp) context.Context { c := op.context(); op.kill(); return c }, true, true},
		{"killed then made", func(op *runningOp) context.Context { op.kill(); return op.context() }, true, true},
		{"made then ended", func(op *runningOp) context.Context { c := op.context(); op.end(); return c }, true, false},
		{"ended then made", func(op *runningOp) context.Context { op.end(); return op.context() }, true, false},
		{"never made, ended", func(op *runningOp) context.Context { op.end(); return nil }, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op := &runningOp{parent: parent}
			c := tc.steps(op)
			if c != nil && (c.Err() != nil) != tc.cancelled {
				t.Fatalf("cancelled %v, want %v", c.Err() != nil, tc.cancelled)
			}
			if c == nil && op.ctx != nil {
				t.Fatal("a context was made though nobody asked for one")
			}
			if op.killed.Load() != tc.killed {
				t.Fatalf("killed %v, want %v", op.killed.Load(), tc.killed)
			}
		})
	}
}

// TestTrackOpRegistersOnCtx: the operation a command runs as is found
// through its Ctx while it runs, and in the registry; not after.
func TestTrackOpRegistersOnCtx(t *testing.T) {
	d := &Dispatcher{done: make(chan struct{})}
	ctx := &Ctx{D: d, DB: "db"}
	done := d.trackOp(ctx, time.Now())
	op := ctx.registeredOp()
	if op == nil || d.findOp(int64(op.id)) != op {
		t.Fatalf("running op not registered: %v", op)
	}
	oc := ctx.opContext()
	if oc.Err() != nil {
		t.Fatal("a running op's context is cancelled")
	}
	done()
	if d.findOp(int64(op.id)) != nil {
		t.Fatal("finished op still registered")
	}
	if oc.Err() == nil {
		t.Fatal("a finished op's context is not cancelled")
	}
}

// TestAwaitContextEndsOnShutdown: an awaitData getMore's wait ends when
// the process begins shutting down, with or without a registered op.
func TestAwaitContextEndsOnShutdown(t *testing.T) {
	for _, tracked := range []bool{false, true} {
		d := &Dispatcher{done: make(chan struct{})}
		ctx := &Ctx{D: d, DB: "db"}
		if tracked {
			defer d.trackOp(ctx, time.Now())()
		}
		wait, cancel := ctx.awaitContext(nil)
		d.BeginShutdown()
		select {
		case <-wait.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("tracked=%v: the wait outlived the shutdown", tracked)
		}
		cancel()
	}
}
