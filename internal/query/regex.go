package query

import (
	"regexp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// regexMatcher implements {$regex} and regular expressions used as values
// ({a: /x/}, $in, $all, $not). It matches strings and symbols by pattern,
// and stored regular expressions by equal pattern and options.
type regexMatcher struct {
	src bson.Regex
	re  *regexp.Regexp
}

func (m *regexMatcher) matchValue(v any, missing bool) bool {
	switch x := v.(type) {
	case string:
		return m.re.MatchString(x)
	case bson.Symbol:
		return m.re.MatchString(string(x))
	case bson.Regex:
		return x.Pattern == m.src.Pattern && x.Options == m.src.Options
	}
	return false
}

// newRegex compiles a PCRE-style pattern with MongoDB's options (i, m, s,
// x, u) into Go's RE2 syntax. Patterns RE2 cannot express (backreferences,
// lookaround) are rejected as invalid.
func newRegex(pattern, options string) (*regexMatcher, error) {
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, badValue("Regular expression cannot contain an embedded null byte")
	}
	flags, extended, err := regexFlags(options)
	if err != nil {
		return nil, err
	}
	p := pattern
	if extended {
		p = stripExtended(p)
	}
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, codeErr(mongoerr.RegexMatchInvalid, "Regular expression is invalid: %v", err)
	}
	return &regexMatcher{src: bson.Regex{Pattern: pattern, Options: options}, re: re}, nil
}

func regexFlags(options string) (flags string, extended bool, err error) {
	for _, o := range options {
		switch o {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags, o) {
				flags += string(o)
			}
		case 'x':
			extended = true
		case 'u':
			// RE2 is always UTF-8 aware.
		default:
			return "", false, codeErr(mongoerr.RegexInvalidFlag, "invalid flag in regex options: %c", o)
		}
	}
	return flags, extended, nil
}

// stripExtended removes unescaped whitespace and #-comments outside
// character classes, as PCRE's extended mode does.
func stripExtended(p string) string {
	var b strings.Builder
	inClass, escaped := false, false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case escaped:
			escaped = false
		case ch == '\\':
			escaped = true
		case inClass:
			inClass = ch != ']'
		case ch == '[':
			inClass = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
			continue
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// parseRegexOp builds the matcher for a {$regex, $options} pair found in an
// operator document.
func parseRegexOp(ops bson.D) (*regexMatcher, error) {
	var pattern, options string
	var hasRegex, hasOptions, regexHasFlags bool
	for _, e := range ops {
		switch e.Key {
		case "$regex":
			hasRegex = true
			switch x := e.Value.(type) {
			case string:
				pattern = x
			case bson.Regex:
				pattern, options, regexHasFlags = x.Pattern, x.Options, x.Options != ""
			default:
				return nil, badValue("$regex has to be a string")
			}
		case "$options":
			s, ok := e.Value.(string)
			if !ok {
				return nil, badValue("$options has to be a string")
			}
			hasOptions = true
			options = s
		}
	}
	if !hasRegex {
		return nil, badValue("$options needs a $regex")
	}
	if hasOptions && regexHasFlags {
		return nil, badValue("options set in both $regex and $options")
	}
	return newRegex(pattern, options)
}
