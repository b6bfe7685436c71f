package repl

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestSecondaryRejectsWrites: a write sent straight to a secondary fails
// with NotWritablePrimary (10107); a retryable write (lsid + txnNumber)
// also carries the RetryableWriteError label drivers retry on.
func TestSecondaryRejectsWrites(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	insert := bson.D{{Key: "insert", Value: "d"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "$db", Value: "repl_d"}}
	r, err := rawCommand(sec.Host, insert)
	if err != nil {
		t.Fatalf("insert on secondary %s: %v", sec.Name, err)
	}
	if ok, code, name := replyCode(r); ok != 0 || code != 10107 || name != "NotWritablePrimary" {
		t.Errorf("insert on secondary: ok=%v code=%d codeName=%q, want ok=0 code=10107 NotWritablePrimary; reply %v", ok, code, name, r)
	}

	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
	retryable := append(insert[:2:2], bson.E{Key: "lsid", Value: lsid}, bson.E{Key: "txnNumber", Value: int64(1)}, insert[2])
	r, err = rawCommand(sec.Host, retryable)
	if err != nil {
		t.Fatalf("retryable insert on secondary %s: %v", sec.Name, err)
	}
	if _, code, _ := replyCode(r); code != 10107 || !slices.Contains(replyLabels(r), "RetryableWriteError") {
		t.Errorf("retryable insert on secondary: code=%d labels=%v, want 10107 with RetryableWriteError; reply %v", code, replyLabels(r), r)
	}

	// The driver sees the same code (retries off on the direct client).
	ctx, cancel := ctxT(5 * time.Second)
	defer cancel()
	_, err = direct(t, c, sec).Database("repl_d").Collection("d").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(10107) {
		t.Errorf("driver insert on secondary: err %v, want a server error with code 10107", err)
	}
}

// TestSecondaryReadNeedsSecondaryOk: a read on a secondary without
// secondaryOk ($readPreference absent) fails with NotPrimaryNoSecondaryOk
// (13435); with $readPreference secondaryPreferred it succeeds.
func TestSecondaryReadNeedsSecondaryOk(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	find := bson.D{{Key: "find", Value: "d"}, {Key: "$db", Value: "repl_d"}}
	r, err := rawCommand(sec.Host, find)
	if err != nil {
		t.Fatalf("find on secondary %s: %v", sec.Name, err)
	}
	if ok, code, name := replyCode(r); ok != 0 || code != 13435 || name != "NotPrimaryNoSecondaryOk" {
		t.Errorf("find on secondary without secondaryOk: ok=%v code=%d codeName=%q, want ok=0 code=13435 NotPrimaryNoSecondaryOk; reply %v", ok, code, name, r)
	}
	withRP := append(find[:1:1], bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}}, find[1])
	r, err = rawCommand(sec.Host, withRP)
	if err != nil {
		t.Fatalf("find on secondary with secondaryPreferred: %v", err)
	}
	if ok, code, _ := replyCode(r); ok != 1 {
		t.Errorf("find on secondary with $readPreference secondaryPreferred: ok=%v code=%d, want ok=1; reply %v", ok, code, r)
	}
	// The primary serves the same read without secondaryOk.
	r, err = rawCommand(p.Host, find)
	if err != nil {
		t.Fatalf("find on primary: %v", err)
	}
	if ok, _, _ := replyCode(r); ok != 1 {
		t.Errorf("find on primary: reply %v, want ok=1", r)
	}
}
