package txn

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkTxn10 compares, on a 3-member set with w:"majority", ten
// inserts committed as one transaction against ten separate inserts:
//
//	go test ./tests/txn -run '^$' -bench . -benchtime 200x
func BenchmarkTxn10(b *testing.B) {
	c := harnessSet(b)
	cl := connect(b, c)
	ctx := context.Background()
	coll := cl.Database("bench").Collection("t")
	next := int32(0)
	docs := func() []bson.D {
		out := make([]bson.D, 10)
		for i := range out {
			next++
			out[i] = bson.D{{Key: "_id", Value: next}, {Key: "v", Value: "0123456789"}}
		}
		return out
	}
	b.Run("transaction", func(b *testing.B) {
		sess, err := cl.StartSession()
		if err != nil {
			b.Fatal(err)
		}
		defer sess.EndSession(ctx)
		for i := 0; i < b.N; i++ {
			_, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
				for _, d := range docs() {
					if _, err := coll.InsertOne(sc, d); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("separate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, d := range docs() {
				if _, err := coll.InsertOne(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
