// Package catalog owns databases, collections and indexes, and performs every
// document write as one atomic storage batch: the primary's writes and DDL
// (Insert, Update, Delete, CreateCollection, ...), reads and scans,
// majority snapshots, TTL and Verify. Replication's own work (applying
// entries, markers, rollback, initial sync) lives under repl/ and writes
// through one narrow primitive, Apply (writer*.go).
//
// Invariants:
//   - A write (Insert, Update, Delete) is ONE Pebble batch holding the
//     document, all of its secondary index entries, the collection's size
//     counters and its oplog entry. None is visible without the others.
//   - Catalog changes (create/drop/rename collection, create/drop index) are
//     written in the same batch as their oplog "c" entry, by the Writer's
//     DDL methods only (writer_ddl.go): the primary's DDL (ddl.go,
//     rename.go, indexbuild.go) runs them through Apply's batch and
//     appends the entries it allocates (Reserve), replication appends the
//     entries its primary wrote (AppendOplog, ReserveAt).
//   - Writes are serialized by Catalog.writeMu ("allocate ts, build batch,
//     unique checks, commit NoSync"), so commits happen in oplog ts order.
//     j:true waiters wait for durability outside the lock (WaitDurable).
//   - Apply(fn) runs fn under writeMu with a Writer and commits what fn
//     wrote as ONE batch: documents with their index entries and counters
//     (PutDocument, DeleteDocument), DDL by UUID (CreateCollection,
//     DropCollection, RenameCollection, CreateIndex, DropIndexes), keys
//     under storage.PrefixRepl (PutMarker) and oplog entries at the ts and
//     term a primary gave them (AppendOplog, which must be after the
//     oplog's top, so replicated entries too commit in ts order). If fn
//     fails nothing of the batch is committed; the in-memory catalog
//     changes only once the batch is. Writes to the local database never
//     append oplog entries through Insert/Update/Delete or the primary's
//     DDL; Apply appends only the entries it is given. A batch that
//     writes documents without oplog entries (initial sync's cloning,
//     rollback's restores) is marked unlogged (Writer.Unlogged,
//     storage.Batch.MarkUnlogged), the one exemption of the storage
//     invariants check's rule "a document and its entry share one batch".
//     A batch may tolerate unique conflicts (Writer.RelaxUnique, initial
//     sync's batches only; relaxed.go), listing the indexes to rebuild.
//     Only TruncateOplogAfter acts outside the batch (at once; callers
//     guard it with a truncate-after marker).
//   - Reads are lock-free: they go straight to Pebble. Collection and Index
//     values are immutable once published; a change (rename, multikey,
//     new index) publishes a new value (copy on write).
//   - The _id_ index has no separate entries: documents are keyed by
//     keystring(_id), which is exactly the _id_ index order.
package catalog

import (
	"bytes"
	"context"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// Options configure Open.
type Options struct {
	// Storage configures the underlying engine (directory, in-memory, commit interval).
	Storage storage.Options
	// OplogSizeMB caps local.oplog.rs; 0 means the default (1024 MB).
	OplogSizeMB int
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the wall clock (oplog timestamps, TTL); nil means time.Now.
	Now func() time.Time
	// TTLInterval is the TTL reaper period; 0 means 60s (ttlMonitorSleepSecs),
	// negative disables the reaper.
	TTLInterval time.Duration
}

// Catalog is the set of databases, collections and indexes of one data node.
type Catalog struct {
	eng    *storage.Engine
	log    *oplog.Log
	logger *slog.Logger
	now    func() time.Time

	// writeMu serializes all writes (documents and catalog changes).
	writeMu sync.Mutex

	mu struct {
		sync.RWMutex
		byNS   map[string]*Collection // "db.name" -> collection
		byID   map[uint32]*Collection
		nextID uint32 // next collection/index id to allocate
		// watches are the namespaces someone watches (watch.go)
		watches map[string]*Watch
	}

	ttlPaused atomic.Bool // SetTTLPaused
	snaps     snapMgr     // majority-committed snapshots (snapshot.go)

	stop        chan struct{}
	ttlWake     chan struct{} // SetTTLInterval restarts the monitor's sleep
	ttlInterval atomic.Int64  // time.Duration
	wg          sync.WaitGroup
}

// Collection is one collection. Its exported fields never change after it is
// published; renaming publishes a new *Collection with the same ID.
type Collection struct {
	DB, Name string
	ID       uint32
	UUID     bson.Binary // subtype 4
	Options  bson.D

	cat     *Catalog
	indexes atomic.Pointer[[]*Index] // _id_ first
	count   atomic.Int64
	size    atomic.Int64
	watch   *Watch // its namespace's watch, if any; guarded by cat.mu
}

// Index is one index of a collection. Values are immutable once published.
type Index struct {
	ID                 uint32 // 0 for _id_ (documents are the _id_ index)
	Name               string
	Key                bson.D
	Unique, Sparse     bool
	Partial            bson.D
	ExpireAfterSeconds *int64
	Spec               bson.D // as listIndexes shows it: v, key, name, options
	Multikey           bool
	// Hidden indexes are maintained (and enforce uniqueness) but the
	// planner never uses them (VisibleIndexes).
	Hidden bool

	partial matcher             // compiled Partial, nil if none
	geo     *geoParams          // 2dsphere/2d options (indexgeo.go), nil otherwise
	wcProj  *wildcardProj       // a {"$**": 1} index's wildcardProjection, nil if none
	coll    *collation.Collator // non-simple collation (indexcollation.go), nil if none
}

// IsID reports whether idx is the _id_ index.
func (idx *Index) IsID() bool { return idx.Name == "_id_" }

// WriteResult identifies a committed write.
type WriteResult struct {
	TS  bson.Timestamp // oplog timestamp of the write
	Seq uint64         // storage commit sequence, for WaitDurable
}

// NS returns "db.name".
func (coll *Collection) NS() string { return coll.DB + "." + coll.Name }

// Indexes returns the collection's indexes, _id_ first.
func (coll *Collection) Indexes() []*Index {
	p := coll.indexes.Load()
	if p == nil {
		return nil
	}
	return *p
}

// Index returns the index named name, or nil.
func (coll *Collection) Index(name string) *Index {
	for _, idx := range coll.Indexes() {
		if idx.Name == name {
			return idx
		}
	}
	return nil
}

// Count returns the number of documents (a maintained counter).
func (coll *Collection) Count() int64 { return coll.count.Load() }

// DataSize returns the total BSON size of the documents (a maintained counter).
func (coll *Collection) DataSize() int64 { return coll.size.Load() }

// Oplog returns the oplog (local.oplog.rs readers).
func (c *Catalog) Oplog() *oplog.Log { return c.log }

// Engine returns the storage engine (metrics, tests).
func (c *Catalog) Engine() *storage.Engine { return c.eng }

// WaitDurable returns once the write identified by r is synced to the WAL
// (group commit: concurrent waiters share one fsync).
func (c *Catalog) WaitDurable(ctx context.Context, r WriteResult) error {
	return c.eng.WaitDurable(ctx, r.Seq)
}

// LastWrite returns a position at or after every write that has returned to
// its caller: writes reserve their oplog slot and commit under writeMu, so
// once a write returns, the visibility point and the commit sequence have
// passed it. Commands that do not carry their own WriteResult (DDL) wait on
// this position for their write concern (MongoDB waits on the client's last
// optime the same way).
func (c *Catalog) LastWrite() WriteResult {
	return WriteResult{TS: c.log.Visible(), Seq: c.eng.Committed()}
}

// Databases returns the names of the databases that hold collections, sorted.
func (c *Catalog) Databases() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, coll := range c.mu.byNS {
		if !seen[coll.DB] {
			seen[coll.DB] = true
			out = append(out, coll.DB)
		}
	}
	sort.Strings(out)
	return out
}

// Collections returns db's collections sorted by name.
func (c *Catalog) Collections(db string) []*Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Collection
	for _, coll := range c.mu.byNS {
		if coll.DB == db {
			out = append(out, coll)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Collection returns db.name, or nil if it does not exist.
func (c *Catalog) Collection(db, name string) *Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.byNS[db+"."+name]
}

// CollectionByUUID returns the collection with the given UUID, nil if
// none (a scan: replication finds collections by UUID when the namespace
// lookup misses).
func (c *Catalog) CollectionByUUID(ui bson.Binary) *Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, coll := range c.mu.byID {
		if bytes.Equal(coll.UUID.Data, ui.Data) {
			return coll
		}
	}
	return nil
}

// IndexByKey returns coll's index whose key pattern equals key, or nil.
func (c *Catalog) IndexByKey(coll *Collection, key bson.D) *Index {
	for _, idx := range coll.Indexes() {
		if keyPatternEqual(idx.Key, key) {
			return idx
		}
	}
	return nil
}

// VisibleIndexes returns the indexes the planner may use: all but the
// hidden ones, _id_ first.
func (coll *Collection) VisibleIndexes() []*Index {
	all := coll.Indexes()
	out := make([]*Index, 0, len(all))
	for _, idx := range all {
		if !idx.Hidden {
			out = append(out, idx)
		}
	}
	return out
}
