package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// $setWindowFields compiles into a $sort on (partition, sortBy) followed
// by a windowStage that reads one partition at a time (consecutive
// documents with the same partition value), computes every output field
// for each of its documents, and emits them in order.
//
// Invariants:
//   - A partition is held in memory up to
//     internalDocumentSourceSetWindowFieldsMaxMemoryBytes; past it the
//     stage fails with 292 (without allowDiskUse) or 5414201 (with it:
//     TODO(#14) spill partitions as MongoDB does).
//   - The partition value travels in a temporary first field
//     (partField) between the $sort and the windowStage, which removes it.
//   - Window functions read the partition, never change it; each output
//     is computed from the input documents, not from earlier outputs.

const partField = "__relaydb_swf_partition"

type windowStage struct {
	partitioned bool
	sortBy      bson.D
	sort        *query.Sort // nil without sortBy
	outs        []*windowOut
}

// windowOut is one output field.
type windowOut struct {
	path []string
	op   string
	win  window
	fn   windowFn
}

// windowFn computes the output of every document of a partition.
type windowFn func(p *partition, o *windowOut, rc *runCtx) ([]any, error)

func compileSetWindowFields(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "the $setWindowFields stage specification must be an object, found %s", typeOf(spec))
	}
	w := &windowStage{}
	var partBy any
	var output bson.D
	hasOutput := false
	for _, e := range d {
		switch e.Key {
		case "partitionBy":
			partBy, w.partitioned = e.Value, true
		case "sortBy":
			sb, ok := e.Value.(bson.D)
			if !ok || len(sb) == 0 {
				return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields 'sortBy' must be a non-empty object")
			}
			s, err := query.CompileSort(sb)
			if err != nil {
				return nil, err
			}
			w.sortBy, w.sort = sb, s
		case "output":
			o, ok := e.Value.(bson.D)
			if !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$setWindowFields.output' is the wrong type '%s', expected type 'object'", typeOf(e.Value))
			}
			output, hasOutput = o, true
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$setWindowFields.%s' is an unknown field.", e.Key)
		}
	}
	if !hasOutput {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$setWindowFields.output' is missing but a required field")
	}
	for _, e := range output {
		o, err := compileWindowOut(e.Key, e.Value, w, cc)
		if err != nil {
			return nil, err
		}
		w.outs = append(w.outs, o)
	}
	return w.stages(partBy, cc)
}

// stages returns the $addFields/$sort that order the input by partition
// and sortBy, then w.
func (w *windowStage) stages(partBy any, cc *compileCtx) ([]stage, error) {
	var out []stage
	sortSpec := bson.D{}
	if w.partitioned {
		pe, err := cc.compileExpr(partBy)
		if err != nil {
			return nil, err
		}
		out = append(out, &partitionKeyStage{e: pe})
		sortSpec = append(sortSpec, bson.E{Key: partField, Value: int32(1)})
	}
	sortSpec = append(sortSpec, w.sortBy...)
	if len(sortSpec) > 0 {
		s, err := query.CompileSort(sortSpec)
		if err != nil {
			return nil, err
		}
		out = append(out, &sortStage{spec: sortSpec, s: s})
	}
	return append(out, w), nil
}

// partitionKeyStage prepends partField, the document's partition value.
type partitionKeyStage struct{ e expr.Expr }

func (s *partitionKeyStage) run(in Iterator, rc *runCtx) Iterator {
	return mapIter(in, func(d bson.D) (bson.D, error) {
		v, err := s.e.Eval(d, rc.varsFor(d))
		if err != nil {
			return nil, err
		}
		if _, isArr := v.(bson.A); isArr {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "An expression used to partition cannot evaluate to value of type array")
		}
		if expr.IsMissing(v) {
			v = nil
		}
		out := make(bson.D, 0, len(d)+1)
		return append(append(out, bson.E{Key: partField, Value: v}), d...), nil
	})
}
