package router

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestValidateShard(t *testing.T) {
	rs := helloInfo{setName: "sh0", writablePrimary: true, hosts: []string{"a:1", "b:2"}}
	tests := []struct {
		conn string
		h    helloInfo
		code mongoerr.Code
	}{
		{"sh0/a:1", rs, 0},
		{"sh0/a:1,b:2", rs, 0},
		{"sh0/a:1,c:3", rs, mongoerr.OperationFailed},                       // c is not a member
		{"a:1", rs, mongoerr.OperationFailed},                               // a set member named without its set
		{"other/a:1", rs, mongoerr.OperationFailed},                         // wrong set name
		{"a:1", helloInfo{writablePrimary: true}, mongoerr.OperationFailed}, // standalone
		{"x/a:1", helloInfo{writablePrimary: true}, mongoerr.OperationFailed},
		{"a:1", helloInfo{writablePrimary: true, msg: "isdbgrid"}, mongoerr.IllegalOperation},
		{"sh0/a:1", helloInfo{setName: "sh0", hosts: []string{"a:1"}}, mongoerr.NotWritablePrimary},
		{"sh0/a:1", helloInfo{setName: "sh0", writablePrimary: true, configsvr: true, hosts: []string{"a:1"}}, mongoerr.OperationFailed},
	}
	for _, tt := range tests {
		set, _, _ := strings.Cut(tt.conn, "/")
		if !strings.Contains(tt.conn, "/") {
			set = ""
		}
		var seeds []string
		_, list, found := strings.Cut(tt.conn, "/")
		if !found {
			list = tt.conn
		}
		seeds = strings.Split(list, ",")
		err := validateShard(tt.conn, set, seeds, tt.h)
		if tt.code == 0 && err != nil || tt.code != 0 && !mongoerr.Is(err, tt.code) {
			t.Errorf("validateShard(%s, %+v) = %v, want code %d", tt.conn, tt.h, err, tt.code)
		}
	}
}

func TestCursorTable(t *testing.T) {
	ct := newCursorTable()
	t0 := target{id: "sh0"}
	ct.addFrom(bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(42)}, {Key: "firstBatch", Value: bson.A{}}}}}, t0, "h:1")
	ct.addFrom(bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}}}}, t0, "h:1") // exhausted: not kept
	if got, ok := ct.lookup(42); !ok || got.t.id != "sh0" || got.host != "h:1" || ct.len() != 1 {
		t.Fatalf("lookup 42 = %v %v, len %d", got, ok, ct.len())
	}
	ct.remove(42)
	if _, ok := ct.lookup(42); ok {
		t.Fatal("removed cursor still found")
	}
}

func TestTxnTable(t *testing.T) {
	tt := newTxnTable()
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}
	stmt := func(n int64, start bool) bson.D {
		d := bson.D{{Key: "insert", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: n}, {Key: "autocommit", Value: false}}
		if start {
			d = append(d, bson.E{Key: "startTransaction", Value: true})
		}
		return d
	}
	if err := tt.check(stmt(1, true), "sh0"); err != nil {
		t.Fatal(err)
	}
	tt.record(stmt(1, true), target{id: "sh0"})
	if err := tt.check(stmt(1, false), "sh0"); err != nil {
		t.Fatalf("same shard refused: %v", err)
	}
	if err := tt.check(stmt(1, false), "sh1"); !mongoerr.Is(err, mongoerr.OperationNotSupportedInTransaction) {
		t.Fatalf("second shard: %v", err)
	}
	if err := tt.check(stmt(2, true), "sh1"); err != nil { // a new transaction
		t.Fatalf("next transaction: %v", err)
	}
	if got, ok := tt.take(stmt(1, false)); !ok || got.id != "sh0" {
		t.Fatalf("take = %v %v", got, ok)
	}
	retryable := bson.D{{Key: "insert", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(3)}}
	if txnKey(retryable) != "" || !retryableWrite(retryable) || retryableWrite(stmt(1, false)) {
		t.Fatal("a retryable write is not a transaction statement")
	}
}

func TestRouting(t *testing.T) {
	agg := func(stage string) *call {
		return &call{name: "aggregate", cmd: bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: stage, Value: "x"}}}}}}
	}
	if !readOnly(agg("$match")) || readOnly(agg("$out")) || idempotent(agg("$merge")) || !idempotent(agg("$group")) {
		t.Fatal("aggregate with and without $out/$merge")
	}
	if readOnly(&call{name: "insert"}) || idempotent(&call{name: "insert", cmd: bson.D{{Key: "insert", Value: "c"}}}) {
		t.Fatal("insert without txnNumber")
	}
	for _, name := range []string{"replSetGetStatus", "replSetStepDown", "_configsvrAddShard", "configureFailPoint"} {
		if !notForwarded(name) {
			t.Errorf("%s is forwarded", name)
		}
	}
	err := labelRetryable(bson.D{{Key: "insert", Value: "c"}, {Key: "txnNumber", Value: int64(1)}}, mongoerr.New(mongoerr.HostUnreachable, "x"))
	if me := mongoerr.From(err); len(me.Labels) != 1 || me.Labels[0] != mongoerr.LabelRetryableWrite {
		t.Fatalf("labels = %v", me.Labels)
	}
}

func TestSumSizes(t *testing.T) {
	a := bson.D{{Key: "name", Value: "x"}, {Key: "sizeOnDisk", Value: int64(10)}, {Key: "empty", Value: false}}
	b := bson.D{{Key: "name", Value: "x"}, {Key: "sizeOnDisk", Value: int64(5)}, {Key: "empty", Value: true}}
	got := sumSizes(a, b)
	if mustGet(got, "sizeOnDisk") != int64(15) || mustGet(got, "empty") != false || mustGet(a, "sizeOnDisk") != int64(10) {
		t.Fatalf("sumSizes = %v (a now %v)", got, a)
	}
}

func TestReadPreferenceRouting(t *testing.T) {
	find := func(mode string, extra ...bson.E) *call {
		cmd := bson.D{{Key: "find", Value: "c"}}
		if mode != "" {
			cmd = append(cmd, bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: mode}}})
		}
		return &call{name: "find", cmd: append(cmd, extra...)}
	}
	tests := []struct {
		c    *call
		want bool
	}{
		{find(""), false},
		{find("primary"), false},
		{find("primaryPreferred"), true},
		{find("nearest"), true},
		{find("secondary"), true},
		{find("secondaryPreferred"), true},
		{find("secondary", bson.E{Key: "lsid", Value: bson.D{}}, bson.E{Key: "txnNumber", Value: int64(1)}, bson.E{Key: "autocommit", Value: false}), false},
		{&call{name: "insert", cmd: bson.D{{Key: "insert", Value: "c"}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondary"}}}}}, false},
	}
	for i, tt := range tests {
		if _, got := selectsMember(tt.c); got != tt.want {
			t.Errorf("%d: selectsMember(%v) = %v", i, tt.c.cmd, got)
		}
	}
}
