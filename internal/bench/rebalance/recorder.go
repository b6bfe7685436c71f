package rebalance

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bench"
)

// maxOpsPerWorker bounds one worker's recorded operations (24 bytes
// each); operations beyond it are counted in recorder.dropped.
const maxOpsPerWorker = 1 << 20

// recorder makes the recording DBs of one run: worker i uses the pool of
// router i mod len(pools); every operation's start (since t0), latency,
// kind and outcome are kept in that worker's log.
type recorder struct {
	t0    time.Time
	pools []*bench.Mongo
	mu    sync.Mutex
	dbs   []*recDB
}

func (r *recorder) newDB() bench.DB {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &recDB{r: r, inner: r.pools[len(r.dbs)%len(r.pools)].NewWorker()}
	r.dbs = append(r.dbs, d)
	return d
}

// ops returns every worker's operations and how many were dropped; call
// after bench.Run returned.
func (r *recorder) ops() (out []Op, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.dbs {
		out = append(out, d.log...)
		dropped += d.dropped
	}
	return out, dropped
}

// recDB is one worker's DB; used by one goroutine only.
type recDB struct {
	r       *recorder
	inner   bench.DB
	log     []Op
	dropped int64
}

func (d *recDB) do(ctx context.Context, kind uint8, f func() bench.Status) bench.Status {
	start := time.Now()
	st := f()
	if ctx.Err() != nil {
		return st // the run was stopped: not an outcome of the cluster
	}
	if len(d.log) >= maxOpsPerWorker {
		d.dropped++
		return st
	}
	d.log = append(d.log, Op{At: start.Sub(d.r.t0), Latency: time.Since(start), Kind: kind, OK: st.OK()})
	return st
}

func (d *recDB) Read(ctx context.Context, table, key string, fields []string) bench.Status {
	return d.do(ctx, KindRead, func() bench.Status { return d.inner.Read(ctx, table, key, fields) })
}

func (d *recDB) Scan(ctx context.Context, table, startKey string, count int, fields []string) bench.Status {
	return d.do(ctx, KindOther, func() bench.Status { return d.inner.Scan(ctx, table, startKey, count, fields) })
}

func (d *recDB) Update(ctx context.Context, table, key string, values bson.D) bench.Status {
	return d.do(ctx, KindUpdate, func() bench.Status { return d.inner.Update(ctx, table, key, values) })
}

func (d *recDB) Insert(ctx context.Context, table, key string, values bson.D) bench.Status {
	return d.do(ctx, KindOther, func() bench.Status { return d.inner.Insert(ctx, table, key, values) })
}

func (d *recDB) Flush(ctx context.Context) bench.Status { return d.inner.Flush(ctx) }
