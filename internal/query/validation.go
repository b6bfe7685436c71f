package query

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ValidationDetails explains why doc fails the collection validator filter,
// in the shape of MongoDB's DocumentValidationFailure errInfo.details:
// a $jsonSchema clause lists its schemaRulesNotSatisfied; several clauses
// are an $and with clausesNotSatisfied. filter must compile.
//
// TODO(#14): query-operator clauses get one entry each (operatorName,
// specifiedAs, reason, consideredValue); MongoDB explains $or/$nor/$elemMatch
// and nested operators clause by clause.
func ValidationDetails(filter, doc bson.D) bson.D {
	if len(filter) == 1 {
		return clauseDetails(filter[0], doc)
	}
	var bad bson.A
	for i, e := range filter {
		m, err := Compile(bson.D{e})
		if err != nil || m.Match(doc) {
			continue
		}
		bad = append(bad, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: clauseDetails(e, doc)}})
	}
	return bson.D{{Key: "operatorName", Value: "$and"}, {Key: "clausesNotSatisfied", Value: bad}}
}

func clauseDetails(e bson.E, doc bson.D) bson.D {
	spec := bson.D{e}
	if e.Key == "$jsonSchema" {
		s, err := parseJSONSchema(e.Value)
		det := []bson.D{}
		if err == nil {
			s.eval(doc, &det)
		}
		return bson.D{{Key: "operatorName", Value: "$jsonSchema"}, {Key: "schemaRulesNotSatisfied", Value: det}}
	}
	if strings.HasPrefix(e.Key, "$") {
		return bson.D{{Key: "operatorName", Value: e.Key}, {Key: "specifiedAs", Value: spec}, {Key: "reason", Value: "expression did not match"}}
	}
	op := "$eq"
	if d, ok := e.Value.(bson.D); ok && isOperatorDoc(d) {
		op = d[0].Key
	}
	d := bson.D{{Key: "operatorName", Value: op}, {Key: "specifiedAs", Value: spec}}
	v, found := lookupPath(doc, e.Key)
	if !found {
		return append(d, bson.E{Key: "reason", Value: "field was missing"})
	}
	reason := "expression did not match"
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte":
		reason = "comparison failed"
	case "$type":
		reason = "type did not match"
	}
	return append(d, bson.E{Key: "reason", Value: reason}, bson.E{Key: "consideredValue", Value: v})
}

// lookupPath follows a dotted path through embedded documents only.
func lookupPath(doc bson.D, path string) (any, bool) {
	var cur any = doc
	for _, part := range strings.Split(path, ".") {
		d, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		if cur, ok = fieldOf(d, part); !ok {
			return nil, false
		}
	}
	return cur, true
}
