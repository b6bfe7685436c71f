package crashtest

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Observe reads the state of DBs through cl: every collection (but
// system.*), its documents and its indexes.
func Observe(ctx context.Context, cl *mongo.Client) (State, error) {
	s := State{}
	for _, db := range DBs {
		names, err := cl.Database(db).ListCollectionNames(ctx, bson.D{})
		if err != nil {
			return nil, fmt.Errorf("listCollections %s: %w", db, err)
		}
		for _, name := range names {
			if strings.HasPrefix(name, "system.") {
				continue
			}
			cs, err := observeColl(ctx, cl.Database(db).Collection(name))
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", db, name, err)
			}
			s[db+"."+name] = cs
		}
	}
	return s, nil
}

func observeColl(ctx context.Context, coll *mongo.Collection) (*CollState, error) {
	cs := &CollState{Docs: map[string]string{}, Indexes: map[string]string{}}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	var docs []bson.D
	if err := cur.All(ctx, &docs); err != nil {
		return nil, err
	}
	for _, d := range docs {
		id := "(no _id)"
		if len(d) > 0 && d[0].Key == "_id" {
			id = fmt.Sprint(d[0].Value)
		}
		cs.Docs[id] = canonical(d)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		return nil, err
	}
	for _, sp := range specs {
		cs.Indexes[sp.Name] = relaxed(sp.KeysDocument)
	}
	return cs, nil
}

// Connect returns a client for uri with bounded timeouts and retryable
// writes off (an op in flight at a kill must not be re-sent elsewhere).
func Connect(uri string) (*mongo.Client, error) {
	return mongo.Connect(options.Client().ApplyURI(uri).SetRetryWrites(false).
		SetServerSelectionTimeout(3 * time.Second).SetConnectTimeout(5 * time.Second))
}

// modelOf rebuilds a model from an observed state (after a failed check,
// so that a run can go on from what the server has).
func modelOf(s State) *Model {
	m := NewModel()
	for ns, cs := range s {
		c := &Coll{Docs: map[int64]Doc{}, Indexes: maps.Clone(cs.Indexes)}
		for _, js := range cs.Docs {
			var d Doc
			if err := bson.UnmarshalExtJSON([]byte(js), true, &d); err == nil {
				c.Docs[d.ID] = d
			}
		}
		m.Colls[ns] = c
	}
	return m
}
