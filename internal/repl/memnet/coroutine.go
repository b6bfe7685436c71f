package memnet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Coroutine runs code that blocks on other members (a sync source's
// find/getMore, a pause between polls) on its own goroutine, but one
// stretch at a time: whoever resumes it (Go, a delivery that answers its
// Call, Wake once its Sleep is over, Stop) waits until it parks again or
// returns. So exactly one goroutine runs at any moment, and a run stays
// reproducible from its schedule, while the code inside is the blocking
// production code (repl's sync loop, fetcher, initial sync, rollback).
//
// Invariants:
//   - It parks only in Call (waiting for its message to be delivered or
//     dropped) and Sleep (waiting for Wake at or after its wake time).
//   - After Stop its context is cancelled: Call and Sleep return at once
//     with the context's error, so it runs to its end without parking.
//   - Its fields are handed between the two goroutines only across the
//     resume/yield channels (happens-before), never shared while both run.
type Coroutine struct {
	ctx      context.Context
	cancel   context.CancelFunc
	resume   chan struct{}
	yield    chan struct{}
	finished bool
	waiting  uint64    // Seq of the message it is parked on; 0 if none
	wakeAt   time.Time // when parked in Sleep
	sleeping bool
}

type coKey struct{}

// ErrNotCoroutine is returned by Call outside a Coroutine.
var ErrNotCoroutine = errors.New("memnet: Call outside a coroutine")

// Go starts f on a coroutine and returns once f parks or returns. f's
// context carries the coroutine (Call and Sleep find it there).
func Go(f func(ctx context.Context)) *Coroutine {
	ctx, cancel := context.WithCancel(context.Background())
	co := &Coroutine{cancel: cancel, resume: make(chan struct{}), yield: make(chan struct{})}
	co.ctx = context.WithValue(ctx, coKey{}, co)
	go func() {
		<-co.resume
		defer func() {
			co.finished = true
			co.yield <- struct{}{}
		}()
		f(co.ctx)
	}()
	co.step()
	return co
}

// FromContext returns the coroutine ctx belongs to, nil outside one.
func FromContext(ctx context.Context) *Coroutine {
	co, _ := ctx.Value(coKey{}).(*Coroutine)
	return co
}

// Done reports whether the coroutine's function has returned.
func (co *Coroutine) Done() bool { return co.finished }

// step lets the coroutine run until it parks or returns (driver side).
func (co *Coroutine) step() {
	co.resume <- struct{}{}
	<-co.yield
}

// park hands control back to the driver until it is resumed.
func (co *Coroutine) park() {
	co.yield <- struct{}{}
	<-co.resume
}

// Stop cancels the coroutine's context and runs it to its end.
func (co *Coroutine) Stop() {
	co.cancel()
	for !co.finished {
		co.waiting, co.sleeping = 0, false
		co.step()
	}
}

// Wake resumes a coroutine parked in Sleep once now reaches its wake time;
// it reports whether it did.
func (co *Coroutine) Wake(now time.Time) bool {
	if co.finished || !co.sleeping || now.Before(co.wakeAt) {
		return false
	}
	co.sleeping = false
	co.step()
	return true
}

// Sleep parks the coroutine of ctx until Wake is called at or after
// now+d, or it is stopped. Outside a coroutine it fails.
func Sleep(ctx context.Context, now time.Time, d time.Duration) error {
	co := FromContext(ctx)
	if co == nil {
		return ErrNotCoroutine
	}
	if err := co.ctx.Err(); err != nil {
		return err
	}
	co.wakeAt, co.sleeping = now.Add(d), true
	co.park()
	return co.ctx.Err()
}

// Call sends cmd to host from e on the coroutine of ctx and parks it until
// the message is delivered (the reply or the handler's error) or dropped.
func (e *Endpoint) Call(ctx context.Context, host string, cmd bson.D, timeout time.Duration) (bson.D, error) {
	co := FromContext(ctx)
	if co == nil {
		return nil, ErrNotCoroutine
	}
	if err := co.ctx.Err(); err != nil {
		return nil, err
	}
	var reply bson.D
	var rerr error
	answered := false
	var seq uint64
	seq = e.send(host, cmd, timeout, func(r bson.D, err error) {
		if co.finished || co.waiting != seq {
			return // the coroutine gave up on this message (stopped)
		}
		reply, rerr, answered, co.waiting = r, err, true, 0
		co.step()
	})
	co.waiting = seq
	co.park()
	if !answered {
		if err := co.ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s abandoned", ErrDropped, host)
	}
	return reply, rerr
}
