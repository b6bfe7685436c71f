package text

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// Language is one text search language: its stemmer and stop words (nil
// when the language has none, as "none").
type Language struct {
	Name    string
	stem    func(word string, stemStopWords bool) string
	stop    func(word string) bool
	english bool // the apostrophe joins words (MongoDB's English delimiters)

	mu    sync.RWMutex
	stems map[string]string // word -> stem, at most maxStems entries
}

// maxStems bounds each language's stem cache (Snowball stemming costs
// microseconds a word; vocabularies repeat).
const maxStems = 1 << 16

// Stem returns word's stem (word itself for a language without stemmer).
func (l *Language) Stem(word string) string {
	if l.stem == nil {
		return word
	}
	l.mu.RLock()
	s, ok := l.stems[word]
	l.mu.RUnlock()
	if ok {
		return s
	}
	s = l.stem(word, true)
	l.mu.Lock()
	if l.stems == nil {
		l.stems = map[string]string{}
	}
	if len(l.stems) < maxStems {
		l.stems[word] = s
	}
	l.mu.Unlock()
	return s
}

// IsStopWord reports whether a folded word is one of l's stop words.
func (l *Language) IsStopWord(word string) bool { return l.stop != nil && l.stop(word) }

// languages are MongoDB's text search languages (version 3) by name and
// two-letter code.
// TODO(#14): stemmers and stop words for danish, dutch, finnish, german,
// italian, portuguese, romanian and turkish (Snowball has them; the Go
// package used here does not): they are only tokenized and folded. The
// stop lists of french, spanish, russian, swedish, norwegian and
// hungarian are the Go package's, which may differ from MongoDB's.
var languages = func() map[string]*Language {
	m := map[string]*Language{}
	add := func(l *Language, code string) {
		m[l.Name] = l
		if code != "" {
			m[code] = l
		}
	}
	add(&Language{Name: "english", stem: english.Stem, stop: isEnglishStopWord, english: true}, "en")
	add(&Language{Name: "french", stem: french.Stem, stop: french.IsStopWord}, "fr")
	add(&Language{Name: "spanish", stem: spanish.Stem, stop: spanish.IsStopWord}, "es")
	add(&Language{Name: "russian", stem: russian.Stem, stop: russian.IsStopWord}, "ru")
	add(&Language{Name: "swedish", stem: swedish.Stem, stop: swedish.IsStopWord}, "sv")
	add(&Language{Name: "norwegian", stem: norwegian.Stem, stop: norwegian.IsStopWord}, "nb")
	add(&Language{Name: "hungarian", stem: hungarian.Stem, stop: hungarian.IsStopWord}, "hu")
	for name, code := range map[string]string{"danish": "da", "dutch": "nl", "finnish": "fi", "german": "de",
		"italian": "it", "portuguese": "pt", "romanian": "ro", "turkish": "tr"} {
		add(&Language{Name: name}, code)
	}
	add(&Language{Name: "none"}, "")
	return m
}()

// LookupLanguage returns the language named name (a name or a two-letter
// code, any case).
func LookupLanguage(name string) (*Language, bool) {
	l, ok := languages[strings.ToLower(name)]
	return l, ok
}
