package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/bench/generator"
)

// YCSB-like records: db.table, _id "w<worker>-<n>", a version and
// fieldCount fields of fieldLen bytes, YCSB's default record shape.
const (
	ycsbDB, ycsbTable = "soak", "usertable"
	fieldCount        = 10
	fieldLen          = 100
	opTimeout         = 30 * time.Second
)

// keyState is what is known of one record: the highest version
// acknowledged (0: the insert not acknowledged) and the highest sent.
type keyState struct{ acked, sent int64 }

// ycsb runs workers that each own their keys, so every key's ops are
// sequential and its acknowledged version is exact.
type ycsb struct {
	coll    *mongo.Collection
	g       *gate
	maxKeys int // per worker

	inserts, updates, reads atomic.Int64 // acknowledged
	inflight, errsUp        atomic.Int64 // failed during a kill / while up
	staleReads, phantom     atomic.Int64 // reads below the acked version / above the sent one
	lost                    atomic.Int64 // records below their acked version after a restart
	lostExamples            []string     // REQUIRES: single checker
	errMu                   sync.Mutex
	errSamples              []string // REQUIRES: errMu; the first errors while up

	workers []*worker
}

type worker struct {
	id   int
	r    *rand.Rand
	zipf *generator.Zipfian
	next int      // name of the next key
	keys []string // keys that may exist
	st   map[string]*keyState
	mu   sync.Mutex // held by the worker's op and by check
}

func newYCSB(cl *mongo.Client, wc *mongo.Collection, g *gate, threads, records int, seed uint64) *ycsb {
	y := &ycsb{coll: wc, g: g, maxKeys: max(1, records/threads)}
	for i := range threads {
		y.workers = append(y.workers, &worker{id: i, r: rand.New(rand.NewPCG(seed, uint64(i))),
			zipf: generator.NewZipfian(0, int64(y.maxKeys)-1, 0.99), st: map[string]*keyState{}})
	}
	return y
}

func (y *ycsb) run(ctx context.Context, w *worker) {
	for y.g.enter(ctx) {
		octx, cancel := context.WithTimeout(ctx, opTimeout)
		w.mu.Lock()
		y.step(octx, w)
		w.mu.Unlock()
		cancel()
		y.g.exit()
	}
}

// step runs one op: 20% insert (while under maxKeys), 40% read, 40% update.
func (y *ycsb) step(ctx context.Context, w *worker) {
	p := w.r.IntN(10)
	switch {
	case len(w.keys) == 0 || p < 2 && len(w.keys) < y.maxKeys:
		y.insert(ctx, w)
	case p < 6:
		y.read(ctx, w)
	default:
		y.update(ctx, w)
	}
}

// fail counts a failed op: in flight if a kill is in progress or the run
// is ending, else an error while up (its outcome is adopted at the next
// check either way).
func (y *ycsb) fail(ctx context.Context, err error) {
	if y.g.killed() || ctx.Err() != nil {
		y.inflight.Add(1)
		return
	}
	if y.errsUp.Add(1) <= 5 {
		y.errMu.Lock()
		y.errSamples = append(y.errSamples, err.Error())
		y.errMu.Unlock()
	}
}

func (y *ycsb) insert(ctx context.Context, w *worker) {
	key := fmt.Sprintf("w%d-%07d", w.id, w.next)
	w.next++
	w.keys = append(w.keys, key)
	st := &keyState{sent: 1}
	w.st[key] = st
	doc := append(bson.D{{Key: "_id", Value: key}, {Key: "ver", Value: int64(1)}}, fields(w.r, -1)...)
	if _, err := y.coll.InsertOne(ctx, doc); err != nil {
		y.fail(ctx, err)
		return
	}
	st.acked = 1
	y.inserts.Add(1)
}

func (y *ycsb) pick(w *worker) (string, *keyState) {
	n := int64(len(w.keys))
	k := w.keys[min(w.zipf.NextN(w.r, n), n-1)] // NextN can overshoot once keys were dropped
	return k, w.st[k]
}

func (y *ycsb) update(ctx context.Context, w *worker) {
	key, st := y.pick(w)
	st.sent++
	set := append(bson.D{{Key: "ver", Value: st.sent}}, fields(w.r, w.r.IntN(fieldCount))...)
	res, err := y.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: set}})
	switch {
	case err != nil:
		y.fail(ctx, err)
	case res.MatchedCount == 1:
		st.acked = st.sent
		y.updates.Add(1)
	case st.acked > 0:
		y.staleReads.Add(1) // an acknowledged record not found while up
	}
}

func (y *ycsb) read(ctx context.Context, w *worker) {
	key, st := y.pick(w)
	var got struct {
		Ver int64 `bson:"ver"`
	}
	err := y.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&got)
	switch {
	case err == mongo.ErrNoDocuments:
		if st.acked > 0 {
			y.staleReads.Add(1)
		}
	case err != nil:
		y.fail(ctx, err)
	case got.Ver < st.acked:
		y.staleReads.Add(1)
	case got.Ver > st.sent:
		y.phantom.Add(1)
	default:
		y.reads.Add(1)
	}
}

// fields returns fieldCount random fields, or only field i when i >= 0.
func fields(r *rand.Rand, i int) bson.D {
	var out bson.D
	for f := range fieldCount {
		if i >= 0 && f != i {
			continue
		}
		b := make([]byte, fieldLen)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out = append(out, bson.E{Key: fmt.Sprintf("field%d", f), Value: string(b)})
	}
	return out
}

// check compares every record with its acknowledged version (the server
// restarted, no op running) and adopts what the server has for the
// records whose last op was not acknowledged.
func (y *ycsb) check(ctx context.Context) (checked int, err error) {
	cur, err := y.coll.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "ver", Value: 1}}))
	if err != nil {
		return 0, err
	}
	var docs []struct {
		ID  string `bson:"_id"`
		Ver int64  `bson:"ver"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return 0, err
	}
	have := make(map[string]int64, len(docs))
	for _, d := range docs {
		have[d.ID] = d.Ver
	}
	for _, w := range y.workers {
		w.mu.Lock()
		checked += y.checkWorker(w, have)
		w.mu.Unlock()
	}
	return checked, nil
}

// REQUIRES: w.mu
func (y *ycsb) checkWorker(w *worker, have map[string]int64) (checked int) {
	keys := w.keys[:0]
	for _, k := range w.keys {
		st := w.st[k]
		v, ok := have[k]
		if st.acked > 0 {
			checked++
		}
		switch {
		case st.acked > 0 && (!ok || v < st.acked):
			y.lost.Add(1)
			if len(y.lostExamples) < 10 {
				y.lostExamples = append(y.lostExamples, fmt.Sprintf("%s: acked version %d, found %d (present %v)", k, st.acked, v, ok))
			}
		case ok && v > st.sent:
			y.phantom.Add(1)
		}
		if !ok && st.acked == 0 {
			delete(w.st, k) // never inserted
			continue
		}
		if ok {
			st.acked, st.sent = v, max(v, st.acked)
		}
		keys = append(keys, k)
	}
	w.keys = keys
	return checked
}
