package shardexp

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/cluster"
)

// Database and Table are where the YCSB clients write.
const (
	Database = "ycsb"
	Table    = "usertable"
)

// startCluster starts t's sharded cluster in dir: rs=1 is one data
// member per shard; rs=N is N-1 data members and an arbiter. A failed
// start is retried once (experiment.UpSharded); retried hears why.
func startCluster(ctx context.Context, cfg Config, t Topology, dir string, retried func(error)) (*cluster.Sharded, error) {
	spec := cluster.ShardedSpec{Dir: dir, Shards: t.Shards, ShardMembers: 1, Routers: cfg.Routers,
		Bin: cfg.Bin, DieWithParent: true, Auth: cfg.Auth, TLS: cfg.TLS}
	if t.Members > 1 {
		spec.ShardMembers, spec.ShardArbiter = t.Members-1, true
	}
	wrap := func(err error) error { return fmt.Errorf("start %v: %w", t, err) }
	sc, err := experiment.UpSharded(ctx, spec, func(err error) { retried(wrap(err)) })
	if err != nil {
		return nil, wrap(err)
	}
	return sc, nil
}

// routerHosts lists the routers' host:port.
func routerHosts(sc *cluster.Sharded) []string {
	out := make([]string, len(sc.Routers))
	for i, r := range sc.Routers {
		out[i] = r.Host
	}
	return out
}

// prepare shards usertable on a hashed _id through the router at uri before
// anything is written (two chunks per shard, so every shard gets data)
// and stops the balancer so no migration runs under a cell. It returns
// the balancer's state: "stopped" or why balancerStop failed.
func prepare(ctx context.Context, uri string) (balancer string, err error) {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(time.Minute))
	if err != nil {
		return "", fmt.Errorf("connect to the first router: %w", err)
	}
	defer cl.Disconnect(context.Background())
	admin := cl.Database("admin")
	balancer = "stopped"
	if err := admin.RunCommand(ctx, bson.D{{Key: "balancerStop", Value: 1}}).Err(); err != nil {
		balancer = err.Error()
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "enableSharding", Value: Database}}).Err(); err != nil {
		return balancer, fmt.Errorf("enableSharding %s: %w", Database, err)
	}
	cmd := bson.D{{Key: "shardCollection", Value: Database + "." + Table}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}
	if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
		return balancer, fmt.Errorf("shardCollection %s.%s: %w", Database, Table, err)
	}
	return balancer, nil
}

// docsPerShard counts usertable on every shard's primary (the count
// command's metadata count, orphans included: nothing migrates here).
func docsPerShard(ctx context.Context, sc *cluster.Sharded) ([]int64, error) {
	out := make([]int64, len(sc.Shards))
	for i, sh := range sc.Shards {
		p, err := sh.Primary(ctx)
		if err != nil {
			return out, fmt.Errorf("shard %d primary: %w", i, err)
		}
		cl, err := sh.Client(p)
		if err != nil {
			return out, fmt.Errorf("shard %d client: %w", i, err)
		}
		n, err := cl.Database(Database).Collection(Table).EstimatedDocumentCount(ctx)
		if err != nil {
			return out, fmt.Errorf("count on shard %d: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

// settle writes one document with w:"majority" on every shard's primary
// (database shardexp, outside the benchmark's), so a cell starts after
// each shard's secondaries applied what the previous cell or the load
// left behind.
func settle(ctx context.Context, sc *cluster.Sharded) error {
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for i, sh := range sc.Shards {
		p, err := sh.Primary(sctx)
		if err != nil {
			return fmt.Errorf("shard %d primary: %w", i, err)
		}
		cl, err := sh.Client(p)
		if err != nil {
			return fmt.Errorf("shard %d client: %w", i, err)
		}
		coll := cl.Database("shardexp").Collection("settle",
			options.Collection().SetWriteConcern(writeconcern.Majority()))
		if _, err := coll.InsertOne(sctx, bson.D{{Key: "at", Value: time.Now()}}); err != nil {
			return fmt.Errorf("settle shard %d: %w", i, err)
		}
	}
	return nil
}
