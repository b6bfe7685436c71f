package balancer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// RoundResult is what one round did.
type RoundResult struct {
	Mode    string // config.settings' mode ("" when it could not be read)
	Skipped string // why nothing was planned (mode off, outside the window)
	Moves   []MoveResult
	Err     error // the round's first error (settings, stats, a move)
}

// movedAny reports whether a range moved in the round.
func (r RoundResult) movedAny() bool {
	for _, m := range r.Moves {
		if m.Err == nil && !m.Jumbo {
			return true
		}
	}
	return false
}

// MoveResult is one planned migration and what became of it.
type MoveResult struct {
	Migration
	Splits []bson.D      // where the chunk was cut before moving
	Moved  routing.Chunk // the range sent to the recipient
	Jumbo  bool          // not moved: one key's documents exceed the chunk size (size balancing skips it from now on)
	Err    error
}

// errJumbo is cut's answer for a chunk that cannot be split below the
// chunk size.
var errJumbo = errors.New("balancer: jumbo chunk")

func (m MoveResult) String() string {
	return fmt.Sprintf("%s %s %s->%s (%s)", m.NS, m.Moved.Range(), m.From, m.To, m.Reason)
}

// round reads the settings and the cluster, plans and runs the moves.
func (b *Balancer) round(ctx context.Context) RoundResult {
	cfg, err := b.opts.Cluster.Config(ctx)
	if err != nil {
		return RoundResult{Err: fmt.Errorf("balancer: reading config.settings: %w", err)}
	}
	r := RoundResult{Mode: cfg.Mode}
	switch {
	case cfg.Mode != "full":
		r.Skipped = "the balancer is off"
		return r
	case cfg.Window != nil && !cfg.Window.Contains(b.opts.Now()):
		r.Skipped = "outside the balancer's active window"
		return r
	}
	shards, err := b.opts.Cluster.Shards(ctx)
	if err != nil {
		r.Err = fmt.Errorf("balancer: reading config.shards: %w", err)
		return r
	}
	colls, sizes, err := b.balanced(ctx, cfg.ChunkSize)
	if err != nil || len(colls) == 0 || len(shards) == 0 {
		r.Err = err
		return r
	}
	stats, err := b.gather(ctx, shards, colls)
	if err != nil {
		r.Err = err
		return r
	}
	plan := plan(shards, colls, sizes, stats, cfg, b.jumboRanges)
	r.Moves = b.execute(ctx, shards, colls, plan, sizes)
	for _, m := range r.Moves {
		if m.Err != nil {
			r.Err = m.Err
			break
		}
	}
	return r
}

// balanced lists the sharded collections the balancer may move
// (noBalance unset), by namespace, and the chunk size of each (its
// maxChunkSizeBytes, or the cluster's chunkSize).
func (b *Balancer) balanced(ctx context.Context, chunkSize int64) (map[string]*routing.ChunkManager, map[string]int64, error) {
	all, err := b.opts.Cluster.Collections(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("balancer: reading the sharded collections: %w", err)
	}
	out, sizes := map[string]*routing.ChunkManager{}, map[string]int64{}
	for _, c := range all {
		if !c.NoBalance {
			ns := c.CM.Collection().NS
			out[ns], sizes[ns] = c.CM, cmp.Or(c.ChunkSize, chunkSize)
		}
	}
	return out, sizes, nil
}

// gather asks every shard for its part of each collection (by shard, then
// namespace). A shard that does not answer fails the round: planning
// with its size missing would take it for empty.
func (b *Balancer) gather(ctx context.Context, shards []Shard, colls map[string]*routing.ChunkManager) (map[string]map[string]CollStats, error) {
	nss := make([]string, 0, len(colls))
	for ns := range colls {
		nss = append(nss, ns)
	}
	out := map[string]map[string]CollStats{}
	for _, sh := range shards {
		st, err := b.opts.Shards.Stats(ctx, sh, nss)
		if err != nil {
			return nil, fmt.Errorf("balancer: statistics of shard %s: %w", sh.ID, err)
		}
		out[sh.ID] = st
	}
	return out, nil
}

// plan is the round's migrations: Plan's (drain, size), then PlanLoad's
// among the shards they leave free.
func plan(shards []Shard, colls map[string]*routing.ChunkManager, sizes map[string]int64, stats map[string]map[string]CollStats, cfg Config,
	jumbo func(*routing.ChunkManager) map[string]bool) []Migration {
	var sized []Collection
	var loads []LoadColl
	for ns, cm := range colls {
		c := Collection{NS: ns, Chunks: cm.Chunks(), Size: map[string]int64{}, Jumbo: jumbo(cm), ChunkSize: sizes[ns]}
		l := LoadColl{CM: cm, Stats: map[string]CollStats{}}
		for shard, byNS := range stats {
			c.Size[shard] = byNS[ns].Size
			l.Stats[shard] = byNS[ns]
		}
		sized, loads = append(sized, c), append(loads, l)
	}
	out := Plan(shards, sized, Settings{ChunkSize: cfg.ChunkSize})
	busy := map[string]bool{}
	for _, m := range out {
		busy[m.From], busy[m.To] = true, true
	}
	return append(out, PlanLoad(shards, loads, cfg.HotOpsPerSec, busy)...)
}

// execute cuts each migration's range (one at a time: splits of one
// collection take versions from the routing table the previous one left)
// and then moves the ranges at once (their shards are disjoint).
func (b *Balancer) execute(ctx context.Context, shards []Shard, colls map[string]*routing.ChunkManager, plan []Migration, sizes map[string]int64) []MoveResult {
	byID := map[string]Shard{}
	for _, s := range shards {
		byID[s.ID] = s
	}
	out := make([]MoveResult, len(plan))
	for i, m := range plan {
		out[i] = MoveResult{Migration: m, Moved: m.Chunk}
		cm, err := b.cut(ctx, &out[i], colls[m.NS], byID[m.From], sizes[m.NS])
		if errors.Is(err, errJumbo) {
			out[i].Jumbo, err = true, nil
			b.opts.Logger.Info("balancer: chunk is jumbo (one key larger than the chunk size); size balancing leaves it",
				"ns", m.NS, "range", out[i].Moved.Range(), "shard", m.From)
		}
		out[i].Err = err
		if cm != nil {
			colls[m.NS] = cm
		}
	}
	var wg sync.WaitGroup
	for i := range out {
		if out[i].Err != nil || out[i].Jumbo {
			continue
		}
		wg.Add(1)
		go func(r *MoveResult, cm *routing.ChunkManager) {
			defer wg.Done()
			r.Err = b.move(ctx, r, cm, byID[r.From], sizes[r.NS])
		}(&out[i], colls[out[i].NS])
	}
	wg.Wait()
	return out
}

// cut splits r's chunk before it moves: at the load split key (the
// piece from it on moves), then, when the piece to move is larger than
// chunkSize, at the donor's first autoSplitVector key (the piece below it
// moves): a chunk too large to move is split, never left jumbo. It
// returns the routing table after its splits.
func (b *Balancer) cut(ctx context.Context, r *MoveResult, cm *routing.ChunkManager, donor Shard, chunkSize int64) (*routing.ChunkManager, error) {
	if r.SplitAt != nil {
		next, err := b.opts.Cluster.CommitSplit(ctx, cm, r.Moved, r.SplitAt)
		if err != nil {
			return nil, fmt.Errorf("balancer: load split of %s %s at %s: %w", r.NS, r.Moved.Range(), key.Format(r.SplitAt), err)
		}
		cm, r.Splits = next, append(r.Splits, r.SplitAt)
		if r.Moved, err = cm.FindChunk(r.SplitAt); err != nil {
			return nil, fmt.Errorf("balancer: %s after its split: %w", r.NS, err)
		}
	}
	pts, rangeBytes, err := b.opts.Shards.SplitPoints(ctx, donor, cm, r.Moved, chunkSize, 1)
	if err != nil {
		return cm, fmt.Errorf("balancer: split points of %s %s on %s: %w", r.NS, r.Moved.Range(), donor.ID, err)
	}
	if len(pts) == 0 {
		if rangeBytes > chunkSize && r.Reason == Size {
			b.markJumbo(r.NS, r.Moved)
			return cm, errJumbo
		}
		return cm, nil
	}
	next, err := b.opts.Cluster.CommitSplit(ctx, cm, r.Moved, pts[0])
	if err != nil {
		return cm, fmt.Errorf("balancer: splitting %s %s at %s: %w", r.NS, r.Moved.Range(), key.Format(pts[0]), err)
	}
	r.Splits = append(r.Splits, pts[0])
	r.Moved, err = next.FindChunk(r.Moved.Min)
	return next, err
}

// move sends the migration to the donor's primary.
func (b *Balancer) move(ctx context.Context, r *MoveResult, cm *routing.ChunkManager, donor Shard, chunkSize int64) error {
	coll := cm.Collection()
	err := b.opts.Shards.MoveRange(ctx, donor, MoveRange{
		NS: r.NS, To: r.To, Min: r.Moved.Min, Max: r.Moved.Max, MaxChunkBytes: chunkSize,
		Epoch: coll.Epoch, Timestamp: coll.Timestamp,
	})
	if err != nil {
		return fmt.Errorf("balancer: moving %s: %w", r, err)
	}
	b.opts.Logger.Info("balancer moved a range", "ns", r.NS, "range", r.Moved.Range(), "from", r.From, "to", r.To, "reason", string(r.Reason))
	return nil
}
