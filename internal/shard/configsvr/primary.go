package configsvr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// primaryAttempts bounds the sends of one command: a NotWritablePrimary
// reply or a failed connection sends it again to the primary found anew.
const primaryAttempts = 3

// PrimaryRunner is a Runner over a replica set's seed list: it finds the
// primary with hello and sends commands there, finding it again after a
// NotWritablePrimary-class reply or a network error. It is what a shard
// uses to read the config servers (a router has its own, with secondary
// reads and cursor pinning).
type PrimaryRunner struct {
	pool  *netclient.Pool
	seeds []string
	mu    struct {
		sync.Mutex
		primary string // "" when unknown
	}
}

// NewPrimaryRunner returns a runner for the set named by conn
// ("setName/h:p,h:p") over pool.
func NewPrimaryRunner(pool *netclient.Pool, conn string) *PrimaryRunner {
	return &PrimaryRunner{pool: pool, seeds: SplitHosts(conn)}
}

// Run implements Runner. Sending a command again after a network error is
// safe for what a shard sends (reads).
func (r *PrimaryRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	var last error
	for range primaryAttempts {
		host, err := r.primary(ctx)
		if err != nil {
			return nil, err
		}
		reply, err := r.pool.Run(ctx, host, db, cmd)
		if err == nil || !(netclient.IsNetworkError(err) || notPrimary(err)) {
			return reply, err
		}
		r.forget(host)
		last = err
	}
	return nil, mongoerr.New(mongoerr.HostUnreachable, "config servers: %v", last)
}

func (r *PrimaryRunner) forget(host string) {
	r.mu.Lock()
	if r.mu.primary == host {
		r.mu.primary = ""
	}
	r.mu.Unlock()
	r.pool.Forget(host)
}

// primary returns the known primary or asks each seed with hello, polling
// until ctx ends (an election takes a few seconds).
func (r *PrimaryRunner) primary(ctx context.Context) (string, error) {
	r.mu.Lock()
	p := r.mu.primary
	r.mu.Unlock()
	if p != "" {
		return p, nil
	}
	for {
		for _, h := range r.seeds {
			if p := r.askPrimary(ctx, h); p != "" {
				r.mu.Lock()
				r.mu.primary = p
				r.mu.Unlock()
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			return "", mongoerr.New(mongoerr.FailedToSatisfyReadPreference, "Could not find host matching read preference { mode: \"primary\" } for set %v", r.seeds)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// askPrimary returns the primary host asks names in its hello ("" if none).
func (r *PrimaryRunner) askPrimary(ctx context.Context, host string) string {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	reply, err := r.pool.Run(hctx, host, "admin", bson.D{{Key: "hello", Value: int32(1)}})
	if err != nil {
		return ""
	}
	if w, _ := bsonx.Get(reply, "isWritablePrimary"); w == true {
		return host
	}
	p, _ := bsonx.Get(reply, "primary")
	s, _ := p.(string)
	return s
}

func notPrimary(err error) bool {
	var me *mongoerr.Error
	if !errors.As(err, &me) {
		return false
	}
	switch me.Code {
	case mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary,
		mongoerr.InterruptedDueToReplStateChange, mongoerr.PrimarySteppedDown:
		return true
	}
	return false
}

// String names the set's seeds (for logs).
func (r *PrimaryRunner) String() string { return fmt.Sprint(r.seeds) }
