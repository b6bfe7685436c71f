package balancer

import (
	"cmp"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// DefaultChunkSize is MongoDB's default range size (config.settings
// chunksize, 128 MB).
const DefaultChunkSize = 128 << 20

// DefaultImbalanceFactor is how many chunk sizes the largest and smallest
// shard of a collection may differ by before data moves (MongoDB's 3).
const DefaultImbalanceFactor = 3

// Settings tune a round; zero fields take the defaults.
type Settings struct {
	ChunkSize       int64 // bytes
	ImbalanceFactor int64
}

func (s Settings) withDefaults() Settings {
	if s.ChunkSize <= 0 {
		s.ChunkSize = DefaultChunkSize
	}
	if s.ImbalanceFactor <= 0 {
		s.ImbalanceFactor = DefaultImbalanceFactor
	}
	return s
}

// Shard is one config.shards entry as the policy sees it.
type Shard struct {
	ID       string
	Host     string // "setName/host:port,..." (for the round's I/O; Plan ignores it)
	Draining bool   // removeShard is emptying it
}

// Collection is one sharded collection: its chunks and the bytes of its
// data each shard holds (a shard absent from Size holds none).
type Collection struct {
	NS     string
	Chunks []routing.Chunk
	Size   map[string]int64
	// Jumbo holds the ranges (Chunk.Range) size balancing must not pick:
	// a single key's documents larger than the chunk size, which moving
	// would only carry the imbalance to the recipient. Draining moves
	// them anyway.
	Jumbo map[string]bool
	// ChunkSize is the collection's own (config.collections
	// maxChunkSizeBytes); 0: Settings.ChunkSize.
	ChunkSize int64
}

// Reason says why a migration was chosen.
type Reason string

const (
	Drain Reason = "drain" // the donor is being removed
	Size  Reason = "size"  // the collection's data sizes differ too much
	Load  Reason = "load"  // the donor serves too many of the collection's operations (hot.go)
)

// Migration is one range to move: Chunk (owned by From), cut by the donor
// to at most MaxBytes when MaxBytes > 0.
type Migration struct {
	NS       string
	Chunk    routing.Chunk
	From, To string
	MaxBytes int64
	Reason   Reason
	SplitAt  bson.D // Load: the chunk is cut here first and the piece from it on moves
}

// Plan returns the migrations of one round. See the package invariants.
func Plan(shards []Shard, colls []Collection, s Settings) []Migration {
	s = s.withDefaults()
	r := newRound(shards)
	if len(r.active) == 0 {
		return nil
	}
	colls = slices.Clone(colls)
	slices.SortFunc(colls, func(a, b Collection) int { return cmp.Compare(a.NS, b.NS) })
	for _, c := range colls {
		r.drain(c)
	}
	for _, c := range colls {
		r.balance(c, s)
	}
	return r.out
}

// round is the state of one Plan: which shards are busy.
type round struct {
	draining map[string]bool
	active   []string // non-draining shards, by ID
	busy     map[string]bool
	out      []Migration
}

func newRound(shards []Shard) *round {
	r := &round{draining: map[string]bool{}, busy: map[string]bool{}}
	for _, sh := range shards {
		if sh.Draining {
			r.draining[sh.ID] = true
		} else {
			r.active = append(r.active, sh.ID)
		}
	}
	slices.Sort(r.active)
	return r
}

func (r *round) add(m Migration) {
	r.busy[m.From], r.busy[m.To] = true, true
	r.out = append(r.out, m)
}

// drain moves c's chunks off draining shards, each to the free active
// shard holding the least of c.
func (r *round) drain(c Collection) {
	for _, ch := range sortedChunks(c.Chunks) {
		if !r.draining[ch.Shard] || r.busy[ch.Shard] {
			continue
		}
		to, ok := r.smallestFree(c)
		if !ok {
			return
		}
		r.add(Migration{NS: c.NS, Chunk: ch, From: ch.Shard, To: to, Reason: Drain})
	}
}

// balance pairs c's largest free shard with its smallest while they differ
// by more than the threshold, one chunk-sized range per pair.
func (r *round) balance(c Collection, s Settings) {
	size := cmp.Or(c.ChunkSize, s.ChunkSize)
	threshold := s.ImbalanceFactor * size
	for {
		from, okF := r.largestFree(c)
		to, okT := r.smallestFree(c)
		if !okF || !okT || from == to || c.Size[from]-c.Size[to] <= threshold {
			return
		}
		ch, ok := firstChunkOn(c, from)
		if !ok {
			return
		}
		r.add(Migration{NS: c.NS, Chunk: ch, From: from, To: to, MaxBytes: size, Reason: Size})
	}
}

// smallestFree is the free active shard holding the least of c (ties: ID).
func (r *round) smallestFree(c Collection) (string, bool) {
	return r.pick(c, func(a, b int64) bool { return a < b })
}

// largestFree is the free active shard holding the most of c (ties: ID).
func (r *round) largestFree(c Collection) (string, bool) {
	return r.pick(c, func(a, b int64) bool { return a > b })
}

func (r *round) pick(c Collection, better func(a, b int64) bool) (string, bool) {
	best, found := "", false
	for _, id := range r.active {
		if r.busy[id] {
			continue
		}
		if !found || better(c.Size[id], c.Size[best]) {
			best, found = id, true
		}
	}
	return best, found
}

// firstChunkOn is shard's chunk of c with the lowest min, jumbo ones
// left out.
func firstChunkOn(c Collection, shard string) (routing.Chunk, bool) {
	for _, ch := range sortedChunks(c.Chunks) {
		if ch.Shard == shard && !c.Jumbo[ch.Range()] {
			return ch, true
		}
	}
	return routing.Chunk{}, false
}

func sortedChunks(chunks []routing.Chunk) []routing.Chunk {
	out := slices.Clone(chunks)
	slices.SortFunc(out, func(a, b routing.Chunk) int { return key.Compare(a.Min, b.Min) })
	return out
}
