package update

import (
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestSetUnset(t *testing.T) {
	runApplyCases(t, []applyCase{
		{name: "set existing keeps position", doc: `{"_id": 1, "a": 1, "b": 2}`, update: `{"$set": {"a": 5}}`, want: `{"_id": 1, "a": 5, "b": 2}`},
		{name: "set new appends", doc: `{"_id": 1}`, update: `{"$set": {"b": 1, "a": 2}}`, want: `{"_id": 1, "a": 2, "b": 1}`},
		{name: "set same value noop", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a": 1}}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "set same value other type changes", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a": 1.0}}`, want: `{"_id": 1, "a": 1.0}`},
		{name: "set dotted creates docs", doc: `{"_id": 1}`, update: `{"$set": {"a.b.c": 1}}`, want: `{"_id": 1, "a": {"b": {"c": 1}}}`},
		{name: "set into existing subdoc", doc: `{"_id": 1, "a": {"x": 1}}`, update: `{"$set": {"a.y": 2}}`, want: `{"_id": 1, "a": {"x": 1, "y": 2}}`},
		{name: "set array index", doc: `{"_id": 1, "a": [1, 2, 3]}`, update: `{"$set": {"a.1": 9}}`, want: `{"_id": 1, "a": [1, 9, 3]}`},
		{name: "set array pads nulls", doc: `{"_id": 1, "a": [1]}`, update: `{"$set": {"a.3": 9}}`, want: `{"_id": 1, "a": [1, null, null, 9]}`},
		{name: "set in array element doc", doc: `{"_id": 1, "a": [{"b": 1}, {"b": 2}]}`, update: `{"$set": {"a.1.b": 5}}`, want: `{"_id": 1, "a": [{"b": 1}, {"b": 5}]}`},
		{name: "numeric field on doc", doc: `{"_id": 1, "a": {}}`, update: `{"$set": {"a.0": 1}}`, want: `{"_id": 1, "a": {"0": 1}}`},
		{name: "numeric order", doc: `{"_id": 1}`, update: `{"$set": {"a.10": 1, "a.9": 2}}`, want: `{"_id": 1, "a": {"9": 2, "10": 1}}`},
		{name: "path not viable", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a.b": 1}}`,
			code: mongoerr.PathNotViable, msg: "Cannot create field 'b' in element {a: 1}"},
		{name: "field in array not viable", doc: `{"_id": 1, "a": [1]}`, update: `{"$set": {"a.b": 1}}`, code: mongoerr.PathNotViable},
		{name: "set _id same ok", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"_id": 1}}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "set _id differs", doc: `{"_id": 1}`, update: `{"$set": {"_id": 2}}`, code: mongoerr.ImmutableField,
			msg: "Performing an update on the path '_id' would modify the immutable field '_id'"},
		{name: "set _id subfield", doc: `{"_id": {"x": 1}}`, update: `{"$set": {"_id.y": 2}}`, code: mongoerr.ImmutableField},
		{name: "set _id on insert ok", doc: `{}`, update: `{"$set": {"_id": 2}}`, insert: true, want: `{"_id": 2}`},
		{name: "empty operand is noop", doc: `{"_id": 1}`, update: `{"$set": {}}`, want: `{"_id": 1}`, noop: true},
		{name: "unset", doc: `{"_id": 1, "a": 1, "b": 2}`, update: `{"$unset": {"a": ""}}`, want: `{"_id": 1, "b": 2}`},
		{name: "unset missing noop", doc: `{"_id": 1}`, update: `{"$unset": {"a.b": 1}}`, want: `{"_id": 1}`, noop: true},
		{name: "unset through scalar noop", doc: `{"_id": 1, "a": 5}`, update: `{"$unset": {"a.b": 1}}`, want: `{"_id": 1, "a": 5}`, noop: true},
		{name: "unset nested", doc: `{"_id": 1, "a": {"b": 1, "c": 2}}`, update: `{"$unset": {"a.b": 1}}`, want: `{"_id": 1, "a": {"c": 2}}`},
		{name: "unset array element nulls", doc: `{"_id": 1, "a": [1, 2, 3]}`, update: `{"$unset": {"a.1": 1}}`, want: `{"_id": 1, "a": [1, null, 3]}`},
		{name: "unset _id", doc: `{"_id": 1}`, update: `{"$unset": {"_id": 1}}`, code: mongoerr.ImmutableField},
		{name: "setOnInsert ignored on update", doc: `{"_id": 1}`, update: `{"$setOnInsert": {"a": 1}}`, want: `{"_id": 1}`, noop: true},
		{name: "setOnInsert on insert", doc: `{"_id": 1}`, update: `{"$setOnInsert": {"a": 1}}`, insert: true, want: `{"_id": 1, "a": 1}`},
	})
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name, update string
		code         mongoerr.Code
		msg          string
	}{
		{"unknown modifier", `{"$foo": {"a": 1}}`, mongoerr.FailedToParse,
			"Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array"},
		{"mixed field after operator", `{"$set": {"a": 1}, "b": 1}`, mongoerr.FailedToParse,
			"Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array"},
		{"operand not doc", `{"$set": 5}`, mongoerr.FailedToParse, ""},
		{"conflict", `{"$set": {"a.b": 1}, "$inc": {"a": 1}}`, mongoerr.ConflictingUpdateOperators,
			"Updating the path 'a' would create a conflict at 'a'"},
		{"conflict longer", `{"$set": {"a": 1}, "$unset": {"a.b": 1}}`, mongoerr.ConflictingUpdateOperators,
			"Updating the path 'a.b' would create a conflict at 'a'"},
		{"conflict same op", `{"$set": {"a": 1, "a": 2}}`, mongoerr.ConflictingUpdateOperators, ""},
		{"rename conflict", `{"$rename": {"a": "b"}, "$set": {"b.c": 1}}`, mongoerr.ConflictingUpdateOperators, ""},
		{"inc non-number", `{"$inc": {"a": "x"}}`, mongoerr.TypeMismatch, `Cannot increment with non-numeric argument: {a: "x"}`},
		{"mul non-number", `{"$mul": {"a": null}}`, mongoerr.TypeMismatch, `Cannot multiply with non-numeric argument: {a: null}`},
		{"replacement with dollar field", `{"a": 1, "$set": {"b": 1}}`, mongoerr.DollarPrefixedFieldName, ""},
		{"empty path", `{"$set": {"": 1}}`, mongoerr.EmptyFieldName, ""},
		{"empty component", `{"$set": {"a..b": 1}}`, mongoerr.EmptyFieldName,
			"The update path 'a..b' contains an empty field name, which is not allowed."},
		{"two positionals", `{"$set": {"a.$.b.$": 1}}`, mongoerr.BadValue,
			"Too many positional (i.e. '$') elements found in path 'a.$.b.$'"},
		{"positional first", `{"$set": {"$": 1}}`, mongoerr.BadValue, ""},
		{"dollar field", `{"$set": {"a.$x": 1}}`, mongoerr.DollarPrefixedFieldName, ""},
		{"unknown identifier", `{"$set": {"a.$[x]": 1}}`, mongoerr.BadValue,
			"No array filter found for identifier 'x' in path 'a.$[x]'"},
		{"rename not string", `{"$rename": {"a": 1}}`, mongoerr.BadValue, "The 'to' field for $rename must be a string: a: 1"},
		{"rename same", `{"$rename": {"a": "a"}}`, mongoerr.BadValue, ""},
		{"rename prefix", `{"$rename": {"a": "a.b"}}`, mongoerr.BadValue, ""},
		{"rename dynamic", `{"$rename": {"a.$": "b"}}`, mongoerr.BadValue, ""},
		{"currentDate bad type", `{"$currentDate": {"a": {"$type": "x"}}}`, mongoerr.BadValue, ""},
		{"currentDate bad value", `{"$currentDate": {"a": 1}}`, mongoerr.BadValue, ""},
		{"pop bad", `{"$pop": {"a": 2}}`, mongoerr.FailedToParse, "$pop expects 1 or -1, found: 2"},
		{"pop not number", `{"$pop": {"a": "x"}}`, mongoerr.FailedToParse, `Expected a number in: a: "x"`},
		{"pullAll not array", `{"$pullAll": {"a": 1}}`, mongoerr.BadValue, "$pullAll requires an array argument but was given a int"},
		{"push each not array", `{"$push": {"a": {"$each": 1}}}`, mongoerr.BadValue, ""},
		{"push bad clause", `{"$push": {"a": {"$each": [1], "$foo": 1}}}`, mongoerr.BadValue, "Unrecognized clause in $push: $foo"},
		{"push bad slice", `{"$push": {"a": {"$each": [1], "$slice": "x"}}}`, mongoerr.BadValue, ""},
		{"push bad sort", `{"$push": {"a": {"$each": [1], "$sort": 2}}}`, mongoerr.BadValue, ""},
		{"push bad sort field", `{"$push": {"a": {"$each": [1], "$sort": {"x": 0}}}}`, mongoerr.BadValue, ""},
		{"push bad position", `{"$push": {"a": {"$each": [1], "$position": 1.5}}}`, mongoerr.BadValue, ""},
		{"addToSet each not array", `{"$addToSet": {"a": {"$each": 1}}}`, mongoerr.TypeMismatch, ""},
		{"bit not doc", `{"$bit": {"a": 1}}`, mongoerr.BadValue, ""},
		{"bit unknown op", `{"$bit": {"a": {"nand": 1}}}`, mongoerr.BadValue, ""},
		{"bit double", `{"$bit": {"a": {"and": 1.5}}}`, mongoerr.BadValue, ""},
		{"bit empty", `{"$bit": {"a": {}}}`, mongoerr.BadValue, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(D(t, c.update), Options{})
			checkErr(t, err, c.code, c.msg)
		})
	}
}

func TestCompileKinds(t *testing.T) {
	u, err := Compile(D(t, `{"a": 1}`), Options{})
	if err != nil || !u.IsReplacement() {
		t.Fatalf("replacement: %v %v", u, err)
	}
	u, err = Compile(D(t, `{"$set": {"a": 1}}`), Options{})
	if err != nil || u.IsReplacement() {
		t.Fatalf("operator: %v %v", u, err)
	}
	_, err = Compile("x", Options{})
	checkErr(t, err, mongoerr.FailedToParse, "")
}
