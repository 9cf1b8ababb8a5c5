import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import { checkOutboundUrl, embeddedIpv4, isForbiddenAddress, outboundAgent, closeOutboundAgents, SsrfRefused } from '../../src/outbound/ssrf-guard.ts';

t.teardown(closeOutboundAgents);

t.test('internal IPv4 ranges are refused', async (t) => {
  for (const a of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.9.9.9', '169.254.169.254', '100.64.0.1', '100.127.255.254', '224.0.0.1', '239.255.255.250', '0.0.0.0', '255.255.255.255']) {
    t.equal(isForbiddenAddress(a), true, a);
  }
});

t.test('public IPv4 addresses pass', async (t) => {
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '93.184.216.34', '11.0.0.1']) t.equal(isForbiddenAddress(a), false, a);
});

t.test('internal IPv6 ranges are refused', async (t) => {
  for (const a of ['::1', '::', 'fe80::1', 'fe80::1%eth0', 'fd00::1', 'fc12:3456::1', 'ff02::1']) t.equal(isForbiddenAddress(a), true, a);
});

t.test('IPv6 forms that embed an internal IPv4 address are refused', async (t) => {
  for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '64:ff9b::10.0.0.1', '2002:c0a8:0101::1']) {
    t.equal(isForbiddenAddress(a), true, a);
  }
  t.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
});

t.test('public IPv6 addresses pass', async (t) => {
  for (const a of ['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']) t.equal(isForbiddenAddress(a), false, a);
});

t.test('URLs: names resolving to loopback, literal internal hosts and other schemes are refused', async (t) => {
  await t.rejects(checkOutboundUrl('http://localhost:9/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://127.0.0.1/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://[::1]/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('http://[::ffff:127.0.0.1]/x', false), SsrfRefused);
  await t.rejects(checkOutboundUrl('file:///etc/passwd', true), SsrfRefused);
  t.equal((await checkOutboundUrl('http://127.0.0.1/x', true)).hostname, '127.0.0.1', 'allowed when private addresses are allowed');
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
