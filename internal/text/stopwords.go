package text

import "github.com/kljensen/snowball/english"

// English stop words are the Snowball project's English stop list, the
// one MongoDB's text indexes use: the Go Snowball package's list, less the
// words it adds to Snowball's (can, will, just, don, now, s, t), plus the
// ones it leaves out (could, would, ought, cannot and the contractions).
var (
	englishNotStop = map[string]bool{"can": true, "will": true, "just": true, "don": true, "now": true, "s": true, "t": true}
	englishExtra   = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range []string{"could", "would", "ought", "cannot",
			"i'm", "you're", "he's", "she's", "it's", "we're", "they're",
			"i've", "you've", "we've", "they've", "i'd", "you'd", "he'd", "she'd", "we'd", "they'd",
			"i'll", "you'll", "he'll", "she'll", "we'll", "they'll",
			"isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't",
			"doesn't", "don't", "didn't", "won't", "wouldn't", "shan't", "shouldn't",
			"can't", "couldn't", "mustn't", "let's", "that's", "who's", "what's",
			"here's", "there's", "when's", "where's", "why's", "how's"} {
			m[w] = true
		}
		return m
	}()
)

// isEnglishStopWord reports whether a folded word is an English stop word.
func isEnglishStopWord(w string) bool {
	return englishExtra[w] || (english.IsStopWord(w) && !englishNotStop[w])
}
