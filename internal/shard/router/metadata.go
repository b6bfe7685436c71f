package router

import (
	"context"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// shard returns the replica set of shard id, reloading config.shards when
// it is not known yet.
func (r *Router) shard(ctx context.Context, id string) (*replSet, error) {
	r.mu.Lock()
	s := r.mu.shards[id]
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if err := r.loadShards(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.mu.shards[id]; s == nil {
		return nil, mongoerr.New(mongoerr.ShardNotFound, "Shard %s not found", id)
	}
	return s, nil
}

// loadShards reads config.shards and keeps a replica-set target per shard
// (existing targets, with their known primary, are kept).
func (r *Router) loadShards(ctx context.Context) error {
	shards, err := r.meta.Shards(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range shards {
		if old := r.mu.shards[s.ID]; old == nil || old.name != s.SetName() {
			r.mu.shards[s.ID] = newReplSet(s.SetName(), s.Seeds(), r.pool)
		}
	}
	return nil
}

// allShards returns every shard's target after reloading config.shards.
func (r *Router) allShards(ctx context.Context) (map[string]*replSet, error) {
	if err := r.loadShards(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]*replSet, len(r.mu.shards))
	for id, s := range r.mu.shards {
		out[id] = s
	}
	return out, nil
}

// database returns db's config.databases entry, from the cache or the
// config servers; with create it makes the entry when there is none.
// found is false only when create is false and there is no entry.
func (r *Router) database(ctx context.Context, db string, create bool) (d configsvr.Database, found bool, err error) {
	r.mu.Lock()
	d, found = r.mu.dbs[db]
	r.mu.Unlock()
	if found {
		return d, true, nil
	}
	if d, found, err = r.meta.Database(ctx, db); err != nil {
		return d, false, err
	}
	if !found && create {
		if d, err = r.meta.CreateDatabase(ctx, db, ""); err != nil {
			return d, false, err
		}
		r.log.Info("created database", "db", db, "primary", d.Primary)
		found = true
	}
	if found {
		r.mu.Lock()
		r.mu.dbs[db] = d
		r.mu.Unlock()
	}
	return d, found, nil
}

// flush forgets cached metadata (flushRouterConfig).
func (r *Router) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mu.dbs = map[string]configsvr.Database{}
}
