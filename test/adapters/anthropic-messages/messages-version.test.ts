// `anthropic-version` (adapters/anthropic-messages/messages-version.ts): required and a real date;
// a version once accepted is remembered, which must never let an invalid one through.
import t from 'tap';
import { checkVersion } from '../../../adapters/anthropic-messages/messages-version.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';

const refusal = (headers: Record<string, string | string[] | undefined>): string | undefined => {
  try {
    checkVersion(headers);
    return undefined;
  } catch (e) {
    t.ok(e instanceof GatewayError && e.param === 'anthropic-version', 'a 400 naming the header');
    return (e as Error).message;
  }
};

for (let i = 0; i < 3; i++) {
  t.equal(refusal({ 'anthropic-version': '2023-06-01' }), undefined, `a real date is accepted (time ${i + 1})`);
  t.equal(refusal({ 'anthropic-version': ['2023-01-01', 'x'] }), undefined, 'the first of repeated headers is read');
  t.match(refusal({}), /header is required/, 'missing: refused');
  t.match(refusal({ 'anthropic-version': ' ' }), /header is required/, 'blank: refused');
  t.match(refusal({ 'anthropic-version': '2023-02-30' }), /YYYY-MM-DD/, 'not a real date: refused');
  t.match(refusal({ 'anthropic-version': '2023-06-01x' }), /YYYY-MM-DD/, 'not date-shaped: refused');
  t.match(refusal({ 'anthropic-version': ['2023-13-01', '2023-06-01'] }), /YYYY-MM-DD/, 'a bad first value: refused');
}
// Past the memo's bound every new date is still checked, and still accepted.
for (let d = 1; d <= 28; d++)
  for (const m of ['01', '02', '03'])
    t.equal(refusal({ 'anthropic-version': `2024-${m}-${String(d).padStart(2, '0')}` }), undefined);
t.match(refusal({ 'anthropic-version': '2024-02-31' }), /YYYY-MM-DD/, 'and an invalid one refused');
