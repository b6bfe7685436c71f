package mongoerr

// The named codes relaydb produces, sorted by number. Names are MongoDB's
// codeNames (src/mongo/base/error_codes.yml); each is listed in names so
// Code.Name() returns it.
const (
	OK                                       Code = 0 // no error: the code of a successful reply
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
	InvalidBSON                              Code = 22
	AlreadyInitialized                       Code = 23
	NamespaceNotFound                        Code = 26
	IndexNotFound                            Code = 27
	PathNotViable                            Code = 28
	NonExistentPath                          Code = 29
	InvalidPath                              Code = 30
	RoleNotFound                             Code = 31
	ConflictingUpdateOperators               Code = 40
	CursorNotFound                           Code = 43
	LockBusy                                 Code = 46
	NoMatchingDocument                       Code = 47
	NamespaceExists                          Code = 48
	InvalidRoleModification                  Code = 49
	MaxTimeMSExpired                         Code = 50
	DollarPrefixedFieldName                  Code = 52
	InvalidIdField                           Code = 53
	NotSingleValueField                      Code = 54
	InvalidDBRef                             Code = 55
	EmptyFieldName                           Code = 56
	DottedFieldName                          Code = 57
	CommandNotFound                          Code = 59
	ShardKeyNotFound                         Code = 61
	OplogOperationUnsupported                Code = 62
	WriteConcernFailed                       Code = 64
	MultipleErrorsOccurred                   Code = 65
	ImmutableField                           Code = 66
	CannotCreateIndex                        Code = 67
	ShardNotFound                            Code = 70
	IndexAlreadyExists                       Code = 68
	InvalidOptions                           Code = 72
	InvalidNamespace                         Code = 73
	NodeNotFound                             Code = 74
	NoReplicationEnabled                     Code = 76
	UnknownReplWriteConcern                  Code = 79
	NoProgressMade                           Code = 82
	IndexOptionsConflict                     Code = 85
	IndexKeySpecsConflict                    Code = 86
	NetworkTimeout                           Code = 89
	ShutdownInProgress                       Code = 91
	InvalidReplicaSetConfig                  Code = 93
	NotYetInitialized                        Code = 94
	NotSecondary                             Code = 95
	OperationFailed                          Code = 96
	UnsatisfiableWriteConcern                Code = 100
	NewReplicaSetConfigurationIncompatible   Code = 103
	NodeNotElectable                         Code = 104
	IncompatibleShardingMetadata             Code = 105
	CannotSplit                              Code = 106
	InconsistentReplicaSetNames              Code = 108
	ConfigurationInProgress                  Code = 109
	WriteConflict                            Code = 112
	CommandNotSupported                      Code = 115
	ConflictingOperationInProgress           Code = 117
	NamespaceNotSharded                      Code = 118
	InvalidSyncSource                        Code = 119
	DocumentValidationFailure                Code = 121
	NotAReplicaSet                           Code = 123
	CommandFailed                            Code = 125
	FailedToSatisfyReadPreference            Code = 133
	CappedPositionLost                       Code = 136
	StaleEpoch                               Code = 150
	MaxStalenessOutOfRange                   Code = 160
	CommandNotSupportedOnView                Code = 166
	InvalidPipelineOperator                  Code = 168
	CommandOnShardedViewNotSupportedOnMongod Code = 169
	LinearizableReadConcernError             Code = 170
	CannotIndexParallelArrays                Code = 171
	IncompatibleCollationVersion             Code = 174
	QueryPlanKilled                          Code = 175
	PrimarySteppedDown                       Code = 189
	InvalidIndexSpecificationOption          Code = 197
	ShardingStateNotInitialized              Code = 203
	ClusterTimeFailsRateLimiter              Code = 205
	InvalidUUID                              Code = 207
	ElectionInProgress                       Code = 216
	IncompleteTransactionHistory             Code = 217
	IllegalOpMsgFlag                         Code = 223
	TransactionTooOld                        Code = 225
	RetryChangeStream                        Code = 234
	NotImplemented                           Code = 238
	StaleTerm                                Code = 239
	ConversionFailure                        Code = 241
	StaleDbVersion                           Code = 249
	NoSuchTransaction                        Code = 251
	TransactionCommitted                     Code = 256
	InvalidResumeToken                       Code = 260
	ExceededTimeLimit                        Code = 262
	OperationNotSupportedInTransaction       Code = 263
	TooManyFilesOpen                         Code = 264
	ChangeStreamFatalError                   Code = 280
	WouldChangeOwningShard                   Code = 283
	ChangeStreamHistoryLost                  Code = 286
	ChecksumMismatch                         Code = 288
	NoQueryExecutionPlans                    Code = 291
	QueryExceededMemoryLimitNoDiskUseAllowed Code = 292
	ObjectIsBusy                             Code = 314
	APIVersionError                          Code = 322
	APIStrictError                           Code = 323
	NotARetryableWriteCommand                Code = 336
	SocketException                          Code = 9001
	NotWritablePrimary                       Code = 10107
	BSONObjectTooLarge                       Code = 10334
	MechanismUnavailable                     Code = 334
	UserAlreadyExists                        Code = 51003 // createUser of an existing user (a location code)
	RoleAlreadyExists                        Code = 51002 // createRole of an existing role (a location code)
	DuplicateKey                             Code = 11000
	InterruptedAtShutdown                    Code = 11600
	Interrupted                              Code = 11601
	InterruptedDueToReplStateChange          Code = 11602
	MergeStageNoMatchingDocument             Code = 13113
	DatabaseDifferCase                       Code = 13297
	StaleConfig                              Code = 13388
	NotPrimaryNoSecondaryOk                  Code = 13435
	NotPrimaryOrSecondary                    Code = 13436
	ClientMarkedKilled                       Code = 46841
)

var names = map[Code]string{
	OK:                                       "OK",
	InternalError:                            "InternalError",
	MechanismUnavailable:                     "MechanismUnavailable",
	BadValue:                                 "BadValue",
	NoSuchKey:                                "NoSuchKey",
	IncompatibleCollationVersion:             "IncompatibleCollationVersion",
	GraphContainsCycle:                       "GraphContainsCycle",
	HostUnreachable:                          "HostUnreachable",
	HostNotFound:                             "HostNotFound",
	UnknownError:                             "UnknownError",
	FailedToParse:                            "FailedToParse",
	CannotMutateObject:                       "CannotMutateObject",
	UserNotFound:                             "UserNotFound",
	UnsupportedFormat:                        "UnsupportedFormat",
	Unauthorized:                             "Unauthorized",
	TypeMismatch:                             "TypeMismatch",
	Overflow:                                 "Overflow",
	InvalidLength:                            "InvalidLength",
	ProtocolError:                            "ProtocolError",
	AuthenticationFailed:                     "AuthenticationFailed",
	IllegalOperation:                         "IllegalOperation",
	InvalidBSON:                              "InvalidBSON",
	AlreadyInitialized:                       "AlreadyInitialized",
	NamespaceNotFound:                        "NamespaceNotFound",
	IndexNotFound:                            "IndexNotFound",
	PathNotViable:                            "PathNotViable",
	NonExistentPath:                          "NonExistentPath",
	InvalidPath:                              "InvalidPath",
	RoleNotFound:                             "RoleNotFound",
	ConflictingUpdateOperators:               "ConflictingUpdateOperators",
	CursorNotFound:                           "CursorNotFound",
	LockBusy:                                 "LockBusy",
	NoMatchingDocument:                       "NoMatchingDocument",
	NamespaceExists:                          "NamespaceExists",
	InvalidRoleModification:                  "InvalidRoleModification",
	MaxTimeMSExpired:                         "MaxTimeMSExpired",
	DollarPrefixedFieldName:                  "DollarPrefixedFieldName",
	InvalidIdField:                           "InvalidIdField",
	NotSingleValueField:                      "NotSingleValueField",
	InvalidDBRef:                             "InvalidDBRef",
	EmptyFieldName:                           "EmptyFieldName",
	DottedFieldName:                          "DottedFieldName",
	CommandNotFound:                          "CommandNotFound",
	ShardKeyNotFound:                         "ShardKeyNotFound",
	IncompatibleShardingMetadata:             "IncompatibleShardingMetadata",
	StaleEpoch:                               "StaleEpoch",
	ShardNotFound:                            "ShardNotFound",
	OplogOperationUnsupported:                "OplogOperationUnsupported",
	WriteConcernFailed:                       "WriteConcernFailed",
	MultipleErrorsOccurred:                   "MultipleErrorsOccurred",
	ImmutableField:                           "ImmutableField",
	CannotCreateIndex:                        "CannotCreateIndex",
	IndexAlreadyExists:                       "IndexAlreadyExists",
	InvalidOptions:                           "InvalidOptions",
	InvalidNamespace:                         "InvalidNamespace",
	NodeNotFound:                             "NodeNotFound",
	NoReplicationEnabled:                     "NoReplicationEnabled",
	UnknownReplWriteConcern:                  "UnknownReplWriteConcern",
	NoProgressMade:                           "NoProgressMade",
	IndexOptionsConflict:                     "IndexOptionsConflict",
	IndexKeySpecsConflict:                    "IndexKeySpecsConflict",
	NetworkTimeout:                           "NetworkTimeout",
	ShutdownInProgress:                       "ShutdownInProgress",
	InvalidReplicaSetConfig:                  "InvalidReplicaSetConfig",
	NotYetInitialized:                        "NotYetInitialized",
	NotSecondary:                             "NotSecondary",
	OperationFailed:                          "OperationFailed",
	UnsatisfiableWriteConcern:                "UnsatisfiableWriteConcern",
	NewReplicaSetConfigurationIncompatible:   "NewReplicaSetConfigurationIncompatible",
	NodeNotElectable:                         "NodeNotElectable",
	CannotSplit:                              "CannotSplit",
	InconsistentReplicaSetNames:              "InconsistentReplicaSetNames",
	ConfigurationInProgress:                  "ConfigurationInProgress",
	WriteConflict:                            "WriteConflict",
	CommandNotSupported:                      "CommandNotSupported",
	ConflictingOperationInProgress:           "ConflictingOperationInProgress",
	NamespaceNotSharded:                      "NamespaceNotSharded",
	InvalidSyncSource:                        "InvalidSyncSource",
	DocumentValidationFailure:                "DocumentValidationFailure",
	NotAReplicaSet:                           "NotAReplicaSet",
	CommandFailed:                            "CommandFailed",
	FailedToSatisfyReadPreference:            "FailedToSatisfyReadPreference",
	CappedPositionLost:                       "CappedPositionLost",
	MaxStalenessOutOfRange:                   "MaxStalenessOutOfRange",
	CommandNotSupportedOnView:                "CommandNotSupportedOnView",
	InvalidPipelineOperator:                  "InvalidPipelineOperator",
	CommandOnShardedViewNotSupportedOnMongod: "CommandOnShardedViewNotSupportedOnMongod",
	LinearizableReadConcernError:             "LinearizableReadConcernError",
	CannotIndexParallelArrays:                "CannotIndexParallelArrays",
	QueryPlanKilled:                          "QueryPlanKilled",
	PrimarySteppedDown:                       "PrimarySteppedDown",
	InvalidIndexSpecificationOption:          "InvalidIndexSpecificationOption",
	ShardingStateNotInitialized:              "ShardingStateNotInitialized",
	ClusterTimeFailsRateLimiter:              "ClusterTimeFailsRateLimiter",
	InvalidUUID:                              "InvalidUUID",
	ElectionInProgress:                       "ElectionInProgress",
	IncompleteTransactionHistory:             "IncompleteTransactionHistory",
	IllegalOpMsgFlag:                         "IllegalOpMsgFlag",
	TransactionTooOld:                        "TransactionTooOld",
	RetryChangeStream:                        "RetryChangeStream",
	NotImplemented:                           "NotImplemented",
	StaleTerm:                                "StaleTerm",
	ConversionFailure:                        "ConversionFailure",
	StaleDbVersion:                           "StaleDbVersion",
	NoSuchTransaction:                        "NoSuchTransaction",
	TransactionCommitted:                     "TransactionCommitted",
	InvalidResumeToken:                       "InvalidResumeToken",
	ExceededTimeLimit:                        "ExceededTimeLimit",
	OperationNotSupportedInTransaction:       "OperationNotSupportedInTransaction",
	TooManyFilesOpen:                         "TooManyFilesOpen",
	ChangeStreamFatalError:                   "ChangeStreamFatalError",
	WouldChangeOwningShard:                   "WouldChangeOwningShard",
	ChangeStreamHistoryLost:                  "ChangeStreamHistoryLost",
	ChecksumMismatch:                         "ChecksumMismatch",
	NoQueryExecutionPlans:                    "NoQueryExecutionPlans",
	QueryExceededMemoryLimitNoDiskUseAllowed: "QueryExceededMemoryLimitNoDiskUseAllowed",
	ObjectIsBusy:                             "ObjectIsBusy",
	APIVersionError:                          "APIVersionError",
	APIStrictError:                           "APIStrictError",
	NotARetryableWriteCommand:                "NotARetryableWriteCommand",
	NotWritablePrimary:                       "NotWritablePrimary",
	BSONObjectTooLarge:                       "BSONObjectTooLarge",
	DuplicateKey:                             "DuplicateKey",
	InterruptedAtShutdown:                    "InterruptedAtShutdown",
	Interrupted:                              "Interrupted",
	InterruptedDueToReplStateChange:          "InterruptedDueToReplStateChange",
	MergeStageNoMatchingDocument:             "MergeStageNoMatchingDocument",
	DatabaseDifferCase:                       "DatabaseDifferCase",
	StaleConfig:                              "StaleConfig",
	NotPrimaryNoSecondaryOk:                  "NotPrimaryNoSecondaryOk",
	NotPrimaryOrSecondary:                    "NotPrimaryOrSecondary",
	SocketException:                          "SocketException",
	ClientMarkedKilled:                       "ClientMarkedKilled",
}
