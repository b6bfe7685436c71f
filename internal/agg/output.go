package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $out and $merge write a pipeline's results to a collection. agg only
// parses them (SplitOutput) and decides, per document, what a $merge does
// (MergeSpec.Apply); the engine performs the writes.

// OutSpec is a parsed final $out stage: replace DB.Coll with the results.
type OutSpec struct {
	DB, Coll string // DB is the aggregate's database unless given
}

// SplitOutput separates a pipeline's final $out or $merge stage from the
// stages that produce the documents. At most one of out and merge is set.
// db is the aggregate's database, used when the spec names none; vars are
// the command's let variables (expr.EvalLet; may be nil).
// A $out or $merge anywhere but last fails with 40601, as in MongoDB.
func SplitOutput(pipeline bson.A, db string, vars *expr.Vars) (stages bson.A, out *OutSpec, merge *MergeSpec, err error) {
	for i, raw := range pipeline {
		name, spec, err := splitStage(raw)
		if err != nil || name != "$out" && name != "$merge" {
			continue
		}
		if i != len(pipeline)-1 {
			return nil, nil, nil, mongoerr.New(mongoerr.StageMustBeLast, "%s can only be the final stage in the pipeline", name)
		}
		stages = pipeline[:i]
		if name == "$out" {
			out, err = ParseOut(spec, db)
		} else {
			merge, err = ParseMerge(spec, db, vars)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		return stages, out, merge, nil
	}
	return pipeline, nil, nil, nil
}

// ParseOut parses the argument of $out: "coll" or {db, coll}.
func ParseOut(spec any, db string) (*OutSpec, error) {
	switch t := spec.(type) {
	case string:
		return &OutSpec{DB: db, Coll: t}, checkTarget("$out", db, t)
	case bson.D:
		o := &OutSpec{DB: db}
		for _, e := range t {
			s, ok := e.Value.(string)
			switch {
			case e.Key == "timeseries":
				// TODO(#2): $out to a time-series collection.
				return nil, mongoerr.New(mongoerr.NotImplemented, "$out to a time-series collection is not supported")
			case e.Key != "db" && e.Key != "coll":
				return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$out.%s' is an unknown field.", e.Key)
			case !ok:
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$out.%s' is the wrong type '%s', expected type 'string'", e.Key, typeOf(e.Value))
			case e.Key == "db":
				o.DB = s
			default:
				o.Coll = s
			}
		}
		if o.Coll == "" && !hasKey(t, "coll") {
			return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$out.coll' is missing but a required field")
		}
		if o.DB == "" && !hasKey(t, "db") {
			return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$out.db' is missing but a required field")
		}
		return o, checkTarget("$out", o.DB, o.Coll)
	}
	return nil, mongoerr.New(mongoerr.OutSpecBadType, "$out only supports a string or object argument, not %s", typeOf(spec))
}

func hasKey(d bson.D, k string) bool {
	for _, e := range d {
		if e.Key == k {
			return true
		}
	}
	return false
}

// checkTarget validates the target namespace of $out/$merge.
func checkTarget(stage, db, coll string) error {
	if db == "" || coll == "" || containsAny(db, "/\\. \"$\x00") || coll[0] == '.' ||
		containsAny(coll, "$\x00") || coll[len(coll)-1] == '.' {
		return mongoerr.New(mongoerr.InvalidNamespace, "Invalid %s target namespace, '%s.%s'", stage, db, coll)
	}
	return nil
}

func containsAny(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}

// checkOutputStage rejects $out and $merge, which the engine runs after
// SplitOutput removed them: one that is not last is misplaced (40601).
func checkOutputStage(name string, last bool) error {
	if name != "$out" && name != "$merge" {
		return nil
	}
	if !last {
		return mongoerr.New(mongoerr.StageMustBeLast, "%s can only be the final stage in the pipeline", name)
	}
	return mongoerr.New(mongoerr.NotImplemented, "%s must be split off with agg.SplitOutput and run by the engine", name)
}
