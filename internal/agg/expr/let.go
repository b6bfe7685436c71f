package expr

import (
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// ValidateVarName checks a user variable name as MongoDB does: it starts
// with a lowercase ASCII letter or a non-ASCII character and continues with
// letters, digits, '_' or non-ASCII characters.
func ValidateVarName(name string) error {
	if name == "" {
		return errf(mongoerr.VariableNameMissing, "empty variable names are not allowed")
	}
	r, _ := utf8.DecodeRuneInString(name)
	if !(r >= 'a' && r <= 'z') && r < utf8.RuneSelf {
		return errf(mongoerr.VariableNameBadFirstChar, "'%s' starts with an invalid character for a user variable name", name)
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= utf8.RuneSelf
		if !ok {
			return errf(mongoerr.VariableNameBadChar, "'%s' contains an invalid character for a variable name: '%c'", name, c)
		}
	}
	return nil
}

func compileLet(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.LetSpecNotObject, "$let only supports an object as its argument")
	}
	var varsD bson.D
	var inRaw any
	var haveVars, haveIn bool
	for _, el := range d {
		switch el.Key {
		case "vars":
			varsD, haveVars = el.Value.(bson.D)
			if !haveVars {
				return nil, errf(mongoerr.LetVarsNotObject, "invalid parameter: expected an object (vars)")
			}
		case "in":
			inRaw, haveIn = el.Value, true
		default:
			return nil, errf(mongoerr.LetUnknownParameter, "Unrecognized parameter to $let: %s", el.Key)
		}
	}
	if !haveVars {
		return nil, errf(mongoerr.LetMissingVars, "Missing 'vars' parameter to $let")
	}
	if !haveIn {
		return nil, errf(mongoerr.LetMissingIn, "Missing 'in' parameter to $let")
	}
	names := make([]string, len(varsD))
	vals := make([]Expr, len(varsD))
	for i, el := range varsD {
		if err := ValidateVarName(el.Key); err != nil {
			return nil, err
		}
		e, err := compile(el.Value, sc)
		if err != nil {
			return nil, err
		}
		names[i], vals[i] = el.Key, e
	}
	in, err := compile(inRaw, sc.with(names...))
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		inner := vars
		for i, e := range vals {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return nil, err
			}
			inner = inner.Bind(names[i], v)
		}
		return in.Eval(doc, inner)
	}), nil
}
