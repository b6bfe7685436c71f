//go:build invariants

package iterx

import (
	"errors"
	"testing"

	"github.com/relaydb/relaydb/internal/invariants"
)

const checkedBuild = true

// violation runs fn and returns the invariant it violated, or "".
func violation(fn func()) (msg string) {
	defer func() {
		if v, ok := recover().(invariants.Violation); ok {
			msg = string(v)
		}
	}()
	fn()
	return ""
}

// resurrect yields an item after it reported its end.
type resurrect struct{ calls int }

func (r *resurrect) Next() (int, bool) { r.calls++; return r.calls, r.calls != 1 }
func (r *resurrect) Err() error        { return nil }
func (r *resurrect) Close() error      { return nil }

// ignoresClose yields items after Close.
type ignoresClose struct{}

func (ignoresClose) Next() (int, bool) { return 1, true }
func (ignoresClose) Err() error        { return nil }
func (ignoresClose) Close() error      { return nil }

func TestCheckedCatchesBrokenRules(t *testing.T) {
	if v := violation(func() {
		it := Checked[int](ignoresClose{}, true)
		_ = it.Close()
		it.Next()
	}); v == "" {
		t.Error("an item after Close not caught")
	}
	if v := violation(func() {
		it := Checked(Slice([]int{1}), false)
		_ = it.Close()
		if _, ok := it.Next(); ok {
			t.Error("Slice yielded after Close")
		}
	}); v != "" {
		t.Errorf("Next after Close is allowed: %s", v)
	}
	if v := violation(func() {
		it := Checked[int](&resurrect{}, false)
		it.Next()
		it.Next()
	}); v == "" {
		t.Error("an item after the end not caught")
	}
	if v := violation(func() {
		it := Checked[int](&resurrect{}, true)
		it.Next()
		it.Next()
	}); v != "" {
		t.Errorf("a tailable iterator may yield after its end: %s", v)
	}
	if v := violation(func() {
		it := Checked(Func(func() (int, bool, error) { return 0, false, errors.New("x") }, nil), false)
		for range 3 {
			it.Next()
		}
		_ = it.Close()
	}); v != "" {
		t.Errorf("a failed iterator kept to the rules: %s", v)
	}
}
