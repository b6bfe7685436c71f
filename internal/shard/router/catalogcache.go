package router

import (
	"context"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxStaleRetries bounds how often one request is re-routed after a
// shard answered StaleConfig (MongoDB's kMaxNumStaleVersionRetries).
const maxStaleRetries = 10

// cacheRefreshTimeout bounds one load of a routing table.
const cacheRefreshTimeout = 20 * time.Second

// catalogCache is the router's cache of routing tables (MongoDB's
// CatalogCache): per namespace the ChunkManager, or nil for a collection
// the config servers do not list as sharded. An entry is loaded on first
// use, reloaded after a shard answers StaleConfig for it and dropped by
// flushRouterConfig. Concurrent refreshes of one namespace cause one read
// of the config servers.
type catalogCache struct {
	meta *configsvr.Catalog
	mu   struct {
		sync.Mutex
		colls map[string]*cacheEntry
	}
}

type cacheEntry struct {
	load sync.Mutex // held while loading
	// Guarded by catalogCache.mu:
	cm     *routing.ChunkManager
	known  bool
	loaded uint64
}

func newCatalogCache(meta *configsvr.Catalog) *catalogCache {
	cc := &catalogCache{meta: meta}
	cc.mu.colls = map[string]*cacheEntry{}
	return cc
}

func (cc *catalogCache) entry(ns string) (*cacheEntry, *routing.ChunkManager, bool, uint64) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e := cc.mu.colls[ns]
	if e == nil {
		e = &cacheEntry{}
		cc.mu.colls[ns] = e
	}
	return e, e.cm, e.known, e.loaded
}

// get returns ns's routing table (nil: unsharded), loading it on first use.
func (cc *catalogCache) get(ctx context.Context, ns string) (*routing.ChunkManager, error) {
	e, cm, known, loaded := cc.entry(ns)
	if known {
		return cm, nil
	}
	return cc.load(ctx, ns, e, loaded)
}

// refresh reloads ns unless another request reloaded it since seen was
// read; it returns the newest table.
func (cc *catalogCache) refresh(ctx context.Context, ns string, seen *routing.ChunkManager) (*routing.ChunkManager, error) {
	e, cm, known, loaded := cc.entry(ns)
	if known && cm != seen {
		return cm, nil
	}
	return cc.load(ctx, ns, e, loaded)
}

func (cc *catalogCache) load(ctx context.Context, ns string, e *cacheEntry, seen uint64) (*routing.ChunkManager, error) {
	e.load.Lock()
	defer e.load.Unlock()
	cc.mu.Lock()
	cm, known, loaded := e.cm, e.known, e.loaded
	cc.mu.Unlock()
	if known && loaded != seen {
		return cm, nil
	}
	ctx, cancel := context.WithTimeout(ctx, cacheRefreshTimeout)
	defer cancel()
	var err error
	var last error
	for attempt := 0; attempt < 3; attempt++ { // chunks read half-way through a change: read again
		if cm, _, err = cc.meta.RoutingTable(ctx, ns); err == nil {
			break
		}
		last = err
	}
	if err != nil {
		return nil, last
	}
	cc.mu.Lock()
	e.cm, e.known, e.loaded = cm, true, e.loaded+1
	cc.mu.Unlock()
	return cm, nil
}

// invalidate forgets ns (the next use reloads it).
func (cc *catalogCache) invalidate(ns string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	delete(cc.mu.colls, ns)
}

// flush forgets every namespace (flushRouterConfig).
func (cc *catalogCache) flush() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.mu.colls = map[string]*cacheEntry{}
}
