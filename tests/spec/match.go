package spec

import (
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// matcher implements the unified format's "Evaluating Matches". ents
// resolves $$matchesEntity and $$sessionLsid; it may be nil.
type matcher struct {
	ents *entityMap
}

// match checks actual against expected. root says whether a document at
// this level may carry extra fields (arrays pass it on to their elements,
// so "an iterable of root-level documents" is match(expArr, actArr, true)).
func (m *matcher) match(exp, act any, root bool, path string) error {
	act = normalize(act)
	switch e := exp.(type) {
	case bson.D:
		if op, arg, ok := specialOp(e); ok {
			return m.special(op, arg, act, root, path)
		}
		a, ok := act.(bson.D)
		if !ok {
			return fmt.Errorf("at %s: expected document %s, got %s", path, show(exp), show(act))
		}
		return m.matchDoc(e, a, root, path)
	case bson.A:
		a, ok := act.(bson.A)
		if !ok {
			return fmt.Errorf("at %s: expected array %s, got %s", path, show(exp), show(act))
		}
		if len(a) != len(e) {
			return fmt.Errorf("at %s: expected %d elements %s, got %d %s", path, len(e), show(exp), len(a), show(act))
		}
		for i := range e {
			if err := m.match(e[i], a[i], root, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if !scalarEqual(exp, act) {
		return fmt.Errorf("at %s: expected %s, got %s", path, show(exp), show(act))
	}
	return nil
}

func (m *matcher) matchDoc(e, a bson.D, root bool, path string) error {
	for _, el := range e {
		p := path + "." + el.Key
		av, present := lookup(a, el.Key)
		if sub, ok := el.Value.(bson.D); ok {
			if op, arg, ok := specialOp(sub); ok {
				switch op {
				case "$$exists":
					want, _ := arg.(bool)
					if present != want {
						return fmt.Errorf("at %s: expected $$exists %v, got %s", p, want, show(av))
					}
					continue
				case "$$unsetOrMatches":
					if !present {
						continue
					}
					if err := m.match(arg, av, false, p); err != nil {
						return err
					}
					continue
				}
			}
		}
		if !present {
			return fmt.Errorf("at %s: field missing (expected %s)", p, show(el.Value))
		}
		if err := m.match(el.Value, av, false, p); err != nil {
			return err
		}
	}
	if root {
		return nil
	}
	for _, el := range a {
		if _, ok := lookup(e, el.Key); !ok {
			return fmt.Errorf("at %s: unexpected extra field %q in %s", path, el.Key, show(a))
		}
	}
	return nil
}

// specialOp reports whether d is {$$op: arg}.
func specialOp(d bson.D) (string, any, bool) {
	if len(d) == 1 && strings.HasPrefix(d[0].Key, "$$") {
		return d[0].Key, d[0].Value, true
	}
	return "", nil, false
}

func (m *matcher) special(op string, arg, act any, root bool, path string) error {
	switch op {
	case "$$type":
		return matchType(arg, act, path)
	case "$$unsetOrMatches":
		return m.match(arg, act, root, path)
	case "$$exists": // reached with a value: {$$unsetOrMatches: {$$exists: true}}
		if want, _ := arg.(bool); !want {
			return fmt.Errorf("at %s: expected $$exists false, got %s", path, show(act))
		}
		return nil
	case "$$matchAsRoot":
		return m.match(arg, act, true, path)
	case "$$matchesEntity":
		v, err := m.ents.bsonValue(fmt.Sprint(arg))
		if err != nil {
			return err
		}
		return m.match(v, act, root, path)
	case "$$sessionLsid":
		lsid, err := m.ents.sessionLsid(fmt.Sprint(arg))
		if err != nil {
			return err
		}
		return m.match(lsid, act, false, path)
	case "$$lte":
		af, aok := asFloat(act)
		ef, eok := asFloat(arg)
		if !aok || !eok || af > ef {
			return fmt.Errorf("at %s: expected $$lte %s, got %s", path, show(arg), show(act))
		}
		return nil
	case "$$matchAsDocument":
		s, ok := act.(string)
		var d bson.D
		if !ok || bson.UnmarshalExtJSON([]byte(s), false, &d) != nil {
			return fmt.Errorf("at %s: $$matchAsDocument needs an extended JSON string, got %s", path, show(act))
		}
		return m.match(arg, d, false, path)
	case "$$matchesHexBytes":
		return matchHex(arg, act, path)
	}
	return fmt.Errorf("runner: unsupported special operator %s at %s", op, path)
}

func matchHex(arg, act any, path string) error {
	want, err := hex.DecodeString(fmt.Sprint(arg))
	if err != nil {
		return fmt.Errorf("runner: bad $$matchesHexBytes %v", arg)
	}
	var got []byte
	switch a := act.(type) {
	case string:
		got = []byte(a)
	case bson.Binary:
		got = a.Data
	}
	if !reflect.DeepEqual(want, got) && !(len(want) == 0 && len(got) == 0) {
		return fmt.Errorf("at %s: expected bytes %x, got %s", path, want, show(act))
	}
	return nil
}

func matchType(arg, act any, path string) error {
	var names []string
	switch a := arg.(type) {
	case string:
		names = []string{a}
	case bson.A:
		for _, x := range a {
			names = append(names, fmt.Sprint(x))
		}
	}
	got := typeAlias(act)
	for _, n := range names {
		if n == got || (n == "number" && isNumberAlias(got)) {
			return nil
		}
	}
	return fmt.Errorf("at %s: expected $$type %v, got %s (%s)", path, names, show(act), got)
}

func isNumberAlias(a string) bool {
	return a == "int" || a == "long" || a == "double" || a == "decimal"
}

// typeAlias is the $type alias of a decoded BSON value.
func typeAlias(v any) string {
	switch v.(type) {
	case float64:
		return "double"
	case string:
		return "string"
	case bson.D, bson.M:
		return "object"
	case bson.A:
		return "array"
	case bson.Binary:
		return "binData"
	case bson.Undefined:
		return "undefined"
	case bson.ObjectID:
		return "objectId"
	case bool:
		return "bool"
	case bson.DateTime:
		return "date"
	case nil, bson.Null:
		return "null"
	case bson.Regex:
		return "regex"
	case bson.DBPointer:
		return "dbPointer"
	case bson.JavaScript:
		return "javascript"
	case bson.Symbol:
		return "symbol"
	case bson.CodeWithScope:
		return "javascriptWithScope"
	case int32:
		return "int"
	case bson.Timestamp:
		return "timestamp"
	case int64:
		return "long"
	case bson.Decimal128:
		return "decimal"
	case bson.MinKey:
		return "minKey"
	case bson.MaxKey:
		return "maxKey"
	}
	return fmt.Sprintf("unknown(%T)", v)
}

// asFloat converts int32, int64 and float64 (not Decimal128).
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

// scalarEqual compares non-container values: numbers by value, anything
// else by type and value.
func scalarEqual(exp, act any) bool {
	if ei, ok := asInt64(exp); ok {
		if ai, ok := asInt64(act); ok {
			return ei == ai
		}
	}
	if ef, ok := asFloat(exp); ok {
		af, ok := asFloat(act)
		return ok && (ef == af || (math.IsNaN(ef) && math.IsNaN(af)))
	}
	if exp == nil || act == nil {
		return (exp == nil || exp == bson.Null{}) && (act == nil || act == bson.Null{})
	}
	if reflect.TypeOf(exp) != reflect.TypeOf(act) {
		return false
	}
	if ec, ok := exp.(bson.CodeWithScope); ok {
		ac := act.(bson.CodeWithScope)
		return ec.Code == ac.Code && docsEqualUnordered(normalize(ec.Scope), normalize(ac.Scope))
	}
	return reflect.DeepEqual(exp, act)
}

func docsEqualUnordered(a, b any) bool {
	var m matcher
	return m.match(a, b, false, "$") == nil
}

// show renders a value as relaxed Extended JSON for messages.
func show(v any) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	s := string(b)
	s = strings.TrimSuffix(strings.TrimPrefix(s, `{"v":`), "}")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}
