package shardsvr

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// refreshTimeout bounds one refresh from the config servers.
const refreshTimeout = 20 * time.Second

// Source is where filtering metadata comes from: the config servers'
// catalog (*configsvr.Catalog), or an in-memory double in tests.
type Source interface {
	// RoutingTable returns ns's routing table; found is false when ns is
	// not sharded.
	RoutingTable(ctx context.Context, ns string) (*routing.ChunkManager, bool, error)
	// Database returns db's config.databases entry; found is false when
	// there is none.
	Database(ctx context.Context, name string) (configsvr.Database, bool, error)
	// RouterHosts returns the routers' "host:port" from config.mongos
	// (at most limit).
	RouterHosts(ctx context.Context, limit int) ([]string, error)
}

// Options configure a State.
type Options struct {
	// Identity reads this member's shardIdentity document (admin.system.version);
	// found is false until addShard has written it.
	Identity func(ctx context.Context) (id configsvr.ShardIdentity, found bool, err error)
	// Connect returns the metadata source for the config servers named by
	// the identity's configsvrConnectionString ("cfg/h:p,...").
	Connect func(conn string) Source
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// State is a shard's sharding state: its identity and, per namespace, the
// filtering metadata it knows (MongoDB's ShardingState and
// CollectionShardingRuntime). It is safe for concurrent use.
type State struct {
	opts   Options
	crit   critSections // DDL critical sections and versioned operations in flight (critsec.go)
	dbCrit dbSections   // movePrimary's database critical sections (dbcritsec.go)
	mu     struct {
		sync.Mutex
		identity *configsvr.ShardIdentity // nil until read
		source   Source
		colls    map[string]*collEntry
		dbs      map[string]*dbEntry
	}
}

// collEntry is one namespace's filtering metadata.
type collEntry struct {
	load sync.Mutex // held while loading from the config servers
	// Guarded by State.mu:
	meta   *CollectionMetadata // nil until loaded
	loaded uint64              // number of completed loads
}

// dbEntry is one database's config.databases entry as last read.
type dbEntry struct {
	load   sync.Mutex
	db     *configsvr.Database // nil until loaded or when none exists
	known  bool                // a load completed
	loaded uint64
}

// New returns the sharding state of a shard member.
func New(opts Options) *State {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &State{opts: opts}
	s.mu.colls = map[string]*collEntry{}
	s.mu.dbs = map[string]*dbEntry{}
	return s
}

// CollectionMetadata is what a shard knows of one collection: its routing
// table, or nil when the collection is unsharded.
type CollectionMetadata struct {
	m *routing.ChunkManager
}

// IsSharded reports whether the collection is sharded.
func (c *CollectionMetadata) IsSharded() bool { return c.m != nil }

// Manager returns the routing table; nil when unsharded.
func (c *CollectionMetadata) Manager() *routing.ChunkManager { return c.m }

// ShardVersion is the version shard wants for the collection: its
// placement version (0|0 of the collection's generation when it owns no
// chunk), or Unsharded.
func (c *CollectionMetadata) ShardVersion(shard string) routing.ChunkVersion {
	if c.m == nil {
		return Unsharded
	}
	return c.m.PlacementVersion(shard)
}

// CheckShardVersion checks a request's shardVersion and databaseVersion
// against what this shard knows (command.ShardVersioner). A request with
// neither passes. Without a shardIdentity it is ShardingStateNotInitialized
// (203). The database version is checked first, as MongoDB does.
func (s *State) CheckShardVersion(ctx context.Context, db string, cmd bson.D) error {
	svField, hasSV := bsonx.Get(cmd, "shardVersion")
	dvField, hasDV := bsonx.Get(cmd, "databaseVersion")
	if !hasSV && !hasDV {
		return nil
	}
	id, src, err := s.identity(ctx)
	if err != nil {
		return err
	}
	if hasDV {
		dv, err := ParseDatabaseVersion(dvField)
		if err != nil {
			return err
		}
		if err := s.checkDatabase(ctx, src, id.ShardName, db, dv); err != nil {
			return err
		}
	}
	coll, isColl := cmd[0].Value.(string)
	if !hasSV || !isColl {
		return nil
	}
	sv, err := ParseShardVersion(svField)
	if err != nil {
		return err
	}
	return s.CheckCollection(ctx, db+"."+coll, sv)
}

// CheckCollection compares received with this shard's version of ns:
// compatible (same generation and major) is served; otherwise the
// metadata is refreshed once from the config servers and compared again,
// and a mismatch still is StaleConfig with MongoDB's StaleConfigInfo.
func (s *State) CheckCollection(ctx context.Context, ns string, received routing.ChunkVersion) error {
	if isIgnored(received) {
		return nil
	}
	id, src, err := s.identity(ctx)
	if err != nil {
		return err
	}
	e, meta, loaded := s.coll(ns)
	if meta != nil && compatible(meta.ShardVersion(id.ShardName), received) {
		return nil
	}
	if meta, err = s.refreshColl(ctx, src, ns, e, loaded); err != nil {
		return err
	}
	wanted := meta.ShardVersion(id.ShardName)
	if compatible(wanted, received) {
		return nil
	}
	return staleConfig(ns, received, &wanted, id.ShardName)
}

// Metadata returns ns's filtering metadata, loading it on first use.
func (s *State) Metadata(ctx context.Context, ns string) (*CollectionMetadata, error) {
	_, src, err := s.identity(ctx)
	if err != nil {
		return nil, err
	}
	e, meta, loaded := s.coll(ns)
	if meta != nil {
		return meta, nil
	}
	return s.refreshColl(ctx, src, ns, e, loaded)
}

func (s *State) coll(ns string) (*collEntry, *CollectionMetadata, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.mu.colls[ns]
	if e == nil {
		e = &collEntry{}
		s.mu.colls[ns] = e
	}
	return e, e.meta, e.loaded
}

// refreshColl loads ns from src unless another request completed a load
// since seen (then that result is used): concurrent stale requests cause
// one read of the config servers.
func (s *State) refreshColl(ctx context.Context, src Source, ns string, e *collEntry, seen uint64) (*CollectionMetadata, error) {
	e.load.Lock()
	defer e.load.Unlock()
	s.mu.Lock()
	meta, loaded := e.meta, e.loaded
	s.mu.Unlock()
	if loaded != seen && meta != nil {
		return meta, nil
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	m, _, err := src.RoutingTable(ctx, ns)
	if err != nil {
		return nil, err
	}
	meta = &CollectionMetadata{m: m}
	s.mu.Lock()
	e.meta, e.loaded = meta, e.loaded+1
	s.mu.Unlock()
	s.opts.Logger.Debug("refreshed filtering metadata", "ns", ns, "sharded", m != nil)
	return meta, nil
}

// checkDatabase compares received with db's version when this shard is
// its primary; a shard that is not the primary knows no version of it
// (StaleDbVersion without vWanted, as MongoDB).
func (s *State) checkDatabase(ctx context.Context, src Source, shard, db string, received configsvr.DatabaseVersion) error {
	e, cur, known, loaded := s.database(db)
	if known && cur != nil && cur.Primary == shard && sameDatabaseVersion(cur.Version, received) {
		return nil
	}
	cur, err := s.refreshDB(ctx, src, db, e, loaded)
	if err != nil {
		return err
	}
	if cur == nil || cur.Primary != shard {
		return staleDB(db, received, nil)
	}
	if !sameDatabaseVersion(cur.Version, received) {
		return staleDB(db, received, &cur.Version)
	}
	return nil
}

func (s *State) database(db string) (*dbEntry, *configsvr.Database, bool, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.mu.dbs[db]
	if e == nil {
		e = &dbEntry{}
		s.mu.dbs[db] = e
	}
	return e, e.db, e.known, e.loaded
}

func (s *State) refreshDB(ctx context.Context, src Source, db string, e *dbEntry, seen uint64) (*configsvr.Database, error) {
	e.load.Lock()
	defer e.load.Unlock()
	s.mu.Lock()
	cur, known, loaded := e.db, e.known, e.loaded
	s.mu.Unlock()
	if loaded != seen && known {
		return cur, nil
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	got, found, err := src.Database(ctx, db)
	if err != nil {
		return nil, err
	}
	cur = nil
	if found {
		cur = &got
	}
	s.mu.Lock()
	e.db, e.known, e.loaded = cur, true, e.loaded+1
	s.mu.Unlock()
	return cur, nil
}

// identity returns the shard's identity and the source for its config
// servers, reading admin.system.version until the document exists.
func (s *State) identity(ctx context.Context) (configsvr.ShardIdentity, Source, error) {
	s.mu.Lock()
	id, src := s.mu.identity, s.mu.source
	s.mu.Unlock()
	if id != nil {
		return *id, src, nil
	}
	got, found, err := s.opts.Identity(ctx)
	if err != nil {
		return configsvr.ShardIdentity{}, nil, err
	}
	if !found {
		return configsvr.ShardIdentity{}, nil, notInitialized()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.identity == nil {
		s.mu.identity, s.mu.source = &got, s.opts.Connect(got.ConfigsvrConnectionString)
		s.opts.Logger.Info("sharding state initialized", "shardName", got.ShardName, "configsvr", got.ConfigsvrConnectionString)
	}
	return *s.mu.identity, s.mu.source, nil
}

// RouterHosts returns the cluster's routers as config.mongos lists them
// (at most limit); none before the shard's identity is known.
func (s *State) RouterHosts(ctx context.Context, limit int) ([]string, error) {
	_, src, err := s.identity(ctx)
	if err != nil {
		return nil, err
	}
	return src.RouterHosts(ctx, limit)
}

// ShardName returns this shard's name, "" before its identity is known.
func (s *State) ShardName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.identity == nil {
		return ""
	}
	return s.mu.identity.ShardName
}
