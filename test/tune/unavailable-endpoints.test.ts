// Upload and concat are marked unavailable by the spec: their bodies are still checked, then the
// answer is an explicit `endpoint_unavailable` envelope with 501.
import t from 'tap';
import { call, startInProcessGateway, testConfig } from './tune-helpers.ts';

const gw = await startInProcessGateway(testConfig({}));
t.teardown(() => gw.stop());

t.test('POST /tune/uploads/audio-url with a valid body is answered as unavailable', async (t) => {
  const r = await call(gw, 'POST', '/tune/uploads/audio-url', { url: 'https://cdn.example/song.mp3' });
  t.equal(r.status, 501);
  t.equal(r.body.code, 'endpoint_unavailable');
  t.match(r.body.message, /uploads\/audio-url is unavailable/);
  t.equal(r.body.data, null);
});

t.test('POST /tune/submit/concat with a valid body is answered as unavailable', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/concat', { clip_id: 'clip-1', is_infill: false });
  t.equal(r.status, 501);
  t.equal(r.body.code, 'endpoint_unavailable');
  t.match(r.body.message, /submit\/concat is unavailable/);
});

t.test('audio-url without url is a 400 naming url', async (t) => {
  const r = await call(gw, 'POST', '/tune/uploads/audio-url', {});
  t.equal(r.status, 400);
  t.equal(r.body.code, 'invalid_request');
  t.match(r.body.message, /^url: required/);
});

t.test('audio-url with a url that is not http(s) is a 400 naming url', async (t) => {
  const r = await call(gw, 'POST', '/tune/uploads/audio-url', { url: 'file:///etc/passwd' });
  t.equal(r.status, 400);
  t.match(r.body.message, /^url: expected an http or https URL/);
});

t.test('concat without clip_id is a 400 naming clip_id', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/concat', { is_infill: true });
  t.equal(r.status, 400);
  t.equal(r.body.code, 'invalid_request');
  t.match(r.body.message, /^clip_id: required/);
});

t.test('concat with an is_infill that is not a boolean is a 400 naming is_infill', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/concat', { clip_id: 'c', is_infill: 'yes' });
  t.equal(r.status, 400);
  t.match(r.body.message, /^is_infill: expected a boolean/);
});

t.test('both still need a key', async (t) => {
  for (const path of ['/tune/uploads/audio-url', '/tune/submit/concat']) {
    const r = await call(gw, 'POST', path, {}, null);
    t.equal(r.status, 401, path);
    t.equal(r.body.code, 'unauthorized');
  }
});
