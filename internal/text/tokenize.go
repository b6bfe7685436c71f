package text

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold says which differences a comparison ignores.
type Fold struct {
	CaseSensitive      bool
	DiacriticSensitive bool
}

// words splits s into words: maximal runs of characters that are not
// delimiters. Delimiters are MongoDB's: characters with the Unicode
// properties White_Space, Dash, Hyphen, Quotation_Mark,
// Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal (STerm),
// except the apostrophe in English.
func words(s string, english bool) []string {
	var out []string
	start := -1
	for i, r := range s {
		inWord := !isDelimiter(r, english)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

var delimiterTables = []*unicode.RangeTable{unicode.White_Space, unicode.Dash, unicode.Hyphen,
	unicode.Quotation_Mark, unicode.Terminal_Punctuation, unicode.Pattern_Syntax, unicode.Sentence_Terminal}

func isDelimiter(r rune, english bool) bool {
	if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
		return false
	}
	if english && r == '\'' {
		return false
	}
	return unicode.IsOneOf(delimiterTables, r)
}

// fold applies f to s: lower case unless case-sensitive, diacritics
// removed unless diacritic-sensitive.
func (f Fold) fold(s string) string {
	if !f.DiacriticSensitive {
		s = stripDiacritics(s)
	}
	if !f.CaseSensitive {
		s = strings.ToLower(s)
	}
	return s
}

// stripDiacritics removes combining marks after canonical decomposition.
func stripDiacritics(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// Terms returns the index terms of s in l: its words folded, stop words
// dropped, stemmed. With case sensitivity the stem keeps the word's case.
func (l *Language) Terms(s string, f Fold) []string {
	ws := words(s, l.english)
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if t, ok := l.term(w, f); ok {
			out = append(out, t)
		}
	}
	return out
}

// term folds, filters and stems one word.
func (l *Language) term(w string, f Fold) (string, bool) {
	folded := f.fold(w)
	lower := strings.ToLower(folded)
	if l.IsStopWord(lower) {
		return "", false
	}
	stem := l.Stem(lower)
	if f.CaseSensitive {
		stem = withCase(stem, folded)
	}
	return stem, true
}

// withCase gives stem the case of orig where their letters agree.
func withCase(stem, orig string) string {
	s, o := []rune(stem), []rune(orig)
	for i := range s {
		if i < len(o) && unicode.ToLower(o[i]) == s[i] {
			s[i] = o[i]
		}
	}
	return string(s)
}
