package command

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/balancer"
)

// loadSamplers holds each shard dispatcher's LoadSampler (SetLoadSampler).
var loadSamplers sync.Map // *Dispatcher -> *LoadSampler

// SetLoadSampler attaches a shard's operation sampler (before serving);
// _shardsvrGetStatsForBalancing reports it.
func (d *Dispatcher) SetLoadSampler(l *LoadSampler) { loadSamplers.Store(d, l) }

func loadSamplerOf(d *Dispatcher) *LoadSampler {
	l, _ := loadSamplers.Load(d)
	ls, _ := l.(*LoadSampler)
	return ls
}

// LoadSampler counts a shard's operations per collection and samples
// their shard keys (balancer.LoadSplitter) over fixed windows; Report
// gives the last complete window's operations per second and split key.
// Memory: one splitter (a bounded reservoir) per collection seen.
type LoadSampler struct {
	window time.Duration
	now    func() time.Time
	mu     sync.Mutex
	colls  map[string]*collLoad // REQUIRES: mu
}

type collLoad struct {
	start    time.Time
	ops      int64
	split    *balancer.LoadSplitter
	lastOps  float64
	lastKey  bson.D
	lastEnds time.Time
}

// NewLoadSampler samples over windows of window (default 10 s).
func NewLoadSampler(window time.Duration) *LoadSampler {
	if window <= 0 {
		window = 10 * time.Second
	}
	return &LoadSampler{window: window, now: time.Now, colls: map[string]*collLoad{}}
}

// Record counts one operation on ns; k is its shard key (nil: unknown,
// counted but not sampled).
func (l *LoadSampler) Record(ns string, k bson.D) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.rotateLocked(ns)
	c.ops++
	if k != nil {
		c.split.Record(k)
	}
}

// Report is ns's load over the last complete window (0, nil when that
// window is older than two windows: the collection went quiet).
func (l *LoadSampler) Report(ns string) (float64, bson.D) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.colls[ns]
	if !ok {
		return 0, nil
	}
	l.rotateLocked(ns)
	if l.now().Sub(c.lastEnds) > 2*l.window {
		return 0, nil
	}
	return c.lastOps, c.lastKey
}

// rotateLocked ends ns's window when it is over. REQUIRES: l.mu.
func (l *LoadSampler) rotateLocked(ns string) *collLoad {
	now := l.now()
	c, ok := l.colls[ns]
	if !ok {
		c = &collLoad{start: now, split: balancer.NewLoadSplitter(balancer.LoadSplitConfig{}, uint64(now.UnixNano()))}
		l.colls[ns] = c
	}
	if d := now.Sub(c.start); d >= l.window {
		c.lastOps = float64(c.ops) / d.Seconds()
		c.lastKey, _ = c.split.SplitKey()
		c.lastEnds, c.start, c.ops = now, now, 0
		c.split.Reset()
	}
	return c
}
