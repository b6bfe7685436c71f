package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

type unwindStage struct {
	path     []string
	index    []string // includeArrayIndex path, or nil
	preserve bool
}

func compileUnwind(spec any, _ *compileCtx) ([]stage, error) {
	s := &unwindStage{}
	var pathStr string
	switch t := spec.(type) {
	case string:
		pathStr = t
	case bson.D:
		var err error
		if pathStr, err = s.parseOptions(t); err != nil {
			return nil, err
		}
	default:
		return nil, mongoerr.New(mongoerr.UnwindSpecBadType, "expected either a string or an object as specification for $unwind stage, got %s", typeOf(spec))
	}
	if pathStr == "" {
		return nil, mongoerr.New(mongoerr.UnwindMissingPath, "no path specified to $unwind stage")
	}
	path, err := splitFieldPath(pathStr, mongoerr.UnwindPathNotFieldPath, "path option to $unwind stage")
	if err != nil {
		return nil, err
	}
	s.path = path
	return []stage{s}, nil
}

func (s *unwindStage) parseOptions(d bson.D) (string, error) {
	var path string
	for _, e := range d {
		switch e.Key {
		case "path":
			p, ok := e.Value.(string)
			if !ok {
				return "", mongoerr.New(mongoerr.UnwindPathNotString, "expected a string as the path for $unwind stage, got %s", typeOf(e.Value))
			}
			path = p
		case "includeArrayIndex":
			p, ok := e.Value.(string)
			if !ok {
				return "", mongoerr.New(mongoerr.UnwindIndexFieldEmpty, "expected a non-empty string for the includeArrayIndex  option to $unwind stage")
			}
			if p == "" || strings.HasPrefix(p, "$") {
				return "", mongoerr.New(mongoerr.UnwindIndexFieldDollarPrefixed, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': %s", p)
			}
			idx, err := splitDotted(p)
			if err != nil {
				return "", err
			}
			s.index = idx
		case "preserveNullAndEmptyArrays":
			b, ok := e.Value.(bool)
			if !ok {
				return "", mongoerr.New(mongoerr.UnwindPreserveNotBool, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s", typeOf(e.Value))
			}
			s.preserve = b
		default:
			return "", mongoerr.New(mongoerr.UnwindUnknownOption, "unrecognized option to $unwind stage: %s", e.Key)
		}
	}
	return path, nil
}

func typeOf(v any) string {
	return expr.TypeName(v)
}

func (s *unwindStage) run(in Iterator, _ *runCtx) Iterator {
	var pending []bson.D
	return iterx.Func(func() (bson.D, bool, error) {
		for len(pending) == 0 {
			d, ok, err := pull(in)
			if err != nil || !ok {
				return nil, false, err
			}
			pending = s.unwind(d)
		}
		d := pending[0]
		pending = pending[1:]
		return d, true, nil
	}, in.Close)
}

// unwind returns the documents one input document unwinds into.
func (s *unwindStage) unwind(d bson.D) []bson.D {
	v := getPath(d, s.path)
	arr, isArr := v.(bson.A)
	switch {
	case isArr && len(arr) > 0:
		out := make([]bson.D, len(arr))
		for i, el := range arr {
			out[i] = s.withIndex(withPath(d, s.path, el), int64(i))
		}
		return out
	case !s.preserve && (isArr || expr.IsNullish(v)):
		return nil
	case isArr: // preserved empty array: the field is removed
		return []bson.D{s.withIndex(withPath(d, s.path, expr.Missing), nil)}
	}
	return []bson.D{s.withIndex(d, nil)}
}

func (s *unwindStage) withIndex(d bson.D, idx any) bson.D {
	if s.index == nil {
		return d
	}
	return withPath(d, s.index, idx)
}
