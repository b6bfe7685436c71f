package command

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// insertTimeseries stores each measurement as {_id, data: measurement} in
// the buckets collection; a measurement needs its timeField as a date.
func insertTimeseries(c *Ctx, coll string, ts bson.D, docs []bson.D, ordered bool, wc writeConcern) bson.D {
	tf, _ := lookupOpt(ts, "timeField").(string)
	res := &exec.WriteResult{}
	for i, d := range docs {
		if _, ok := lookupOpt(d, tf).(bson.DateTime); !ok {
			err := mongoerr.New(mongoerr.BadValue, "'%s' must be present and contain a valid BSON UTC datetime value", tf)
			res.Errors = append(res.Errors, exec.WriteError{Index: i, Err: mongoerr.From(err)})
			if ordered {
				break
			}
			continue
		}
		if _, has := bsonx.Get(d, "_id"); !has {
			d = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, d...)
		}
		bucket := bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(time.Now())}, {Key: "data", Value: d}}
		r := c.D.eng.Insert(c.DB, bucketsPrefix+coll, []bson.D{bucket}, true, nil)
		if r.Last.Seq > res.Last.Seq {
			res.Last = r.Last
		}
		res.N += r.N
		for _, we := range r.Errors {
			we.Index = i
			res.Errors = append(res.Errors, we)
		}
		if len(r.Errors) > 0 && ordered {
			break
		}
	}
	return c.writeReply(wc, res, false)
}
