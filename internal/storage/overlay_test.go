package storage

import (
	"fmt"
	"slices"
	"testing"
)

// TestOverlayIter checks reads of a snapshot with an overlay against a
// model, forward, backward, after seeks and direction switches.
func TestOverlayIter(t *testing.T) {
	e := openMem(t)
	b := e.NewBatch()
	for _, k := range []string{"b", "d", "f", "h"} {
		if err := b.Set([]byte{PrefixRepl, k[0]}, []byte("base-"+k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	snap := e.NewSnapshot()
	defer snap.Close()
	o := NewOverlay()
	o.Put([]byte{PrefixRepl, 'a'}, []byte("ov-a")) // before every base key
	o.Put([]byte{PrefixRepl, 'd'}, []byte("ov-d")) // shadows a base key
	o.Put([]byte{PrefixRepl, 'f'}, nil)            // deletes a base key
	o.Put([]byte{PrefixRepl, 'g'}, []byte("ov-g")) // between base keys
	o.Put([]byte{PrefixRepl, 'z'}, nil)            // deletes nothing
	v := snap.WithOverlay(o, nil)
	want := []string{"a=ov-a", "b=base-b", "d=ov-d", "g=ov-g", "h=base-h"}
	lo, hi := []byte{PrefixRepl}, []byte{PrefixRepl + 1}
	for _, tc := range []struct {
		name string
		walk func(it *Iter) []string
		want []string
	}{
		{"forward", func(it *Iter) []string { return ovCollect(it, it.First, it.Next) }, want},
		{"backward", func(it *Iter) []string { return ovCollect(it, it.Last, it.Prev) }, ovReversed(want)},
		{"seekGE d", func(it *Iter) []string {
			return ovCollect(it, func() bool { return it.SeekGE([]byte{PrefixRepl, 'd'}) }, it.Next)
		}, want[2:]},
		{"seekLT g", func(it *Iter) []string {
			return ovCollect(it, func() bool { return it.SeekLT([]byte{PrefixRepl, 'g'}) }, it.Prev)
		}, ovReversed(want[:3])},
		{"switch", func(it *Iter) []string {
			it.First()
			it.Next()
			it.Next() // d
			it.Prev() // b
			out := []string{ovEntry(it)}
			it.Next() // d
			return append(out, ovEntry(it))
		}, []string{"b=base-b", "d=ov-d"}},
	} {
		it, err := v.NewIter(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.walk(it); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		_ = it.Close()
	}
	for k, w := range map[byte]string{'a': "ov-a", 'b': "base-b", 'd': "ov-d", 'f': "", 'h': "base-h"} {
		got, ok, err := v.Get([]byte{PrefixRepl, k})
		if err != nil || string(got) != w || ok != (w != "") {
			t.Errorf("Get %c: %q %v %v, want %q", k, got, ok, err, w)
		}
	}
	if got, ok, _ := v.GetBase([]byte{PrefixRepl, 'f'}); !ok || string(got) != "base-f" {
		t.Errorf("GetBase f: %q %v", got, ok)
	}
}

func ovEntry(it *Iter) string { return fmt.Sprintf("%c=%s", it.Key()[1], it.Value()) }

func ovCollect(it *Iter, first, next func() bool) []string {
	var out []string
	for ok := first(); ok && len(out) < 20; ok = next() {
		out = append(out, ovEntry(it))
	}
	return out
}

func ovReversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
