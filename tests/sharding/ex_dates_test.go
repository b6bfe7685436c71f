package sharding

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// datePipeline uses the #14 date operators ($dateAdd, $dateSubtract,
// $dateDiff, $dateTrunc, $dateFromParts, $dateToParts).
const datePipeline = `[{"$project": {
	"add": {"$dateAdd": {"startDate": "$d", "unit": "month", "amount": "$n", "timezone": "America/New_York"}},
	"sub": {"$dateSubtract": {"startDate": "$d", "unit": "hour", "amount": 5}},
	"diff": {"$dateDiff": {"startDate": {"$date": "2020-01-01T00:00:00Z"}, "endDate": "$d", "unit": "week", "startOfWeek": "mon"}},
	"trunc": {"$dateTrunc": {"date": "$d", "unit": "day", "binSize": 3}},
	"parts": {"$dateToParts": {"date": "$d", "iso8601": true}},
	"from": {"$dateFromParts": {"year": {"$year": "$d"}, "month": {"$add": [{"$month": "$d"}, "$n"]}, "day": 31}}}},
	{"$sort": {"_id": 1}}]`

// TestShardedDateOperators: the date operators give the same results on a
// sharded collection as on an unsharded copy through the router, and a
// documented result (Jan 31 + 1 month = Feb 29 in a leap year) comes back
// through the router.
func TestShardedDateOperators(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "dt.s"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shard dt.s")
	db := cl.Database("dt")
	s, u := db.Collection("s"), db.Collection("u")
	base := time.Date(2020, 1, 31, 10, 30, 0, 0, time.UTC)
	docs := make([]any, 60)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "d", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * 97 * time.Hour))}, {Key: "n", Value: i % 14}}
	}
	for _, c := range []*mongo.Collection{s, u} {
		_, err := c.InsertMany(ctxT(t), docs)
		must(t, err, "insert into %s", c.Name())
	}
	comparePipeline(t, s, u, mustPipe(t, datePipeline), true, nil)
	out, err := aggregateAll(t, u, mustPipe(t, `[{"$match": {"_id": 0}}, {"$project": {"_id": 0,
		"a": {"$dateAdd": {"startDate": "$d", "unit": "month", "amount": 1}},
		"s": {"$dateSubtract": {"startDate": "$d", "unit": "day", "amount": 31}}}}]`), nil)
	must(t, err, "dates through the router")
	want := bson.D{{Key: "a", Value: bson.NewDateTimeFromTime(time.Date(2020, 2, 29, 10, 30, 0, 0, time.UTC))},
		{Key: "s", Value: bson.NewDateTimeFromTime(time.Date(2019, 12, 31, 10, 30, 0, 0, time.UTC))}}
	if len(out) != 1 || !exSameDoc(out[0], want) {
		t.Fatalf("through the router: got %v, want [%v]", out, want)
	}
	// A bad unit fails with MongoDB's code on both.
	for _, c := range []*mongo.Collection{s, u} {
		_, err := aggregateAll(t, c, mustPipe(t, `[{"$project": {"x": {"$dateAdd": {"startDate": "$d", "unit": "days", "amount": 1}}}}]`), nil)
		if errCode(err) != 5439014 {
			t.Fatalf("%s: bad unit: got %v, want code 5439014", c.Name(), err)
		}
	}
}

func exSameDoc(a, b bson.D) bool {
	x, err1 := bson.Marshal(a)
	y, err2 := bson.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
