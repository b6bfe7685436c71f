package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Capped collections: create's capped/size/max, collMod's cappedSize and
// cappedMax, and tailable finds (exec.FindCappedTail). Eviction is in
// exec (capped.go).
// convertToCapped and cloneCollectionAsCapped are in capped_convert.go.
// TODO(#14): tailable cursors in aggregate. (The router refuses to shard a
// capped collection, as MongoDB.)

// maxCappedSize is MongoDB's limit on a capped collection's size (1 PB).
const maxCappedSize = int64(1) << 50

// cappedOptions normalises create's capped options as MongoDB stores
// them: size required and rounded up to a multiple of 256, max kept when
// positive; without capped: true, size and max are dropped.
func cappedOptions(opts bson.D) (bson.D, error) {
	capped, _ := lookupOpt(opts, "capped").(bool)
	out := bson.D{}
	for _, o := range opts {
		if o.Key != "capped" && o.Key != "size" && o.Key != "max" {
			out = append(out, o)
		}
	}
	if !capped {
		return out, nil
	}
	sizeV := lookupOpt(opts, "size")
	if sizeV == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	size, err := cappedSize("size", sizeV)
	if err != nil {
		return nil, err
	}
	out = append(bson.D{{Key: "capped", Value: true}, {Key: "size", Value: size}}, out...)
	if v := lookupOpt(opts, "max"); v != nil {
		max, ok := bsonx.AsInt64(v)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "'max' must be a number")
		}
		if max > 0 {
			out = append(out[:2:2], append(bson.D{{Key: "max", Value: max}}, out[2:]...)...)
		}
	}
	return out, nil
}

func cappedSize(field string, v any) (int64, error) {
	size, ok := bsonx.AsInt64(v)
	if !ok || !bsonx.IsNumber(v) {
		return 0, mongoerr.New(mongoerr.TypeMismatch, "'%s' must be a number", field)
	}
	if size <= 0 || size > maxCappedSize {
		return 0, mongoerr.New(mongoerr.BadValue, "%s must be greater than 0 and less than or equal to 1 PB", field)
	}
	return (size + 255) / 256 * 256, nil
}

// cappedCollMod turns collMod's cappedSize/cappedMax into the stored
// size/max of a capped collection.
func cappedCollMod(col *catalog.Collection, e bson.E) (bson.E, error) {
	if _, _, capped := exec.CappedLimits(col.Options); !capped {
		return e, mongoerr.New(mongoerr.InvalidOptions, "%s can only be set on a capped collection", e.Key)
	}
	if e.Key == "cappedSize" {
		size, err := cappedSize(e.Key, e.Value)
		return bson.E{Key: "size", Value: size}, err
	}
	max, ok := bsonx.AsInt64(e.Value)
	if !ok || !bsonx.IsNumber(e.Value) {
		return e, mongoerr.New(mongoerr.TypeMismatch, "'cappedMax' must be a number")
	}
	if max < 0 || max >= 1<<31 {
		max = 0 // MongoDB: no limit
	}
	return bson.E{Key: "max", Value: max}, nil
}

// findCappedTail answers a tailable find on a capped collection.
func findCappedTail(c *Ctx, f *request.Find, coll string, p exec.FindParams, n int, await bool) (bson.D, error) {
	it, err := c.D.eng.FindCappedTail(c.DB, coll, p)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.ns(coll), it)
	cur.Limit = p.Limit
	cur.Tailable, cur.AwaitData = true, await
	reply, err := c.firstBatch(cur, n, f.SingleBatch)
	if err != nil {
		return nil, err
	}
	cur.Wait = c.D.eng.CappedWaiter(it)
	return reply, nil
}

// cappedStats are collStats' capped fields for col.
func cappedStats(col *catalog.Collection) bson.D {
	size, max, capped := exec.CappedLimits(col.Options)
	if !capped {
		return bson.D{{Key: "capped", Value: false}}
	}
	return bson.D{{Key: "capped", Value: true}, {Key: "max", Value: max}, {Key: "maxSize", Value: size}}
}
