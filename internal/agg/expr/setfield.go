package expr

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $setField and $unsetField add, replace or remove one field of a document
// by its literal name, which may contain '.' or start with '$' (the only
// way to build such fields in a pipeline).
//
//	{$setField:   {field: <const string>, input: <object expr>, value: <expr>}}
//	{$unsetField: {field: <const string>, input: <object expr>}}
//
// A value of $$REMOVE (Missing) removes the field; a nullish input yields
// null; any other non-object input fails with 4161105.

func registerSetField() {
	operators["$setField"] = func(name string, raw any, sc *scope) (Expr, error) {
		return compileSetField(name, raw, sc, true)
	}
	operators["$unsetField"] = func(name string, raw any, sc *scope) (Expr, error) {
		return compileSetField(name, raw, sc, false)
	}
	if operators["$const"] == nil {
		operators["$const"] = operators["$literal"]
	}
}

type setFieldExpr struct {
	name  string
	field string
	input Expr
	value Expr // nil for $unsetField
}

func compileSetField(name string, raw any, sc *scope, set bool) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.SetFieldSpecNotObject, "%s only supports an object as its argument", name)
	}
	var fieldRaw, inputRaw, valueRaw any
	var haveField, haveInput, haveValue bool
	for _, el := range d {
		switch {
		case el.Key == "field":
			fieldRaw, haveField = el.Value, true
		case el.Key == "input":
			inputRaw, haveInput = el.Value, true
		case el.Key == "value" && set:
			valueRaw, haveValue = el.Value, true
		default:
			return nil, errf(mongoerr.SetFieldUnknownArgument, "%s found an unknown argument: %s", name, el.Key)
		}
	}
	switch {
	case !haveField:
		return nil, errf(mongoerr.SetFieldMissingField, "%s requires 'field' to be specified", name)
	case set && !haveValue:
		return nil, errf(mongoerr.SetFieldMissingValue, "%s requires 'value' to be specified", name)
	case !haveInput:
		return nil, errf(mongoerr.SetFieldMissingInput, "%s requires 'input' to be specified", name)
	}
	field, err := constFieldName(name, fieldRaw, sc)
	if err != nil {
		return nil, err
	}
	e := &setFieldExpr{name: name, field: field}
	if e.input, err = compile(inputRaw, sc); err != nil {
		return nil, err
	}
	if set {
		if e.value, err = compile(valueRaw, sc); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// constFieldName checks the 'field' argument: a string constant, possibly
// wrapped in $const/$literal (needed for names starting with '$').
func constFieldName(name string, raw any, sc *scope) (string, error) {
	if s, ok := raw.(string); ok && strings.HasPrefix(s, "$") {
		return "", errf(mongoerr.SetFieldFieldIsPath, "A field path reference which is not allowed in this context. Did you mean {$literal: '%s'}?", s)
	}
	if isDocOrArray(raw) && !isLiteralOp(raw) {
		return "", errf(mongoerr.SetFieldFieldNotConstant, "%s requires 'field' to evaluate to a constant, but got a non-constant argument", name)
	}
	e, err := compile(raw, sc)
	if err != nil {
		return "", err
	}
	v, _ := IsConst(e)
	s, ok := v.(string)
	if !ok {
		return "", errf(mongoerr.SetFieldFieldNotString, "%s requires 'field' to evaluate to type String, but got %s", name, typeName(v))
	}
	return s, nil
}

func isLiteralOp(raw any) bool {
	d, _ := raw.(bson.D)
	return len(d) == 1 && (d[0].Key == "$literal" || d[0].Key == "$const")
}

func isDocOrArray(v any) bool {
	switch v.(type) {
	case bson.D, bson.A:
		return true
	}
	return false
}

func (e *setFieldExpr) Eval(doc bson.D, vars *Vars) (any, error) {
	in, err := e.input.Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	if IsNullish(in) {
		return nil, nil
	}
	d, ok := in.(bson.D)
	if !ok {
		return nil, errf(mongoerr.SetFieldInputNotObject, "%s requires 'input' to evaluate to type Object", e.name)
	}
	var val any = Missing
	if e.value != nil {
		if val, err = e.value.Eval(doc, vars); err != nil {
			return nil, err
		}
	}
	return withField(d, e.field, val), nil
}

// withField returns a copy of d with key set to v (in place if present,
// else appended), or removed when v is Missing.
func withField(d bson.D, key string, v any) bson.D {
	out := make(bson.D, 0, len(d)+1)
	found := false
	for _, el := range d {
		if el.Key != key {
			out = append(out, el)
			continue
		}
		found = true
		if !IsMissing(v) {
			out = append(out, bson.E{Key: key, Value: v})
		}
	}
	if !found && !IsMissing(v) {
		out = append(out, bson.E{Key: key, Value: v})
	}
	return out
}
