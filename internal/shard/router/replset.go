package router

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// Bounds of the router's own calls to a replica set.
const (
	// discoverTimeout bounds waiting for a primary (netclient.ReplicaSet
	// waits as long: an election takes a few seconds).
	discoverTimeout = 20 * time.Second
	// helloTimeout bounds one hello the router sends itself (addShard).
	helloTimeout = 2 * time.Second
)

// maxAttempts bounds reading from secondaries: the first try plus
// retries on another member after a network failure.
const maxAttempts = 4

// replSet reaches one replica set (a shard, or the config servers): a
// netclient.ReplicaSet follows its primary and secondaries with streaming
// hello; this adds the router's read preferences (readpref.go).
type replSet struct {
	name string // expected setName
	pool *netclient.Pool
	rs   *netclient.ReplicaSet
}

func newReplSet(name string, seeds []string, pool *netclient.Pool) *replSet {
	rs := netclient.NewReplicaSet(pool, netclient.ReplicaSetOptions{Name: name, Seeds: seeds})
	return &replSet{name: name, pool: pool, rs: rs}
}

// Run sends cmd to the primary and returns its reply (an ok:0 reply is
// returned too, with its *mongoerr.Error). It resends, to the primary
// found anew, after NotWritablePrimary-class replies (nothing was done)
// and after network failures when nothing was sent or when idempotent is
// set (reads, retryable writes); any other network failure is returned as
// HostUnreachable, which the caller labels RetryableWriteError for a
// retryable write, so drivers retry it as they would against mongos.
//
// A metadata read (configsvr.MetadataRead: a majority find on the config
// database, which only the config servers are sent through Run) goes to
// a secondary while the set has no primary.
func (s *replSet) Run(ctx context.Context, db string, cmd bson.D, idempotent bool) (bson.D, error) {
	if configsvr.MetadataRead(db, cmd) {
		reply, _, err := s.rs.RunRead(ctx, db, cmd)
		return reply, err
	}
	reply, _, err := s.rs.Run(ctx, db, cmd, idempotent)
	return reply, err
}

// RunOnPrimary is Run, also returning the host that answered.
func (s *replSet) RunOnPrimary(ctx context.Context, db string, cmd bson.D, idempotent bool) (bson.D, string, error) {
	return s.rs.Run(ctx, db, cmd, idempotent)
}

// discover returns the primary's host, waiting for one to be known.
func (s *replSet) discover(ctx context.Context) (string, error) { return s.primary(ctx) }

// helloInfo is what addShard reads from a member's hello.
type helloInfo struct {
	setName         string
	writablePrimary bool
	msg             string
	configsvr       bool
	hosts           []string // hosts, passives and arbiters
}

func parseHello(reply bson.D) helloInfo {
	h := netclient.ParseHello(reply)
	return helloInfo{setName: h.SetName, writablePrimary: h.WritablePrimary, msg: h.Msg, configsvr: h.Configsvr, hosts: h.Hosts}
}

func cmdName(cmd bson.D) string {
	if len(cmd) == 0 {
		return ""
	}
	return cmd[0].Key
}

// primary returns the primary's host, waiting for one to be known.
func (s *replSet) primary(ctx context.Context) (string, error) { return s.rs.Primary(ctx) }

// forget is told that host failed a command (a network error or a "not
// primary" reply): the monitor checks the set again.
func (s *replSet) forget(host string) { s.rs.MarkFailed(host, nil) }
