package bench

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Status is the outcome of one operation, named as YCSB's Status.
type Status string

// The statuses YCSB's MongoDB client returns.
const (
	StatusOK        Status = "OK"
	StatusBatchedOK Status = "BATCHED_OK"
	StatusNotFound  Status = "NOT_FOUND"
	StatusError     Status = "ERROR"
)

// OK reports whether the operation succeeded (YCSB's Status.isOk).
func (s Status) OK() bool { return s == StatusOK || s == StatusBatchedOK }

// DB is one worker's connection to the database under test, shaped as
// YCSB's DB interface. A DB is used by one goroutine only.
type DB interface {
	Read(ctx context.Context, table, key string, fields []string) Status
	Scan(ctx context.Context, table, startKey string, count int, fields []string) Status
	Update(ctx context.Context, table, key string, values bson.D) Status
	Insert(ctx context.Context, table, key string, values bson.D) Status
	// Flush writes inserts still held for a batch; called once at the end.
	Flush(ctx context.Context) Status
}
