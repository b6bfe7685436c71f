package failover

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// opTimeout bounds one client operation (the driver retries inside it).
const opTimeout = 30 * time.Second

// Database and collection the failover load writes to.
const (
	loadDB   = "bench_failover"
	loadColl = "w"
)

// opLog records when operations of one kind were acknowledged, failed or
// stalled. Times are appended under mu with time.Now taken under mu, so
// each slice is in increasing order.
type opLog struct {
	mu     sync.Mutex
	acks   []time.Time // REQUIRES: mu
	fails  []time.Time // REQUIRES: mu
	stalls []time.Time // REQUIRES: mu; start + stallAfter of each slow op
	errs   []string    // REQUIRES: mu; the first few errors
}

func (l *opLog) record(start time.Time, stallAfter time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(start) > stallAfter {
		l.stalls = append(l.stalls, start.Add(stallAfter))
	}
	if err == nil {
		l.acks = append(l.acks, now)
		return
	}
	l.fails = append(l.fails, now)
	if len(l.errs) < 5 {
		l.errs = append(l.errs, err.Error())
	}
}

// snapshot copies the log's times.
func (l *opLog) snapshot() (acks, fails, stalls []time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.acks...), append([]time.Time(nil), l.fails...),
		append([]time.Time(nil), l.stalls...)
}

// ackedSince reports whether an operation was acknowledged after t.
func (l *opLog) ackedSince(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks) > 0 && l.acks[len(l.acks)-1].After(t)
}

// load is the continuous writers and the reader of a failover run.
type load struct {
	writes, reads opLog
	stallAfter    time.Duration
	coll          *mongo.Collection

	mu     sync.Mutex
	lastID bson.ObjectID // REQUIRES: mu; the last acknowledged insert

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startLoad connects to uri and starts writers goroutines and one reader.
func startLoad(uri string, writers int, stallAfter time.Duration) (*load, *mongo.Client, error) {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetRetryWrites(true).SetRetryReads(true))
	if err != nil {
		return nil, nil, fmt.Errorf("failover: connect %s: %w", uri, err)
	}
	coll := cl.Database(loadDB).Collection(loadColl, options.Collection().
		SetWriteConcern(writeconcern.Majority()).SetReadPreference(readpref.Primary()))
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{coll: coll, stallAfter: stallAfter, cancel: cancel}
	for i := 0; i < writers; i++ {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); l.writeLoop(ctx) }()
	}
	l.wg.Add(1)
	go func() { defer l.wg.Done(); l.readLoop(ctx) }()
	return l, cl, nil
}

func (l *load) stop() {
	l.cancel()
	l.wg.Wait()
}

func (l *load) writeLoop(ctx context.Context) {
	for ctx.Err() == nil {
		id := bson.NewObjectID()
		start := time.Now()
		octx, cancel := context.WithTimeout(ctx, opTimeout)
		_, err := l.coll.InsertOne(octx, bson.D{{Key: "_id", Value: id}, {Key: "at", Value: bson.NewDateTimeFromTime(start)}})
		cancel()
		if ctx.Err() != nil {
			return // stopped mid-operation: not a failure of the set
		}
		l.writes.record(start, l.stallAfter, err)
		if err == nil {
			l.mu.Lock()
			l.lastID = id
			l.mu.Unlock()
		}
	}
}

// readLoop reads the last acknowledged insert back from the primary.
func (l *load) readLoop(ctx context.Context) {
	for ctx.Err() == nil {
		l.mu.Lock()
		id := l.lastID
		l.mu.Unlock()
		start := time.Now()
		octx, cancel := context.WithTimeout(ctx, opTimeout)
		err := l.coll.FindOne(octx, bson.D{{Key: "_id", Value: id}}).Err()
		cancel()
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, mongo.ErrNoDocuments) {
			if id.IsZero() {
				err = nil // before the first insert; the read itself succeeded
			} else {
				err = fmt.Errorf("acknowledged w:majority insert %s not found on the primary", id.Hex())
			}
		}
		l.reads.record(start, l.stallAfter, err)
		time.Sleep(5 * time.Millisecond)
	}
}
