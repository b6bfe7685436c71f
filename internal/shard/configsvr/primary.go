package configsvr

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/netclient"
)

// PrimaryRunner is a Runner over a replica set's seed list: a
// netclient.ReplicaSet follows the set's primary (streaming hello) and
// commands go there. It is what a shard uses to read the config servers
// (a router wraps the same type with secondary reads and cursor pinning).
// Its monitors stop when the pool is closed, or with Close.
type PrimaryRunner struct {
	rs *netclient.ReplicaSet
}

// NewPrimaryRunner returns a runner for the set named by conn
// ("setName/h:p,h:p"; without a setName, any set's members are accepted)
// over pool.
func NewPrimaryRunner(pool *netclient.Pool, conn string) *PrimaryRunner {
	name, _, found := strings.Cut(conn, "/")
	if !found {
		name = ""
	}
	rs := netclient.NewReplicaSet(pool, netclient.ReplicaSetOptions{Name: name, Seeds: SplitHosts(conn)})
	return &PrimaryRunner{rs: rs}
}

// Run implements Runner. A metadata read goes to a secondary while the
// set has no primary (MetadataRead); anything else to the primary.
// Sending a command again after a network error is safe for what a shard
// sends (reads), so it is sent as idempotent.
// Metadata reads are pinned at the process's config time (Clock), and
// every reply advances it.
func (r *PrimaryRunner) Run(ctx context.Context, db string, cmd bson.D) (reply bson.D, err error) {
	if MetadataRead(db, cmd) {
		reply, _, err = r.rs.RunRead(ctx, db, Clock.Pin(db, cmd))
	} else {
		reply, _, err = r.rs.Run(ctx, db, cmd, true)
	}
	Clock.Observe(reply)
	return reply, err
}

// MetadataRead reports a find on the config database with readConcern
// majority (what Catalog reads send): as MongoDB reads its metadata, it
// may be served by a config server secondary when there is no primary,
// so routing goes on while a new config primary is elected or while a
// majority is down; only metadata changes wait for a primary.
func MetadataRead(db string, cmd bson.D) bool {
	if db != "config" || len(cmd) == 0 || cmd[0].Key != "find" {
		return false
	}
	rc, _ := bsonx.Get(cmd, "readConcern")
	d, _ := rc.(bson.D)
	level, _ := bsonx.Get(d, "level")
	return level == "majority"
}

// Close stops following the set.
func (r *PrimaryRunner) Close() { r.rs.Close() }

// String names the set's members (for logs).
func (r *PrimaryRunner) String() string { return r.rs.Name() + "/" + strings.Join(r.rs.Hosts(), ",") }
