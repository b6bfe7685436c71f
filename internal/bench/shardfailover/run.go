package shardfailover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/failover"
	"github.com/relaydb/relaydb/internal/cluster"
)

// The YCSB table, sharded on {_id: "hashed"}.
const (
	dbName    = "ycsb"
	tableName = "usertable"
)

// Execute runs every mode of cfg on a fresh cluster each and returns the
// report built so far along with any error.
func Execute(ctx context.Context, cfg Config, progress io.Writer) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	dir, done, err := experiment.WorkDir(cfg.Dir, "relaydb-shard-failover-", false)
	if err != nil {
		return nil, fmt.Errorf("shardfailover: %w", err)
	}
	defer done()
	cfg.Dir = dir
	start := time.Now()
	r := newReport(cfg)
	var errs []error
	for _, mode := range cfg.Modes {
		if ctx.Err() != nil {
			break
		}
		m, err := runMode(ctx, cfg, mode, progress)
		if err != nil {
			m.Err = err.Error()
			errs = append(errs, fmt.Errorf("mode %s: %w", mode, err))
		}
		r.Modes = append(r.Modes, m)
	}
	r.DurationSecs = time.Since(start).Seconds()
	r.finish()
	return r, errors.Join(errs...)
}

// runMode starts a cluster whose shards have mode's members, loads and
// runs workload A, runs the trials, reads everything back and stops the
// cluster.
func runMode(ctx context.Context, cfg Config, mode string, progress io.Writer) (ModeReport, error) {
	m := ModeReport{Mode: mode, ShardMembers: cfg.members(mode), Reference: refReplicaSet}
	if mode == ModeSingle {
		m.Reference = refSingle
	}
	fmt.Fprintf(progress, "%s: starting %s x %s, %s, %s\n", mode, plural(cfg.Shards, "shard"),
		plural(m.ShardMembers, "member"), plural(cfg.ConfigMembers, "config server"), plural(cfg.Routers, "router"))
	sc, err := cluster.UpSharded(ctx, cluster.ShardedSpec{Dir: filepath.Join(cfg.Dir, mode), Shards: cfg.Shards,
		ShardMembers: m.ShardMembers, ConfigMembers: cfg.ConfigMembers, Routers: cfg.Routers, Bin: cfg.Bin,
		DieWithParent: true, Auth: cfg.Auth, TLS: cfg.TLS})
	if err != nil {
		return m, fmt.Errorf("cluster up: %w", err)
	}
	defer sc.Down(context.Background())
	cl, err := mongo.Connect(options.Client().ApplyURI(sc.URI()).SetRetryWrites(true).SetRetryReads(true).
		SetWriteConcern(writeconcern.Majority()).SetReadPreference(readpref.Primary()))
	if err != nil {
		return m, fmt.Errorf("connect %s: %w", sc.URI(), err)
	}
	defer cl.Disconnect(context.Background())
	rec, err := prepare(ctx, sc, cl, cfg)
	if err != nil {
		return m, err
	}
	fmt.Fprintf(progress, "%s: loading %d records\n", mode, cfg.RecordCount)
	if err := load(ctx, rec, cfg); err != nil {
		return m, err
	}
	err = runTrials(ctx, sc, rec, cfg, mode, &m, progress)
	m.Loss = readBack(ctx, cl, rec.ledger)
	fmt.Fprintf(progress, "%s: read back %d documents: %d acknowledged writes, %d lost\n",
		mode, m.Loss.Documents, m.Loss.AckedWrites, m.Loss.Lost())
	return m, err
}

// prepare stops the balancer (the owner of every key must not change),
// shards the table on {_id: "hashed"} and learns its routing table from
// the config servers.
func prepare(ctx context.Context, sc *cluster.Sharded, cl *mongo.Client, cfg Config) (*recorder, error) {
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "balancerStop", Value: 1}}).Err(); err != nil {
		return nil, fmt.Errorf("balancerStop: %w", err)
	}
	cmd := bson.D{{Key: "shardCollection", Value: dbName + "." + tableName},
		{Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}
	if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		return nil, fmt.Errorf("shardCollection: %w", err)
	}
	p, err := sc.Config.WaitPrimary(ctx)
	if err != nil {
		return nil, fmt.Errorf("config server primary: %w", err)
	}
	ccl, err := sc.Config.Client(p)
	if err != nil {
		return nil, err
	}
	cm, err := loadRouting(ctx, ccl, dbName+"."+tableName)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(sc.Shards))
	for i, s := range sc.Shards {
		names[i] = s.Spec().Name
	}
	coll := cl.Database(dbName).Collection(tableName)
	return &recorder{coll: coll, log: newOpLog(), ledger: newLedger(), owner: ownerFunc(cm, names),
		opTimeout: cfg.OpTimeout}, nil
}

// workload is YCSB workload A with cfg's record count and threads.
func workload(cfg Config) (*bench.Workload, bench.Properties, error) {
	props, err := bench.Preset("a")
	if err != nil {
		return nil, nil, err
	}
	props["recordcount"] = strconv.FormatInt(cfg.RecordCount, 10)
	props["operationcount"] = "1000000000"
	props["table"] = tableName
	w, err := bench.NewWorkload(props)
	return w, props, err
}

// load inserts the records; every one must be acknowledged.
func load(ctx context.Context, rec *recorder, cfg Config) error {
	w, _, err := workload(cfg)
	if err != nil {
		return err
	}
	opts := bench.Options{Phase: bench.PhaseLoad, Threads: cfg.Threads, Seed: cfg.Seed}
	if _, err := bench.Run(ctx, w, opts, rec.newDB, nil); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	rec.ledger.mu.Lock()
	n := len(rec.ledger.inserted)
	rec.ledger.mu.Unlock()
	if int64(n) != cfg.RecordCount {
		return fmt.Errorf("load: %d of %d inserts acknowledged", n, cfg.RecordCount)
	}
	return nil
}

// readBack reads every document through a router with readConcern
// majority (a few attempts, each bounded) and checks the ledger.
func readBack(ctx context.Context, cl *mongo.Client, l *ledger) Loss {
	coll := cl.Database(dbName, options.Database().SetReadConcern(readconcern.Majority())).Collection(tableName)
	var err error
	for attempt := 0; attempt < 3 && ctx.Err() == nil; attempt++ {
		var docs map[string]docFields
		if docs, err = readAll(ctx, coll); err == nil {
			return l.verify(docs)
		}
		_ = failover.SleepCtx(ctx, time.Second)
	}
	lo := l.verify(nil)
	lo.Err = fmt.Sprintf("read-back failed: %v", err)
	return lo
}

func readAll(ctx context.Context, coll *mongo.Collection) (map[string]docFields, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	docs := map[string]docFields{}
	for cur.Next(ctx) {
		id, fields, err := ackFields(cur.Current)
		if err != nil {
			return nil, err
		}
		docs[id] = fields
	}
	return docs, cur.Err()
}

// ackFields is a document's string _id and its a<worker> fields.
func ackFields(raw bson.Raw) (string, docFields, error) {
	elems, err := raw.Elements()
	if err != nil {
		return "", nil, err
	}
	var id string
	f := docFields{}
	for _, e := range elems {
		if e.Key() == "_id" {
			id, _ = e.Value().StringValueOK()
			continue
		}
		if w, ok := ackField(e.Key()); ok {
			if v, ok := e.Value().AsInt64OK(); ok {
				f[w] = v
			}
		}
	}
	return id, f, nil
}
