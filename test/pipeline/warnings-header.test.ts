// x-polygate-warnings stays one line of visible ASCII and small enough for every client's header
// limit, however many fields a translation drops (src/infra/metrics/warning-fields.ts).
import t from 'tap';
import { warningsHeader } from '../../src/infra/metrics/warning-fields.ts';

t.test('warnings join into one ASCII line', async (t) => {
  t.equal(warningsHeader(['a: dropped', 'b: caf\u00e9\nx']), 'a: dropped; b: caf??x');
});

t.test('a long list is cut at 2 KiB and says how many more', async (t) => {
  const many = Array.from(
    { length: 2000 },
    (_, i) => `messages.${i}.content.0: content block type 'server_tool_use' cannot be translated; dropped`,
  );
  const h = warningsHeader(many) ?? '';
  t.ok(h.length < 4200, `${h.length} characters`);
  t.match(h, /^messages\.0\.content\.0: /);
  const shown = h.match(/messages\.\d+\.content\.0: /g)?.length ?? 0;
  t.ok(shown > 10, `${shown} shown in full`);
  t.match(h, new RegExp(`; \\(${2000 - shown} more\\)$`));
});
