"""The #14 aggregation stages and accumulators through pymongo, with the
results MongoDB's documentation gives for its examples."""

import datetime

import pytest
from pymongo.errors import OperationFailure


@pytest.fixture
def cakes(db):
    c = db["cakeSales"]
    d = datetime.datetime
    c.insert_many([
        {"_id": 0, "type": "chocolate", "orderDate": d(2020, 5, 18, 14, 10, 30), "state": "CA", "price": 13, "quantity": 120},
        {"_id": 1, "type": "chocolate", "orderDate": d(2021, 3, 20, 11, 30, 5), "state": "WA", "price": 14, "quantity": 140},
        {"_id": 2, "type": "vanilla", "orderDate": d(2021, 1, 11, 6, 31, 15), "state": "CA", "price": 12, "quantity": 145},
        {"_id": 3, "type": "vanilla", "orderDate": d(2020, 2, 8, 13, 13, 23), "state": "WA", "price": 13, "quantity": 104},
        {"_id": 4, "type": "strawberry", "orderDate": d(2019, 5, 18, 16, 9, 1), "state": "CA", "price": 41, "quantity": 162},
        {"_id": 5, "type": "strawberry", "orderDate": d(2019, 1, 8, 6, 12, 3), "state": "WA", "price": 43, "quantity": 134},
    ])
    return c


def test_set_window_fields_cumulative_and_rank(cakes):
    got = list(cakes.aggregate([
        {"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
            "cum": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}},
            "rank": {"$documentNumber": {}}}}},
        {"$project": {"cum": 1, "rank": 1}},
    ]))
    assert got == [{"_id": 4, "cum": 162, "rank": 1}, {"_id": 0, "cum": 282, "rank": 2},
                   {"_id": 2, "cum": 427, "rank": 3}, {"_id": 5, "cum": 134, "rank": 1},
                   {"_id": 3, "cum": 238, "rank": 2}, {"_id": 1, "cum": 378, "rank": 3}]


def test_top_n_and_percentile(cakes):
    got = list(cakes.aggregate([
        {"$group": {"_id": "$state",
                    "top2": {"$topN": {"n": 2, "output": "$type", "sortBy": {"quantity": -1}}},
                    "cheapest": {"$bottom": {"output": "$_id", "sortBy": {"price": -1}}},
                    "median": {"$median": {"input": "$price", "method": "approximate"}}}},
        {"$sort": {"_id": 1}},
    ]))
    assert got == [{"_id": "CA", "top2": ["strawberry", "vanilla"], "cheapest": 2, "median": 13.0},
                   {"_id": "WA", "top2": ["chocolate", "strawberry"], "cheapest": 3, "median": 14.0}]


def test_bucket_auto_and_graph_lookup(db):
    art = db["artwork"]
    art.insert_many([{"_id": i, "price": p} for i, p in enumerate([199.99, 280.0, 76.04, 167.3, 483.0, 385.0, 159.0, 118.42])])
    got = list(art.aggregate([{"$bucketAuto": {"groupBy": "$price", "buckets": 4}}]))
    assert [(b["_id"]["min"], b["_id"]["max"], b["count"]) for b in got] == [
        (76.04, 159.0, 2), (159.0, 199.99, 2), (199.99, 385.0, 2), (385.0, 483.0, 2)]

    emp = db["employees"]
    emp.insert_many([{"_id": 1, "name": "Dev"}, {"_id": 2, "name": "Eliot", "reportsTo": "Dev"},
                     {"_id": 3, "name": "Ron", "reportsTo": "Eliot"}, {"_id": 5, "name": "Asya", "reportsTo": "Ron"}])
    got = list(emp.aggregate([
        {"$match": {"_id": 5}},
        {"$graphLookup": {"from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo",
                          "connectToField": "name", "as": "chain", "depthField": "depth"}},
        {"$project": {"chain": {"$sortArray": {"input": "$chain", "sortBy": {"depth": 1}}}}},
    ]))
    assert [(c["name"], c["depth"]) for c in got[0]["chain"]] == [("Ron", 0), ("Eliot", 1), ("Dev", 2)]


def test_fill_densify_redact(db):
    c = db["readings"]
    c.insert_many([{"_id": 1, "t": 0, "v": 10}, {"_id": 2, "t": 2}, {"_id": 3, "t": 4, "v": 30}])
    got = list(c.aggregate([{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "linear"}}}}, {"$project": {"_id": 0}}]))
    assert got == [{"t": 0, "v": 10}, {"t": 2, "v": 20.0}, {"t": 4, "v": 30}]
    got = list(c.aggregate([{"$densify": {"field": "t", "range": {"step": 1, "bounds": "full"}}}, {"$project": {"_id": 0, "t": 1}}]))
    assert [d["t"] for d in got] == [0, 1, 2, 3, 4]
    got = list(c.aggregate([{"$redact": {"$cond": [{"$eq": ["$t", 2]}, "$$PRUNE", "$$KEEP"]}}]))
    assert [d["_id"] for d in got] == [1, 3]


def test_current_op(client):
    ops = client.admin.command({"currentOp": 1, "command.currentOp": {"$exists": True}})["inprog"]
    assert len(ops) == 1 and ops[0]["op"] == "command" and ops[0]["active"] is True
    got = list(client.admin.aggregate([{"$currentOp": {}}, {"$match": {"command.aggregate": 1}}]))
    assert len(got) == 1 and got[0]["ns"] == "admin.$cmd"


def test_errors(cakes):
    with pytest.raises(OperationFailure) as e:
        list(cakes.aggregate([{"$setWindowFields": {"output": {"r": {"$rank": {}}}}}]))
    assert e.value.code == 9  # FailedToParse, as MongoDB
    with pytest.raises(OperationFailure) as e:
        list(cakes.aggregate([{"$group": {"_id": None, "t": {"$firstN": {"input": "$price", "n": 0}}}}]))
    assert e.value.code == 5787908
    with pytest.raises(OperationFailure) as e:
        list(cakes.aggregate([{"$currentOp": {}}]))
    assert e.value.code == 73
