package expr

import (
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// indexOf implements $indexOfBytes (cp false) and $indexOfCP (cp true).
func indexOf(cp bool) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		if IsNullish(args[0]) {
			return nil, nil
		}
		s, ok := args[0].(string)
		if !ok {
			return nil, errf(mongoerr.IndexOfInputNotString, "%s requires a string as the first argument, found: %s", name, typeName(args[0]))
		}
		sub, ok := args[1].(string)
		if !ok {
			return nil, errf(mongoerr.IndexOfSubstringNotString, "%s requires a string as the second argument, found: %s", name, typeName(args[1]))
		}
		units := []rune(nil)
		n := int64(len(s))
		if cp {
			units = []rune(s)
			n = int64(len(units))
		}
		start, end, err := indexBounds(name, args[2:], n)
		if err != nil || start > end || start > n {
			return int32(-1), err
		}
		if cp {
			i := strings.Index(string(units[start:end]), sub)
			if i < 0 {
				return int32(-1), nil
			}
			return int32(start) + int32(utf8.RuneCountInString(string(units[start:end])[:i])), nil
		}
		i := strings.Index(s[start:end], sub)
		if i < 0 {
			return int32(-1), nil
		}
		return int32(start) + int32(i), nil
	}
}

// indexBounds reads the optional [start, end] of $indexOf*, clamped to n.
func indexBounds(name string, args []any, n int64) (int64, int64, error) {
	start, end := int64(0), n
	for i, a := range args {
		v, ok := asInt32Arg(a)
		if !ok {
			return 0, 0, errf(mongoerr.IndexOfStartNotIntegral, "%s requires an integral starting index, found a value of type: %s, with value: %v", name, typeName(a), a)
		}
		if v < 0 {
			return 0, 0, errf(mongoerr.IndexOfStartNegative, "%s requires a nonnegative start index, found: %d", name, v)
		}
		if i == 0 {
			start = v
		} else {
			end = min(v, n)
		}
	}
	return start, end, nil
}

// compileReplace compiles $replaceOne (n 1) and $replaceAll (n -1).
func compileReplace(n int) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		m, err := namedArgs(name, raw, sc, []string{"input", "find", "replacement"}, "input", "find", "replacement")
		if err != nil {
			return nil, err
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			var vals [3]any
			null := false
			for i, k := range []string{"input", "find", "replacement"} {
				v, err := m[k].Eval(doc, vars)
				if err != nil {
					return nil, err
				}
				if IsNullish(v) {
					null = true
				} else if _, ok := v.(string); !ok {
					return nil, errf(mongoerr.ReplaceArgNotString, "%s requires that '%s' be a string, found: %v", name, k, v)
				}
				vals[i] = v
			}
			if null {
				return nil, nil
			}
			return strings.Replace(vals[0].(string), vals[1].(string), vals[2].(string), n), nil
		}), nil
	}
}
