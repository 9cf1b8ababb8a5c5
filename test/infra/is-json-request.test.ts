// The body parser's and the chat handler's content-type check (src/infra/http/is-json-request.ts)
// answers `application/json` without type-is: its answer must be `ctx.is`'s for every header shape.
import Koa from 'koa';
import t from 'tap';
import { isJsonRequest } from '../../src/infra/http/is-json-request.ts';

const app = new Koa();
function ctxWith(headers: Record<string, string>): Koa.Context {
  const req = { headers, url: '/', method: 'POST', socket: {} } as unknown as Koa.Context['req'];
  return app.createContext(req, {} as Koa.Context['res']);
}

const types = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json ',
  'application/vnd.api+json',
  'application/scim+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json, text/plain',
  'not a type',
];
const bodies: Record<string, string>[] = [
  { 'content-length': '12' },
  { 'content-length': '0' },
  { 'transfer-encoding': 'chunked' },
  {},
  { 'content-length': 'abc' },
];
const lists = [['application/json'], ['application/json', 'application/vnd.api+json', 'application/scim+json']];

t.test('the same answer as ctx.is for every content type, body and type list', async (t) => {
  let n = 0;
  for (const type of types)
    for (const body of bodies)
      for (const list of lists) {
        const headers: Record<string, string> = { ...body, ...(type === '' ? {} : { 'content-type': type }) };
        const ctx = ctxWith(headers);
        t.equal(isJsonRequest(ctx, list), Boolean(ctx.is(list)), `${JSON.stringify(headers)} ${list.join(',')}`);
        n++;
      }
  t.equal(n, types.length * bodies.length * lists.length);
});

t.test('application/json with a body is JSON, without one it is not', async (t) => {
  t.equal(
    isJsonRequest(ctxWith({ 'content-type': 'application/json', 'content-length': '2' }), ['application/json']),
    true,
  );
  t.equal(isJsonRequest(ctxWith({ 'content-type': 'application/json' }), ['application/json']), false);
  t.equal(isJsonRequest(ctxWith({ 'content-type': 'text/plain', 'content-length': '2' }), ['application/json']), false);
});
