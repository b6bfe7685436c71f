package expr

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type regexFn func(re *regexp.Regexp, s string) any

// compileRegex builds $regexMatch/$regexFind/$regexFindAll. Patterns run on
// Go's RE2 engine.
// TODO(#2): PCRE-only syntax (lookaround, backreferences) and the 'x'
// option are not supported and fail with code 51111.
func compileRegex(fn regexFn) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		m, err := namedArgs(name, raw, sc, []string{"input", "regex", "options"}, "input", "regex")
		if err != nil {
			return nil, err
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			in, err := m["input"].Eval(doc, vars)
			if err != nil {
				return nil, err
			}
			re, err := evalRegex(name, m, doc, vars)
			if err != nil {
				return nil, err
			}
			if IsNullish(in) || re == nil {
				return fn(nil, ""), nil
			}
			s, ok := in.(string)
			if !ok {
				return nil, errf(mongoerr.RegexInputNotString, "%s needs 'input' to be of type string", name)
			}
			return fn(re, s), nil
		}), nil
	}
}

func evalRegex(name string, m map[string]Expr, doc bson.D, vars *Vars) (*regexp.Regexp, error) {
	rv, err := m["regex"].Eval(doc, vars)
	if err != nil || IsNullish(rv) {
		return nil, err
	}
	ov, err := evalOpt(m["options"], doc, vars)
	if err != nil {
		return nil, err
	}
	var pattern, opts string
	switch t := rv.(type) {
	case string:
		pattern = t
	case bson.Regex:
		pattern, opts = t.Pattern, t.Options
	default:
		return nil, errf(mongoerr.RegexPatternBadType, "%s needs 'regex' to be of type string or regex", name)
	}
	if !IsNullish(ov) {
		s, ok := ov.(string)
		if !ok {
			return nil, errf(mongoerr.RegexOptionsNotString, "%s needs 'options' to be of type string", name)
		}
		if opts != "" && s != "" {
			return nil, errf(mongoerr.RegexOptionsInBoth, "%s: regex option(s) specified in both 'regex' and 'option' fields", name)
		}
		opts += s
	}
	return CompileRegex(name, pattern, opts)
}

// CompileRegex translates a MongoDB pattern and options (i, m, s) into a Go
// regexp.
func CompileRegex(name, pattern, opts string) (*regexp.Regexp, error) {
	flags := ""
	for _, o := range opts {
		switch o {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags, o) {
				flags += string(o)
			}
		case 'u':
		default:
			return nil, errf(mongoerr.RegexInvalidFlag, "%s invalid flag in regex options: %c", name, o)
		}
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, errf(mongoerr.RegexExprInvalid, "Invalid Regex in %s: %v", name, err)
	}
	return re, nil
}

func regexMatch(re *regexp.Regexp, s string) any {
	return re != nil && re.MatchString(s)
}

func regexFind(re *regexp.Regexp, s string) any {
	if re == nil {
		return nil
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return nil
	}
	return matchDoc(s, loc)
}

func regexFindAll(re *regexp.Regexp, s string) any {
	out := bson.A{}
	if re == nil {
		return out
	}
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, matchDoc(s, loc))
	}
	return out
}

func matchDoc(s string, loc []int) bson.D {
	caps := bson.A{}
	for i := 2; i < len(loc); i += 2 {
		if loc[i] < 0 {
			caps = append(caps, nil)
			continue
		}
		caps = append(caps, s[loc[i]:loc[i+1]])
	}
	return bson.D{
		{Key: "match", Value: s[loc[0]:loc[1]]},
		{Key: "idx", Value: int32(utf8.RuneCountInString(s[:loc[0]]))},
		{Key: "captures", Value: caps},
	}
}
