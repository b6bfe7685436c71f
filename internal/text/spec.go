package text

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Wildcard is the weights key (and key pattern field) that indexes every
// string field.
const Wildcard = "$**"

// Spec is what a text index indexes: fields and their weights, the
// default language and the field that overrides it per document.
type Spec struct {
	Weights          map[string]float64 // field path -> weight ($** included when Wildcard)
	Wildcard         bool
	DefaultLanguage  *Language
	LanguageOverride string
}

// value is one indexed string with its weight and language.
type value struct {
	s      string
	weight float64
	lang   *Language
}

// values returns doc's indexed strings, MongoDB's FTSElementIterator: every
// string (or string array element) at a weighted path, or at any path
// under a wildcard, in the language of the innermost (sub)document that
// names one.
func (s *Spec) values(doc bson.D) ([]value, error) {
	var out []value
	err := s.walkDoc(doc, "", s.DefaultLanguage, &out)
	return out, err
}

func (s *Spec) walkDoc(doc bson.D, prefix string, lang *Language, out *[]value) error {
	lang, err := s.languageOf(doc, lang)
	if err != nil {
		return err
	}
	for _, e := range doc {
		path := prefix + e.Key
		if !s.Wildcard && !s.wantsPath(path) {
			continue
		}
		if err := s.walkValue(e.Value, path, lang, out); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) walkValue(v any, path string, lang *Language, out *[]value) error {
	switch t := v.(type) {
	case string:
		if w, ok := s.weightOf(path); ok {
			*out = append(*out, value{s: t, weight: w, lang: lang})
		}
	case bson.D:
		return s.walkDoc(t, path+".", lang, out)
	case bson.A:
		for _, e := range t {
			if err := s.walkValue(e, path, lang, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// wantsPath reports whether path is a weighted field or leads to one.
func (s *Spec) wantsPath(path string) bool {
	for f := range s.Weights {
		if f == path || strings.HasPrefix(f, path+".") {
			return true
		}
	}
	return false
}

func (s *Spec) weightOf(path string) (float64, bool) {
	if w, ok := s.Weights[path]; ok {
		return w, true
	}
	if s.Wildcard {
		return 1, true
	}
	return 0, false
}

// languageOf applies doc's language override field, if any.
func (s *Spec) languageOf(doc bson.D, cur *Language) (*Language, error) {
	for _, e := range doc {
		if e.Key != s.LanguageOverride {
			continue
		}
		name, ok := e.Value.(string)
		if !ok {
			return nil, mongoerr.New(mongoerr.TextLanguageOverrideType, "found language override field in document with non-string type")
		}
		l, ok := LookupLanguage(name)
		if !ok {
			return nil, mongoerr.New(mongoerr.TextLanguageUnsupported, "language override unsupported: %s", name)
		}
		return l, nil
	}
	return cur, nil
}

// Terms returns the terms a text index holds for doc, each with its
// score: per string, for each distinct term, weight * freq * coeff *
// adjustment, where the k-th occurrence of a term adds 1/2^(k-1) to freq,
// coeff = 0.5*count/numTokens + 0.5, and adjustment is 1.1 when the term
// is the whole string (case-insensitively), else 1. Strings add up.
func (s *Spec) Terms(doc bson.D) (map[string]float64, error) {
	vals, err := s.values(doc)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, v := range vals {
		scoreString(v, out)
	}
	return out, nil
}

type termStat struct {
	count int
	freq  float64
	exp   float64
}

func scoreString(v value, out map[string]float64) {
	terms := v.lang.Terms(v.s, Fold{})
	if len(terms) == 0 {
		return
	}
	stats := map[string]*termStat{}
	for _, t := range terms {
		st := stats[t]
		if st == nil {
			st = &termStat{exp: 1}
			stats[t] = st
		} else {
			st.exp *= 2
		}
		st.count++
		st.freq += 1 / st.exp
	}
	for t, st := range stats {
		coeff := 0.5*float64(st.count)/float64(len(terms)) + 0.5
		adj := 1.0
		if len(v.s) == len(t) && strings.EqualFold(v.s, t) {
			adj += 0.1
		}
		out[t] += v.weight * st.freq * coeff * adj
	}
}
