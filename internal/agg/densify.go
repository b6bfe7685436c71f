package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// $densify sorts the documents by (partition, field) (the sorter's
// memory limit and spilling apply) and, walking each partition, emits a
// document {partition fields, field: v} for every v = lo + k*step in the
// range that no document has. bounds: [lo, hi) explicit, "full" (the
// whole input's min..max, inclusive) or "partition" (each partition's).
// Documents whose field is null or missing pass through unchanged.
// Generated documents are bounded by maxDensifyDocs (5897900).

const (
	densifyPart  = "__relaydb_densify_partition"
	densifyValue = "__relaydb_densify_value"
	// maxDensifyDocs is MongoDB's internalQueryMaxDensifyDocs default.
	maxDensifyDocs = 500000
)

type densifyStage struct {
	field     []string
	fieldName string
	parts     [][]string // partitionByFields
	step      any        // a positive number
	unit      string     // dates: the step's unit
	bounds    string     // "full", "partition" or "" (explicit lo, hi)
	lo, hi    any
	sort      *query.Sort
}

func compileDensify(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$densify specification must be an object, found %s", typeOf(spec))
	}
	s := &densifyStage{}
	var rng bson.D
	for _, e := range d {
		var err error
		switch e.Key {
		case "field":
			f, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$densify.field' is the wrong type '%s', expected type 'string'", typeOf(e.Value))
			}
			s.fieldName = f
			s.field, err = splitDotted(f)
		case "partitionByFields":
			err = s.setParts(e.Value)
		case "range":
			if rng, ok = e.Value.(bson.D); !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$densify.range' is the wrong type '%s', expected type 'object'", typeOf(e.Value))
			}
		default:
			err = mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$densify.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.field == nil || rng == nil {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$densify.%s' is missing but a required field", map[bool]string{true: "field", false: "range"}[s.field == nil])
	}
	if err := s.setRange(rng); err != nil {
		return nil, err
	}
	s.sort, _ = query.CompileSort(bson.D{{Key: densifyPart, Value: int32(1)}, {Key: densifyValue, Value: int32(1)}})
	return []stage{s}, nil
}

func (s *densifyStage) setParts(v any) error {
	arr, ok := v.(bson.A)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$densify.partitionByFields' is the wrong type '%s', expected type 'array'", typeOf(v))
	}
	for _, f := range arr {
		str, ok := f.(string)
		if !ok {
			return mongoerr.New(mongoerr.TypeMismatch, "partitionByFields must be an array of strings")
		}
		p, err := splitDotted(str)
		if err != nil {
			return err
		}
		s.parts = append(s.parts, p)
	}
	return nil
}

func (s *densifyStage) setRange(rng bson.D) error {
	var bounds any
	for _, e := range rng {
		switch e.Key {
		case "step":
			f, ok := numberAsFloat(e.Value)
			if !ok || !(f > 0) {
				return mongoerr.New(mongoerr.BadValue, "the step parameter in a range statement must be a strictly positive numeric value")
			}
			s.step = e.Value
		case "unit":
			u, ok := e.Value.(string)
			if !ok || !validUnit(u) {
				return mongoerr.New(mongoerr.BadValue, "unknown time unit value: %s", show(e.Value))
			}
			s.unit = u
		case "bounds":
			bounds = e.Value
		default:
			return mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$densify.range.%s' is an unknown field.", e.Key)
		}
	}
	if s.step == nil || bounds == nil {
		return mongoerr.New(mongoerr.IDLMissingField, "BSON field '$densify.range.step' and 'bounds' are required")
	}
	if _, isInt := bsonx.AsInt64(s.step); s.unit != "" && !isInt {
		return mongoerr.New(mongoerr.BadValue, "The step parameter in a range statement must be a whole number when densifying a date range")
	}
	return s.setBounds(bounds)
}

func (s *densifyStage) setBounds(v any) error {
	if str, ok := v.(string); ok && (str == "full" || str == "partition") {
		s.bounds = str
		return nil
	}
	arr, ok := v.(bson.A)
	if !ok || len(arr) != 2 {
		return mongoerr.New(mongoerr.BadValue, "Bounds must be 'full', 'partition', or an array of two values")
	}
	s.lo, s.hi = arr[0], arr[1]
	_, loDate := s.lo.(bson.DateTime)
	_, hiDate := s.hi.(bson.DateTime)
	_, loNum := numberAsFloat(s.lo)
	_, hiNum := numberAsFloat(s.hi)
	switch {
	case loDate && hiDate && s.unit == "", loNum && hiNum && s.unit != "":
		return mongoerr.New(mongoerr.BadValue, "A unit must be specified with date bounds, and only with them")
	case !(loDate && hiDate) && !(loNum && hiNum):
		return mongoerr.New(mongoerr.BadValue, "Explicit bounds must be two numbers or two dates of the same type")
	case expr.Compare(s.lo, s.hi) > 0:
		return mongoerr.New(mongoerr.BadValue, "Lower bound must be less than or equal to upper bound")
	}
	return nil
}
