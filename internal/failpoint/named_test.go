package failpoint

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestPointModes(t *testing.T) {
	tests := []struct {
		name string
		mode any
		want []bool // Check's answers, in order
	}{
		{"alwaysOn", "alwaysOn", []bool{true, true, true}},
		{"off", "off", []bool{false, false}},
		{"times", bson.D{{Key: "times", Value: int32(2)}}, []bool{true, true, false, false}},
		{"skip", bson.D{{Key: "skip", Value: int32(2)}}, []bool{false, false, true, true}},
		{"skip then times", bson.D{{Key: "skip", Value: int32(1)}, {Key: "times", Value: int64(1)}}, []bool{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Point{name: "test"}
			if err := p.Configure(tt.mode, nil); err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.want {
				if _, got := p.Check(); got != want {
					t.Errorf("check %d = %v, want %v", i, got, want)
				}
			}
		})
	}
}

func TestConfigureNamed(t *testing.T) {
	fc := &FailCommand{}
	if err := Configure(fc, "noSuchFailPoint", "alwaysOn", nil); !mongoerr.Is(err, mongoerr.BadValue) {
		t.Errorf("unknown fail point: %v, want BadValue", err)
	}
	if err := Configure(fc, "maxTimeAlwaysTimeOut", nil, nil); !mongoerr.Is(err, mongoerr.BadValue) {
		t.Errorf("missing mode: %v, want BadValue", err)
	}
	if err := Configure(fc, "maxTimeAlwaysTimeOut", "alwaysOn", nil); err != nil || !MaxTimeAlwaysTimeOut.On() {
		t.Fatalf("alwaysOn: %v (on %v)", err, MaxTimeAlwaysTimeOut.On())
	}
	if err := Configure(fc, "maxTimeAlwaysTimeOut", "off", nil); err != nil || MaxTimeAlwaysTimeOut.On() {
		t.Fatalf("off: %v (on %v)", err, MaxTimeAlwaysTimeOut.On())
	}
}

func TestCheckTxnWrite(t *testing.T) {
	tests := []struct {
		name      string
		data      bson.D
		closeConn bool
		code      mongoerr.Code // 0: no error
	}{
		{"default closes", nil, true, 0},
		{"fail before commit", bson.D{{Key: "failBeforeCommitExceptionCode", Value: int32(1)}}, true, mongoerr.InternalError},
		{"no close", bson.D{{Key: "closeConnection", Value: false}, {Key: "failBeforeCommitExceptionCode", Value: int32(mongoerr.InterruptedAtShutdown)}}, false, mongoerr.InterruptedAtShutdown},
	}
	defer OnPrimaryTransactionalWrite.Configure("off", nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := OnPrimaryTransactionalWrite.Configure(bson.D{{Key: "times", Value: int32(1)}}, tt.data); err != nil {
				t.Fatal(err)
			}
			tw := CheckTxnWrite()
			if tw == nil {
				t.Fatal("did not act")
			}
			if tw.CloseConn != tt.closeConn || (tt.code == 0) != (tw.Err == nil) || (tw.Err != nil && mongoerr.From(tw.Err).Code != tt.code) {
				t.Errorf("got close %v err %v", tw.CloseConn, tw.Err)
			}
			if CheckTxnWrite() != nil {
				t.Error("acted past times")
			}
		})
	}
}

func TestCloseMarks(t *testing.T) {
	if ClosePending() || TakeClose("s", 1) {
		t.Fatal("a mark before any was made")
	}
	MarkClose("s", 1)
	if !ClosePending() || TakeClose("s", 2) || TakeClose("other", 1) {
		t.Fatal("mark missing, or taken by another write")
	}
	if !TakeClose("s", 1) || TakeClose("s", 1) || ClosePending() {
		t.Error("a mark is taken exactly once")
	}
	for i := range maxCloseMarks + 10 {
		MarkClose("s", int64(i))
	}
	if n := closeMarks.n.Load(); n > maxCloseMarks {
		t.Errorf("%d marks kept, bound %d", n, maxCloseMarks)
	}
}
