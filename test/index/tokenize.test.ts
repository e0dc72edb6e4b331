import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer, foldText, sStem, tokenize } from '../../lib/index/tokenize';

test('folding: lowercase, accents and special letters', () => {
  assert.equal(foldText('Aldri annet enn Bråk'), 'aldri annet enn brak');
  assert.equal(foldText('Straße Ærø Łódź'), 'strasse aero lodz');
  assert.equal(foldText('Akinoshū Kenji'), 'akinoshu kenji');
});

test('tokens: possessives, apostrophes, hyphens, numbers kept, stopwords dropped', () => {
  assert.deepEqual(tokenize("When did Lothair II's mother die?"), ['lothair', 'ii', 'mother', 'die']);
  assert.deepEqual(tokenize("O'Brien's lay-abbot"), ['obrien', 'lay', 'abbot']);
  assert.deepEqual(tokenize('died 11 November 875; 2,441 questions; impact 1.355'), ['died', '11', 'november', '875', '2441', 'question', 'impact', '1.355']);
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize('the of and'), []);
});

test('S-stemmer joins plurals and leaves names alone', () => {
  assert.equal(sStem('films'), 'film');
  assert.equal(sStem('cities'), 'city');
  assert.equal(sStem('churches'), 'church');
  assert.equal(sStem('names'), 'name');
  for (const w of ['class', 'status', 'paris', 'gas', 'is', '1990s']) assert.equal(sStem(w), w);
});

test('options: stopwords configurable, stemming off, min length', () => {
  const t = new Tokenizer({ stopwords: ['river'], stem: false, minLength: 2 });
  assert.deepEqual(t.tokenize('The River Films of a Bubye river'), ['the', 'films', 'of', 'bubye']);
  const keepAll = new Tokenizer({ stopwords: false });
  assert.deepEqual(keepAll.tokenize('the films'), ['the', 'film']);
  assert.deepEqual(new Tokenizer().words('The films'), ['the', 'film']);
  // Options round-trip through their resolved (serialisable) form.
  assert.deepEqual(new Tokenizer(t.options).options, t.options);
});
