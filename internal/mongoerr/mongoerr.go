// Package mongoerr holds the only errors a client ever sees: MongoDB error
// codes, their codeNames and the error labels drivers act on.
//
// Invariant: every error that leaves the command layer is an *Error. Internal
// failures are wrapped with context and surface as InternalError (1).
package mongoerr

import (
	"errors"
	"fmt"
)

// Code is a MongoDB error code (src/mongo/base/error_codes.yml).
type Code int32

// The codes relaydb produces. Names are MongoDB's codeNames.
const (
	InternalError                            Code = 1
	BadValue                                 Code = 2
	NoSuchKey                                Code = 4
	GraphContainsCycle                       Code = 5
	HostUnreachable                          Code = 6
	HostNotFound                             Code = 7
	UnknownError                             Code = 8
	FailedToParse                            Code = 9
	CannotMutateObject                       Code = 10
	UserNotFound                             Code = 11
	UnsupportedFormat                        Code = 12
	Unauthorized                             Code = 13
	TypeMismatch                             Code = 14
	Overflow                                 Code = 15
	InvalidLength                            Code = 16
	ProtocolError                            Code = 17
	AuthenticationFailed                     Code = 18
	IllegalOperation                         Code = 20
	NamespaceNotFound                        Code = 26
	IndexNotFound                            Code = 27
	PathNotViable                            Code = 28
	NonExistentPath                          Code = 29
	InvalidPath                              Code = 30
	RoleNotFound                             Code = 31
	ConflictingUpdateOperators               Code = 40
	CursorNotFound                           Code = 43
	NamespaceExists                          Code = 48
	MaxTimeMSExpired                         Code = 50
	DollarPrefixedFieldName                  Code = 52
	InvalidIdField                           Code = 53
	NotSingleValueField                      Code = 54
	InvalidDBRef                             Code = 55
	EmptyFieldName                           Code = 56
	DottedFieldName                          Code = 57
	CommandNotFound                          Code = 59
	ImmutableField                           Code = 66
	CannotCreateIndex                        Code = 67
	IndexAlreadyExists                       Code = 68
	InvalidOptions                           Code = 72
	InvalidNamespace                         Code = 73
	NodeNotFound                             Code = 74
	WriteConcernFailed                       Code = 64
	MultipleErrorsOccurred                   Code = 65
	IndexOptionsConflict                     Code = 85
	IndexKeySpecsConflict                    Code = 86
	NetworkTimeout                           Code = 89
	ShutdownInProgress                       Code = 91
	OperationFailed                          Code = 96
	InvalidReplicaSetConfig                  Code = 93
	NotYetInitialized                        Code = 94
	NotSecondary                             Code = 95
	WriteConflict                            Code = 112
	CommandNotSupported                      Code = 115
	ConflictingOperationInProgress           Code = 117
	NamespaceNotSharded                      Code = 118
	InvalidSyncSource                        Code = 119
	DocumentValidationFailure                Code = 121
	NotImplemented                           Code = 238
	CommandFailed                            Code = 125
	CappedPositionLost                       Code = 136
	InvalidIndexSpecificationOption          Code = 197
	InterruptedAtShutdown                    Code = 11600
	InterruptedDueToReplStateChange          Code = 11602
	Interrupted                              Code = 11601
	DuplicateKey                             Code = 11000
	NotWritablePrimary                       Code = 10107
	NotPrimaryNoSecondaryOk                  Code = 13435
	NotPrimaryOrSecondary                    Code = 13436
	StaleConfig                              Code = 13388
	InvalidBSON                              Code = 22
	LockBusy                                 Code = 46
	BSONObjectTooLarge                       Code = 10334
	InvalidUUID                              Code = 207
	InvalidPipelineOperator                  Code = 168
	QueryPlanKilled                          Code = 175
	ClientMarkedKilled                       Code = 46841
	APIStrictError                           Code = 323
	NoSuchTransaction                        Code = 251
	TransactionTooOld                        Code = 225
	IncompleteTransactionHistory             Code = 217
	PrimarySteppedDown                       Code = 189
	ExceededTimeLimit                        Code = 262
	ElectionInProgress                       Code = 216
	StaleTerm                                Code = 239
	NoProgressMade                           Code = 82
	ObjectIsBusy                             Code = 314
	TooManyFilesOpen                         Code = 264
	QueryExceededMemoryLimitNoDiskUseAllowed Code = 292
	OplogOperationUnsupported                Code = 62
	ConversionFailure                        Code = 241
	NotARetryableWriteCommand                Code = 336
	AlreadyInitialized                       Code = 23
	NoReplicationEnabled                     Code = 76
	UnsatisfiableWriteConcern                Code = 100
	NewReplicaSetConfigurationIncompatible   Code = 103
	NodeNotElectable                         Code = 104
	InconsistentReplicaSetNames              Code = 108
	ConfigurationInProgress                  Code = 109
	UnknownReplWriteConcern                  Code = 79
	NotAReplicaSet                           Code = 123
	LinearizableReadConcernError             Code = 170
	CannotIndexParallelArrays                Code = 171
)

var names = map[Code]string{
	QueryExceededMemoryLimitNoDiskUseAllowed: "QueryExceededMemoryLimitNoDiskUseAllowed",
	InternalError:                            "InternalError", BadValue: "BadValue", NoSuchKey: "NoSuchKey",
	GraphContainsCycle: "GraphContainsCycle", HostUnreachable: "HostUnreachable",
	HostNotFound: "HostNotFound", UnknownError: "UnknownError", FailedToParse: "FailedToParse",
	CannotMutateObject: "CannotMutateObject", UserNotFound: "UserNotFound",
	UnsupportedFormat: "UnsupportedFormat", Unauthorized: "Unauthorized",
	TypeMismatch: "TypeMismatch", Overflow: "Overflow", InvalidLength: "InvalidLength",
	ProtocolError: "ProtocolError", AuthenticationFailed: "AuthenticationFailed",
	IllegalOperation: "IllegalOperation", NamespaceNotFound: "NamespaceNotFound",
	IndexNotFound: "IndexNotFound", PathNotViable: "PathNotViable",
	NonExistentPath: "NonExistentPath", InvalidPath: "InvalidPath", RoleNotFound: "RoleNotFound",
	ConflictingUpdateOperators: "ConflictingUpdateOperators", CursorNotFound: "CursorNotFound",
	NamespaceExists: "NamespaceExists", MaxTimeMSExpired: "MaxTimeMSExpired",
	DollarPrefixedFieldName: "DollarPrefixedFieldName", InvalidIdField: "InvalidIdField",
	NotSingleValueField: "NotSingleValueField", InvalidDBRef: "InvalidDBRef",
	EmptyFieldName: "EmptyFieldName", DottedFieldName: "DottedFieldName",
	CommandNotFound: "CommandNotFound", ImmutableField: "ImmutableField",
	CannotCreateIndex: "CannotCreateIndex", IndexAlreadyExists: "IndexAlreadyExists",
	InvalidOptions: "InvalidOptions", InvalidNamespace: "InvalidNamespace",
	NodeNotFound: "NodeNotFound", WriteConcernFailed: "WriteConcernFailed",
	MultipleErrorsOccurred: "MultipleErrorsOccurred", IndexOptionsConflict: "IndexOptionsConflict",
	IndexKeySpecsConflict: "IndexKeySpecsConflict", NetworkTimeout: "NetworkTimeout",
	ShutdownInProgress: "ShutdownInProgress", OperationFailed: "OperationFailed",
	InvalidReplicaSetConfig: "InvalidReplicaSetConfig", NotYetInitialized: "NotYetInitialized",
	NotSecondary: "NotSecondary", WriteConflict: "WriteConflict",
	CommandNotSupported:            "CommandNotSupported",
	ConflictingOperationInProgress: "ConflictingOperationInProgress",
	NamespaceNotSharded:            "NamespaceNotSharded", InvalidSyncSource: "InvalidSyncSource",
	DocumentValidationFailure: "DocumentValidationFailure", NotImplemented: "NotImplemented",
	CommandFailed: "CommandFailed", CappedPositionLost: "CappedPositionLost",
	InvalidIndexSpecificationOption: "InvalidIndexSpecificationOption",
	InterruptedAtShutdown:           "InterruptedAtShutdown",
	InterruptedDueToReplStateChange: "InterruptedDueToReplStateChange",
	Interrupted:                     "Interrupted", DuplicateKey: "DuplicateKey",
	NotWritablePrimary: "NotWritablePrimary", NotPrimaryNoSecondaryOk: "NotPrimaryNoSecondaryOk",
	NotPrimaryOrSecondary: "NotPrimaryOrSecondary", StaleConfig: "StaleConfig",
	InvalidBSON: "InvalidBSON", LockBusy: "LockBusy", BSONObjectTooLarge: "BSONObjectTooLarge",
	InvalidUUID: "InvalidUUID", InvalidPipelineOperator: "InvalidPipelineOperator",
	QueryPlanKilled: "QueryPlanKilled", ClientMarkedKilled: "ClientMarkedKilled",
	APIStrictError: "APIStrictError", NoSuchTransaction: "NoSuchTransaction",
	TransactionTooOld:            "TransactionTooOld",
	IncompleteTransactionHistory: "IncompleteTransactionHistory",
	PrimarySteppedDown:           "PrimarySteppedDown", ExceededTimeLimit: "ExceededTimeLimit",
	ElectionInProgress: "ElectionInProgress", StaleTerm: "StaleTerm",
	NoProgressMade: "NoProgressMade", ObjectIsBusy: "ObjectIsBusy",
	TooManyFilesOpen: "TooManyFilesOpen", OplogOperationUnsupported: "OplogOperationUnsupported",
	ConversionFailure: "ConversionFailure", NotARetryableWriteCommand: "NotARetryableWriteCommand",
	CannotIndexParallelArrays: "CannotIndexParallelArrays",
	AlreadyInitialized:        "AlreadyInitialized", NoReplicationEnabled: "NoReplicationEnabled",
	UnsatisfiableWriteConcern:              "UnsatisfiableWriteConcern",
	NewReplicaSetConfigurationIncompatible: "NewReplicaSetConfigurationIncompatible",
	NodeNotElectable:                       "NodeNotElectable", InconsistentReplicaSetNames: "InconsistentReplicaSetNames",
	ConfigurationInProgress: "ConfigurationInProgress", UnknownReplWriteConcern: "UnknownReplWriteConcern",
	NotAReplicaSet: "NotAReplicaSet", LinearizableReadConcernError: "LinearizableReadConcernError",
}

// Name returns the codeName MongoDB uses for c, or "Location<code>" for the
// numbered assertion codes that have no name.
func (c Code) Name() string {
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is a client-visible MongoDB error.
type Error struct {
	Code   Code
	Msg    string
	Labels []string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code.Name(), e.Code, e.Msg) }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Msg: format}
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithLabels returns e with the given error labels added.
func (e *Error) WithLabels(labels ...string) *Error {
	c := *e
	c.Labels = append(append([]string(nil), e.Labels...), labels...)
	return &c
}

// From converts any error into an *Error: an *Error anywhere in err's chain
// is returned as is; anything else becomes InternalError with err's text.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	return &Error{Code: InternalError, Msg: err.Error()}
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	var me *Error
	return errors.As(err, &me) && me.Code == code
}

// Error labels drivers act on.
const (
	LabelRetryableWrite           = "RetryableWriteError"
	LabelTransientTransaction     = "TransientTransactionError"
	LabelUnknownTransactionCommit = "UnknownTransactionCommitResult"
	LabelNoWritesPerformed        = "NoWritesPerformed"
	LabelResumableChangeStream    = "ResumableChangeStreamError"
)

// Numbered assertion codes (codeName Location<code>) that MongoDB's IDL
// and command parsers produce, as relaydb's command layer uses them.
const (
	IDLMissingField           Code = 40414 // "BSON field 'x.y' is missing but a required field"
	IDLUnknownField           Code = 40415 // "BSON field 'x.y' is an unknown field."
	IDLNegativeValue          Code = 51024 // "BSON field 'x' value must be >= 0, actual value ..."
	ClientMetadataImmutable   Code = 186   // a second hello tried to change the client metadata
	UnsupportedOpQueryCommand Code = 352   // a legacy OP_QUERY command other than hello
)
