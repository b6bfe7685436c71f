package spec

import (
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// This file applies parsed updateArgs to the driver's write option
// builders and write models. Those types share setter names but not types
// (each setter returns its receiver), so each constraint takes the
// receiver type as T. A type gets exactly the setters it has: an argument
// its helper lacks (sort on updateMany, upsert on delete) is not applied.

// targetSetter is what every update/replace/delete builder and model has.
type targetSetter[T any] interface {
	SetHint(any) T
	SetCollation(*options.Collation) T
}

type upsertSetter[T any] interface {
	targetSetter[T]
	SetUpsert(bool) T
}

// commandSetter is a collection helper's options (models have none of
// the command-level comment and let).
type commandSetter[T any] interface {
	targetSetter[T]
	SetComment(any) T
	SetLet(any) T
}

// modifySetter is an update/replace helper's options.
type modifySetter[T any] interface {
	commandSetter[T]
	SetUpsert(bool) T
	SetBypassDocumentValidation(bool) T
}

func setTarget[T targetSetter[T]](m T, a updateArgs) T {
	setAny(a.hint, func(v any) { m.SetHint(v) })
	if a.collation != nil {
		m.SetCollation(a.collation)
	}
	return m
}

// setUpsert sets a write model's upsert, hint and collation.
func setUpsert[T upsertSetter[T]](m T, a updateArgs) T {
	setIf(a.upsert, func(b bool) { m.SetUpsert(b) })
	return setTarget(m, a)
}

// setCommand sets a helper's hint, collation, comment and let.
func setCommand[T commandSetter[T]](o T, a updateArgs) T {
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	return setTarget(o, a)
}

// setModify is setCommand plus upsert and bypassDocumentValidation.
func setModify[T modifySetter[T]](o T, a updateArgs) T {
	setIf(a.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(a.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	return setCommand(o, a)
}

func setSort[T interface{ SetSort(any) T }](o T, a updateArgs) T {
	setAny(a.sort, func(v any) { o.SetSort(v) })
	return o
}

func setArrayFilters[T interface{ SetArrayFilters([]any) T }](o T, a updateArgs) T {
	if a.arrayFilters != nil {
		o.SetArrayFilters([]any(a.arrayFilters))
	}
	return o
}

// setRawData sets rawData through the driver's xoptions.SetInternal*.
func setRawData[T any](o T, a updateArgs, set func(T, string, any) error) T {
	if a.rawData != nil {
		_ = set(o, "rawData", *a.rawData)
	}
	return o
}

// setFAM sets a findOneAnd* helper's projection and sort.
func setFAM[T interface {
	SetProjection(any) T
	SetSort(any) T
}](o T, f fam) T {
	setAny(f.projection, func(v any) { o.SetProjection(v) })
	return setSort(o, f.updateArgs)
}

// setReturnDoc sets findOneAndUpdate/Replace's returnDocument.
func setReturnDoc[T interface {
	SetReturnDocument(options.ReturnDocument) T
}](o T, f fam) T {
	setAny(f.returnDoc, func(v any) { o.SetReturnDocument(returnDoc(v)) })
	return o
}
