package agg

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CollStatsInfo is what a server tells $collStats about the aggregated
// collection (Env.CollStats).
type CollStatsInfo struct {
	NS, Host string
	// Storage is storageStats: the collStats command's fields without ns
	// (size, count, avgObjSize, storageSize, nindexes, totalIndexSize,
	// indexSizes, scaleFactor), sizes already divided by the scale.
	Storage bson.D
	Count   int64
}

// collStatsStage is $collStats: it ignores its input and yields one
// document {ns, host, localTime[, latencyStats][, storageStats][, count]
// [, queryExecStats]}, as a mongod does (a router adds shard and fans
// out). relaydb keeps no latency or query counters: latencyStats and
// queryExecStats report zeros. Valid only first in a collection's pipeline.
// TODO(#14): MongoDB refuses $collStats inside $lookup and $unionWith
// sub-pipelines; here it would describe the outer collection.
type collStatsStage struct {
	latency, histograms, storage, count, queryExec bool
	scale                                          int64
}

func init() { firstOnly["$collStats"] = true }

func compileCollStats(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$collStats must take a nested object but found: %s", typeOf(spec))
	}
	s := collStatsStage{scale: 1}
	for _, e := range d {
		sub, isDoc := e.Value.(bson.D)
		if !isDoc {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$collStats.%s' is the wrong type '%s', expected type 'object'", e.Key, typeOf(e.Value))
		}
		var err error
		switch e.Key {
		case "latencyStats":
			s.latency = true
			s.histograms, err = collStatsHistograms(sub)
		case "storageStats":
			s.storage = true
			s.scale, err = collStatsScale(sub)
		case "count":
			s.count = true
		case "queryExecStats":
			s.queryExec = true
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$collStats.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	return []stage{s}, nil
}

func collStatsHistograms(d bson.D) (bool, error) {
	v, ok := bsonx.Get(d, "histograms")
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'latencyStats.histograms' is the wrong type '%s', expected type 'bool'", typeOf(v))
	}
	return b, nil
}

// collStatsScale reads storageStats.scale: a positive number, its integer
// part used (MongoDB's rule); absent is 1.
func collStatsScale(d bson.D) (int64, error) {
	v, ok := bsonx.Get(d, "scale")
	if !ok {
		return 1, nil
	}
	f, isNum := bsonx.AsFloat64(v)
	if !isNum {
		return 0, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'scale' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeOf(v))
	}
	if f < 1 {
		return 0, mongoerr.New(mongoerr.BadValue, "BSON field 'scale' value must be >= 1, actual value '%v'", v)
	}
	return int64(f), nil
}

func (s collStatsStage) run(in Iterator, rc *runCtx) Iterator {
	done := false
	return iterx.Func(func() (bson.D, bool, error) {
		if done {
			return nil, false, nil
		}
		done = true
		if rc.env.CollStats == nil {
			return nil, false, mongoerr.New(mongoerr.InvalidNamespace, "{aggregate: 1} is not valid for '$collStats'; a collection is required.")
		}
		doc, err := s.document(rc.env.CollStats)
		return doc, err == nil, err
	}, in.Close)
}

// document builds the stage's one output document from the server's info.
func (s collStatsStage) document(get func(scale int64) (CollStatsInfo, error)) (bson.D, error) {
	info, err := get(s.scale)
	if err != nil && (s.storage || s.count) {
		what := "storageStats"
		if !s.storage {
			what = "count"
		}
		me := mongoerr.From(err)
		return nil, mongoerr.New(me.Code, "Unable to retrieve %s in $collStats stage :: caused by :: %s", what, me.Msg)
	}
	out := bson.D{
		{Key: "ns", Value: info.NS},
		{Key: "host", Value: info.Host},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
	}
	if s.latency {
		out = append(out, bson.E{Key: "latencyStats", Value: zeroLatencyStats(s.histograms)})
	}
	if s.storage {
		out = append(out, bson.E{Key: "storageStats", Value: info.Storage})
	}
	if s.count {
		out = append(out, bson.E{Key: "count", Value: info.Count})
	}
	if s.queryExec {
		out = append(out, bson.E{Key: "queryExecStats", Value: bson.D{{Key: "collectionScans", Value: bson.D{
			{Key: "total", Value: int64(0)}, {Key: "nonTailable", Value: int64(0)},
		}}}})
	}
	return out, nil
}

// zeroLatencyStats is latencyStats with no operation counted.
// TODO(#14): count per-collection latencies on the data node.
func zeroLatencyStats(histograms bool) bson.D {
	one := func() bson.D {
		d := bson.D{{Key: "latency", Value: int64(0)}, {Key: "ops", Value: int64(0)}}
		if histograms {
			d = append(d, bson.E{Key: "histogram", Value: bson.A{}})
		}
		return d
	}
	return bson.D{
		{Key: "reads", Value: one()}, {Key: "writes", Value: one()},
		{Key: "commands", Value: one()}, {Key: "transactions", Value: one()},
	}
}
