package command

import (
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/shard/balancer"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
	"github.com/relaydb/relaydb/internal/txn"
)

// parameters are the server parameters getParameter reports.
func parameters(c *Ctx) bson.D {
	return append(bson.D{
		{Key: "ttlMonitorSleepSecs", Value: int32(c.D.eng.Catalog().TTLInterval() / time.Second)},
		{Key: "featureCompatibilityVersion", Value: bson.D{{Key: "version", Value: "7.0"}}},
		{Key: "maxBSONDepth", Value: int32(100)},

		{Key: "transactionLifetimeLimitSeconds", Value: int32(txn.LifetimeSeconds())},
		{Key: "authenticationMechanisms", Value: c.D.mechs.BSON()},
		{Key: "requireApiVersion", Value: false},
		{Key: "replWriterThreadCount", Value: int32(applier.DefaultWriters())},
		// Test commands (configureFailPoint) are always on: report them as
		// mongod started with --setParameter enableTestCommands=1 does.
		{Key: "enableTestCommands", Value: true},
	}, slices.Concat(agg.Parameters(), shardsvr.RangeDeleterParameters(), balancer.Parameters())...)
}

func getParameter(c *Ctx, p *request.GetParameter) (bson.D, error) {
	all := parameters(c)
	sel := p.Value
	if s, ok := sel.(string); ok && s == "*" {
		return all, nil
	}
	if d, ok := sel.(bson.D); ok {
		for _, e := range d {
			if e.Key == "allParameters" {
				return all, nil
			}
		}
	}
	out := bson.D{}
	for _, e := range p.Names {
		for _, param := range all {
			if param.Key == e.Key {
				out = append(out, param)
			}
		}
	}
	if len(out) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no option found to get")
	}
	return out, nil
}

// setParameterCmd applies the parameters relaydb supports at runtime and
// refuses the rest, as mongod refuses unknown parameters.
func setParameter(c *Ctx, p *request.SetParameter) (bson.D, error) {
	was := bson.D{}
	for _, e := range p.Values {
		switch e.Key {
		case "transactionLifetimeLimitSeconds":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || n < 1 {
				return nil, mongoerr.New(mongoerr.BadValue, "transactionLifetimeLimitSeconds must be greater than or equal to 1s")
			}
			was = append(was, bson.E{Key: e.Key, Value: int32(txn.SetLifetimeSeconds(n))})
		case "replWriterThreadCount": // startup-only, as in mongod
			return nil, mongoerr.New(mongoerr.IllegalOperation, "not allowed to change [%s] at runtime", e.Key)
		case "ttlMonitorSleepSecs":
			n, ok := bsonx.AsInt64(e.Value)
			if !ok || n <= 0 {
				return nil, mongoerr.New(mongoerr.BadValue, "ttlMonitorSleepSecs must be a positive integer")
			}
			cat := c.D.eng.Catalog()
			was = append(was, bson.E{Key: e.Key, Value: int32(cat.TTLInterval() / time.Second)})
			cat.SetTTLInterval(time.Duration(n) * time.Second)
		default:
			old, found, err := shardsvr.SetRangeDeleterParameter(e.Key, e.Value)
			if !found {
				old, found, err = balancer.SetParameter(e.Key, e.Value)
			}
			if !found {
				old, err = SetAggParameter(e.Key, e.Value)
			}
			if err != nil {
				return nil, err
			}
			was = append(was, bson.E{Key: e.Key, Value: old})
		}
	}
	return SetParameterReply(was)
}

// SetAggParameter sets one of agg's runtime parameters (its memory
// limits), returning the old value; any other name is refused as mongod
// refuses an unrecognized parameter. A router takes these too.
func SetAggParameter(name string, v any) (old any, err error) {
	old, found, err := agg.SetParameter(name, v)
	if !found {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options", name)
	}
	return old, err
}

// SetParameterReply is setParameter's reply {was: {...}}; setting nothing
// is refused.
func SetParameterReply(was bson.D) (bson.D, error) {
	if len(was) == 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "no option found to set, use help:true to see options")
	}
	return bson.D{{Key: "was", Value: was}}, nil
}
