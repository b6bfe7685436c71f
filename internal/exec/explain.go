package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ExplainFind describes the plan a find would use, in MongoDB's
// queryPlanner shape: winningPlan names IDHACK, IXSCAN (under FETCH) or
// COLLSCAN.
func (e *Engine) ExplainFind(db, coll string, p FindParams) (bson.D, error) {
	it, plan, err := e.Find(db, coll, p)
	if err != nil {
		return nil, err
	}
	it.Close()
	return queryPlanner(db, coll, plan, p), nil
}

// queryPlanner is explain's queryPlanner section for plan.
func queryPlanner(db, coll string, plan *Plan, p FindParams) bson.D {
	return bson.D{
		{Key: "namespace", Value: db + "." + coll},
		{Key: "indexFilterSet", Value: false},
		{Key: "parsedQuery", Value: orEmpty(p.Filter)},
		{Key: "winningPlan", Value: planDoc(plan, p)},
		{Key: "rejectedPlans", Value: bson.A{}},
	}
}

func orEmpty(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

func planDoc(plan *Plan, p FindParams) bson.D {
	var stage bson.D
	switch plan.Kind {
	case "IXSCAN":
		dir := "forward"
		if plan.Reverse {
			dir = "backward"
		}
		ix := bson.D{
			{Key: "stage", Value: "IXSCAN"},
			{Key: "keyPattern", Value: plan.Index.Key},
			{Key: "indexName", Value: plan.Index.Name},
			{Key: "isMultiKey", Value: plan.Index.Multikey},
			{Key: "isUnique", Value: plan.Index.Unique},
			{Key: "isSparse", Value: plan.Index.Sparse},
			{Key: "isPartial", Value: plan.Index.Partial != nil},
			{Key: "indexVersion", Value: int32(2)},
			{Key: "direction", Value: dir},
			{Key: "indexBounds", Value: plan.Bounds},
			{Key: "intervals", Value: int32(len(plan.Intervals))},
		}
		stage = bson.D{{Key: "stage", Value: "FETCH"}}
		if len(p.Filter) > 0 {
			stage = append(stage, bson.E{Key: "filter", Value: p.Filter})
		}
		stage = append(stage, bson.E{Key: "inputStage", Value: ix})
	case "TEXT":
		stage = textPlanDoc(plan)
	case geoNear2dsphere, geoNear2d:
		stage = geoNearPlanDoc(plan, p)
	case "IDHACK", "EOF":
		stage = bson.D{{Key: "stage", Value: plan.Kind}}
	default:
		dir := "forward"
		if plan.Reverse {
			dir = "backward"
		}
		stage = bson.D{{Key: "stage", Value: "COLLSCAN"}, {Key: "filter", Value: orEmpty(p.Filter)}, {Key: "direction", Value: dir}}
	}
	if plan.Kind != "EOF" {
		stage = shardingFilterStage(stage, p.Owned)
	}
	if len(p.Sort) > 0 && !plan.SortCovered {
		stage = bson.D{{Key: "stage", Value: "SORT"}, {Key: "sortPattern", Value: p.Sort}, {Key: "inputStage", Value: stage}}
	}
	if p.Limit > 0 {
		stage = bson.D{{Key: "stage", Value: "LIMIT"}, {Key: "limitAmount", Value: p.Limit}, {Key: "inputStage", Value: stage}}
	}
	if len(p.Projection) > 0 {
		stage = bson.D{{Key: "stage", Value: "PROJECTION_DEFAULT"}, {Key: "transformBy", Value: p.Projection}, {Key: "inputStage", Value: stage}}
	}
	return stage
}
