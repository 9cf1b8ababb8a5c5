import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import {
  checkOutboundUrl,
  embeddedIpv4,
  isForbiddenAddress,
  outboundAgent,
  closeOutboundAgents,
  SsrfRefused,
} from '../../src/infra/outbound/ssrf-guard.ts';

t.teardown(closeOutboundAgents);

/** Address literals, each family's ranges: whether the guard refuses them. */
const addressCases: Array<[name: string, forbidden: boolean, addresses: string[]]> = [
  [
    'internal IPv4 ranges are refused',
    true,
    [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '127.9.9.9',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '224.0.0.1',
      '239.255.255.250',
      '0.0.0.0',
      '255.255.255.255',
    ],
  ],
  [
    'public IPv4 addresses pass',
    false,
    ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '93.184.216.34', '11.0.0.1'],
  ],
  [
    'internal IPv6 ranges are refused',
    true,
    ['::1', '::', 'fe80::1', 'fe80::1%eth0', 'fd00::1', 'fc12:3456::1', 'ff02::1'],
  ],
  [
    'IPv6 forms that embed an internal IPv4 address are refused',
    true,
    [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '64:ff9b::10.0.0.1',
      '2002:c0a8:0101::1',
    ],
  ],
  ['public IPv6 addresses pass', false, ['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']],
];
for (const [name, forbidden, addresses] of addressCases)
  t.test(name, async (t) => {
    for (const a of addresses) t.equal(isForbiddenAddress(a), forbidden, a);
  });

t.test('the IPv4 address inside an IPv6 mapped form is read out', async (t) => {
  t.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
});

t.test('URLs: names resolving to loopback, literal internal hosts and other schemes are refused', async (t) => {
  await t.rejects(checkOutboundUrl('http://localhost:9/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://127.0.0.1/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://[::1]/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://[::ffff:127.0.0.1]/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('file:///etc/passwd', true), SsrfRefused);
  t.equal(
    (await checkOutboundUrl('http://127.0.0.1/x', true)).hostname,
    '127.0.0.1',
    'allowed when private addresses are allowed',
  );
});

t.test('the guarded agent refuses to connect to a name that resolves inward', async (t) => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  await t.rejects(request(`http://localhost:${port}/`, { dispatcher: outboundAgent(false) }));
  t.equal(hits, 0, 'nothing reached the loopback server');
  const res = await request(`http://localhost:${port}/`, { dispatcher: outboundAgent(true) });
  t.equal(await res.body.text(), 'ok', 'reached when private addresses are allowed');
});

// Finding 12 of the hardening issue: transition and discard prefixes were accepted as literals.
t.test('NAT64, Teredo, 6to4 and discard-prefix literals are refused, whatever they embed', async (t) => {
  for (const a of [
    '64:ff9b::8.8.8.8',
    '64:ff9b::a00:1',
    '64:ff9b:1::1',
    '64:ff9b:1:ffff::8.8.8.8',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    '2002:0808:0808::1',
    '2002::1',
    '100::1',
    '100::ffff:1',
  ]) {
    t.equal(isForbiddenAddress(a), true, a);
    await t.rejects(checkOutboundUrl(`http://[${a}]/hook`, false), SsrfRefused, `URL with ${a}`);
  }
});

t.test('a refusal says "not allowed" and not what a name resolves to', async (t) => {
  const internal = await checkOutboundUrl('http://localhost:9/x', false).catch((e: Error) => e);
  const unknown = await checkOutboundUrl('http://no-such-host.invalid/x', false).catch((e: Error) => e);
  for (const e of [internal, unknown]) {
    t.ok(e instanceof SsrfRefused);
    t.match((e as Error).message, /not allowed/);
    t.notMatch((e as Error).message, /127\.0\.0\.1|::1|resolves to|ENOTFOUND|EAI_AGAIN/);
  }
  t.equal(
    (internal as Error).message.replace('localhost', 'X'),
    (unknown as Error).message.replace('no-such-host.invalid', 'X'),
    'one wording for both',
  );
});
