package shardfailover

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/bench"
)

// errNotFound is a read or update that found no document: every key the
// workload asks for was loaded, so it counts as a failure.
var errNotFound = errors.New("not found")

// recorder makes the recording DBs of one mode's run: they share the
// collection, the operation log, the ledger and the owner map.
type recorder struct {
	coll      *mongo.Collection // w:"majority", primary reads
	log       *opLog
	ledger    *ledger
	owner     func(key string) int16 // nil until the routing table is known
	opTimeout time.Duration
	workers   atomic.Int64
}

// newDB is bench.Run's newDB: one recording DB per worker thread.
func (r *recorder) newDB() bench.DB {
	return &recDB{r: r, worker: int(r.workers.Add(1) - 1)}
}

// recDB is one worker's YCSB DB: it runs each operation through the
// routers and records it. Used by one goroutine only.
type recDB struct {
	r      *recorder
	worker int
	seq    int64 // this worker's last update number
}

func (d *recDB) shardOf(key string) int16 {
	if d.r.owner == nil {
		return -1
	}
	return d.r.owner(key)
}

// do runs f with the operation timeout and records it.
func (d *recDB) do(ctx context.Context, key string, kind uint8, f func(ctx context.Context) error) error {
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, d.r.opTimeout)
	err := f(octx)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err() // the run was stopped: not an outcome of the cluster
	}
	d.r.log.record(start, time.Now(), d.shardOf(key), kind, classify(err))
	return err
}

func status(err error) bench.Status {
	switch {
	case err == nil:
		return bench.StatusOK
	case errors.Is(err, errNotFound):
		return bench.StatusNotFound
	}
	return bench.StatusError
}

func (d *recDB) Read(ctx context.Context, table, key string, fields []string) bench.Status {
	return status(d.do(ctx, key, kindRead, func(ctx context.Context) error {
		err := d.r.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return errNotFound
		}
		return err
	}))
}

func (d *recDB) Update(ctx context.Context, table, key string, values bson.D) bench.Status {
	d.seq++
	seq := d.seq
	set := append(append(bson.D{}, values...), bson.E{Key: ackPrefix + strconv.Itoa(d.worker), Value: seq})
	err := d.do(ctx, key, kindUpdate, func(ctx context.Context) error {
		res, err := d.r.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: set}})
		if err == nil && res.MatchedCount == 0 {
			return errNotFound
		}
		return err
	})
	if err == nil {
		d.r.ledger.updateAcked(key, d.worker, seq)
	}
	return status(err)
}

func (d *recDB) Insert(ctx context.Context, table, key string, values bson.D) bench.Status {
	doc := append(bson.D{{Key: "_id", Value: key}}, values...)
	err := d.do(ctx, key, kindInsert, func(ctx context.Context) error {
		_, err := d.r.coll.InsertOne(ctx, doc)
		return err
	})
	if err == nil {
		d.r.ledger.insertAcked(key)
	}
	return status(err)
}

// Scan is not part of workload A.
func (d *recDB) Scan(ctx context.Context, table, startKey string, count int, fields []string) bench.Status {
	return bench.StatusError
}

func (d *recDB) Flush(ctx context.Context) bench.Status { return bench.StatusOK }
