package text

import (
	"sort"
	"strings"
	"unicode"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Query is a parsed $text: {$search, $language, $caseSensitive,
// $diacriticSensitive}. Terms are stemmed and folded per Fold; phrases
// are folded. A document matches when it holds one of Terms, every
// phrase, no negated term and no negated phrase.
type Query struct {
	Terms, NegatedTerms     []string
	Phrases, NegatedPhrases []string
	Language                *Language
	Fold                    Fold
	lookup                  []string // Terms folded as the index folds them
}

// ParseQuery parses $text's argument; defaultLang is the text index's
// default language (used when $language is absent).
func ParseQuery(arg any, defaultLang *Language) (*Query, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "$text expects an object")
	}
	q := &Query{Language: defaultLang}
	search, have := "", false
	for _, e := range d {
		var ok bool
		switch e.Key {
		case "$search":
			search, ok = e.Value.(string)
			have = true
		case "$language":
			ok = q.setLanguage(e.Value)
		case "$caseSensitive":
			q.Fold.CaseSensitive, ok = e.Value.(bool)
		case "$diacriticSensitive":
			q.Fold.DiacriticSensitive, ok = e.Value.(bool)
		default:
			return nil, mongoerr.New(mongoerr.BadValue, "extra fields in $text")
		}
		if !ok {
			return nil, argError(e)
		}
	}
	if !have {
		return nil, mongoerr.New(mongoerr.BadValue, "$search required")
	}
	if q.Language == nil {
		return nil, mongoerr.New(mongoerr.BadValue, "unsupported language: \"%v\" for text index version 3", languageArg(d))
	}
	q.parse(search)
	return q, nil
}

func (q *Query) setLanguage(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	q.Language, _ = LookupLanguage(s) // nil: reported once parsing is done
	return true
}

func languageArg(d bson.D) any {
	for _, e := range d {
		if e.Key == "$language" {
			return e.Value
		}
	}
	return nil
}

func argError(e bson.E) error {
	want := "a String"
	if e.Key == "$caseSensitive" || e.Key == "$diacriticSensitive" {
		want = "a bool"
	}
	return mongoerr.New(mongoerr.BadValue, "%s needs %s", e.Key, want)
}

// parse splits the search string: words are terms, "quoted" text is a
// phrase (its words are terms too), a '-' at the start of a word or
// phrase (after whitespace or at the start) negates it.
func (q *Query) parse(search string) {
	terms, neg, lookup := map[string]bool{}, map[string]bool{}, map[string]bool{}
	inPhrase, negate, afterSpace := false, false, true
	phraseStart, phraseNeg := 0, false
	rs := []rune(search)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '"':
			if inPhrase {
				q.addPhrase(string(rs[phraseStart:i]), phraseNeg)
			} else {
				phraseStart, phraseNeg = i+1, negate
			}
			inPhrase, negate = !inPhrase, false
			i++
		case r == '-' && !inPhrase && afterSpace:
			negate = true
			i++
		case unicode.IsSpace(r):
			if !inPhrase {
				negate = false
			}
			afterSpace = true
			i++
			continue
		default:
			j := i + 1
			for j < len(rs) && rs[j] != '"' && rs[j] != '-' && !unicode.IsSpace(rs[j]) {
				j++
			}
			negated := negate
			if inPhrase {
				negated = phraseNeg
			}
			q.addWords(string(rs[i:j]), inPhrase, negated, terms, neg, lookup)
			i = j
		}
		afterSpace = false
	}
	q.Terms, q.NegatedTerms, q.lookup = sortedKeys(terms), sortedKeys(neg), sortedKeys(lookup)
}

// addWords adds the terms of a chunk of the search string.
// Positive terms are also kept folded as the index folds (lookup).
func (q *Query) addWords(chunk string, inPhrase, negate bool, terms, neg, lookup map[string]bool) {
	if inPhrase && negate {
		return // a negated phrase's words are not terms
	}
	for _, t := range q.Language.Terms(chunk, q.Fold) {
		if negate {
			neg[t] = true
		} else {
			terms[t] = true
		}
	}
	if !negate {
		for _, t := range q.Language.Terms(chunk, Fold{}) {
			lookup[t] = true
		}
	}
}

func (q *Query) addPhrase(p string, negated bool) {
	p = q.Fold.fold(p)
	if strings.TrimSpace(p) == "" {
		return
	}
	if negated {
		q.NegatedPhrases = append(q.NegatedPhrases, p)
	} else {
		q.Phrases = append(q.Phrases, p)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LookupTerms are the index terms to scan: the query's terms folded as
// the index folds (case- and diacritic-insensitive), sorted.
func (q *Query) LookupTerms() []string { return q.lookup }
