package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $fill desugars as MongoDB's does: output fields with a method ("locf",
// "linear") become a $setWindowFields with $locf / $linearFill over the
// field (sorted and partitioned like the stage), those with a value an
// $addFields of {$ifNull: [field, value]}.

func compileFill(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$fill specification must be an object, found %s", typeOf(spec))
	}
	window := bson.D{}
	var output bson.D
	for _, e := range d {
		switch e.Key {
		case "partitionBy", "sortBy":
			window = append(window, e)
		case "partitionByFields":
			p, err := partitionByFields(e.Value)
			if err != nil {
				return nil, err
			}
			window = append(window, bson.E{Key: "partitionBy", Value: p})
		case "output":
			o, ok := e.Value.(bson.D)
			if !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.output' is the wrong type '%s', expected type 'object'", typeOf(e.Value))
			}
			output = o
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$fill.%s' is an unknown field.", e.Key)
		}
	}
	if output == nil {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$fill.output' is missing but a required field")
	}
	if countKey(window, "partitionBy") > 1 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Only one of 'partitionBy' and 'partitionByFields' can be specified in $fill")
	}
	return fillStages(window, output, cc)
}

func countKey(d bson.D, k string) int {
	n := 0
	for _, e := range d {
		if e.Key == k {
			n++
		}
	}
	return n
}

// partitionByFields turns [f1, f2] into {f1: "$f1", f2: "$f2"}.
func partitionByFields(v any) (bson.D, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.partitionByFields' is the wrong type '%s', expected type 'array'", typeOf(v))
	}
	out := bson.D{}
	for _, f := range arr {
		s, ok := f.(string)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "partitionByFields must be an array of strings")
		}
		if _, err := splitDotted(s); err != nil {
			return nil, err
		}
		out = append(out, bson.E{Key: s, Value: "$" + s})
	}
	return out, nil
}

func fillStages(window, output bson.D, cc *compileCtx) ([]stage, error) {
	methods, values := bson.D{}, bson.D{}
	for _, e := range output {
		o, ok := e.Value.(bson.D)
		if !ok || len(o) != 1 || (o[0].Key != "value" && o[0].Key != "method") {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Each fill output specification must be an object with exactly one of 'method' or 'value': %s", e.Key)
		}
		if o[0].Key == "value" {
			values = append(values, bson.E{Key: e.Key, Value: bson.D{{Key: "$ifNull", Value: bson.A{"$" + e.Key, o[0].Value}}}})
			continue
		}
		var op string
		switch o[0].Value {
		case "locf":
			op = "$locf"
		case "linear":
			op = "$linearFill"
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "Method must be either locf or linear, found %s", show(o[0].Value))
		}
		methods = append(methods, bson.E{Key: e.Key, Value: bson.D{{Key: op, Value: "$" + e.Key}}})
	}
	var pipeline bson.A
	if len(methods) > 0 {
		pipeline = append(pipeline, bson.D{{Key: "$setWindowFields", Value: append(window, bson.E{Key: "output", Value: methods})}})
	}
	if len(values) > 0 {
		pipeline = append(pipeline, bson.D{{Key: "$addFields", Value: values}})
	}
	return compileSub(pipeline, cc)
}
