package command

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/balancer"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
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
// Memory: one splitter (a bounded reservoir) per collection seen; each
// collection has its own lock, so operations on different collections do
// not contend.
type LoadSampler struct {
	window func() time.Duration
	now    func() time.Time
	colls  sync.Map // ns -> *collLoad
}

type collLoad struct {
	mu       sync.Mutex
	start    time.Time // REQUIRES: mu for all fields
	ops      int64
	split    *balancer.LoadSplitter
	lastOps  float64
	lastKey  bson.D
	lastEnds time.Time
}

// NewLoadSampler samples over windows of window() (default
// balancer.LoadWindow, the loadSampleWindowMS parameter).
func NewLoadSampler(window func() time.Duration) *LoadSampler {
	if window == nil {
		window = balancer.LoadWindow
	}
	return &LoadSampler{window: window, now: time.Now}
}

// Record counts n operations on ns and samples keys, the shard keys of
// some of them (an operation whose key is not known is counted only).
func (l *LoadSampler) Record(ns string, n int64, keys ...bson.D) {
	c := l.coll(ns)
	c.mu.Lock()
	defer c.mu.Unlock()
	l.rotateLocked(c)
	c.ops += n
	for _, k := range keys {
		c.split.Record(k)
	}
}

// Report is ns's load over the last complete window (0, nil when that
// window is older than two windows: the collection went quiet).
func (l *LoadSampler) Report(ns string) (float64, bson.D) {
	v, ok := l.colls.Load(ns)
	if !ok {
		return 0, nil
	}
	c := v.(*collLoad)
	c.mu.Lock()
	defer c.mu.Unlock()
	l.rotateLocked(c)
	if l.now().Sub(c.lastEnds) > 2*l.window() {
		return 0, nil
	}
	return c.lastOps, c.lastKey
}

func (l *LoadSampler) coll(ns string) *collLoad {
	if v, ok := l.colls.Load(ns); ok {
		return v.(*collLoad)
	}
	now := l.now()
	v, _ := l.colls.LoadOrStore(ns, &collLoad{start: now, split: balancer.NewLoadSplitter(balancer.LoadSplitConfig{}, uint64(now.UnixNano()))})
	return v.(*collLoad)
}

// rotateLocked ends c's window when it is over. REQUIRES: c.mu.
func (l *LoadSampler) rotateLocked(c *collLoad) {
	now := l.now()
	if d := now.Sub(c.start); d >= l.window() {
		c.lastOps = float64(c.ops) / d.Seconds()
		c.lastKey, _ = c.split.SplitKey()
		c.lastEnds, c.start, c.ops = now, now, 0
		c.split.Reset()
	}
}

// maxSampledStatements bounds the statements of one command whose shard
// keys are sampled (all are counted).
const maxSampledStatements = 4

// metadataSource is what a shard's ShardVersioner offers
// (shardsvr.State): a collection's cached filtering metadata.
type metadataSource interface {
	Metadata(ctx context.Context, ns string) (*shardsvr.CollectionMetadata, error)
}

// sampleLoad counts a versioned command whose shard version check passed
// in the shard's LoadSampler, with the shard keys of its first
// statements. Only commands a router versioned for a sharded collection
// count (the balancer's load is the clients' load).
func (d *Dispatcher) sampleLoad(ctx context.Context, name, db string, cmd bson.D) {
	l := loadSamplerOf(d)
	coll, isColl := cmd[0].Value.(string)
	src, ok := d.shardVersioner.(metadataSource)
	if l == nil || !isColl || !ok {
		return
	}
	if _, versioned := bsonx.Get(cmd, "shardVersion"); !versioned {
		return
	}
	ns := db + "." + coll
	meta, err := src.Metadata(ctx, ns)
	if err != nil || !meta.IsSharded() {
		return
	}
	n, keys := statementKeys(meta.Manager().Pattern(), name, cmd)
	l.Record(ns, n, keys...)
}

// statementFields name, per command, the field holding its statements
// and the filter within each ("": the statement is the inserted document
// or the filter itself). Others (aggregate) count as one statement of
// unknown key.
var statementFields = map[string]struct{ field, filter string }{
	"insert": {"documents", ""}, "update": {"updates", "q"}, "delete": {"deletes", "q"},
	"find": {"filter", ""}, "count": {"query", ""}, "distinct": {"query", ""}, "findAndModify": {"query", ""},
}

// statementKeys returns how many statements cmd has and the shard keys
// of the first maxSampledStatements of them that name one.
func statementKeys(p key.Pattern, name string, cmd bson.D) (int64, []bson.D) {
	f := statementFields[name]
	v, _ := bsonx.Get(cmd, f.field)
	arr, isArr := v.(bson.A)
	if !isArr {
		arr = bson.A{v}
	}
	var keys []bson.D
	for _, e := range arr[:min(len(arr), maxSampledStatements)] {
		d, _ := e.(bson.D)
		if f.filter != "" {
			q, _ := bsonx.Get(d, f.filter)
			d, _ = q.(bson.D)
		}
		if k, ok := statementKey(p, name, d); ok {
			keys = append(keys, k)
		}
	}
	return int64(max(len(arr), 1)), keys
}

// statementKey is an inserted document's shard key, or a filter's when
// it names exactly one.
func statementKey(p key.Pattern, name string, d bson.D) (bson.D, bool) {
	if d == nil {
		return nil, false
	}
	if name == "insert" {
		k, err := p.Extract(d)
		return k, err == nil
	}
	return routing.ShardKeyFromFilter(p, d)
}
