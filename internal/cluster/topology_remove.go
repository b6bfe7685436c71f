package cluster

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// RemoveProgress is one removeShard answer of a router.
type RemoveProgress struct {
	State     string   `bson:"state"`
	Msg       string   `bson:"msg"`
	DBsToMove []string `bson:"dbsToMove"`
	Remaining struct {
		Chunks      int64 `bson:"chunks"`
		Dbs         int64 `bson:"dbs"`
		JumboChunks int64 `bson:"jumboChunks"`
	} `bson:"remaining"`
}

// String describes p in one line.
func (p RemoveProgress) String() string {
	if p.State != "ongoing" {
		return fmt.Sprintf("%s (%s)", p.State, p.Msg)
	}
	return fmt.Sprintf("ongoing: %d chunks (%d jumbo), %d databases left", p.Remaining.Chunks, p.Remaining.JumboChunks, p.Remaining.Dbs)
}

// removePollEvery is how often RemoveShard asks how the draining goes.
const removePollEvery = time.Second

// RemoveShard empties shard name through a router and then stops it:
// removeShard (the balancer moves its chunks away), movePrimary of each
// database in dbsToMove to the shard holding the least data, removeShard
// again every second until "completed" (at most timeout); then its
// processes are stopped and the state file records the removal. report
// is told each step.
func (sc *Sharded) RemoveShard(ctx context.Context, name string, timeout time.Duration, report func(string)) error {
	next, err := withRemoved(sc.spec, name)
	if err != nil {
		return err
	}
	idx := slices.IndexFunc(sc.Shards, func(c *Cluster) bool { return c.spec.Name == name })
	if idx < 0 {
		return fmt.Errorf("cluster: shard %s is not in the state file", name)
	}
	if err := sc.drain(ctx, name, timeout, report); err != nil {
		return err
	}
	sc.flushRouters(ctx, report)
	if err := sc.Shards[idx].Down(ctx); err != nil {
		return fmt.Errorf("cluster: stopping shard %s: %w", name, err)
	}
	report(fmt.Sprintf("stopped the processes of %s", name))
	sc.Shards = slices.Delete(sc.Shards, idx, idx+1)
	sc.spec = next
	return sc.save()
}

// drain runs removeShard until it answers "completed", moving the
// primaries it lists.
func (sc *Sharded) drain(ctx context.Context, name string, timeout time.Duration, report func(string)) error {
	deadline := time.Now().Add(timeout)
	warned := false
	for range int(timeout/removePollEvery) + 2 {
		var p RemoveProgress
		if err := sc.runRouter(ctx, bson.D{{Key: "removeShard", Value: name}}, &p); err != nil {
			return fmt.Errorf("cluster: removeShard %s: %w", name, err)
		}
		report(fmt.Sprintf("removeShard %s: %v", name, p))
		if p.State == "completed" {
			return nil
		}
		for _, db := range p.DBsToMove {
			if err := sc.movePrimaryAway(ctx, db, name, report); err != nil {
				return err
			}
		}
		if p.Remaining.Chunks > 0 && !warned {
			warned = sc.warnBalancerOff(ctx, report)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster: shard %s still draining after %v: %v", name, timeout, p)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(removePollEvery):
		}
	}
	return fmt.Errorf("cluster: shard %s still draining after %v", name, timeout)
}

// flushRouters runs flushRouterConfig on every running router, so none
// routes to the removed shard from a routing table it cached before the
// chunks left (failures are reported, not fatal).
func (sc *Sharded) flushRouters(ctx context.Context, report func(string)) {
	rc := sc.routers()
	defer rc.closeClients()
	for _, r := range sc.Routers {
		if !sc.RouterAlive(r) {
			continue
		}
		if err := rc.RunAdmin(ctx, r, bson.D{{Key: "flushRouterConfig", Value: 1}}, nil); err != nil {
			report(fmt.Sprintf("flushRouterConfig on %s: %v", r.Name, err))
			continue
		}
		report(fmt.Sprintf("flushed the routing cache of %s", r.Name))
	}
}

// warnBalancerOff reports when the balancer is off (its chunks would
// never move) and returns whether it did.
func (sc *Sharded) warnBalancerOff(ctx context.Context, report func(string)) bool {
	var st struct {
		Mode string `bson:"mode"`
	}
	if err := sc.runRouter(ctx, bson.D{{Key: "balancerStatus", Value: 1}}, &st); err != nil || st.Mode != "off" {
		return false
	}
	report("the balancer is off, so the chunks will not move: start it with balancerStart (sh.startBalancer())")
	return true
}

// movePrimaryAway moves db's primary to the shard with the least data.
func (sc *Sharded) movePrimaryAway(ctx context.Context, db, from string, report func(string)) error {
	to, err := sc.leastLoaded(ctx, from)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := sc.runRouter(ctx, bson.D{{Key: "movePrimary", Value: db}, {Key: "to", Value: to}}, nil); err != nil {
		return fmt.Errorf("cluster: movePrimary %s to %s: %w", db, to, err)
	}
	report(fmt.Sprintf("moved the primary of database %s from %s to %s (%v)", db, from, to, time.Since(start).Round(time.Millisecond)))
	return nil
}

// leastLoaded returns the shard other than exclude, and not draining,
// whose primary reports the smallest listDatabases totalSize (ties: the
// first by name).
func (sc *Sharded) leastLoaded(ctx context.Context, exclude string) (string, error) {
	var shards struct {
		Cursor struct {
			FirstBatch []struct {
				ID       string `bson:"_id"`
				Draining bool   `bson:"draining"`
			} `bson:"firstBatch"`
		} `bson:"cursor"`
	}
	find := bson.D{{Key: "find", Value: "shards"}, {Key: "filter", Value: bson.D{}}, {Key: "batchSize", Value: 1000}}
	if err := sc.runRouterDB(ctx, "config", find, &shards); err != nil {
		return "", fmt.Errorf("cluster: reading config.shards: %w", err)
	}
	best, bestSize := "", int64(-1)
	for _, s := range shards.Cursor.FirstBatch {
		if s.ID == exclude || s.Draining {
			continue
		}
		size, err := sc.shardSize(ctx, s.ID)
		if err != nil {
			return "", err
		}
		if bestSize < 0 || size < bestSize || (size == bestSize && s.ID < best) {
			best, bestSize = s.ID, size
		}
	}
	if best == "" {
		return "", fmt.Errorf("cluster: no shard to move data to besides %s", exclude)
	}
	return best, nil
}

// shardSize is listDatabases' totalSize on shard id's primary.
func (sc *Sharded) shardSize(ctx context.Context, id string) (int64, error) {
	idx := slices.IndexFunc(sc.Shards, func(c *Cluster) bool { return c.spec.Name == id })
	if idx < 0 {
		return 0, fmt.Errorf("cluster: shard %s is not in the state file", id)
	}
	c := sc.Shards[idx]
	p, err := c.WaitPrimary(ctx)
	if err != nil {
		return 0, fmt.Errorf("cluster: primary of %s: %w", id, err)
	}
	var out struct {
		TotalSize int64 `bson:"totalSize"`
	}
	err = c.RunAdmin(ctx, p, bson.D{{Key: "listDatabases", Value: 1}}, &out)
	return out.TotalSize, err
}
