package balancer

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/routing"
)

// DefaultRoundInterval is the pause between two balancer rounds
// (MongoDB's 10 s; --setParameter balancerRoundIntervalMS changes it).
const DefaultRoundInterval = 10 * time.Second

// roundTimeout bounds one round: its reads, splits and migrations.
const roundTimeout = 10 * time.Minute

// Cluster is the config server side of a round: config.settings,
// config.shards, the sharded collections and the split commit.
type Cluster interface {
	Config(ctx context.Context) (Config, error)
	Shards(ctx context.Context) ([]Shard, error)
	Collections(ctx context.Context) ([]CollectionInfo, error)
	// CommitSplit cuts chunk of cm in two at key at (config.chunks) and
	// returns the routing table after it.
	CommitSplit(ctx context.Context, cm *routing.ChunkManager, chunk routing.Chunk, at bson.D) (*routing.ChunkManager, error)
}

// CollectionInfo is one sharded collection's routing table and its
// config.collections balancing fields.
type CollectionInfo struct {
	CM        *routing.ChunkManager
	NoBalance bool  // config.collections noBalance
	ChunkSize int64 // config.collections maxChunkSizeBytes (configureCollectionBalancing); 0: the cluster's
}

// ShardClient reaches the primaries of the shards.
type ShardClient interface {
	// Stats is _shardsvrGetStatsForBalancing: each collection of nss the
	// shard holds, by namespace.
	Stats(ctx context.Context, sh Shard, nss []string) (map[string]CollStats, error)
	// SplitPoints is autoSplitVector on chunk: at most limit keys cutting
	// it into pieces of about maxBytes, none when it is smaller or holds
	// a single key; then rangeBytes is the chunk's data size (-1: not
	// known).
	SplitPoints(ctx context.Context, sh Shard, cm *routing.ChunkManager, chunk routing.Chunk, maxBytes int64, limit int) (keys []bson.D, rangeBytes int64, err error)
	// MoveRange is _shardsvrMoveRange sent to the donor's primary.
	MoveRange(ctx context.Context, donor Shard, req MoveRange) error
}

// CollStats is what a shard reports of one collection.
type CollStats struct {
	Size      int64   // bytes of the documents it owns
	OpsPerSec float64 // operations per second over its sample window
	SplitKey  bson.D  // the key halving that load (nil: none found)
}

// MoveRange is one _shardsvrMoveRange request.
type MoveRange struct {
	NS            string
	To            string
	Min, Max      bson.D
	MaxChunkBytes int64
	Epoch         bson.ObjectID
	Timestamp     bson.Timestamp
}

// Options configure a Balancer; zero fields take the defaults.
type Options struct {
	Cluster   Cluster
	Shards    ShardClient
	IsPrimary func() bool          // rounds run only while true
	Interval  func() time.Duration // default DefaultRoundInterval
	Now       func() time.Time     // default time.Now (the window's clock)
	Logger    *slog.Logger         // default slog.Default()
	OnRound   func(r RoundResult)  // optional: called after each round (tests)
}

// Balancer runs balancing rounds on the config server primary. Its
// state (Status) is what balancerStatus reports.
type Balancer struct {
	opts Options
	mu   struct {
		sync.Mutex
		status Status
		jumbo  map[string]bool // jumboKey of chunks found too large and unsplittable
	}
}

// maxJumbo bounds the jumbo chunks remembered (the set is forgotten when
// full: a chunk is then found jumbo again at its next move).
const maxJumbo = 10000

// jumboKey names a chunk at its version (a split or move makes it another).
func jumboKey(ns string, ch routing.Chunk) string {
	return ns + " " + ch.Range() + " " + ch.Lastmod.String()
}

func (b *Balancer) markJumbo(ns string, ch routing.Chunk) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mu.jumbo == nil || len(b.mu.jumbo) >= maxJumbo {
		b.mu.jumbo = map[string]bool{}
	}
	b.mu.jumbo[jumboKey(ns, ch)] = true
}

// jumboRanges is the Collection.Jumbo of cm's chunks.
func (b *Balancer) jumboRanges(cm *routing.ChunkManager) map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]bool{}
	for _, ch := range cm.Chunks() {
		if b.mu.jumbo[jumboKey(cm.Collection().NS, ch)] {
			out[ch.Range()] = true
		}
	}
	return out
}

// Status is the balancer's state as balancerStatus and `relaydb cluster
// status` show it. TODO(#14): MongoDB also writes each round to
// config.actionlog (capped) and each migration to config.changelog,
// which sh.status() summarizes; relaydb keeps the last round here only.
type Status struct {
	Mode         string // of the last round ("full" before any)
	InRound      bool
	Rounds       int64 // rounds run (a round skipped by mode or window counts, as MongoDB's numBalancerRounds)
	LastError    string
	LastMoves    []string // the migrations of the last round that moved something
	LastRoundEnd time.Time
}

// New returns a Balancer; call Run to start it.
func New(opts Options) *Balancer {
	if opts.Interval == nil {
		opts.Interval = RoundInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.IsPrimary == nil {
		opts.IsPrimary = func() bool { return true }
	}
	b := &Balancer{opts: opts}
	b.mu.status.Mode = "full"
	return b
}

// Status returns a copy of the balancer's state.
func (b *Balancer) Status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.mu.status
	s.LastMoves = append([]string(nil), s.LastMoves...)
	return s
}

// shortRoundInterval is the pause after a round that moved something
// (MongoDB's kShortBalanceRoundInterval): a cluster far from balance
// converges at a move per shard pair per second, not per interval.
const shortRoundInterval = time.Second

// Run runs a round every interval (every shortRoundInterval after a
// round that moved a range, when shorter) while this member is primary,
// until ctx ends. The interval is read again every second, so a shorter
// one set meanwhile applies at once. A step-down is seen before the next
// round and during one (watchPrimary cancels it).
func (b *Balancer) Run(ctx context.Context) {
	last, moved := time.Now(), false
	for {
		interval := b.opts.Interval()
		if moved {
			interval = min(interval, shortRoundInterval)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(max(min(time.Until(last.Add(interval)), time.Second), 0)):
		}
		if time.Since(last) < interval {
			continue
		}
		moved = false
		if b.opts.IsPrimary() {
			moved = b.RunRound(ctx).movedAny()
		}
		last = time.Now()
	}
}

// RunRound runs one round now and records its outcome in Status.
func (b *Balancer) RunRound(ctx context.Context) RoundResult {
	ctx, cancel := context.WithTimeout(ctx, roundTimeout)
	defer cancel()
	stop := b.watchPrimary(ctx, cancel)
	defer stop()
	b.setInRound(true)
	r := b.round(ctx)
	b.finish(r)
	if b.opts.OnRound != nil {
		b.opts.OnRound(r)
	}
	return r
}

// watchPrimary cancels the round when this member stops being primary.
func (b *Balancer) watchPrimary(ctx context.Context, cancel context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if !b.opts.IsPrimary() {
					cancel()
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

func (b *Balancer) setInRound(in bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mu.status.InRound = in
}

func (b *Balancer) finish(r RoundResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &b.mu.status
	s.InRound = false
	s.Rounds++
	s.LastRoundEnd = b.opts.Now()
	if r.Mode != "" {
		s.Mode = r.Mode
	}
	last := s.LastError
	s.LastError = ""
	if r.Err != nil {
		s.LastError = r.Err.Error()
	}
	if s.LastError != "" && s.LastError != last { // once per distinct error, not every round
		b.opts.Logger.Warn("balancer round failed", "err", s.LastError, "round", s.Rounds)
	}
	s.LastMoves = s.LastMoves[:0]
	for _, m := range r.Moves {
		if m.Err == nil && !m.Jumbo {
			s.LastMoves = append(s.LastMoves, m.String())
		}
	}
}
