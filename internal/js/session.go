package js

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Limits of one session (see the package invariants).
const (
	MaxSourceBytes   = 1 << 20          // one function's source
	MaxCallStack     = 1000             // frames of JavaScript calls
	DefaultEvalLimit = 60 * time.Second // one evaluation, when Options.EvalLimit is 0
	maxCached        = 64               // compiled functions kept per session
)

var disabled atomic.Bool

// SetEnabled switches server-side JavaScript on or off for the process
// (mongod's --noscripting / security.javascriptEnabled).
func SetEnabled(on bool) { disabled.Store(!on) }

// Enabled reports whether server-side JavaScript may run.
func Enabled() bool { return !disabled.Load() }

// Options bound one operation's JavaScript.
type Options struct {
	// MaxTime is the operation's maxTimeMS: the JavaScript time its
	// evaluations may add up to (mongod's maxTimeMS is the cursor's
	// cumulative processing time, so a cursor's idle time between
	// getMores does not count); 0: none.
	MaxTime time.Duration
	// Ctx and Killed: when Ctx is done and Killed reports true (killOp),
	// a running evaluation stops with Interrupted (11601). Ctx may be nil;
	// a Ctx already done when an evaluation starts is not watched (the
	// command that made the session has ended: a cursor's getMores).
	Ctx       context.Context
	Killed    func() bool
	EvalLimit time.Duration // hard limit of one evaluation; 0: DefaultEvalLimit
}

// Session is one operation's JavaScript context (see the package doc).
// Its methods may be called from several goroutines; evaluations are
// serialised.
type Session struct {
	opts Options

	evalMu sync.Mutex // held for a whole evaluation
	// REQUIRES: evalMu for the fields below.
	used  time.Duration // evaluation time so far, against opts.MaxTime
	rt    *goja.Runtime
	cv    *conv
	cache map[string]goja.Callable

	mu  sync.Mutex // guards gen and stop against the interrupt timer
	gen uint64
	// stop is closed when the current evaluation is interrupted; sleep
	// waits on it.
	stop chan struct{}
}

// NewSession returns a session; the runtime is created on first use.
func NewSession(opts Options) *Session {
	if opts.EvalLimit <= 0 {
		opts.EvalLimit = DefaultEvalLimit
	}
	return &Session{opts: opts}
}

// runtimeLocked returns the session's runtime, creating it with the
// prelude and sleep. REQUIRES: s.evalMu.
func (s *Session) runtimeLocked() (*goja.Runtime, error) {
	if s.rt != nil {
		return s.rt, nil
	}
	rt := goja.New()
	rt.SetMaxCallStackSize(MaxCallStack)
	if _, err := rt.RunString(prelude); err != nil {
		return nil, mongoerr.New(mongoerr.InternalError, "JavaScript prelude: %v", err)
	}
	if err := rt.Set("sleep", s.sleep); err != nil {
		return nil, mongoerr.New(mongoerr.InternalError, "JavaScript prelude: %v", err)
	}
	s.rt, s.cv, s.cache = rt, &conv{rt: rt, c: loadCtors(rt)}, map[string]goja.Callable{}
	return rt, nil
}

// sleep is the global sleep(ms): it returns after ms milliseconds or when
// the evaluation is interrupted, whichever is first (the interrupt then
// ends the script).
func (s *Session) sleep(call goja.FunctionCall) goja.Value {
	ms := call.Argument(0).ToFloat()
	if !(ms > 0) {
		return goja.Undefined()
	}
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	t := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	}
	return goja.Undefined()
}

// budgetLocked returns how long the next evaluation may run and why it
// would stop, or MaxTimeMSExpired when MaxTime is used up.
// REQUIRES: s.evalMu.
func (s *Session) budgetLocked() (time.Duration, interruptReason, error) {
	limit, reason := s.opts.EvalLimit, reasonEvalLimit
	if s.opts.MaxTime > 0 {
		rem := s.opts.MaxTime - s.used
		if rem <= 0 {
			return 0, 0, mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
		}
		if rem < limit {
			limit, reason = rem, reasonDeadline
		}
	}
	return limit, reason, nil
}

// run calls fn with the runtime under the session's time bounds, turning
// goja's failures into MongoDB errors.
func (s *Session) run(fn func(rt *goja.Runtime) (goja.Value, error)) (v goja.Value, err error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	rt, err := s.runtimeLocked()
	if err != nil {
		return nil, err
	}
	limit, reason, err := s.budgetLocked()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { s.used += time.Since(start) }()
	stopTimer := s.arm(rt, limit, reason)
	defer stopTimer()
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, mongoerr.New(mongoerr.JSInterpreterFailure, "JavaScript execution failed: %v", r)
		}
	}()
	v, err = fn(rt)
	if err != nil {
		return nil, s.jsError(err)
	}
	return v, nil
}

// arm starts the interrupt timer of one evaluation; the returned func
// disarms it so a late timer can never interrupt a later evaluation.
func (s *Session) arm(rt *goja.Runtime, limit time.Duration, reason interruptReason) func() {
	rt.ClearInterrupt()
	s.mu.Lock()
	s.gen++
	gen, stop := s.gen, make(chan struct{})
	s.stop = stop
	s.mu.Unlock()
	interrupt := func(why interruptReason) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gen == gen {
			s.gen++ // interrupt once
			rt.Interrupt(why)
			close(stop)
		}
	}
	t := time.AfterFunc(limit, func() { interrupt(reason) })
	unwatch := func() bool { return true }
	if ctx := s.opts.Ctx; ctx != nil && ctx.Err() == nil {
		unwatch = context.AfterFunc(ctx, func() {
			if s.opts.Killed == nil || s.opts.Killed() {
				interrupt(reasonKilled)
			}
		})
	}
	w := watchHeap(func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.gen == gen
	}, func() { interrupt(reasonMemory) })
	return func() {
		t.Stop()
		w.Stop()
		unwatch()
		s.mu.Lock()
		s.gen++
		s.mu.Unlock()
		rt.ClearInterrupt()
	}
}
