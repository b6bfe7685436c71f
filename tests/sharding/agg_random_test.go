package sharding

import (
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// randomPipeline builds a pipeline from a seeded generator: a prefix of
// per-document stages, one stage the router splits or runs, and a tail.
// Stages whose result depends on the input order ($limit, $skip, $first
// without a sort) only appear where the order is total or only counted.
// ordered reports a total result order.
func randomPipeline(r *rand.Rand) (bson.A, bool) {
	var p bson.A
	if r.Intn(2) == 0 {
		p = append(p, stage("$match", randomFilter(r)))
	}
	if r.Intn(3) == 0 {
		p = append(p, stage("$unwind", "$arr"))
	}
	if r.Intn(3) == 0 {
		p = append(p, stage("$addFields", bson.D{{Key: "z", Value: bson.D{{Key: "$mod", Value: bson.A{"$_id", 7}}}}}))
	}
	switch r.Intn(8) {
	case 0, 1:
		p = append(p, stage("$group", randomGroup(r)))
		if r.Intn(2) == 0 {
			return append(p, stage("$sort", bson.D{{Key: "_id", Value: 1}}), stage("$limit", 1+r.Intn(5))), true
		}
		return p, false
	case 2:
		dir := 1 - 2*r.Intn(2)
		p = append(p, stage("$sort", bson.D{{Key: "y", Value: dir}, {Key: "_id", Value: 1}}))
		if r.Intn(2) == 0 {
			p = append(p, stage("$skip", r.Intn(10)))
		}
		if r.Intn(2) == 0 {
			p = append(p, stage("$limit", 1+r.Intn(40)))
		}
		return p, true
	case 3:
		name := []string{"$limit", "$skip"}[r.Intn(2)]
		return append(p, stage(name, 1+r.Intn(60)), stage("$count", "n")), true
	case 4:
		return append(p, stage("$sortByCount", "$g"), stage("$sort", bson.D{{Key: "_id", Value: 1}})), true
	case 5:
		return append(p, stage("$bucket", bson.D{{Key: "groupBy", Value: "$y"},
			{Key: "boundaries", Value: bson.A{0, 10 + r.Intn(50), 100, 250}}, {Key: "default", Value: "other"},
			{Key: "output", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "m", Value: bson.D{{Key: "$max", Value: "$x"}}}}}})), true
	case 6:
		return append(p, stage("$facet", bson.D{
			{Key: "c", Value: bson.A{stage("$count", "n")}},
			{Key: "g", Value: bson.A{stage("$group", randomGroup(r))}},
		})), true
	}
	return append(p, stage("$count", "n")), true
}

func stage(name string, spec any) bson.D { return bson.D{{Key: name, Value: spec}} }

func randomFilter(r *rand.Rand) bson.D {
	switch r.Intn(3) {
	case 0:
		return bson.D{{Key: "g", Value: bson.D{{Key: "$in", Value: bson.A{r.Intn(6), r.Intn(6)}}}}}
	case 1:
		return bson.D{{Key: "y", Value: bson.D{{Key: "$gte", Value: r.Intn(250)}}}}
	}
	return bson.D{{Key: "k", Value: r.Intn(50)}} // one shard
}

// randomGroup is a $group with a random key and 1-4 accumulators that do
// not depend on the input order.
func randomGroup(r *rand.Rand) bson.D {
	ids := []any{"$g", "$s", bson.D{{Key: "$mod", Value: bson.A{"$_id", 3}}}, nil, bson.D{{Key: "g", Value: "$g"}, {Key: "odd", Value: bson.D{{Key: "$mod", Value: bson.A{"$k", 2}}}}}}
	accs := []bson.D{
		{{Key: "$sum", Value: "$x"}}, {{Key: "$sum", Value: 1}}, {{Key: "$avg", Value: "$y"}}, {{Key: "$avg", Value: "$x"}},
		{{Key: "$min", Value: "$x"}}, {{Key: "$max", Value: "$s"}}, {{Key: "$push", Value: "$k"}}, {{Key: "$addToSet", Value: "$g"}},
		{{Key: "$count", Value: bson.D{}}}, {{Key: "$stdDevPop", Value: "$y"}}, {{Key: "$stdDevSamp", Value: "$x"}},
	}
	g := bson.D{{Key: "_id", Value: ids[r.Intn(len(ids))]}}
	for i := 0; i < 1+r.Intn(4); i++ {
		g = append(g, bson.E{Key: string(rune('a' + i)), Value: accs[r.Intn(len(accs))]})
	}
	return g
}

// randomWrite applies the same random insert, update or delete to the
// sharded and the unsharded collection.
func randomWrite(t *testing.T, r *rand.Rand, s, u *mongo.Collection, nextID *int) {
	t.Helper()
	seed := r.Int63() // the same write on both
	for _, c := range []*mongo.Collection{s, u} {
		rr := rand.New(rand.NewSource(seed))
		var err error
		switch rr.Intn(3) {
		case 0:
			docs := aggDocs(rr, 1+rr.Intn(10))
			for i := range docs {
				d := docs[i].(bson.D)
				d[0].Value, d[1].Value = *nextID+i, (*nextID+i)%50
			}
			_, err = c.InsertMany(ctxT(t), docs)
		case 1:
			_, err = c.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: rr.Intn(6)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "y", Value: 1.5}}}})
		default:
			_, err = c.DeleteMany(ctxT(t), bson.D{{Key: "k", Value: rr.Intn(50)}})
		}
		must(t, err, "random write on %s", c.Name())
	}
	*nextID += 10
}
