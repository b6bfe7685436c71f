package shardsvr

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Range deletion tasks (MongoDB's RangeDeletionTask) live in
// config.rangeDeletions on the shard, one document per range:
//
//	{_id: UUID, nss, collectionUuid, range: {min, max}, whenToClean:
//	 "now"|"delayed", processing, numOrphanDocs, timestamp: Date}
//
// timestamp is when the task was scheduled (MongoDB keeps a logical
// timestamp there; relaydb's is the wall clock, which orphanCleanupDelaySecs
// is counted from).

// RangeTasksDB and RangeTasksColl name the task collection.
const (
	RangeTasksDB   = "config"
	RangeTasksColl = "rangeDeletions"
)

// RangeTask is one scheduled deletion of [Min, Max) of NS.
type RangeTask struct {
	ID             bson.Binary // UUID, subtype 4
	NS             string
	CollectionUUID bson.Binary
	Min, Max       bson.D
	WhenToClean    string // "now" or "delayed"
	Processing     bool
	NumOrphanDocs  int64
	Scheduled      time.Time
}

// Doc renders t as its config.rangeDeletions document.
func (t RangeTask) Doc() bson.D {
	return bson.D{
		{Key: "_id", Value: t.ID},
		{Key: "nss", Value: t.NS},
		{Key: "collectionUuid", Value: t.CollectionUUID},
		{Key: "range", Value: bson.D{{Key: "min", Value: t.Min}, {Key: "max", Value: t.Max}}},
		{Key: "whenToClean", Value: t.WhenToClean},
		{Key: "processing", Value: t.Processing},
		{Key: "numOrphanDocs", Value: t.NumOrphanDocs},
		{Key: "timestamp", Value: bson.NewDateTimeFromTime(t.Scheduled)},
	}
}

// ParseRangeTask reads a config.rangeDeletions document.
func ParseRangeTask(d bson.D) (RangeTask, error) {
	var t RangeTask
	var ok bool
	if t.ID, ok = getBinary(d, "_id"); !ok {
		return t, badTask("_id must be a UUID")
	}
	if t.NS, ok = getString(d, "nss"); !ok {
		return t, badTask("nss must be a string")
	}
	t.CollectionUUID, _ = getBinary(d, "collectionUuid")
	r, _ := bsonx.Get(d, "range")
	rd, _ := r.(bson.D)
	if t.Min, t.Max, ok = parseRange(rd); !ok {
		return t, badTask("range must be {min: <key>, max: <key>}")
	}
	t.WhenToClean, _ = getString(d, "whenToClean")
	if err := checkWhen(t.WhenToClean); err != nil {
		return t, err
	}
	p, _ := bsonx.Get(d, "processing")
	t.Processing, _ = p.(bool)
	n, _ := bsonx.Get(d, "numOrphanDocs")
	t.NumOrphanDocs, _ = bsonx.AsInt64(n)
	if ts, found := bsonx.Get(d, "timestamp"); found {
		if dt, isDate := ts.(bson.DateTime); isDate {
			t.Scheduled = dt.Time()
		}
	}
	return t, nil
}

// parseRange reads {min, max}: two non-empty documents with the same
// fields, min below max is checked by the caller with the key pattern.
func parseRange(d bson.D) (lo, hi bson.D, ok bool) {
	minV, _ := bsonx.Get(d, "min")
	maxV, _ := bsonx.Get(d, "max")
	lo, okLo := minV.(bson.D)
	hi, okHi := maxV.(bson.D)
	if !okLo || !okHi || len(lo) == 0 || len(lo) != len(hi) {
		return nil, nil, false
	}
	for i := range lo {
		if lo[i].Key != hi[i].Key {
			return nil, nil, false
		}
	}
	return lo, hi, true
}

func checkWhen(w string) error {
	if w != "now" && w != "delayed" {
		return mongoerr.New(mongoerr.BadValue, "whenToClean must be \"now\" or \"delayed\", not %q", w)
	}
	return nil
}

func badTask(msg string) error {
	return mongoerr.New(mongoerr.FailedToParse, "range deletion task: %s", msg)
}

func getBinary(d bson.D, k string) (bson.Binary, bool) {
	v, _ := bsonx.Get(d, k)
	b, ok := v.(bson.Binary)
	return b, ok && b.Subtype == 4 && len(b.Data) == 16
}

func getString(d bson.D, k string) (string, bool) {
	v, _ := bsonx.Get(d, k)
	s, ok := v.(string)
	return s, ok
}

// String names the task in logs.
func (t RangeTask) String() string {
	return fmt.Sprintf("%s [%v, %v)", t.NS, t.Min, t.Max)
}
