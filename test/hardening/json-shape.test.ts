// The pre-parse shape check (src/infra/http/json-shape.ts) and the header encoder
// (src/infra/http/header-value.ts) on their own: the field a bound names, strings that hold
// brackets, commas and escaped quotes, and header values with every kind of character.
import t from 'tap';
import { checkJsonShape } from '../../src/infra/http/json-shape.ts';
import { headerValue, routeHeader } from '../../src/infra/http/header-value.ts';

const limits = { maxDepth: 8, maxItems: 3, maxKeys: 2 };
const param = (text: string): string | null | undefined => {
  try {
    checkJsonShape(text, limits);
    return undefined;
  } catch (e) {
    return (e as { param: string | null }).param;
  }
};

t.test('the bound names the field at fault', async (t) => {
  t.equal(param('{"a":1,"b":2}'), undefined, 'two keys pass');
  t.equal(param('{"a":1,"b":2,"c":3}'), 'body', 'too many top-level keys: body');
  t.equal(param('{"messages":[1,2,3]}'), undefined, 'three items pass');
  t.equal(param('{"messages":[1,2,3,4]}'), 'messages');
  t.equal(param('{"messages":[{"content":[1,2]},{"content":[1,2,3,4]}]}'), 'messages.1.content');
  t.equal(param('{"m\\u0065ta":{"a":1,"b":2,"c":3}}'), 'meta', 'an escaped key is named unescaped');
  t.equal(param('[[[[[[[[[1]]]]]]]]]'), 'body', 'too deep');
});

t.test('strings are text: brackets, commas, colons and escaped quotes inside them count for nothing', async (t) => {
  t.equal(param('{"a":"[[[[[[[[[[,,,,,:::{{{{","b":"\\"[,,,,\\\\"}'), undefined);
  t.equal(param('["\\\\",",,,,,"]'), undefined, 'a string ending in an escaped backslash closes');
});

t.test('__proto__ keys are refused, escaped or not; as a value they are text', async (t) => {
  t.equal(param('{"__proto__":{}}'), 'body');
  t.equal(param('{"\\u005f_proto__":1}'), 'body');
  t.equal(param('{"a":"__proto__"}'), undefined);
});

t.test('header values: visible ASCII as is, anything else percent-encoded, bounded', async (t) => {
  t.equal(headerValue('gpt-4.1 mini'), 'gpt-4.1 mini');
  t.equal(headerValue('a\nb\r\u0000\u007f'), 'a%0Ab%0D%00%7F');
  t.equal(headerValue('100%'), '100%25');
  t.equal(headerValue('ü'), '%C3%BC');
  t.equal(headerValue('\uD800'), '%EF%BF%BD', 'a lone surrogate is U+FFFD');
  t.equal(headerValue('x'.repeat(2000)).length, 512);
  t.equal(routeHeader('oai', 'gpt-\n'), 'oai/gpt-%0A');
});
