package js

// prelude defines the shell types BSON values travel as (NumberLong,
// NumberDecimal, ObjectId, Timestamp, BinData, MinKey, MaxKey,
// BSONRegExp, DBPointer, Code) and the global sleep is bound in Go. Each
// object carries a non-enumerable _bsontype tag that toBSON reads back;
// the value itself sits in non-enumerable fields so enumerating a
// document's fields in JavaScript shows only what the shell shows.
const prelude = `(function (g) {
  function hide(o, k, v) { Object.defineProperty(o, k, {value: v, enumerable: false, writable: false}); }
  function def(name, init, proto) {
    var C = function () {
      var o = (this instanceof C) ? this : Object.create(C.prototype);
      init.apply(o, arguments);
      hide(o, '_bsontype', name);
      return o;
    };
    for (var k in proto) { hide(C.prototype, k, proto[k]); }
    g[name] = C;
  }
  def('NumberLong', function (v) { hide(this, '_v', String(v === undefined ? 0 : v)); }, {
    valueOf: function () { return Number(this._v); },
    toNumber: function () { return Number(this._v); },
    toString: function () { return 'NumberLong(' + JSON.stringify(this._v) + ')'; },
    toJSON: function () { return {'$numberLong': this._v}; }
  });
  def('NumberDecimal', function (v) { hide(this, '_v', String(v === undefined ? 0 : v)); }, {
    valueOf: function () { return Number(this._v); },
    toString: function () { return 'NumberDecimal(' + JSON.stringify(this._v) + ')'; },
    toJSON: function () { return {'$numberDecimal': this._v}; }
  });
  def('ObjectId', function (hex) { this.str = String(hex); }, {
    valueOf: function () { return this.str; },
    toString: function () { return 'ObjectId(' + JSON.stringify(this.str) + ')'; },
    equals: function (o) { return !!o && o._bsontype === 'ObjectId' && o.str === this.str; },
    getTimestamp: function () { return new Date(parseInt(this.str.substr(0, 8), 16) * 1000); },
    toJSON: function () { return {'$oid': this.str}; }
  });
  def('Timestamp', function (t, i) { this.t = t >>> 0; this.i = i >>> 0; }, {
    toString: function () { return 'Timestamp(' + this.t + ', ' + this.i + ')'; },
    getTime: function () { return this.t; }, getInc: function () { return this.i; }
  });
  def('BinData', function (sub, b64) { hide(this, '_sub', sub & 255); hide(this, '_b64', String(b64)); }, {
    subtype: function () { return this._sub; }, base64: function () { return this._b64; },
    toString: function () { return 'BinData(' + this._sub + ',' + JSON.stringify(this._b64) + ')'; }
  });
  def('MinKey', function () {}, { toString: function () { return '{ "$minKey" : 1 }'; } });
  def('MaxKey', function () {}, { toString: function () { return '{ "$maxKey" : 1 }'; } });
  def('BSONRegExp', function (p, o) { this.pattern = String(p); this.options = String(o || ''); }, {
    toString: function () { return '/' + this.pattern + '/' + this.options; }
  });
  def('DBPointer', function (ns, id) { this.ns = String(ns); this.id = id; }, {
    toString: function () { return 'DBPointer(' + JSON.stringify(this.ns) + ', ' + this.id + ')'; }
  });
  def('Code', function (code, scope) { this.code = String(code); if (scope !== undefined) { this.scope = scope; } }, {
    toString: function () { return this.code; }
  });
  // The helpers mongod's server-side scope has and map/reduce functions use.
  function helper(o, k, f) { if (typeof o[k] !== 'function') { hide(o, k, f); } }
  helper(Array, 'sum', function (a) { var s = 0; for (var i = 0; i < a.length; i++) { s += a[i]; } return s; });
  helper(Array, 'avg', function (a) { return a.length ? Array.sum(a) / a.length : undefined; });
  helper(Array, 'contains', function (a, x) { for (var i = 0; i < a.length; i++) { if (a[i] === x) { return true; } } return false; });
  helper(Array, 'unique', function (a) { var u = []; for (var i = 0; i < a.length; i++) { if (!Array.contains(u, a[i])) { u.push(a[i]); } } return u; });
  helper(g, 'isNumber', function (x) { return typeof x === 'number'; });
  helper(g, 'isString', function (x) { return typeof x === 'string'; });
  helper(g, 'isObject', function (x) { return typeof x === 'object' && x !== null; });
  helper(g, 'tojson', function (x) { return JSON.stringify(x); });
  helper(g, 'print', function () {});
  helper(g, 'printjson', function () {});
})(this);
`
