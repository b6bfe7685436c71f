package bench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// DefaultURI is YCSB's mongodb.url default.
const DefaultURI = "mongodb://localhost:27017/ycsb?w=1"

// Mongo is the connection pool all workers share, configured as YCSB's
// MongoDB binding configures it: the database comes from the URI's path
// ("ycsb" when absent or admin) and write concern, journal and read
// preference from its options, which the driver applies to every call.
type Mongo struct {
	Client    *mongo.Client
	DB        *mongo.Database
	batchSize int
	upsert    bool
	errLog    io.Writer
}

// ConnectMongo opens the pool for uri with the binding's properties
// (batchsize, mongodb.upsert); errors of single operations go to errLog.
func ConnectMongo(ctx context.Context, uri string, p Properties, errLog io.Writer) (*Mongo, error) {
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, fmt.Errorf("mongodb.url %q: %w", uri, err)
	}
	dbName := cs.Database
	if dbName == "" || dbName == "admin" {
		dbName = "ycsb"
	}
	batch, err := p.Int64("batchsize", 1)
	if err != nil {
		return nil, err
	}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", uri, err)
	}
	if err := cl.Ping(ctx, nil); err != nil {
		_ = cl.Disconnect(context.Background())
		return nil, fmt.Errorf("ping %s: %w", uri, err)
	}
	return &Mongo{Client: cl, DB: cl.Database(dbName), batchSize: int(max(batch, 1)),
		upsert: p.Bool("mongodb.upsert", false), errLog: errLog}, nil
}

// Close disconnects the pool.
func (m *Mongo) Close() error { return m.Client.Disconnect(context.Background()) }

// Drop drops the benchmark table, so a load starts from nothing.
func (m *Mongo) Drop(ctx context.Context, table string) error {
	if err := m.DB.Collection(table).Drop(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", table, err)
	}
	return nil
}

// ServerCPUMicros returns the server process's user+system CPU time from
// serverStatus.extra_info (user_time_us, system_time_us); ok is false when
// the server does not report them.
func (m *Mongo) ServerCPUMicros(ctx context.Context) (us int64, ok bool, err error) {
	var st struct {
		ExtraInfo struct {
			User   *int64 `bson:"user_time_us"`
			System *int64 `bson:"system_time_us"`
		} `bson:"extra_info"`
	}
	cmd := bson.D{{Key: "serverStatus", Value: 1}}
	if err := m.Client.Database("admin").RunCommand(ctx, cmd).Decode(&st); err != nil {
		return 0, false, fmt.Errorf("serverStatus: %w", err)
	}
	if st.ExtraInfo.User == nil || st.ExtraInfo.System == nil {
		return 0, false, nil
	}
	return *st.ExtraInfo.User + *st.ExtraInfo.System, true, nil
}

// NewWorker returns one worker's DB (it holds that worker's insert batch).
func (m *Mongo) NewWorker() DB { return &mongoWorker{m: m} }

type mongoWorker struct {
	m       *Mongo
	pending []any  // inserts held until batchSize
	table   string // the table of the held inserts
	coll    *mongo.Collection
}

// collection returns table's handle, made once per worker rather than per
// operation (a workload uses one table).
func (w *mongoWorker) collection(table string) *mongo.Collection {
	if w.coll == nil || w.coll.Name() != table {
		w.coll = w.m.DB.Collection(table)
	}
	return w.coll
}

func (w *mongoWorker) fail(op string, err error) Status {
	fmt.Fprintf(w.m.errLog, "%s: %v\n", op, err)
	return StatusError
}

func projection(fields []string) bson.D {
	if fields == nil {
		return nil
	}
	p := make(bson.D, len(fields))
	for i, f := range fields {
		p[i] = bson.E{Key: f, Value: 1}
	}
	return p
}

func (w *mongoWorker) Read(ctx context.Context, table, key string, fields []string) Status {
	opts := options.FindOne()
	if p := projection(fields); p != nil {
		opts.SetProjection(p)
	}
	_, err := w.collection(table).FindOne(ctx, bson.D{{Key: "_id", Value: key}}, opts).Raw()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return StatusNotFound
	case err != nil:
		return w.fail("read "+key, err)
	}
	return StatusOK
}

func (w *mongoWorker) Scan(ctx context.Context, table, startKey string, count int, fields []string) Status {
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(count))
	if p := projection(fields); p != nil {
		opts.SetProjection(p)
	}
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: startKey}}}}
	cur, err := w.collection(table).Find(ctx, filter, opts)
	if err != nil {
		return w.fail("scan "+startKey, err)
	}
	defer cur.Close(ctx)
	n := 0
	for cur.Next(ctx) {
		n++
	}
	if err := cur.Err(); err != nil {
		return w.fail("scan "+startKey, err)
	}
	if n == 0 {
		return w.fail("scan", fmt.Errorf("nothing found in scan for key %s", startKey))
	}
	return StatusOK
}

func (w *mongoWorker) Update(ctx context.Context, table, key string, values bson.D) Status {
	res, err := w.collection(table).UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$set", Value: values}})
	if err != nil {
		return w.fail("update "+key, err)
	}
	if res.Acknowledged && res.MatchedCount == 0 {
		return StatusNotFound
	}
	return StatusOK
}

func (w *mongoWorker) Insert(ctx context.Context, table, key string, values bson.D) Status {
	doc := make(bson.D, 0, len(values)+1)
	doc = append(append(doc, bson.E{Key: "_id", Value: key}), values...)
	coll := w.collection(table)
	if w.m.batchSize == 1 {
		var err error
		if w.m.upsert {
			_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: key}}, doc, options.Replace().SetUpsert(true))
		} else {
			_, err = coll.InsertOne(ctx, doc)
		}
		if err != nil {
			return w.fail("insert "+key, err)
		}
		return StatusOK
	}
	w.table = table
	w.pending = append(w.pending, doc)
	if len(w.pending) < w.m.batchSize {
		return StatusBatchedOK
	}
	return w.Flush(ctx)
}

// Flush sends the held inserts as one unordered insertMany (or, with
// mongodb.upsert, one unordered bulk of upserting replacements).
func (w *mongoWorker) Flush(ctx context.Context) Status {
	if len(w.pending) == 0 {
		return StatusOK
	}
	coll := w.collection(w.table)
	var err error
	if w.m.upsert {
		models := make([]mongo.WriteModel, len(w.pending))
		for i, d := range w.pending {
			id := d.(bson.D)[0]
			models[i] = mongo.NewReplaceOneModel().SetFilter(bson.D{id}).SetReplacement(d).SetUpsert(true)
		}
		_, err = coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	} else {
		_, err = coll.InsertMany(ctx, w.pending, options.InsertMany().SetOrdered(false))
	}
	n := len(w.pending)
	w.pending = w.pending[:0]
	if err != nil {
		return w.fail(fmt.Sprintf("insert batch of %d", n), err)
	}
	return StatusOK
}
