package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Folders are the spec-test folders the runner executes, relative to the
// spec directory.
var Folders = []string{"crud/unified", "index-management", "collection-management", "run-command/unified",
	"change-streams/unified", "sessions"}

// maxSchemaVersion is the newest unified-format schema this runner accepts
// (same major version, minor <= this).
var maxSchemaVersion = [2]int{1, 27}

// File is one parsed unified-format test file.
type File struct {
	Path              string
	Description       string           `bson:"description"`
	SchemaVersion     string           `bson:"schemaVersion"`
	RunOnRequirements []Requirement    `bson:"runOnRequirements"`
	CreateEntities    []bson.D         `bson:"createEntities"`
	InitialData       []CollectionData `bson:"initialData"`
	Tests             []Test           `bson:"tests"`
}

// Requirement is one runOnRequirement object.
type Requirement struct {
	MinServerVersion string   `bson:"minServerVersion"`
	MaxServerVersion string   `bson:"maxServerVersion"`
	Topologies       []string `bson:"topologies"`
	Serverless       string   `bson:"serverless"`
	Auth             *bool    `bson:"auth"`
	AuthMechanism    string   `bson:"authMechanism"`
	ServerParameters bson.D   `bson:"serverParameters"`
	CSFLE            any      `bson:"csfle"`
}

// CollectionData is an initialData or outcome element.
type CollectionData struct {
	CollectionName string   `bson:"collectionName"`
	DatabaseName   string   `bson:"databaseName"`
	CreateOptions  bson.D   `bson:"createOptions"`
	Documents      []bson.D `bson:"documents"`
}

// Test is one test case of a file.
type Test struct {
	Description       string           `bson:"description"`
	SkipReason        string           `bson:"skipReason"`
	RunOnRequirements []Requirement    `bson:"runOnRequirements"`
	Operations        []bson.D         `bson:"operations"`
	ExpectEvents      []bson.D         `bson:"expectEvents"`
	Outcome           []CollectionData `bson:"outcome"`
}

// Operation is one parsed element of test.operations.
type Operation struct {
	Name                 string
	Object               string
	Arguments            bson.D
	ExpectError          bson.D // nil when absent
	ExpectResult         any
	HasExpectResult      bool
	SaveResultAsEntity   string
	IgnoreResultAndError bool
}

// SpecDir returns the spec-tests directory: $RELAYDB_SPEC_DIR, or
// ../shared/spec-tests relative to the module root.
func SpecDir() (string, error) {
	if d := os.Getenv("RELAYDB_SPEC_DIR"); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("spec dir: %w", err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "spec-tests"), nil
		}
	}
	return "", fmt.Errorf("spec dir: no go.mod above the working directory")
}

// FolderFiles lists the JSON files of one folder, sorted.
func FolderFiles(specDir, folder string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(specDir, folder, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", folder, err)
	}
	sort.Strings(files)
	return files, nil
}

// LoadFile parses one test file (relaxed or canonical Extended JSON).
func LoadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var f File
	if err := bson.UnmarshalExtJSON(b, false, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	f.Path = path
	if err := checkSchemaVersion(f.SchemaVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

func checkSchemaVersion(v string) error {
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return fmt.Errorf("bad schemaVersion %q", v)
	}
	if major != maxSchemaVersion[0] || minor > maxSchemaVersion[1] {
		return fmt.Errorf("unsupported schemaVersion %q", v)
	}
	return nil
}

// ParseOperation turns an operations element into an Operation.
func ParseOperation(d bson.D) (Operation, error) {
	var op Operation
	for _, e := range d {
		switch e.Key {
		case "name":
			op.Name, _ = e.Value.(string)
		case "object":
			op.Object, _ = e.Value.(string)
		case "arguments":
			op.Arguments, _ = e.Value.(bson.D)
		case "expectError":
			op.ExpectError, _ = e.Value.(bson.D)
		case "expectResult":
			op.ExpectResult, op.HasExpectResult = e.Value, true
		case "saveResultAsEntity":
			op.SaveResultAsEntity, _ = e.Value.(string)
		case "ignoreResultAndError":
			op.IgnoreResultAndError, _ = e.Value.(bool)
		default:
			return op, fmt.Errorf("runner: unsupported operation field %q", e.Key)
		}
	}
	if op.Name == "" || op.Object == "" {
		return op, fmt.Errorf("operation without name or object: %v", d)
	}
	return op, nil
}

// lookup returns the value of key in d.
func lookup(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// shortName is a file path relative to the spec dir, for reports.
func shortName(specDir, path string) string {
	if rel, err := filepath.Rel(specDir, path); err == nil {
		return strings.TrimSuffix(rel, ".json")
	}
	return path
}
