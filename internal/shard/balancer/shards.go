package balancer

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// NetShards is the ShardClient over the network: each shard's replica set
// (config.shards host) followed by a netclient.ReplicaSet, commands sent
// to its primary.
type NetShards struct {
	pool *netclient.Pool
	mu   struct {
		sync.Mutex
		sets map[string]*netclient.ReplicaSet // by config.shards host
	}
}

// NewNetShards returns a client over pool.
func NewNetShards(pool *netclient.Pool) *NetShards {
	n := &NetShards{pool: pool}
	n.mu.sets = map[string]*netclient.ReplicaSet{}
	return n
}

// Close stops following the shards' replica sets.
func (n *NetShards) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, rs := range n.mu.sets {
		rs.Close()
	}
	n.mu.sets = map[string]*netclient.ReplicaSet{}
}

func (n *NetShards) set(sh Shard) *netclient.ReplicaSet {
	n.mu.Lock()
	defer n.mu.Unlock()
	if rs, ok := n.mu.sets[sh.Host]; ok {
		return rs
	}
	name, _, found := strings.Cut(sh.Host, "/")
	if !found {
		name = ""
	}
	rs := netclient.NewReplicaSet(n.pool, netclient.ReplicaSetOptions{Name: name, Seeds: configsvr.SplitHosts(sh.Host)})
	n.mu.sets[sh.Host] = rs
	return rs
}

// Stats sends _shardsvrGetStatsForBalancing {collections, scaleFactor: 1}
// and reads {stats: [{namespace, collSize, opsPerSec, loadSplitKey}]}.
func (n *NetShards) Stats(ctx context.Context, sh Shard, nss []string) (map[string]CollStats, error) {
	arr := make(bson.A, len(nss))
	for i, ns := range nss {
		arr[i] = ns
	}
	reply, _, err := n.set(sh).Run(ctx, "admin", bson.D{
		{Key: "_shardsvrGetStatsForBalancing", Value: int32(1)},
		{Key: "collections", Value: arr}, {Key: "scaleFactor", Value: int32(1)},
	}, true)
	if err != nil {
		return nil, err
	}
	return ParseStats(reply), nil
}

// ParseStats reads a _shardsvrGetStatsForBalancing reply.
func ParseStats(reply bson.D) map[string]CollStats {
	out := map[string]CollStats{}
	v, _ := bsonx.Get(reply, "stats")
	arr, _ := v.(bson.A)
	for _, e := range arr {
		d, _ := e.(bson.D)
		ns, _ := bsonx.Get(d, "namespace")
		name, _ := ns.(string)
		size, _ := bsonx.Get(d, "collSize")
		ops, _ := bsonx.Get(d, "opsPerSec")
		k, _ := bsonx.Get(d, "loadSplitKey")
		var st CollStats
		st.Size, _ = bsonx.AsInt64(size)
		st.OpsPerSec, _ = bsonx.AsFloat64(ops)
		st.SplitKey, _ = k.(bson.D)
		out[name] = st
	}
	return out
}

// SplitPoints sends autoSplitVector for chunk to the shard's primary;
// rangeBytes is its rangeDataSize (relaydb's, sent with no keys).
func (n *NetShards) SplitPoints(ctx context.Context, sh Shard, cm *routing.ChunkManager, chunk routing.Chunk, maxBytes int64, limit int) ([]bson.D, int64, error) {
	db, coll, _ := strings.Cut(cm.Collection().NS, ".")
	reply, _, err := n.set(sh).Run(ctx, db, bson.D{
		{Key: "autoSplitVector", Value: coll},
		{Key: "keyPattern", Value: cm.Pattern().Doc()},
		{Key: "min", Value: chunk.Min}, {Key: "max", Value: chunk.Max},
		{Key: "maxChunkSizeBytes", Value: maxBytes}, {Key: "limit", Value: int32(limit)},
	}, true)
	if err != nil {
		return nil, 0, err
	}
	v, _ := bsonx.Get(reply, "splitKeys")
	arr, _ := v.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, e := range arr {
		if d, ok := e.(bson.D); ok {
			out = append(out, d)
		}
	}
	size := int64(-1)
	if rb, ok := bsonx.Get(reply, "rangeDataSize"); ok {
		size, _ = bsonx.AsInt64(rb)
	}
	return out, size, nil
}

// MoveRange sends _shardsvrMoveRange to the donor's primary, once (a
// lost answer is an error; the next round plans from the metadata).
func (n *NetShards) MoveRange(ctx context.Context, donor Shard, req MoveRange) error {
	_, _, err := n.set(donor).Run(ctx, "admin", bson.D{
		{Key: "_shardsvrMoveRange", Value: req.NS},
		{Key: "toShard", Value: req.To},
		{Key: "min", Value: req.Min}, {Key: "max", Value: req.Max},
		{Key: "waitForDelete", Value: false},
		{Key: "maxChunkSizeBytes", Value: req.MaxChunkBytes},
		{Key: "epoch", Value: req.Epoch},
		{Key: "collectionTimestamp", Value: req.Timestamp},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}},
	}, false)
	if err != nil {
		return fmt.Errorf("_shardsvrMoveRange on %s: %w", donor.ID, err)
	}
	return nil
}
