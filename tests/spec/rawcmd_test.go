package spec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

func extDoc(t *testing.T, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return d
}

// matchCmd checks a built command with the unified-format matcher, as a
// commandStartedEvent expectation would.
func matchCmd(t *testing.T, want string, got bson.D) {
	t.Helper()
	m := &matcher{ents: newEntityMap()}
	if err := m.match(extDoc(t, want), normalize(got), true, "$"); err != nil {
		t.Errorf("%v\ncommand: %s", err, show(normalize(got)))
	}
}

func TestRawWriteCommands(t *testing.T) {
	coll := (&mongo.Client{}).Database("db").Collection("coll0")
	unack := writeconcern.Unacknowledged()
	a, err := parseUpdateArgs("updateOne", extDoc(t, `{"filter":{"_id":{"$gt":1}},"update":{"$inc":{"x":1}},"hint":{"_id":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	f := false
	for _, tc := range []struct {
		name, want string
		got        bson.D
	}{
		{"update w0 hint", `{"update":"coll0","updates":[{"q":{"_id":{"$gt":1}},"u":{"$inc":{"x":1}},"hint":{"_id":1}}],"writeConcern":{"w":0}}`,
			writeCommand(coll, "update", bson.A{updateStatement(a, false)}, commonWrite{ordered: true, wc: unack})},
		{"updateMany multi", `{"update":"coll0","updates":[{"q":{"_id":{"$gt":1}},"u":{"$inc":{"x":1}},"multi":true,"hint":{"_id":1}}],"bypassDocumentValidation":false}`,
			writeCommand(coll, "update", bson.A{updateStatement(a, true)}, commonWrite{ordered: true, bypass: &f})},
		{"delete limit", `{"delete":"coll0","deletes":[{"q":{"_id":{"$gt":1}},"hint":{"_id":1},"limit":1}],"writeConcern":{"w":0}}`,
			writeCommand(coll, "delete", bson.A{deleteStatement(a, false)}, commonWrite{ordered: true, wc: unack})},
		{"deleteMany limit 0", `{"delete":"coll0","deletes":[{"q":{"_id":{"$gt":1}},"hint":{"_id":1},"limit":0}]}`,
			writeCommand(coll, "delete", bson.A{deleteStatement(a, true)}, commonWrite{ordered: true})},
		{"findAndModify", `{"findAndModify":"coll0","query":{"_id":{"$gt":1}},"update":{"$inc":{"x":1}},"hint":{"_id":1},"writeConcern":{"w":0}}`,
			findAndModifyCommand(coll, "findOneAndUpdate", fam{updateArgs: a}, unack)},
		{"findAndModify remove", `{"findAndModify":"coll0","query":{"_id":{"$gt":1}},"remove":true,"update":{"$$exists":false}}`,
			findAndModifyCommand(coll, "findOneAndDelete", fam{updateArgs: a}, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) { matchCmd(t, tc.want, tc.got) })
	}
	// The default write concern is not written into the command.
	if _, ok := lookup(writeCommand(coll, "insert", bson.A{}, commonWrite{}), "writeConcern"); ok {
		t.Error("writeConcern sent for the default write concern")
	}
}

func TestNeedsRaw(t *testing.T) {
	coll := (&mongo.Client{}).Database("db").Collection("c")
	r := &testRun{ents: newEntityMap()}
	hint := Operation{Arguments: extDoc(t, `{"filter":{},"hint":"_id_"}`)}
	bulkHint := Operation{Arguments: extDoc(t, `{"requests":[{"deleteOne":{"filter":{},"hint":"_id_"}}]}`)}
	bypassFalse := Operation{Arguments: extDoc(t, `{"document":{},"bypassDocumentValidation":false}`)}
	bypassTrue := Operation{Arguments: extDoc(t, `{"document":{},"bypassDocumentValidation":true}`)}
	if needsRaw(r, coll, hint) || needsRaw(r, coll, bypassTrue) {
		t.Error("raw path for an acknowledged hint or bypass: true")
	}
	if !needsRaw(r, coll, bypassFalse) {
		t.Error("bypassDocumentValidation: false must go raw")
	}
	r.ents.setWC(coll, writeconcern.Unacknowledged())
	if !needsRaw(r, coll, hint) || !needsRaw(r, coll, bulkHint) {
		t.Error("hint with w:0 must go raw")
	}
	if needsRaw(r, coll, Operation{Arguments: extDoc(t, `{"filter":{}}`)}) {
		t.Error("w:0 without hint goes through the driver")
	}
}

func TestBulkTally(t *testing.T) {
	tl := &bulkTally{res: mongo.BulkWriteResult{UpsertedIDs: map[int64]any{}}}
	tl.add("insert", 0, writeReply{n: 2})
	tl.add("update", 2, writeReply{n: 3, nModified: 1, upserted: map[int64]any{1: int32(9)},
		writeErrors: []mongo.WriteError{{Index: 0, Code: 11000}}})
	tl.add("delete", 5, writeReply{n: 1})
	want := `{"deletedCount":1,"insertedCount":2,"matchedCount":2,"modifiedCount":1,"upsertedCount":1,"upsertedIds":{"3":9}}`
	m := &matcher{ents: newEntityMap()}
	if err := m.match(extDoc(t, want), bulkResult(&tl.res), false, "$"); err != nil {
		t.Error(err)
	}
	if len(tl.wes) != 1 || tl.wes[0].Index != 2 {
		t.Errorf("write error index not offset: %+v", tl.wes)
	}
}

func TestInsertManyPartial(t *testing.T) {
	bwe := mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{
		{WriteError: mongo.WriteError{Index: 1, Code: 11000}}, {WriteError: mongo.WriteError{Index: 3, Code: 11000}}}}
	for _, tc := range []struct {
		name    string
		ordered bool
		err     error
		want    any // insertedCount, or nil for an unset result
	}{
		{"unordered", false, bwe, int64(2)},
		{"ordered stops at first error", true, bwe, int64(1)},
		{"not a bulk error", false, mongo.CommandError{Code: 8}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := insertManyPartial(4, tc.ordered, tc.err)
			if tc.want == nil {
				if got != nil {
					t.Errorf("got %s, want unset", show(got))
				}
				return
			}
			n, _ := lookup(got.(bson.D), "insertedCount")
			if n != tc.want {
				t.Errorf("insertedCount %v, want %v", n, tc.want)
			}
		})
	}
}
