package shardsvr

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// Migrations is a shard primary's part in chunk migrations (MongoDB's
// MigrationSourceManager on the donor, MigrationDestinationManager on the
// recipient): the donor drives internal/shard/migrate's state machine
// (migdonor.go) and serves the clone and its mods (migsource.go); the
// recipient clones and catches up (migrecipient.go). A shard donates at
// most one range at a time and receives at most one, so several
// migrations run at once between disjoint pairs of shards.
type Migrations struct {
	opts MigrationOptions

	mu        sync.Mutex
	sets      map[string]*netclient.ReplicaSet // other shards and the config servers, by connection string
	sources   map[string]*CloneSource          // donor: by session id
	donating  string                           // donor: the session id of the running migration
	receiving *recipient                       // recipient: the running clone
}

// MigrationOptions are what Migrations needs of its member.
type MigrationOptions struct {
	State *State
	Eng   *exec.Engine
	Pool  *netclient.Pool
	// Store is this member's range store (clean slate, overlapping tasks).
	Store EngineRangeStore
	// Ranges schedules the donor's deletion after a commit.
	Ranges *RangeDeleter
	// IsPrimary reports whether this member accepts writes.
	IsPrimary func() bool
	Logger    *slog.Logger
}

// NewMigrations returns a shard member's migration service.
func NewMigrations(opts MigrationOptions) *Migrations {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Migrations{opts: opts, sets: map[string]*netclient.ReplicaSet{}, sources: map[string]*CloneSource{}}
}

// set returns the replica set named by conn ("name/h:p,...").
func (m *Migrations) set(conn string) *netclient.ReplicaSet {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rs := m.sets[conn]; rs != nil {
		return rs
	}
	name, _, found := strings.Cut(conn, "/")
	if !found {
		name = ""
	}
	rs := netclient.NewReplicaSet(m.opts.Pool, netclient.ReplicaSetOptions{Name: name, Seeds: configsvr.SplitHosts(conn)})
	m.sets[conn] = rs
	return rs
}

// run sends cmd to the primary of the set conn names.
func (m *Migrations) run(ctx context.Context, conn string, cmd bson.D, idempotent bool) (bson.D, error) {
	reply, _, err := m.set(conn).Run(ctx, "admin", cmd, idempotent)
	return reply, err
}

// shardConn returns the connection string of shard id (config.shards).
func (m *Migrations) shardConn(ctx context.Context, id string) (string, error) {
	cat, err := m.catalog(ctx)
	if err != nil {
		return "", err
	}
	shards, err := cat.Shards(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range shards {
		if s.ID == id {
			return s.Host, nil
		}
	}
	return "", mongoerr.New(mongoerr.ShardNotFound, "shard %s not found", id)
}

// catalog returns the config servers' catalog over this service's sets.
func (m *Migrations) catalog(ctx context.Context) (*configsvr.Catalog, error) {
	id, _, err := m.opts.State.identity(ctx)
	if err != nil {
		return nil, err
	}
	return configsvr.NewCatalog(configRunner{m, id.ConfigsvrConnectionString}), nil
}

// configRunner runs the catalog's commands on the config servers.
type configRunner struct {
	m    *Migrations
	conn string
}

// Reads go to the primary too: a migration needs the config primary for
// its commit anyway, and the primary's majority read is never older than
// what the caller was told (a secondary's can be).
func (r configRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	reply, _, err := r.m.set(r.conn).Run(ctx, db, configsvr.Clock.Pin(db, cmd), true)
	configsvr.Clock.Observe(reply)
	return reply, err
}

// Close stops the monitors of the sets this service reached.
func (m *Migrations) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, rs := range m.sets {
		rs.Close()
	}
	for _, s := range m.sources {
		s.Close()
	}
}

// source returns the donor's clone source of sessionID.
func (m *Migrations) source(sessionID string) (*CloneSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sources[sessionID]; s != nil {
		return s, nil
	}
	return nil, mongoerr.New(mongoerr.IllegalOperation, "no migration with session %s is being donated", sessionID)
}

// MigrateClone answers _migrateClone: the next batch of the clone.
func (m *Migrations) MigrateClone(sessionID string) ([]bson.Raw, error) {
	s, err := m.source(sessionID)
	if err != nil {
		return nil, err
	}
	return s.NextClone()
}

// TransferMods answers _transferMods: the changes since the last call.
func (m *Migrations) TransferMods(ctx context.Context, sessionID string, final bool) (Mods, error) {
	s, err := m.source(sessionID)
	if err != nil {
		return Mods{}, err
	}
	return s.NextMods(ctx, final)
}

// WithMigrations is what a shard hands the command layer: its sharding
// state, range deleter and migration service.
type WithMigrations struct {
	WithRanges
	Migrations *Migrations
}

// MigrationService returns the migration service.
func (w WithMigrations) MigrationService() *Migrations { return w.Migrations }
