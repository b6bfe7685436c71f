// Package clock is the time seam of replication: the coordinator (and the
// applier) read the time and wait through a Clock, so the same code runs on
// the wall clock in relaydb serve and on a Manual clock that a test or the
// simulator advances by hand.
//
// Invariants:
//   - A Manual clock's time moves only in Advance and Set; nothing it hands
//     out fires without one of them.
//   - Advance fires due timers and tickers in deadline order (ties in
//     creation order), each channel receiving the time it was due, so a
//     run from a seed is reproducible.
//   - Timer and ticker channels have capacity 1 and a tick that finds the
//     channel full is dropped, as with package time.
package clock

import "time"

// Sleeper is what code that only reads the time and waits needs (the
// fetcher's pauses, the applier's delay); every Clock is one.
type Sleeper interface {
	Now() time.Time
	// After is time.After.
	After(d time.Duration) <-chan time.Time
}

// Clock is a source of time and timers.
type Clock interface {
	Sleeper
	// NewTimer and NewTicker are time.NewTimer and time.NewTicker.
	NewTimer(d time.Duration) Timer
	NewTicker(d time.Duration) Ticker
}

// Timer is a one-shot timer.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; false if it already fired or
	// was stopped.
	Stop() bool
}

// Ticker fires every period until stopped.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (realClock) NewTimer(d time.Duration) Timer         { return realTimer{time.NewTimer(d)} }
func (realClock) NewTicker(d time.Duration) Ticker       { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }
