package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Properties are YCSB's workload properties: name -> value, as strings.
type Properties map[string]string

// Clone returns a copy.
func (p Properties) Clone() Properties {
	c := make(Properties, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}

// Merge copies every property of o into p, overriding.
func (p Properties) Merge(o Properties) {
	for k, v := range o {
		p[k] = v
	}
}

// Keys returns the names, sorted.
func (p Properties) Keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SetPair parses "name=value" (the argument of -p).
func (p Properties) SetPair(pair string) error {
	name, value, ok := strings.Cut(pair, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("property %q: want name=value", pair)
	}
	p[strings.TrimSpace(name)] = value
	return nil
}

// String returns the value of name, or def.
func (p Properties) String(name, def string) string {
	if v, ok := p[name]; ok {
		return strings.TrimSpace(v)
	}
	return def
}

// Int64 returns the integer value of name, or def.
func (p Properties) Int64(name string, def int64) (int64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("property %s=%q: not an integer", name, v)
	}
	return n, nil
}

// Float returns the floating-point value of name, or def.
func (p Properties) Float(name string, def float64) (float64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("property %s=%q: not a number", name, v)
	}
	return f, nil
}

// Bool returns the value of name as Java's Boolean.parseBoolean reads it
// (true only for "true", any case), or def when absent.
func (p Properties) Bool(name string, def bool) bool {
	v, ok := p[name]
	if !ok {
		return def
	}
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

// LoadPropertiesFile reads a YCSB property file (-P).
func LoadPropertiesFile(path string) (Properties, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("property file: %w", err)
	}
	defer f.Close()
	p, err := ParseProperties(f)
	if err != nil {
		return nil, fmt.Errorf("property file %s: %w", path, err)
	}
	return p, nil
}

// ParseProperties reads java.util.Properties' text format, which YCSB's
// workload files use: '#' or '!' comments, "key=value", "key:value" or
// "key value", leading blanks ignored, a trailing backslash continuing the
// line, and the escapes \t \n \r \f \\ \uXXXX (any other \c is c).
func ParseProperties(r io.Reader) (Properties, error) {
	p := Properties{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var pending strings.Builder
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if pending.Len() == 0 && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		if continues(line) {
			pending.WriteString(line[:len(line)-1])
			continue
		}
		pending.WriteString(line)
		if err := p.addLine(pending.String()); err != nil {
			return nil, err
		}
		pending.Reset()
	}
	if pending.Len() > 0 {
		if err := p.addLine(pending.String()); err != nil {
			return nil, err
		}
	}
	return p, sc.Err()
}

// continues reports whether line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// addLine splits a logical line at the first unescaped '=', ':' or blank.
func (p Properties) addLine(line string) error {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	key, rest := line[:i], line[i:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	k, err := unescape(key)
	if err != nil {
		return err
	}
	v, err := unescape(rest)
	if err != nil {
		return err
	}
	p[k] = v
	return nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\u escape in %q", s)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\u escape in %q", s)
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
