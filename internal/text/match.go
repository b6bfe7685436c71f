package text

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Match reports whether doc, indexed by s, satisfies q: one of its terms,
// all of its phrases, none of its negated terms or phrases. A query with
// no terms matches nothing.
func (q *Query) Match(s *Spec, doc bson.D) (bool, error) {
	if len(q.Terms) == 0 {
		return false, nil
	}
	vals, err := s.values(doc)
	if err != nil {
		return false, err
	}
	have := map[string]bool{}
	for _, v := range vals {
		for _, t := range v.lang.Terms(v.s, q.Fold) {
			have[t] = true
		}
	}
	if !anyIn(q.Terms, have) || anyIn(q.NegatedTerms, have) {
		return false, nil
	}
	for _, p := range q.Phrases {
		if !q.phraseIn(p, vals) {
			return false, nil
		}
	}
	for _, p := range q.NegatedPhrases {
		if q.phraseIn(p, vals) {
			return false, nil
		}
	}
	return true, nil
}

func anyIn(terms []string, have map[string]bool) bool {
	for _, t := range terms {
		if have[t] {
			return true
		}
	}
	return false
}

// phraseIn reports whether a folded phrase occurs in one indexed string.
func (q *Query) phraseIn(p string, vals []value) bool {
	for _, v := range vals {
		if strings.Contains(q.Fold.fold(v.s), p) {
			return true
		}
	}
	return false
}

// Score is doc's text score for q: the sum of the scores doc's terms
// have in the index, over q's lookup terms.
func (q *Query) Score(s *Spec, doc bson.D) (float64, error) {
	terms, err := s.Terms(doc)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, t := range q.lookup {
		total += terms[t]
	}
	return total, nil
}
