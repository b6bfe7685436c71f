package router

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// systemDB reports the databases a shard keeps for itself.
func systemDB(name string) bool { return name == "admin" || name == "local" || name == "config" }

// addShard validates the replica set named by {addShard: "set/h:p,..."}
// (or "h:p") with hello, as MongoDB's validateHostAsShard does, records it
// in config.shards and takes over the databases it already holds.
func addShard(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	conn, _ := c.cmd[0].Value.(string)
	if strings.TrimSpace(conn) == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "addShard requires a connection string: \"setName/host:port,...\"")
	}
	name, _ := bsonx.Get(c.cmd, "name")
	shardName, _ := name.(string)
	providedSet, _, isSet := strings.Cut(conn, "/")
	if !isSet {
		providedSet = ""
	}
	seeds := configsvr.SplitHosts(conn)
	if len(seeds) == 0 || (isSet && providedSet == "") {
		return nil, mongoerr.New(mongoerr.FailedToParse, "invalid connection string %q", conn)
	}
	h, err := c.r.greet(c.ctx, seeds)
	if err != nil {
		return nil, err
	}
	if err := validateShard(conn, providedSet, seeds, h); err != nil {
		return nil, err
	}
	if h.setName == c.r.cfgName { // also caught by hello's configsvr field once data nodes report it
		return nil, mongoerr.New(mongoerr.OperationFailed, "Cannot add %s as a shard since it is a config server", conn)
	}
	if shardName == "" {
		shardName = h.setName
	}
	shard := configsvr.Shard{ID: shardName, Host: h.setName + "/" + strings.Join(seeds, ","), State: configsvr.ShardActive}
	existing, err := c.r.meta.Shards(c.ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range existing {
		switch {
		case s.ID == shard.ID && s.SetName() == h.setName:
			return bson.D{{Key: "shardAdded", Value: s.ID}}, nil // already added: idempotent, as MongoDB
		case s.ID == shard.ID:
			return nil, mongoerr.New(mongoerr.IllegalOperation, "A shard named %s already exists (%s)", s.ID, s.Host)
		case s.SetName() == h.setName:
			return nil, mongoerr.New(mongoerr.IllegalOperation, "'%s' is already a member of the existing shard '%s'", conn, s.ID)
		}
	}
	if err := c.r.setShardIdentity(c.ctx, shard); err != nil {
		return nil, err
	}
	if err := c.r.adoptDatabases(c.ctx, shard); err != nil {
		return nil, err
	}
	if err := c.r.meta.InsertShard(c.ctx, shard); err != nil && !c.r.shardRecorded(c, shard, err) {
		return nil, err
	}
	c.r.log.Info("added shard", "shard", shard.ID, "host", shard.Host)
	if err := c.r.loadShards(c.ctx); err != nil {
		return nil, err
	}
	return bson.D{{Key: "shardAdded", Value: shard.ID}}, nil
}

// setShardIdentity writes the shard's shardIdentity document (its name,
// the cluster id and the config servers' connection string) to its
// primary with a majority write, as MongoDB's addShard does, so the shard
// can check the versions routers send and read the routing tables.
func (r *Router) setShardIdentity(ctx context.Context, shard configsvr.Shard) error {
	clusterID, err := r.meta.ClusterID(ctx)
	if err != nil {
		return err
	}
	s := newReplSet(shard.SetName(), shard.Seeds(), r.pool)
	id := configsvr.ShardIdentity{ShardName: shard.ID, ClusterID: clusterID, ConfigsvrConnectionString: r.opts.ConfigDB}
	return configsvr.InsertShardIdentity(ctx, primaryRunner{s}, id)
}

// primaryRunner runs commands on a replica set's primary (resending only
// what is safe to resend).
type primaryRunner struct{ s *replSet }

func (p primaryRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	return p.s.Run(ctx, db, cmd, false)
}

// shardRecorded reports whether an insert that failed with DuplicateKey
// had in fact recorded shard: a metadata write is resent after a network
// failure, and the first attempt may have been applied.
func (r *Router) shardRecorded(c *call, shard configsvr.Shard, err error) bool {
	if !mongoerr.Is(err, mongoerr.DuplicateKey) {
		return false
	}
	shards, rerr := r.meta.Shards(c.ctx)
	return rerr == nil && slices.Contains(shards, shard)
}

// greet runs hello on the first reachable seed; none reachable is
// HostUnreachable, as MongoDB reports a shard it cannot connect to.
func (r *Router) greet(ctx context.Context, seeds []string) (helloInfo, error) {
	var last error
	for _, h := range seeds {
		hctx, cancel := context.WithTimeout(ctx, helloTimeout)
		reply, err := r.pool.Run(hctx, h, "admin", bson.D{{Key: "hello", Value: int32(1)}})
		cancel()
		if err != nil {
			last = err
			continue
		}
		info := parseHello(reply)
		if !info.writablePrimary && info.setName != "" {
			// A secondary: ask the set for its primary below.
			s := newReplSet(info.setName, append(slices.Clone(seeds), info.hosts...), r.pool)
			pctx, cancel := context.WithTimeout(ctx, helloTimeout*2)
			p, err := s.discover(pctx)
			cancel()
			if err == nil {
				if reply, err = r.pool.Run(ctx, p, "admin", bson.D{{Key: "hello", Value: int32(1)}}); err == nil {
					info = parseHello(reply)
				}
			}
		}
		return info, nil
	}
	return helloInfo{}, mongoerr.New(mongoerr.HostUnreachable, "couldn't connect to new shard %s: %v", strings.Join(seeds, ","), last)
}

// validateShard applies MongoDB's checks of a host to be added as a shard.
func validateShard(conn, providedSet string, seeds []string, h helloInfo) error {
	switch {
	case h.msg == "isdbgrid":
		return mongoerr.New(mongoerr.IllegalOperation, "cannot add a mongos as a shard")
	case !h.writablePrimary:
		return mongoerr.New(mongoerr.NotWritablePrimary, "%s does not have a master. If this is a replica set, ensure that it has a healthy primary and that the set has been properly initiated.", conn)
	case providedSet == "" && h.setName != "":
		return mongoerr.New(mongoerr.OperationFailed, "host is part of set %s; use replica set url format <setname>/<server1>,<server2>, ...", h.setName)
	case h.setName == "":
		// MongoDB 3.6+ shards are replica sets: a standalone is refused.
		return mongoerr.New(mongoerr.OperationFailed, "host did not return a set name; is the replica set still initializing? (%s is not a replica set member; shards must be replica sets)", conn)
	case providedSet != h.setName:
		return mongoerr.New(mongoerr.OperationFailed, "the provided connection string (%s) does not match the actual set name %s", conn, h.setName)
	case h.configsvr:
		return mongoerr.New(mongoerr.OperationFailed, "Cannot add %s as a shard since it is a config server", conn)
	}
	for _, s := range seeds {
		if !slices.Contains(h.hosts, s) {
			return mongoerr.New(mongoerr.OperationFailed, "in seed list %s, host %s does not belong to replica set %s; found %v", conn, s, h.setName, h.hosts)
		}
	}
	return nil
}

// adoptDatabases records the databases the new shard already holds with
// it as their primary; one that exists in the cluster already is refused.
func (r *Router) adoptDatabases(ctx context.Context, shard configsvr.Shard) error {
	s := newReplSet(shard.SetName(), shard.Seeds(), r.pool)
	reply, err := s.Run(ctx, "admin", bson.D{{Key: "listDatabases", Value: int32(1)}, {Key: "nameOnly", Value: true}}, true)
	if err != nil {
		return err
	}
	names := dbNames(reply)
	for _, n := range names {
		if systemDB(n) {
			continue
		}
		if d, found, err := r.meta.Database(ctx, n); err != nil {
			return err
		} else if found {
			return mongoerr.New(mongoerr.OperationFailed, "can't add shard '%s' because a local database '%s' exists in another shard %s", shard.Host, n, d.Primary)
		}
	}
	for _, n := range names {
		if !systemDB(n) {
			if _, err := r.meta.CreateDatabase(ctx, n, shard.ID); err != nil {
				return fmt.Errorf("recording database %s of the new shard: %w", n, err)
			}
		}
	}
	return nil
}

func dbNames(listDatabasesReply bson.D) []string {
	v, _ := bsonx.Get(listDatabasesReply, "databases")
	arr, _ := v.(bson.A)
	var out []string
	for _, e := range arr {
		d, _ := e.(bson.D)
		if n, ok := bsonx.Get(d, "name"); ok {
			if s, _ := n.(string); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// listShards answers {shards: [{_id, host, state[, draining: true]}], ok: 1}.
func listShards(c *call) (bson.D, error) {
	shards, err := c.r.meta.Shards(c.ctx)
	if err != nil {
		return nil, err
	}
	draining, err := c.r.meta.DrainingShards(c.ctx)
	if err != nil {
		return nil, err
	}
	arr := bson.A{}
	for _, s := range shards {
		d := s.Doc()
		if slices.Contains(draining, s.ID) { // removeShard (removeshard.go)
			d = append(d, bson.E{Key: "draining", Value: true})
		}
		arr = append(arr, d)
	}
	return bson.D{{Key: "shards", Value: arr}}, nil
}

// enableSharding makes sure the database has a config.databases entry
// (MongoDB 6+ needs no more; a primaryShard argument picks its shard).
func enableSharding(c *call) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	db, _ := c.cmd[0].Value.(string)
	if db == "" || strings.ContainsAny(db, "./\\ \"$") {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "invalid db name specified: %s", db)
	}
	if systemDB(db) {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "can't shard %s database", db)
	}
	primary, _ := bsonx.Get(c.cmd, "primaryShard")
	p, _ := primary.(string)
	if p != "" {
		if _, err := c.r.shard(c.ctx, p); err != nil {
			return nil, err
		}
	}
	d, err := c.r.meta.CreateDatabase(c.ctx, db, p)
	if err != nil {
		return nil, err
	}
	if p != "" && d.Primary != p {
		return nil, mongoerr.New(mongoerr.NamespaceExists, "database %s already exists with primary shard %s", db, d.Primary)
	}
	return bson.D{}, nil
}

func flushRouterConfig(c *call) (bson.D, error) {
	c.r.flush()
	c.r.catalog.flush()
	return bson.D{{Key: "flushed", Value: true}}, nil
}

// useMetadataWriteConcern makes the config server writes of c's metadata
// command use the client's writeConcern as MongoDB's mongos does
// (configsvr.MajorityWriteConcern: w "majority", the client's wtimeout);
// without one they use the default majority write concern.
func (c *call) useMetadataWriteConcern() error {
	wc, err := configsvr.MajorityWriteConcern(c.cmd)
	if err != nil || wc == nil {
		return err
	}
	c.ctx = configsvr.WithWriteConcern(c.ctx, wc)
	return nil
}
