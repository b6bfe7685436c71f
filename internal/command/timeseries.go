package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Time-series collections, stored as MongoDB lays them out: the
// measurements live in system.buckets.<name>, and <name> is a view over
// it. relaydb's "bucket" holds one measurement ({_id, data: measurement}),
// so measurements may share an _id, as in MongoDB; there is no bucketing
// compression. expireAfterSeconds is a TTL index on data.<timeField>.
// Deletes and updates: timeseries_modify.go. TODO(#14): buckets of many
// measurements, secondary indexes, findAndModify, retryable inserts, the
// timeseries collMod options.

// bucketsPrefix names a time-series collection's buckets.
const bucketsPrefix = "system.buckets."

// unwrapMeasurement is the view pipeline of a time-series collection.
var unwrapMeasurement = bson.A{bson.D{{Key: "$replaceWith", Value: "$data"}}}

// bucketSpans are MongoDB's bucketMaxSpanSeconds per granularity.
var bucketSpans = map[string]int32{"seconds": 3600, "minutes": 86400, "hours": 2592000}

// timeseriesOf returns the timeseries options of the view c.DB.coll, or
// nil when it is not a time-series collection.
func (c *Ctx) timeseriesOf(coll string) bson.D {
	col := c.D.eng.Catalog().Collection(c.DB, coll)
	if !isView(col) {
		return nil
	}
	ts, _ := lookupOpt(col.Options, "timeseries").(bson.D)
	return ts
}

// createTimeseries creates the buckets collection and the view.
func createTimeseries(c *Ctx, name string) (bson.D, error) {
	var ts bson.D
	var expire any
	for _, e := range c.Cmd[1:] {
		switch {
		case cmdspec.IsGeneric(e.Key), e.Key == "storageEngine", e.Key == "indexOptionDefaults":
		case e.Key == "timeseries":
			var err error
			if ts, err = timeseriesSpec(e.Value); err != nil {
				return nil, err
			}
		case e.Key == "expireAfterSeconds":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || n < 0 {
				return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' must be a non-negative number")
			}
			expire = n
		default:
			return nil, mongoerr.New(mongoerr.InvalidOptions, "option '%s' is not supported on a time-series collection", e.Key)
		}
	}
	cat := c.D.eng.Catalog()
	if cat.Collection(c.DB, name) != nil {
		return nil, mongoerr.New(mongoerr.NamespaceExists, "Collection %s already exists.", c.ns(name))
	}
	buckets := bucketsPrefix + name
	bopts := bson.D{{Key: "timeseries", Value: ts}}
	vopts := bson.D{{Key: "viewOn", Value: buckets}, {Key: "pipeline", Value: unwrapMeasurement}, {Key: "timeseries", Value: ts}}
	if expire != nil {
		bopts = append(bopts, bson.E{Key: "expireAfterSeconds", Value: expire})
		vopts = append(vopts, bson.E{Key: "expireAfterSeconds", Value: expire})
	}
	bcol, err := cat.CreateCollection(c.DB, buckets, bopts)
	if err != nil {
		return nil, err
	}
	if expire != nil {
		field := "data." + lookupOpt(ts, "timeField").(string)
		spec := bson.D{{Key: "key", Value: bson.D{{Key: field, Value: int32(1)}}}, {Key: "name", Value: field + "_1"}, {Key: "expireAfterSeconds", Value: expire}}
		if _, _, err := cat.CreateIndexes(bcol, []bson.D{spec}); err != nil {
			_ = cat.DropCollection(c.DB, buckets)
			return nil, err
		}
	}
	if _, err := cat.CreateCollection(c.DB, name, vopts); err != nil {
		_ = cat.DropCollection(c.DB, buckets)
		return nil, err
	}
	return bson.D{}, nil
}

// timeseriesSpec checks and normalises the timeseries option as MongoDB
// shows it: timeField, metaField, then granularity and bucketMaxSpanSeconds
// or the two bucket* options.
func timeseriesSpec(v any) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'create.timeseries' is the wrong type '%s', expected type 'object'", bsonx.TypeAlias(v))
	}
	for _, e := range d {
		switch e.Key {
		case "timeField", "metaField", "granularity", "bucketMaxSpanSeconds", "bucketRoundingSeconds":
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field 'timeseries.%s' is an unknown field.", e.Key)
		}
	}
	tf, ok := lookupOpt(d, "timeField").(string)
	if !ok || tf == "" {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field 'timeseries.timeField' is missing but a required field")
	}
	out := bson.D{{Key: "timeField", Value: tf}}
	if mv := lookupOpt(d, "metaField"); mv != nil {
		mf, ok := mv.(string)
		if !ok || mf == "" || mf == "_id" || mf == tf {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "timeseries 'metaField' must be a field name other than '_id' and the timeField")
		}
		out = append(out, bson.E{Key: "metaField", Value: mf})
	}
	return appendBucketing(out, d)
}

func appendBucketing(out, d bson.D) (bson.D, error) {
	span, round := lookupOpt(d, "bucketMaxSpanSeconds"), lookupOpt(d, "bucketRoundingSeconds")
	g, hasG := lookupOpt(d, "granularity").(string)
	if span != nil || round != nil {
		s, ok1 := bsonx.AsInt64(span)
		r, ok2 := bsonx.AsInt64(round)
		if !ok1 || !ok2 || s != r || s < 1 || s > 31536000 || hasG {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be given together, equal, within [1, 31536000] and without granularity")
		}
		return append(out, bson.E{Key: "bucketRoundingSeconds", Value: int32(r)}, bson.E{Key: "bucketMaxSpanSeconds", Value: int32(s)}), nil
	}
	if !hasG {
		if lookupOpt(d, "granularity") != nil {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "timeseries 'granularity' must be a string")
		}
		g = "seconds"
	}
	span32, ok := bucketSpans[g]
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field 'timeseries.granularity' is not a valid value.", g)
	}
	return append(out, bson.E{Key: "granularity", Value: g}, bson.E{Key: "bucketMaxSpanSeconds", Value: span32}), nil
}

// timeseriesInfo is the listCollections entry of a time-series collection.
func timeseriesInfo(name string, opts bson.D, uuid bson.Binary, nameOnly bool) bson.D {
	d := bson.D{{Key: "name", Value: name}, {Key: "type", Value: "timeseries"}}
	if nameOnly {
		return d
	}
	o := bson.D{{Key: "timeseries", Value: lookupOpt(opts, "timeseries")}}
	if exp := lookupOpt(opts, "expireAfterSeconds"); exp != nil {
		o = append(o, bson.E{Key: "expireAfterSeconds", Value: exp})
	}
	return append(d, bson.E{Key: "options", Value: o},
		bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}, {Key: "uuid", Value: uuid}}})
}
