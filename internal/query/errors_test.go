package query

import (
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		filter string
		code   mongoerr.Code
	}{
		{`{"a": {"$foo": 1}}`, mongoerr.BadValue},
		{`{"$foo": 1}`, mongoerr.BadValue},
		{`{"a": {"$gt": 1, "b": 1}}`, mongoerr.BadValue},
		{`{"a": {"$in": 1}}`, mongoerr.BadValue},
		{`{"a": {"$nin": {"x": 1}}}`, mongoerr.BadValue},
		{`{"a": {"$in": [{"$gt": 1}]}}`, mongoerr.BadValue},
		{`{"a": {"$size": "x"}}`, mongoerr.BadValue},
		{`{"a": {"$size": -1}}`, mongoerr.BadValue},
		{`{"a": {"$size": 1.5}}`, mongoerr.BadValue},
		{`{"a": {"$regex": 1}}`, mongoerr.BadValue},
		{`{"a": {"$options": "i"}}`, mongoerr.BadValue},
		{`{"a": {"$regex": "x", "$options": "q"}}`, 51108},
		{`{"a": {"$regex": "(?<=a)b"}}`, 51091},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "a", "options": "i"}}, "$options": "m"}}`, mongoerr.BadValue},
		{`{"$and": []}`, mongoerr.BadValue},
		{`{"$or": {}}`, mongoerr.BadValue},
		{`{"$nor": [1]}`, mongoerr.BadValue},
		{`{"a": {"$not": {}}}`, mongoerr.BadValue},
		{`{"a": {"$not": 1}}`, mongoerr.BadValue},
		{`{"a": {"$not": {"b": 1}}}`, mongoerr.BadValue},
		{`{"a": {"$type": "foo"}}`, mongoerr.BadValue},
		{`{"a": {"$type": 99}}`, mongoerr.BadValue},
		{`{"a": {"$type": []}}`, mongoerr.BadValue},
		{`{"a": {"$type": {}}}`, mongoerr.TypeMismatch},
		{`{"a": {"$mod": 1}}`, mongoerr.BadValue},
		{`{"a": {"$mod": [1]}}`, mongoerr.BadValue},
		{`{"a": {"$mod": [1, 2, 3]}}`, mongoerr.BadValue},
		{`{"a": {"$mod": [0, 1]}}`, mongoerr.BadValue},
		{`{"a": {"$mod": ["x", 1]}}`, mongoerr.BadValue},
		{`{"a": {"$all": 1}}`, mongoerr.BadValue},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}}`, mongoerr.BadValue},
		{`{"a": {"$all": [{"$gt": 1}]}}`, mongoerr.BadValue},
		{`{"a": {"$elemMatch": 1}}`, mongoerr.BadValue},
		{`{"a": {"$elemMatch": {"$foo": 1}}}`, mongoerr.BadValue},
		{`{"a": {"$bitsAllSet": -1}}`, mongoerr.BadValue},
		{`{"a": {"$bitsAllSet": 1.5}}`, mongoerr.BadValue},
		{`{"a": {"$bitsAllSet": "x"}}`, mongoerr.BadValue},
		{`{"a": {"$bitsAnySet": [-1]}}`, mongoerr.BadValue},
		{`{"a": {"$gt": {"$regularExpression": {"pattern": "a", "options": ""}}}}`, mongoerr.BadValue},
		{`{"a": {"$ne": {"$regularExpression": {"pattern": "a", "options": ""}}}}`, mongoerr.BadValue},
		{`{"a": {"$eq": {"$undefined": true}}}`, mongoerr.BadValue},
		{`{"$alwaysTrue": 2}`, mongoerr.BadValue},
		{`{"$where": "this.a == 1"}`, mongoerr.BadValue}, // Compile allows no JavaScript (where_test.go)
		{`{"$text": {"$search": "x"}}`, mongoerr.IndexNotFound},
		{`{"a": {"$near": "x"}}`, mongoerr.BadValue},
		{`{"$jsonSchema": {"bogus": 1}}`, mongoerr.FailedToParse},
		{`{"$expr": {"$bogus": 1}}`, mongoerr.InvalidPipelineOperator},
	}
	for _, c := range cases {
		_, err := Compile(mustDoc(t, c.filter))
		if !mongoerr.Is(err, c.code) {
			t.Errorf("Compile(%s) = %v, want code %d", c.filter, err, c.code)
		}
	}
}

func TestUnknownOperatorMessage(t *testing.T) {
	_, err := Compile(mustDoc(t, `{"a": {"$foo": 1}}`))
	if me := mongoerr.From(err); me == nil || me.Msg != "unknown operator: $foo" {
		t.Errorf("err = %v, want unknown operator: $foo", err)
	}
}

func TestDepthLimit(t *testing.T) {
	f := `{"a": 1}`
	for i := 0; i < 120; i++ {
		f = `{"$and": [` + f + `]}`
	}
	if _, err := Compile(mustDoc(t, f)); !mongoerr.Is(err, mongoerr.BadValue) {
		t.Errorf("deep filter: err = %v, want BadValue", err)
	}
}
