package iterx

import (
	"errors"
	"slices"
	"testing"
)

var errBoom = errors.New("boom")

// drainAll reads it to its end without closing it.
func drainAll[T any](it Iterator[T]) []T {
	var out []T
	for v, ok := it.Next(); ok; v, ok = it.Next() {
		out = append(out, v)
	}
	return out
}

func TestSliceLeavesItsInput(t *testing.T) {
	in := []int{1, 2, 3}
	it := Slice(in)
	if got := drainAll(it); !slices.Equal(got, in) {
		t.Fatalf("got %v", got)
	}
	if _, ok := it.Next(); ok || it.Err() != nil {
		t.Fatal("Next after the end must stay false with no error")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := it.Next(); ok {
		t.Fatal("Next after Close must return false")
	}
	if !slices.Equal(in, []int{1, 2, 3}) {
		t.Fatalf("Slice changed its input: %v", in)
	}
}

func TestConsumeLetsGo(t *testing.T) {
	a, b := new(int), new(int)
	in := []*int{a, b}
	it := Consume(in)
	if v, ok := it.Next(); !ok || v != a || in[0] != nil {
		t.Fatalf("first: %v %v, slot %v", v, ok, in[0])
	}
	if got := drainAll(it); len(got) != 1 || got[0] != b || in[1] != nil {
		t.Fatalf("rest: %v, slots %v", got, in)
	}
}

func TestFuncLatchesEndAndError(t *testing.T) {
	calls := 0
	it := Func(func() (int, bool, error) {
		calls++
		if calls == 2 {
			return 0, false, errBoom
		}
		return calls, true, nil
	}, nil)
	if v, ok := it.Next(); !ok || v != 1 {
		t.Fatalf("first: %v %v", v, ok)
	}
	for range 3 {
		if _, ok := it.Next(); ok {
			t.Fatal("Next after an error must stay false")
		}
	}
	if calls != 2 || !errors.Is(it.Err(), errBoom) {
		t.Fatalf("calls %d, err %v", calls, it.Err())
	}
}

func TestFuncClosesOnce(t *testing.T) {
	closes := 0
	it := Func(func() (int, bool, error) { return 0, false, nil }, func() error { closes++; return errBoom })
	if err := it.Close(); !errors.Is(err, errBoom) {
		t.Fatalf("Close: %v", err)
	}
	_ = it.Close()
	if closes != 1 {
		t.Fatalf("close ran %d times", closes)
	}
}

// tail is a tailable source: it yields what was appended since.
type tail struct {
	items  []int
	closed bool
}

func (t *tail) Next() (int, bool) {
	if len(t.items) == 0 {
		return 0, false
	}
	v := t.items[0]
	t.items = t.items[1:]
	return v, true
}
func (t *tail) Err() error   { return nil }
func (t *tail) Close() error { t.closed = true; return nil }

func TestMapPassesTheEndThrough(t *testing.T) {
	src := &tail{items: []int{1}}
	it := Map[int, int](src, func(v int) (int, error) { return v * 10, nil })
	if got := drainAll(it); !slices.Equal(got, []int{10}) {
		t.Fatalf("got %v", got)
	}
	src.items = append(src.items, 2)
	if got := drainAll(it); !slices.Equal(got, []int{20}) {
		t.Fatalf("a Map over a tailable source must stay tailable: got %v", got)
	}
	_ = it.Close()
	if !src.closed {
		t.Fatal("Close must close the input")
	}
}

func TestMapErrorEndsTheSequence(t *testing.T) {
	it := Map(Slice([]int{1, 2, 3}), func(v int) (int, error) {
		if v == 2 {
			return 0, errBoom
		}
		return v, nil
	})
	if got := drainAll(it); !slices.Equal(got, []int{1}) || !errors.Is(it.Err(), errBoom) {
		t.Fatalf("got %v, err %v", got, it.Err())
	}
	if _, ok := it.Next(); ok {
		t.Fatal("Next after an error must stay false")
	}
}

func TestDrainReportsTheErrorAndCloses(t *testing.T) {
	closed := false
	it := Func(func() (int, bool, error) { return 0, false, errBoom }, func() error { closed = true; return nil })
	if _, err := Drain(it); !errors.Is(err, errBoom) || !closed {
		t.Fatalf("err %v, closed %v", err, closed)
	}
	got, err := Drain(Slice([]string{"a", "b"}))
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestCheckedIsFreeWithoutTheTag(t *testing.T) {
	it := Slice([]int{1})
	if got := Checked(it, false); got != it && !checkedBuild {
		t.Fatal("Checked must return its input without -tags invariants")
	}
}
