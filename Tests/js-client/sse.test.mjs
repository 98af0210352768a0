// The Server-Sent Events reader (clients/js/sse.js) on its own: the WHATWG
// text/event-stream rules the stream transport relies on, whatever the
// chunks' boundaries.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventStreamParser } from '../../clients/js/sse.js';

const all = (chunks) => {
  const p = new EventStreamParser();
  const events = chunks.flatMap((c) => p.push(c));
  return { events, parser: p };
};

const daemonText = 'event: snapshot\nid: e1:0\ndata: {"type":"snapshot","rev":0}\n\n'
  + 'event: presence\nid: e1:0\ndata: {"type":"presence","viewers":1}\n\n'
  + ': heartbeat\n\n'
  + 'event: patch\nid: e1:1\ndata: {"type":"patch","rev":1}\n\n';

test('sse: the daemon\'s events, fields and ids, heartbeats as comments', () => {
  const { events, parser } = all([daemonText]);
  assert.deepEqual(events, [
    { type: 'snapshot', data: '{"type":"snapshot","rev":0}', id: 'e1:0' },
    { type: 'presence', data: '{"type":"presence","viewers":1}', id: 'e1:0' },
    { type: 'patch', data: '{"type":"patch","rev":1}', id: 'e1:1' },
  ]);
  assert.equal(parser.comments, 1);
  assert.equal(parser.lastEventId, 'e1:1');
});

test('sse: any split of the text gives the same events (one character at a time too)', () => {
  const whole = all([daemonText]).events;
  assert.deepEqual(all(daemonText.split('')).events, whole);
  for (let cut = 1; cut < daemonText.length; cut += 7) {
    assert.deepEqual(all([daemonText.slice(0, cut), daemonText.slice(cut)]).events, whole, `cut at ${cut}`);
  }
});

test('sse: LF, CRLF and CR line ends, a CRLF split between chunks counts once', () => {
  const crlf = daemonText.replaceAll('\n', '\r\n');
  const cr = daemonText.replaceAll('\n', '\r');
  const whole = all([daemonText]).events;
  assert.deepEqual(all([crlf]).events, whole);
  assert.deepEqual(all([cr]).events, whole);
  assert.deepEqual(all(crlf.split('')).events, whole, 'CRLF one character at a time');
  // "data: a\r" then "\n\r\n": the LF ends the same line, then one blank line dispatches.
  assert.deepEqual(all(['data: a\r', '\n\r\n']).events, [{ type: 'message', data: 'a', id: '' }]);
  // A CR at a chunk's end followed by a CR: two line ends (the second a blank line).
  assert.deepEqual(all(['data: b\r', '\r']).events, [{ type: 'message', data: 'b', id: '' }]);
});

test('sse: multi-line data, the space after the colon, fields without a value, unknown fields', () => {
  const { events } = all(['data: one\ndata:two\ndata:  three\ndata\nretry: 10\nfoo: bar\nevent\n\n']);
  assert.deepEqual(events, [{ type: 'message', data: 'one\ntwo\n three\n', id: '' }]);
});

test('sse: no data, no event; the id lasts until another; a byte-order mark is dropped once', () => {
  const { events, parser } = all(['\ufeffid: a:1\nevent: x\n\n', 'data: d\n\n', 'id: b:2\ndata: e\n\n', 'id: bad\u0000\ndata: f\n\n']);
  assert.deepEqual(events, [
    { type: 'message', data: 'd', id: 'a:1' },
    { type: 'message', data: 'e', id: 'b:2' },
    { type: 'message', data: 'f', id: 'b:2' },
  ]);
  assert.equal(parser.lastEventId, 'b:2');
  assert.deepEqual(all(['data: x\n']).events, [], 'an event without its blank line is not dispatched');
  assert.deepEqual(all(['\ufeff\ufeffdata: y\n\n']).events, [], 'only one mark is dropped: the second is part of a field name');
});

test('sse: data holding colons and JSON with escaped newlines stays whole', () => {
  const json = JSON.stringify({ type: 'patch', ops: [{ op: 'replace', path: '/sections/0/title', value: 'a:b\nc' }] });
  const { events } = all([`event: patch\nid: e:2\ndata: ${json}\n\n`]);
  assert.deepEqual(JSON.parse(events[0].data), JSON.parse(json));
});
