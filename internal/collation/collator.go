package collation

import (
	"bytes"
	"strings"
	"sync"
	"unicode"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Collator compares strings under one Spec. A nil *Collator is the
// simple (binary) collation.
type Collator struct {
	spec Spec
	pool sync.Pool // *worker: x/text collators are not safe for concurrent use
}

type worker struct {
	c   *collate.Collator
	buf collate.Buffer
}

// maxCached bounds the collators kept for reuse across requests.
const maxCached = 256

var cache struct {
	mu sync.Mutex
	m  map[Spec]*Collator
}

// New returns the collator for spec (nil spec: nil, the simple collation).
func New(spec *Spec) *Collator {
	if spec == nil {
		return nil
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if c := cache.m[*spec]; c != nil {
		return c
	}
	c := &Collator{spec: *spec}
	c.pool.New = func() any { return &worker{c: c.build()} }
	if cache.m == nil {
		cache.m = make(map[Spec]*Collator)
	}
	if len(cache.m) < maxCached {
		cache.m[*spec] = c
	}
	return c
}

// Spec returns the collator's spec (nil for the simple collation).
func (c *Collator) Spec() *Spec {
	if c == nil {
		return nil
	}
	s := c.spec
	return &s
}

// build makes an x/text collator: strength, caseLevel, backwards,
// numericOrdering and alternate go in as BCP 47 -u- keywords.
func (c *Collator) build() *collate.Collator {
	s := c.spec
	kw := [][2]string{{"ks", strengthKeyword[s.Strength]}}
	if s.CaseLevel {
		kw = append(kw, [2]string{"kc", "true"})
	}
	if s.Backwards {
		kw = append(kw, [2]string{"kb", "true"})
	}
	if s.NumericOrdering {
		kw = append(kw, [2]string{"kn", "true"})
	}
	if s.Alternate == "shifted" {
		kw = append(kw, [2]string{"ka", "shifted"})
	}
	tag := language.Make(tagFor(s.Locale))
	for _, k := range kw {
		if t, err := tag.SetTypeForKey(k[0], k[1]); err == nil {
			tag = t
		}
	}
	return collate.New(tag, collate.OptionsFromTag(tag))
}

var strengthKeyword = [...]string{1: "level1", 2: "level2", 3: "level3", 4: "level4", 5: "identic"}

// CompareString orders a and b (-1, 0, +1) under the collation. It
// compares sort keys: x/text's direct comparison ignores alternate
// "shifted" and disagrees with its keys on ignorable characters at the
// identical level (testdata/fuzz), and an index holds keys, so keys it is.
// FuzzParseCollation checks that CompareString and Key agree.
func (c *Collator) CompareString(a, b string) int {
	if c == nil {
		return strings.Compare(a, b)
	}
	w := c.pool.Get().(*worker)
	defer c.pool.Put(w)
	ka := w.c.KeyFromString(&w.buf, c.prepare(a))
	kb := w.c.KeyFromString(&w.buf, c.prepare(b))
	r := bytes.Compare(ka, kb)
	w.buf.Reset()
	return r
}

// Key is the collation sort key of s: byte order of keys is the
// collation's order of strings (the key MongoDB stores in an index).
func (c *Collator) Key(s string) string {
	if c == nil {
		return s
	}
	w := c.pool.Get().(*worker)
	defer c.pool.Put(w)
	k := string(w.c.KeyFromString(&w.buf, c.prepare(s)))
	w.buf.Reset()
	return k
}

// prepare applies caseFirst "upper" by swapping case: x/text orders lower
// case first at the tertiary level, and case does not change the primary
// and secondary weights, so swapping puts upper case first.
func (c *Collator) prepare(s string) string {
	if c.spec.CaseFirst != "upper" {
		return s
	}
	return strings.Map(swapCase, s)
}

func swapCase(r rune) rune {
	switch {
	case unicode.IsUpper(r):
		return unicode.ToLower(r)
	case unicode.IsLower(r):
		return unicode.ToUpper(r)
	}
	return r
}

// KeyValue is v with every string and symbol, at any depth inside arrays
// and documents, replaced by its sort key (a string); other values are
// returned as they are. Comparing KeyValues binary-wise orders values as
// comparing them under the collation does.
func (c *Collator) KeyValue(v any) any {
	if c == nil {
		return v
	}
	switch t := v.(type) {
	case string:
		return c.Key(t)
	case bson.Symbol:
		return c.Key(string(t))
	case bson.D:
		out := make(bson.D, len(t))
		for i, e := range t {
			out[i] = bson.E{Key: e.Key, Value: c.KeyValue(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(t))
		for i, e := range t {
			out[i] = c.KeyValue(e)
		}
		return out
	}
	return v
}
