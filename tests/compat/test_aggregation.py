"""Aggregation pipelines through pymongo, stage by stage."""

import pytest


@pytest.fixture
def sales(db):
    c = db["sales"]
    c.insert_many([
        {"_id": 1, "item": "pen", "qty": 5, "price": 2, "tags": ["office", "cheap"], "store": "n"},
        {"_id": 2, "item": "ink", "qty": 2, "price": 10, "tags": ["office"], "store": "s"},
        {"_id": 3, "item": "pen", "qty": 1, "price": 2, "tags": [], "store": "s"},
        {"_id": 4, "item": "pad", "qty": 7, "price": 4, "store": "n"},
        {"_id": 5, "item": "ink", "qty": 3, "price": 12, "tags": ["cheap"], "store": "n"},
    ])
    return c


def run(coll, pipeline):
    return list(coll.aggregate(pipeline))


def test_match_sort_project(sales):
    got = run(sales, [
        {"$match": {"qty": {"$gte": 2}}},
        {"$sort": {"qty": -1}},
        {"$project": {"_id": 0, "item": 1, "total": {"$multiply": ["$qty", "$price"]}}},
    ])
    assert got == [{"item": "pad", "total": 28}, {"item": "pen", "total": 10},
                   {"item": "ink", "total": 36}, {"item": "ink", "total": 20}]


def test_group_accumulators(sales):
    got = run(sales, [
        {"$group": {"_id": "$item", "n": {"$sum": 1}, "qty": {"$sum": "$qty"},
                    "avg": {"$avg": "$price"}, "max": {"$max": "$qty"},
                    "first": {"$first": "$_id"}, "ids": {"$push": "$_id"},
                    "stores": {"$addToSet": "$store"}}},
        {"$sort": {"_id": 1}},
    ])
    for g in got:
        g["stores"] = sorted(g["stores"])
    assert got == [
        {"_id": "ink", "n": 2, "qty": 5, "avg": 11.0, "max": 3, "first": 2, "ids": [2, 5],
         "stores": ["n", "s"]},
        {"_id": "pad", "n": 1, "qty": 7, "avg": 4.0, "max": 7, "first": 4, "ids": [4],
         "stores": ["n"]},
        {"_id": "pen", "n": 2, "qty": 6, "avg": 2.0, "max": 5, "first": 1, "ids": [1, 3],
         "stores": ["n", "s"]},
    ]


def test_group_null_id_totals(sales):
    assert run(sales, [{"$group": {"_id": None, "qty": {"$sum": "$qty"}}}]) == \
        [{"_id": None, "qty": 18}]


def test_unwind(sales):
    got = run(sales, [{"$unwind": "$tags"}, {"$project": {"tags": 1}}, {"$sort": {"_id": 1}}])
    assert [(d["_id"], d["tags"]) for d in got] == \
        [(1, "office"), (1, "cheap"), (2, "office"), (5, "cheap")]
    got = run(sales, [
        {"$unwind": {"path": "$tags", "includeArrayIndex": "i",
                     "preserveNullAndEmptyArrays": True}},
        {"$project": {"tags": 1, "i": 1}}, {"$sort": {"_id": 1, "i": 1}},
    ])
    assert got == [
        {"_id": 1, "tags": "office", "i": 0}, {"_id": 1, "tags": "cheap", "i": 1},
        {"_id": 2, "tags": "office", "i": 0}, {"_id": 3, "i": None},
        {"_id": 4, "i": None}, {"_id": 5, "tags": "cheap", "i": 0},
    ]


def test_lookup(sales, db):
    db["items"].insert_many([{"_id": "pen", "color": "blue"}, {"_id": "ink", "color": "black"}])
    got = run(sales, [
        {"$match": {"_id": {"$in": [1, 2, 4]}}},
        {"$lookup": {"from": "items", "localField": "item", "foreignField": "_id",
                     "as": "info"}},
        {"$project": {"item": 1, "info": 1}}, {"$sort": {"_id": 1}},
    ])
    assert got == [
        {"_id": 1, "item": "pen", "info": [{"_id": "pen", "color": "blue"}]},
        {"_id": 2, "item": "ink", "info": [{"_id": "ink", "color": "black"}]},
        {"_id": 4, "item": "pad", "info": []},
    ]


def test_lookup_pipeline_form(sales, db):
    db["limits"].insert_many([{"item": "pen", "max": 4}, {"item": "ink", "max": 100}])
    got = run(sales, [
        {"$lookup": {"from": "limits", "let": {"it": "$item", "q": "$qty"},
                     "pipeline": [{"$match": {"$expr": {"$and": [
                         {"$eq": ["$item", "$$it"]}, {"$lt": ["$max", "$$q"]}]}}},
                         {"$project": {"_id": 0, "max": 1}}],
                     "as": "over"}},
        {"$match": {"over": {"$ne": []}}}, {"$project": {"over": 1}},
    ])
    assert got == [{"_id": 1, "over": [{"max": 4}]}]


def test_facet(sales):
    got = run(sales, [{"$facet": {
        "byStore": [{"$group": {"_id": "$store", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}],
        "top": [{"$sort": {"qty": -1}}, {"$limit": 1}, {"$project": {"item": 1}}],
    }}])
    assert got == [{"byStore": [{"_id": "n", "n": 3}, {"_id": "s", "n": 2}],
                    "top": [{"_id": 4, "item": "pad"}]}]


def test_count(sales):
    assert run(sales, [{"$match": {"store": "n"}}, {"$count": "total"}]) == [{"total": 3}]
    assert run(sales, [{"$match": {"store": "x"}}, {"$count": "total"}]) == []


def test_sort_by_count(sales):
    got = run(sales, [{"$unwind": "$tags"}, {"$sortByCount": "$tags"}])
    assert sorted(got, key=lambda d: d["_id"]) == \
        [{"_id": "cheap", "count": 2}, {"_id": "office", "count": 2}]
    got = run(sales, [{"$sortByCount": "$store"}])
    assert got == [{"_id": "n", "count": 3}, {"_id": "s", "count": 2}]


def test_replace_root_and_add_fields(sales):
    got = run(sales, [
        {"$match": {"_id": 2}},
        {"$addFields": {"meta": {"total": {"$multiply": ["$qty", "$price"]}, "id": "$_id"}}},
        {"$replaceRoot": {"newRoot": "$meta"}},
    ])
    assert got == [{"total": 20, "id": 2}]
    got = run(sales, [{"$match": {"_id": 1}}, {"$addFields": {"qty": 0, "x.y": 1}},
                      {"$project": {"_id": 0, "qty": 1, "x": 1}}])
    assert got == [{"qty": 0, "x": {"y": 1}}]


def test_sample_size(sales):
    got = run(sales, [{"$sample": {"size": 3}}])
    ids = [d["_id"] for d in got]
    assert len(ids) == 3 and len(set(ids)) == 3 and set(ids) <= {1, 2, 3, 4, 5}
    assert len(run(sales, [{"$sample": {"size": 50}}])) == 5


def test_skip_limit_and_empty_collection(sales, db):
    got = run(sales, [{"$sort": {"_id": 1}}, {"$skip": 1}, {"$limit": 2}, {"$project": {"_id": 1}}])
    assert got == [{"_id": 2}, {"_id": 3}]
    assert run(db["empty"], [{"$match": {}}]) == []


def test_aggregate_batches(db):
    c = db["many"]
    c.insert_many([{"i": i} for i in range(300)])
    got = list(c.aggregate([{"$sort": {"i": -1}}], batchSize=16))
    assert [d["i"] for d in got] == list(range(299, -1, -1))
