package router

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// Bounds of talking to a replica set's primary.
const (
	// discoverTimeout bounds finding a primary (an election takes a few
	// seconds; MongoDB's mongos waits up to 20 s for a host to match).
	discoverTimeout = 20 * time.Second
	// helloTimeout bounds one hello during discovery.
	helloTimeout = 2 * time.Second
	// maxAttempts bounds sending one command: the first try plus retries
	// after a NotWritablePrimary reply or a failure that sent nothing.
	maxAttempts = 4
)

// replSet reaches the primary of one replica set (a shard, or the config
// servers) from its seed list, rediscovering it when it moves.
type replSet struct {
	name string // expected setName
	pool *netclient.Pool
	mu   struct {
		sync.Mutex
		hosts         []string // seeds plus every host a member reported
		primary       string   // "" when unknown
		secondaries   []string // members in state SECONDARY at secondariesAt
		secondariesAt time.Time
		next          int // round robin over secondaries
	}
}

func newReplSet(name string, seeds []string, pool *netclient.Pool) *replSet {
	s := &replSet{name: name, pool: pool}
	s.mu.hosts = slices.Clone(seeds)
	return s
}

// Run sends cmd to the primary and returns its reply (an ok:0 reply is
// returned too, with its *mongoerr.Error). It retries, rediscovering the
// primary, after NotWritablePrimary-class replies (nothing was done) and
// after network failures when nothing was sent or when idempotent is set
// (reads, retryable writes); any other network failure is returned as
// HostUnreachable, labelled RetryableWriteError when the command is a
// retryable write, so drivers retry it as they would against mongos.
func (s *replSet) Run(ctx context.Context, db string, cmd bson.D, idempotent bool) (bson.D, error) {
	reply, _, err := s.RunOnPrimary(ctx, db, cmd, idempotent)
	return reply, err
}

// RunOnPrimary is Run, also returning the host that answered.
func (s *replSet) RunOnPrimary(ctx context.Context, db string, cmd bson.D, idempotent bool) (bson.D, string, error) {
	var last error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		host, err := s.primary(ctx)
		if err != nil {
			return nil, "", err
		}
		reply, err := s.pool.Run(ctx, host, db, cmd)
		if err == nil || (!netclient.IsNetworkError(err) && !notPrimary(err)) {
			return reply, host, err
		}
		s.forget(host)
		last = err
		if netclient.IsNetworkError(err) && !isDialError(err) && !idempotent {
			return nil, "", mongoerr.New(mongoerr.HostUnreachable, "network error while sending %s to %s (set %s): %v", cmdName(cmd), host, s.name, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if me := (*mongoerr.Error)(nil); errors.As(last, &me) {
		return nil, "", me
	}
	return nil, "", mongoerr.New(mongoerr.HostUnreachable, "cannot reach the primary of %s after %d attempts: %v", s.name, maxAttempts, last)
}

// Primary returns the current primary's host, discovering it if needed.
func (s *replSet) primary(ctx context.Context) (string, error) {
	s.mu.Lock()
	p := s.mu.primary
	s.mu.Unlock()
	if p != "" {
		return p, nil
	}
	return s.discover(ctx)
}

// forget drops host as the primary (after it failed or stepped down) and
// its idle connections.
func (s *replSet) forget(host string) {
	s.mu.Lock()
	if s.mu.primary == host {
		s.mu.primary = ""
	}
	s.mu.Unlock()
	s.pool.Forget(host)
}

// discover asks every known host hello until one is the writable primary
// of this set, or discoverTimeout passes.
func (s *replSet) discover(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	wait := 50 * time.Millisecond
	var last error
	for {
		s.mu.Lock()
		hosts := slices.Clone(s.mu.hosts)
		s.mu.Unlock()
		for _, h := range hosts {
			p, err := s.probe(ctx, h)
			if err != nil {
				last = err
				continue
			}
			if p != "" {
				s.mu.Lock()
				s.mu.primary = p
				s.mu.Unlock()
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			return "", mongoerr.New(mongoerr.FailedToSatisfyReadPreference,
				"Could not find host matching read preference { mode: \"primary\" } for set %s (last error: %v)", s.name, last)
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// probe runs hello on host: it returns host when it is this set's writable
// primary, and learns the members the reply lists.
func (s *replSet) probe(ctx context.Context, host string) (string, error) {
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	reply, err := s.pool.Run(hctx, host, "admin", bson.D{{Key: "hello", Value: int32(1)}})
	if err != nil {
		return "", err
	}
	h := parseHello(reply)
	if h.setName != s.name {
		return "", fmt.Errorf("%s is not a member of %s (setName %q)", host, s.name, h.setName)
	}
	s.mu.Lock()
	for _, m := range h.hosts {
		if !slices.Contains(s.mu.hosts, m) {
			s.mu.hosts = append(s.mu.hosts, m)
		}
	}
	s.mu.Unlock()
	if h.writablePrimary {
		return host, nil
	}
	return "", nil
}

// helloInfo is what the router reads from a member's hello.
type helloInfo struct {
	setName         string
	writablePrimary bool
	secondary       bool
	msg             string
	configsvr       bool
	hosts           []string // hosts, passives and arbiters
}

func parseHello(reply bson.D) helloInfo {
	var h helloInfo
	name, _ := bsonx.Get(reply, "setName")
	h.setName, _ = name.(string)
	wp, ok := bsonx.Get(reply, "isWritablePrimary")
	if !ok {
		wp, _ = bsonx.Get(reply, "ismaster")
	}
	h.writablePrimary, _ = wp.(bool)
	sec, _ := bsonx.Get(reply, "secondary")
	h.secondary, _ = sec.(bool)
	msg, _ := bsonx.Get(reply, "msg")
	h.msg, _ = msg.(string)
	_, h.configsvr = bsonx.Get(reply, "configsvr")
	for _, key := range []string{"hosts", "passives", "arbiters"} {
		v, _ := bsonx.Get(reply, key)
		arr, _ := v.(bson.A)
		for _, m := range arr {
			if str, ok := m.(string); ok {
				h.hosts = append(h.hosts, str)
			}
		}
	}
	return h
}

// notPrimary reports replies that mean "this member is not the primary
// (any more)": the command was not executed, so it may be resent.
func notPrimary(err error) bool {
	var me *mongoerr.Error
	if !errors.As(err, &me) {
		return false
	}
	switch me.Code {
	case mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary:
		return true
	}
	return false
}

// isDialError reports a failure to connect: nothing was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func cmdName(cmd bson.D) string {
	if len(cmd) == 0 {
		return ""
	}
	return cmd[0].Key
}
