package expr

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// defaultTrimChars is what $trim, $ltrim and $rtrim remove without
// "chars": the null byte and Unicode white space, as MongoDB.
const defaultTrimChars = "\x00 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// compileTrim compiles $trim (left and right), $ltrim and $rtrim.
func compileTrim(left, right bool) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		m, err := namedArgs(name, raw, sc, []string{"input", "chars"}, "input")
		if err != nil {
			return nil, err
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			in, err := m["input"].Eval(doc, vars)
			if err != nil || IsNullish(in) {
				return nil, err
			}
			s, ok := in.(string)
			if !ok {
				return nil, errf(mongoerr.TrimInputNotString, "%s requires its input to be a string, got %v (of type %s) instead.", name, in, typeName(in))
			}
			chars, err := evalOpt(m["chars"], doc, vars)
			if err != nil || (m["chars"] != nil && IsNullish(chars)) {
				return nil, err
			}
			cutset := defaultTrimChars
			if m["chars"] != nil {
				if cutset, ok = chars.(string); !ok {
					return nil, errf(mongoerr.TrimCharsNotString, "%s requires 'chars' to be a string, got %v (of type %s) instead.", name, chars, typeName(chars))
				}
			}
			if left {
				s = strings.TrimLeft(s, cutset)
			}
			if right {
				s = strings.TrimRight(s, cutset)
			}
			return s, nil
		}), nil
	}
}
