package text

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Match reports whether doc, indexed by s, satisfies q: one of its terms,
// all of its phrases, none of its negated terms or phrases. A query with
// no terms matches nothing.
func (q *Query) Match(s *Spec, doc bson.D) (bool, error) {
	ok, _, err := q.Eval(s, doc)
	return ok, err
}

// Score is doc's text score for q: the sum of the scores doc's terms
// have in the index, over q's lookup terms.
func (q *Query) Score(s *Spec, doc bson.D) (float64, error) {
	_, score, err := q.Eval(s, doc)
	return score, err
}

// Eval is Match and Score in one pass over doc's strings.
func (q *Query) Eval(s *Spec, doc bson.D) (bool, float64, error) {
	vals, err := s.values(doc)
	if err != nil {
		return false, 0, err
	}
	terms := map[string]float64{}
	for _, v := range vals {
		scoreString(v, terms)
	}
	score := 0.0
	for _, t := range q.lookup {
		score += terms[t]
	}
	return q.matchValues(vals, terms), score, nil
}

func (q *Query) matchValues(vals []value, terms map[string]float64) bool {
	if len(q.Terms) == 0 {
		return false
	}
	have := func(t string) bool { _, ok := terms[t]; return ok }
	if q.Fold != (Fold{}) {
		folded := map[string]bool{}
		for _, v := range vals {
			for _, t := range v.lang.Terms(v.s, q.Fold) {
				folded[t] = true
			}
		}
		have = func(t string) bool { return folded[t] }
	}
	if !anyIn(q.Terms, have) || anyIn(q.NegatedTerms, have) {
		return false
	}
	for _, p := range q.Phrases {
		if !q.phraseIn(p, vals) {
			return false
		}
	}
	for _, p := range q.NegatedPhrases {
		if q.phraseIn(p, vals) {
			return false
		}
	}
	return true
}

func anyIn(terms []string, have func(string) bool) bool {
	for _, t := range terms {
		if have(t) {
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
