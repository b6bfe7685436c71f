package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// textPlanDoc is explain's winningPlan of a $text query, MongoDB's shape:
// TEXT_MATCH over FETCH over one IXSCAN of the text index per term (under
// TEXT_OR when there are several), scanned backward as MongoDB's.
func textPlanDoc(plan *Plan) bson.D {
	ts := plan.Text
	var scans bson.A
	for range plan.Intervals {
		scans = append(scans, bson.D{
			{Key: "stage", Value: "IXSCAN"},
			{Key: "keyPattern", Value: plan.Index.Key},
			{Key: "indexName", Value: plan.Index.Name},
			{Key: "isMultiKey", Value: plan.Index.Multikey},
			{Key: "isUnique", Value: false},
			{Key: "isSparse", Value: false},
			{Key: "isPartial", Value: plan.Index.Partial != nil},
			{Key: "indexVersion", Value: int32(2)},
			{Key: "direction", Value: "backward"},
			{Key: "indexBounds", Value: bson.D{}},
		})
	}
	var input bson.D
	if len(scans) == 1 {
		input = scans[0].(bson.D)
	} else {
		input = bson.D{{Key: "stage", Value: "TEXT_OR"}, {Key: "inputStages", Value: orEmptyA(scans)}}
	}
	fetch := bson.D{{Key: "stage", Value: "FETCH"}, {Key: "inputStage", Value: input}}
	return bson.D{
		{Key: "stage", Value: "TEXT_MATCH"},
		{Key: "indexPrefix", Value: prefixDoc(plan)},
		{Key: "indexName", Value: plan.Index.Name},
		{Key: "parsedTextQuery", Value: bson.D{
			{Key: "terms", Value: strs(ts.q.Terms)},
			{Key: "negatedTerms", Value: strs(ts.q.NegatedTerms)},
			{Key: "phrases", Value: strs(ts.q.Phrases)},
			{Key: "negatedPhrases", Value: strs(ts.q.NegatedPhrases)},
		}},
		{Key: "textIndexVersion", Value: int32(3)},
		{Key: "inputStage", Value: fetch},
	}
}

// prefixDoc is indexPrefix: the equality values of the prefix fields.
func prefixDoc(plan *Plan) bson.D {
	if plan.Text.prefix == nil {
		return bson.D{}
	}
	return plan.Text.prefix
}

func strs(ss []string) bson.A {
	out := bson.A{}
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func orEmptyA(a bson.A) bson.A {
	if a == nil {
		return bson.A{}
	}
	return a
}
