package js

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestWhereForms(t *testing.T) {
	doc := bson.D{{Key: "x", Value: int32(2)}, {Key: "s", Value: "a"}, {Key: "n", Value: int64(7)}}
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"this.x < 3", true},
		{"this.x > 3", false},
		{"obj.s == 'a'", true},
		{"return this.x == 2", true},
		{"function() { return this.s === 'a' && this.n > 6 }", true},
		{"  function () { return false; }", false},
		{"this.n == 7", true},
		{"var y = 1; return y + this.x == 3", true},
		{"sleep(1); return true", true},
	} {
		s := NewSession(Options{})
		pred, err := s.Where(tc.code)
		if err != nil {
			t.Fatalf("%q: %v", tc.code, err)
		}
		got, err := pred(doc)
		if err != nil || got != tc.want {
			t.Errorf("%q = %v, %v; want %v", tc.code, got, err, tc.want)
		}
	}
}

func TestWhereErrors(t *testing.T) {
	for _, tc := range []struct {
		code    string
		compile bool // fails at compile time
		want    mongoerr.Code
	}{
		{"this.x <", true, mongoerr.JSInterpreterFailure},
		{"", true, mongoerr.BadValue},
		{"throw new Error('boom')", false, mongoerr.JSInterpreterFailure},
		{"function f() { return f() }; return f()", false, mongoerr.JSInterpreterFailure},
	} {
		s := NewSession(Options{})
		pred, err := s.Where(tc.code)
		if me := mongoerr.From(err); tc.compile && me != nil && strings.Contains(me.Msg, "Line") {
			t.Errorf("%q: message %q shows the wrapper's position", tc.code, me.Msg)
		}
		if !tc.compile && err == nil {
			_, err = pred(bson.D{})
		}
		if me := mongoerr.From(err); me == nil || me.Code != tc.want {
			t.Errorf("%q: err = %v, want code %d", tc.code, err, tc.want)
		}
	}
}

func TestInterrupt(t *testing.T) {
	s := NewSession(Options{MaxTime: 100 * time.Millisecond})
	pred, err := s.Where("while (true) {}")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = pred(bson.D{})
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.MaxTimeMSExpired {
		t.Fatalf("err = %v, want MaxTimeMSExpired", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	// The eval limit (no deadline) is a JSInterpreterFailure; sleep stops at it.
	s = NewSession(Options{EvalLimit: 50 * time.Millisecond})
	pred, _ = s.Where("sleep(10000); return true")
	start = time.Now()
	_, err = pred(bson.D{})
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.JSInterpreterFailure || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %v, want a quick JSInterpreterFailure", err, time.Since(start))
	}
	// The session still works after an interrupt.
	pred, _ = s.Where("true")
	if ok, err := pred(bson.D{}); !ok || err != nil {
		t.Errorf("after interrupt: %v, %v", ok, err)
	}
}

func TestDisabled(t *testing.T) {
	SetEnabled(false)
	defer SetEnabled(true)
	_, err := NewSession(Options{}).Where("true")
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.JSWhereNoEngine {
		t.Errorf("Where: %v", err)
	}
	_, err = NewSession(Options{}).Function("function() {}")
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.JSFunctionNoEngine {
		t.Errorf("Function: %v", err)
	}
}

func TestFunction(t *testing.T) {
	s := NewSession(Options{})
	fn, err := s.Function("function(a, b) { return {sum: a + b, big: b, id: arguments.length} }")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fn([]any{int32(1), int64(5)})
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "sum", Value: 6.0}, {Key: "big", Value: int64(5)}, {Key: "id", Value: 2.0}}
	if !equalValues(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := s.Function("1 + 1"); mongoerr.From(err) == nil {
		t.Errorf("a non-function body compiled")
	}
}

func TestPreludeHelpers(t *testing.T) {
	fn, err := NewSession(Options{}).Function("function(a) { print('x'); return [Array.sum(a), Array.avg(a), Array.contains(a, 2), Array.unique([1, 1, 2]).length, isNumber(1), tojson({a: 1})] }")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fn([]any{bson.A{1.0, 2.0, 3.0}})
	want := bson.A{6.0, 2.0, true, 2.0, true, `{"a":1}`}
	if err != nil || !equalValues(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
}

// TestHeapLimit: an evaluation that keeps allocating is interrupted once
// the heap has grown by MaxHeapGrowth.
func TestHeapLimit(t *testing.T) {
	old := MaxHeapGrowth
	MaxHeapGrowth = 64 << 20
	defer func() { MaxHeapGrowth = old }()
	pred, err := NewSession(Options{EvalLimit: 20 * time.Second}).Where("var a = []; while (true) { a.push({s: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' + a.length}); }")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = pred(bson.D{})
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.JSInterpreterFailure || !strings.Contains(me.Msg, "Out of memory") {
		t.Fatalf("err = %v after %v, want Out of memory", err, time.Since(start))
	}
	t.Logf("interrupted after %v", time.Since(start))
}

// TestMaxTimeIsCumulative: maxTimeMS counts the evaluations' time, not the
// time between them (a cursor's idle time between getMores).
func TestMaxTimeIsCumulative(t *testing.T) {
	s := NewSession(Options{MaxTime: 150 * time.Millisecond})
	quick, _ := s.Where("true")
	slow, _ := s.Where("sleep(60); return true")
	for i := 0; i < 3; i++ {
		time.Sleep(60 * time.Millisecond) // idle: not counted
		if ok, err := quick(bson.D{}); !ok || err != nil {
			t.Fatalf("quick evaluation %d after idle time: %v, %v", i, ok, err)
		}
	}
	var err error
	for i := 0; i < 4 && err == nil; i++ {
		_, err = slow(bson.D{})
	}
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.MaxTimeMSExpired {
		t.Fatalf("after 4 x 60 ms of a 150 ms budget: %v, want MaxTimeMSExpired", err)
	}
}

// TestKilled: a killed operation's evaluation stops with Interrupted; a
// context that ends without a kill (the command returned) does not.
func TestKilled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var killed atomic.Bool
	s := NewSession(Options{Ctx: ctx, Killed: killed.Load})
	pred, _ := s.Where("sleep(10000); return true")
	time.AfterFunc(100*time.Millisecond, func() { killed.Store(true); cancel() })
	start := time.Now()
	_, err := pred(bson.D{})
	if me := mongoerr.From(err); me == nil || me.Code != mongoerr.Interrupted || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want a prompt Interrupted", err, time.Since(start))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	s = NewSession(Options{Ctx: ctx2, Killed: func() bool { return false }})
	pred, _ = s.Where("sleep(300); return true")
	time.AfterFunc(50*time.Millisecond, cancel2)
	if ok, err := pred(bson.D{}); !ok || err != nil {
		t.Errorf("ended without a kill: %v, %v", ok, err)
	}
}
