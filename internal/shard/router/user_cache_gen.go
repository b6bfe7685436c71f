package router

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// User cache invalidation, as mongos: every
// userCacheInvalidationIntervalSecs (default 30, 1..86400, settable with
// --setParameter and setParameter) the router asks the config servers for
// their user cache generation (_getUserCacheGeneration, an ObjectId that
// moves with every change to users or roles and at every restart) and
// empties its user cache when it moved, or when the question fails (when
// in doubt, invalidate). A user command through this router still empties
// the cache at once (auth_usercmds.go).
//
// Invariants: one poll at a time (one goroutine, started with auth on,
// ended by Close); each poll is bounded by the interval (at most
// userFetchTimeout); polls are
// one interval apart, and an interval change restarts the wait with the
// new interval at once.

const (
	defaultUserCacheInterval = 30
	minUserCacheInterval     = 1
	maxUserCacheInterval     = 86400
	userCacheIntervalParam   = "userCacheInvalidationIntervalSecs"
)

// cacheInvalidator is the poller's state.
type cacheInvalidator struct {
	intervalSecs atomic.Int64
	changed      chan struct{} // signalled (without blocking) when the interval changes
	gen          bson.ObjectID // the poller's alone
}

// ValidUserCacheInterval checks a userCacheInvalidationIntervalSecs value
// (an integer in [1, 86400], as MongoDB's).
func ValidUserCacheInterval(v any) (int64, error) {
	n, ok := bsonx.AsInt64(v)
	if !ok {
		return 0, mongoerr.New(mongoerr.BadValue, "Invalid value for parameter %s: %v is not an integer", userCacheIntervalParam, v)
	}
	if n < minUserCacheInterval || n > maxUserCacheInterval {
		return 0, mongoerr.New(mongoerr.BadValue, "Invalid value for parameter %s: %d is not in the range [%d, %d]",
			userCacheIntervalParam, n, minUserCacheInterval, maxUserCacheInterval)
	}
	return n, nil
}

// setUserCacheInterval sets the interval, returning the old one.
func (r *Router) setUserCacheInterval(v any) (any, error) {
	n, err := ValidUserCacheInterval(v)
	if err != nil {
		return nil, err
	}
	old := r.auth.inval.intervalSecs.Swap(n)
	select {
	case r.auth.inval.changed <- struct{}{}:
	default: // a change is already pending
	}
	return int32(old), nil
}

// userCacheInterval is the current interval in seconds.
func (r *Router) userCacheInterval() int32 { return int32(r.auth.inval.intervalSecs.Load()) }

// invalidateUserCacheLoop polls until the router closes.
func (r *Router) invalidateUserCacheLoop() {
	for {
		wait := time.NewTimer(time.Duration(r.auth.inval.intervalSecs.Load()) * time.Second)
		select {
		case <-r.ctx.Done():
			wait.Stop()
			return
		case <-r.auth.inval.changed:
			wait.Stop() // wait anew with the new interval
		case <-wait.C:
			r.pollUserCacheGeneration()
		}
	}
}

// pollUserCacheGeneration empties the user cache when the config
// servers' generation moved or cannot be read.
func (r *Router) pollUserCacheGeneration() {
	ctx, cancel := context.WithTimeout(r.ctx, min(userFetchTimeout, time.Duration(r.auth.inval.intervalSecs.Load())*time.Second))
	defer cancel()
	gen, err := r.fetchUserCacheGeneration(ctx)
	if err != nil {
		if r.ctx.Err() == nil {
			r.log.Warn("reading the user cache generation from the config servers; invalidating the user cache", "err", err)
			r.auth.users.invalidate()
		}
		return
	}
	if gen != r.auth.inval.gen {
		if !r.auth.inval.gen.IsZero() {
			r.log.Info("user cache generation moved; invalidating the user cache", "was", r.auth.inval.gen.Hex(), "now", gen.Hex())
		}
		r.auth.users.invalidate() // the first time too: entries read before it may be older
		r.auth.inval.gen = gen
	}
}

func (r *Router) fetchUserCacheGeneration(ctx context.Context) (bson.ObjectID, error) {
	reply, err := r.cfg.Run(ctx, "admin", bson.D{{Key: "_getUserCacheGeneration", Value: int32(1)}}, true)
	if err != nil {
		return bson.ObjectID{}, err
	}
	v, _ := bsonx.Get(reply, "cacheGeneration")
	gen, ok := v.(bson.ObjectID)
	if !ok {
		return bson.ObjectID{}, fmt.Errorf("_getUserCacheGeneration replied %v", reply)
	}
	return gen, nil
}

// startUserCacheInvalidator sets the interval (0: the default) and, with
// auth on, starts the poller.
func (r *Router) startUserCacheInvalidator(secs int64) error {
	if secs == 0 {
		secs = defaultUserCacheInterval
	}
	if _, err := ValidUserCacheInterval(secs); err != nil {
		return err
	}
	r.auth.inval.intervalSecs.Store(secs)
	r.auth.inval.changed = make(chan struct{}, 1)
	if r.auth.on {
		go r.invalidateUserCacheLoop()
	}
	return nil
}

// parameters are the router's getParameter values.
func (r *Router) parameters() bson.D {
	ps := routerParameters()
	for i := range ps {
		if ps[i].Key == "authenticationMechanisms" {
			ps[i].Value = r.opts.AuthMechanisms.BSON()
		}
	}
	return append(ps, bson.E{Key: userCacheIntervalParam, Value: r.userCacheInterval()})
}

// setAuthParameter sets the router's auth parameters; handled is false
// for any other name.
func (r *Router) setAuthParameter(name string, v any) (old any, handled bool, err error) {
	if name != userCacheIntervalParam {
		return nil, false, nil
	}
	old, err = r.setUserCacheInterval(v)
	return old, true, err
}
