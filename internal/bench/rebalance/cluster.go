package rebalance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/cluster"
)

// The YCSB table, sharded on {_id: "hashed"}.
const (
	Database = "ycsb"
	Table    = "usertable"
	NS       = Database + "." + Table
)

// startCluster starts cfg's cluster in dir (experiment.UpSharded: a
// second time if the first start fails).
func startCluster(ctx context.Context, cfg Config, dir string) (*cluster.Sharded, error) {
	spec := cluster.ShardedSpec{Dir: dir, Shards: cfg.Shards, ShardMembers: cfg.ShardMembers,
		ConfigMembers: cfg.ConfigMembers, Routers: cfg.Routers, Bin: cfg.Bin, DieWithParent: true, Auth: cfg.Auth, TLS: cfg.TLS}
	sc, err := experiment.UpSharded(ctx, spec, nil)
	if err != nil {
		return nil, fmt.Errorf("start the cluster: %w", err)
	}
	return sc, nil
}

// configure sets balancerRoundIntervalMS on every config server and
// config.settings chunksize on their primary, then shards usertable on a
// hashed _id with ChunksPerShard chunks per shard through router.
func configure(ctx context.Context, sc *cluster.Sharded, router *mongo.Client, cfg Config) error {
	for _, m := range sc.Config.Members() {
		cl, err := sc.Config.Client(m)
		if err != nil {
			return err
		}
		cmd := bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: cfg.RoundInterval.Milliseconds()}}
		if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			return fmt.Errorf("setParameter balancerRoundIntervalMS on %s: %w", m.Name, err)
		}
	}
	p, err := sc.Config.WaitPrimary(ctx)
	if err != nil {
		return fmt.Errorf("config server primary: %w", err)
	}
	cl, err := sc.Config.Client(p)
	if err != nil {
		return err
	}
	settings := cl.Database("config").Collection("settings", options.Collection().SetWriteConcern(writeconcern.Majority()))
	_, err = settings.UpdateOne(ctx, bson.D{{Key: "_id", Value: "chunksize"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: cfg.ChunkSizeMB}}}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("config.settings chunksize: %w", err)
	}
	admin := router.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "enableSharding", Value: Database}}).Err(); err != nil {
		return fmt.Errorf("enableSharding %s: %w", Database, err)
	}
	cmd := bson.D{{Key: "shardCollection", Value: NS}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}},
		{Key: "numInitialChunks", Value: cfg.ChunksPerShard * cfg.Shards}}
	if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("shardCollection %s: %w", NS, err)
	}
	return nil
}

// chunks counts usertable's chunks per shard.
func chunks(ctx context.Context, sc *cluster.Sharded) (map[string]int, error) {
	p, err := sc.Placement(ctx, 100)
	if err != nil {
		return nil, err
	}
	for _, c := range p.Collections {
		if c.NS == NS {
			return c.Chunks, nil
		}
	}
	return nil, fmt.Errorf("%s is not in config.collections", NS)
}

// compliant asks balancerCollectionStatus through router.
func compliant(ctx context.Context, router *mongo.Client) (bool, error) {
	var st struct {
		Compliant bool `bson:"balancerCompliant"`
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := router.Database("admin").RunCommand(cctx, bson.D{{Key: "balancerCollectionStatus", Value: NS}}).Decode(&st)
	if err != nil {
		return false, fmt.Errorf("balancerCollectionStatus: %w", err)
	}
	return st.Compliant, nil
}

// pollEvery is how often the during phase asks for compliance.
const pollEvery = 250 * time.Millisecond

// waitBalanced polls compliance until it has held for quiet and returns
// when the streak began; timedOut when max passed first. A failing
// status command breaks the streak and is retried until max.
func waitBalanced(ctx context.Context, router *mongo.Client, quiet, maxWait time.Duration) (end time.Time, timedOut bool, err error) {
	deadline := time.Now().Add(maxWait)
	var streak time.Time
	var last error
	for time.Now().Before(deadline) {
		ok, err := compliant(ctx, router)
		now := time.Now()
		switch {
		case err != nil:
			last, streak = err, time.Time{}
		case !ok:
			streak = time.Time{}
		case streak.IsZero():
			streak = now
		}
		if !streak.IsZero() && now.Sub(streak) >= quiet {
			return streak, false, nil
		}
		select {
		case <-ctx.Done():
			return now, false, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
	return time.Now(), true, last
}

// migrations reads every shard member's log for usertable's migrations.
func migrations(sc *cluster.Sharded) ([]Migration, error) {
	var out []Migration
	var errs []error
	for _, sh := range sc.Shards {
		for _, m := range sh.Members() {
			f, err := os.Open(m.LogPath)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ms, err := ParseMigrations(f, NS)
			f.Close()
			if err != nil {
				errs = append(errs, fmt.Errorf("read %s: %w", m.LogPath, err))
			}
			out = append(out, ms...)
		}
	}
	return out, errors.Join(errs...)
}

// routerClients connects to each router.
func routerClients(sc *cluster.Sharded) ([]*mongo.Client, error) {
	var out []*mongo.Client
	for _, r := range sc.Routers {
		cl, err := mongo.Connect(options.Client().ApplyURI(sc.Spec().Secrets.URI("mongodb://"+r.Host+"/", true)).SetTimeout(time.Minute))
		if err != nil {
			disconnect(out)
			return nil, fmt.Errorf("connect %s: %w", r.Host, err)
		}
		out = append(out, cl)
	}
	return out, nil
}

func disconnect(cls []*mongo.Client) {
	for _, c := range cls {
		_ = c.Disconnect(context.Background())
	}
}
