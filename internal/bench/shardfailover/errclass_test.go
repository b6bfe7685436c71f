package shardfailover

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{mongo.CommandError{Code: 133, Name: "FailedToSatisfyReadPreference"}, "FailedToSatisfyReadPreference (133)"},
		{fmt.Errorf("wrapped: %w", mongo.CommandError{Code: 6, Name: "HostUnreachable"}), "HostUnreachable (6)"},
		{mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 11000}}}, "DuplicateKey (11000)"},
		{mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 133}}}, "FailedToSatisfyReadPreference (133)"},
		{mongo.WriteException{WriteErrors: mongo.WriteErrors{{Message: "no primary for shard sh0 at 127.0.0.1:5"}}},
			"write error without a code: no primary for shard sh0 at"},
		{mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Name: "WriteConcernFailed", Code: 64}},
			"writeConcernError WriteConcernFailed (64)"},
		{mongo.CommandError{Message: "connection(127.0.0.1:1) incomplete read of message header"},
			"error without a code: connection(127.0.0.1:1) incomplete read of message header"},
		{mongo.CommandError{Message: "connection(127.0.0.1:1) incomplete read of message header: context deadline exceeded",
			Wrapped: context.DeadlineExceeded}, "timeout"},
		{mongo.CommandError{Message: "connection reset", Labels: []string{"NetworkError"}}, "network"},
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("op: %w", context.DeadlineExceeded), "timeout"},
		{errNotFound, "not found"},
		{errors.New("connection reset by peer on 127.0.0.1:1234 while reading"), "connection reset by peer on 127.0.0.1:1234"},
	}
	for _, tt := range tests {
		if got := classify(tt.err); got != tt.want {
			t.Errorf("classify(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestOpLogClasses(t *testing.T) {
	l := newOpLog()
	now := time.Now()
	for i := 0; i < maxClasses+10; i++ {
		l.record(now, now, 0, kindRead, fmt.Sprintf("class %d", i))
	}
	l.record(now, now.Add(time.Millisecond), 1, kindUpdate, "")
	ops, classes, dropped := l.snapshot(now, now.Add(time.Second))
	if len(classes) != maxClasses+1 || classes[maxClasses] != "other" || dropped != 0 || len(ops) != maxClasses+11 {
		t.Errorf("%d classes (last %q), %d ops, %d dropped", len(classes), classes[len(classes)-1], len(ops), dropped)
	}
	if !l.okSince(1, now) || l.okSince(0, now.Add(-time.Second)) {
		t.Error("okSince: shard 1 succeeded after now, shard 0 never")
	}
}
