// Horizontal filtering (PostgREST docs "Horizontal Filtering"): every operator, not, any/all,
// or/and trees and JSON paths, planned and built by dbrest and run on PostgreSQL.
import t from 'tap';
import { ids, readDatabase } from './helpers.js';

const db = await readDatabase(t);

t.test('comparison operators', async (t) => {
  t.same(await ids(db, 'items', 'name=eq.apple'), [1]);
  t.same(await ids(db, 'items', 'name=neq.apple'), [2, 3, 5]);
  t.same(await ids(db, 'items', 'rating=gt.3.2'), [1]);
  t.same(await ids(db, 'items', 'rating=gte.3.2'), [1, 2]);
  t.same(await ids(db, 'items', 'rating=lt.2'), [4]);
  t.same(await ids(db, 'items', 'rating=lte.2'), [4, 5]);
});

t.test('pattern operators', async (t) => {
  t.same(await ids(db, 'items', 'name=like.*an*'), [2], 'like with * as %');
  t.same(await ids(db, 'items', 'name=ilike.APPLE*'), [1]);
  t.same(await ids(db, 'items', 'name=match.^[bc]'), [2, 3]);
  t.same(await ids(db, 'items', 'name=imatch.^[BC]'), [2, 3]);
  t.same(await ids(db, 'items', [['name', 'like.*"quoted"*']]), [5], 'quotes are data');
});

t.test('in', async (t) => {
  t.same(await ids(db, 'items', 'id=in.(1,3)'), [1, 3]);
  t.same(await ids(db, 'items', [['name', 'in.("Ápple \\"quoted\\", comma",apple)']]), [1, 5], 'quoted elements with commas and quotes');
  t.same(await ids(db, 'items', 'id=in.()'), [], 'empty list');
  t.same(await ids(db, 'items', 'id=not.in.()'), [1, 2, 3, 4, 5], 'not in empty list');
});

t.test('is and isdistinct', async (t) => {
  t.same(await ids(db, 'items', 'name=is.null'), [4]);
  t.same(await ids(db, 'items', 'name=not.is.null'), [1, 2, 3, 5]);
  t.same(await ids(db, 'items', 'name=is.not_null'), [1, 2, 3, 5]);
  t.same(await ids(db, 'items', 'active=is.true'), [1, 3]);
  t.same(await ids(db, 'items', 'active=is.false'), [2, 5]);
  t.same(await ids(db, 'items', 'active=is.unknown'), [4]);
  t.same(await ids(db, 'items', 'active=isdistinct.true'), [2, 4, 5]);
  t.same(await ids(db, 'items', 'active=not.isdistinct.true'), [1, 3]);
});

t.test('not', async (t) => {
  t.same(await ids(db, 'items', 'id=not.eq.1'), [2, 3, 4, 5]);
  t.same(await ids(db, 'items', 'name=not.like.*an*'), [1, 3, 5]);
});

t.test('full text search', async (t) => {
  t.same(await ids(db, 'items', 'search=fts(english).apple'), [1, 5], 'tsvector column');
  t.same(await ids(db, 'items', [['search', 'plfts(english).red apple']]), [1]);
  t.same(await ids(db, 'items', [['search', 'phfts(english).red apple']]), [1]);
  t.same(await ids(db, 'items', [['search', 'wfts(english).apple -red']]), [5]);
  t.same(await ids(db, 'items', 'description=fts(english).banana'), [2], 'text column goes through to_tsvector');
  t.same(await ids(db, 'items', 'search=not.fts(english).apple'), [2, 3]);
  t.same(await ids(db, 'items', 'search=fts.carrot'), [3], 'default configuration');
});

t.test('arrays and jsonb containment', async (t) => {
  t.same(await ids(db, 'items', 'tags=cs.{fruit}'), [1, 2]);
  t.same(await ids(db, 'items', [['tags', 'cs.{"with,comma"}']]), [5]);
  t.same(await ids(db, 'items', 'numbers=cd.{1,2,3,4}'), [1, 2, 5]);
  t.same(await ids(db, 'items', 'numbers=ov.{4,5}'), [2, 3]);
  t.same(await ids(db, 'items', [['data', 'cs.{"color":"red"}']]), [1]);
  t.same(await ids(db, 'items', [['data', 'cd.{"color":"orange","size":2,"x":1}']]), [3]);
});

t.test('range operators', async (t) => {
  t.same(await ids(db, 'items', 'price_range=ov.[2,4)'), [1, 2]);
  t.same(await ids(db, 'items', 'price_range=sl.[9,10)'), [1, 2]);
  t.same(await ids(db, 'items', 'price_range=sr.[0,2)'), [2, 3]);
  t.same(await ids(db, 'items', 'price_range=nxr.[0,6)'), [1]);
  t.same(await ids(db, 'items', 'price_range=nxl.[4,100)'), [3]);
  t.same(await ids(db, 'items', 'price_range=adj.[5,10)'), [1, 3]);
  t.same(await ids(db, 'items', 'price_range=cd.[0,10)'), [1, 2, 5]);
});

t.test('any/all quantifiers', async (t) => {
  t.same(await ids(db, 'items', 'name=like(any).{a*,b*}'), [1, 2]);
  t.same(await ids(db, 'items', 'name=like(all).{*a*,*n*}'), [2]);
  t.same(await ids(db, 'items', 'id=eq(any).{1,4}'), [1, 4]);
  t.same(await ids(db, 'items', 'rating=gt(all).{1,2}'), [1, 2]);
  t.same(await ids(db, 'items', 'name=ilike(any).{APP*,*ROT}'), [1, 3]);
  t.same(await ids(db, 'items', 'name=not.match(any).{^a,^b}'), [3, 5]);
});

t.test('logic trees', async (t) => {
  t.same(await ids(db, 'items', 'or=(id.eq.1,name.eq.banana)'), [1, 2]);
  t.same(await ids(db, 'items', 'and=(active.is.true,rating.gt.2)'), [1]);
  t.same(await ids(db, 'items', 'not.or=(id.eq.1,id.eq.2)'), [3, 4, 5]);
  t.same(await ids(db, 'items', 'or=(id.eq.1,and(active.is.false,rating.gte.3))'), [1, 2]);
  t.same(await ids(db, 'items', 'or=(id.eq.1,not.and(id.gt.1,rating.lt.3))'), [1, 2], 'NOT of an unknown AND stays unknown');
  t.same(await ids(db, 'items', 'or=(name.in.(apple,carrot),tags.cs.{yellow})'), [1, 2, 3]);
  t.same(await ids(db, 'items', 'or=(id.eq.1,id.eq.2)&or=(id.eq.2,id.eq.3)'), [2], 'two trees are ANDed');
  t.same(await ids(db, 'items', 'id=gt.1&or=(active.is.true,name.is.null)'), [3, 4]);
});

t.test('JSON paths in filters', async (t) => {
  t.same(await ids(db, 'items', 'data->>color=eq.red'), [1]);
  t.same(await ids(db, 'items', 'data->size=gt.2'), [1, 2], 'jsonb comparison');
  t.same(await ids(db, 'items', 'data->tags->>0=eq.fruit'), [1, 2], 'array index');
  t.same(await ids(db, 'items', 'data->dims->>w=eq.1'), [1]);
  t.same(await ids(db, 'items', 'data->tags=cs.["sweet"]'), [1]);
  t.same(await ids(db, 'items', 'numbers->>0=eq.2'), [2], 'non-json column through to_jsonb');
  t.same(await ids(db, 'items', 'or=(data->>color.eq.red,data->>color.eq.green)'), [1, 5]);
});
