package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// testImages: on a collection with changeStreamPreAndPostImages (create
// or collMod), updates and deletes report fullDocumentBeforeChange and
// the post-image; without it, required fails with NoMatchingDocument and
// whenAvailable gives null.
func testImages(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs11")
	enabled := bson.D{{Key: "enabled", Value: true}}
	must(t, db.RunCommand(ctx, bson.D{{Key: "create", Value: "img"}, {Key: "changeStreamPreAndPostImages", Value: enabled}}).Err())
	coll := db.Collection("img")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}})
	must(t, err)
	cs := watch(t, coll, nil, options.ChangeStream().SetFullDocument(options.Required).
		SetFullDocumentBeforeChange(options.Required))
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
	must(t, err)
	_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}})
	must(t, err)
	evs := expectOps(t, cs, "update", "delete")
	if evs[0]["fullDocument"].(bson.M)["n"] != int32(2) || evs[0]["fullDocumentBeforeChange"].(bson.M)["n"] != int32(1) {
		t.Errorf("update images: %v", evs[0])
	}
	if evs[1]["fullDocumentBeforeChange"].(bson.M)["n"] != int32(2) {
		t.Errorf("delete pre-image: %v", evs[1])
	}

	plain := db.Collection("plain")
	_, err = plain.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	must(t, err)
	soft := watch(t, plain, nil, options.ChangeStream().SetFullDocumentBeforeChange(options.WhenAvailable))
	strict := watch(t, plain, nil, options.ChangeStream().SetFullDocumentBeforeChange(options.Required))
	_, err = plain.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
	must(t, err)
	if ev := next(t, soft); ev["fullDocumentBeforeChange"] != nil {
		t.Errorf("whenAvailable without pre-images: %v", ev)
	}
	if strict.Next(ctx) || codeOf(strict.Err()) != 47 {
		t.Errorf("required without pre-images: %v, want NoMatchingDocument (47)", strict.Err())
	}

	must(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "plain"}, {Key: "changeStreamPreAndPostImages", Value: enabled}}).Err())
	after := watch(t, plain, nil, options.ChangeStream().SetFullDocumentBeforeChange(options.Required))
	_, err = plain.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 2}}}})
	must(t, err)
	if ev := next(t, after); ev["fullDocumentBeforeChange"].(bson.M)["x"] != int32(1) {
		t.Errorf("pre-image after collMod: %v", ev)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "plain"}, {Key: "changeStreamPreAndPostImages", Value: true}}).Err()
	if codeOf(err) != 14 {
		t.Errorf("changeStreamPreAndPostImages: true: %v, want TypeMismatch (14)", err)
	}
}

// testModifyEvent: with showExpandedEvents, collMod (even an empty one)
// is a modify event.
func testModifyEvent(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs12")
	must(t, db.CreateCollection(ctx, "c"))
	cs := watch(t, db.Collection("c"), nil, options.ChangeStream().SetShowExpandedEvents(true))
	must(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "c"}}).Err())
	expectOps(t, cs, "modify")
}
