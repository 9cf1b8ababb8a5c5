// Issue #25, item 6: the console in a real browser (Debian's Chromium through playwright-core)
// against a spawned gateway: sign in, create a key, use it with the official OpenAI SDK, see the
// request in the log and in the spend chart, rotate it (old secret refused, new accepted), disable
// it; and the browser-side hostile checks (wrong token, no CSRF header, SameSite, CSP, no session
// without sign-in, path tricks). CONSOLE_SCREENSHOTS=docs/console also writes each page's screenshot.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import OpenAI from 'openai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startGateway, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import {
  ADMIN,
  chromiumPath,
  consoleConfig,
  hasChromium,
  openTab,
  refreshUntil,
  screenshot,
  signIn,
} from './console-driver.ts';

if (!hasChromium) {
  t.plan(0, `no Chromium at ${chromiumPath}: the console's browser test needs it (scripts/system-deps.sh installs it)`);
} else {
  t.setTimeout(300_000);
  const gw = await startGateway(consoleConfig());
  const browser = await chromium.launch({ executablePath: chromiumPath });
  t.teardown(async () => {
    await browser.close();
    await gw.stop();
  });
  await flow(gw, browser);
  await hostile(gw, browser);
}

/** An SDK call with `secret`: the request id, or the HTTP status it failed with. */
async function callWith(gw: Gateway, secret: string): Promise<{ id?: string; status?: number }> {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret, maxRetries: 0 });
  try {
    const { response } = await client.chat.completions
      .create({ model: 'echo', messages: [{ role: 'user', content: 'hello from the console test' }] })
      .withResponse();
    return { id: response.headers.get('x-request-id') ?? undefined };
  } catch (e) {
    if (e instanceof OpenAI.APIError) return { status: e.status };
    throw e;
  }
}

async function secretShown(page: Page): Promise<string> {
  const secret = (await page.locator('[data-secret]').textContent())?.trim() ?? '';
  return secret;
}

function flow(gw: Gateway, browser: Browser) {
  return t.test('sign in, create a key, use it, see it in the log and the chart, rotate, disable', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-gone', messages: [{ role: 'user', content: 'hi' }] }),
      });
      t.ok(r.status >= 500, `a call to the dead upstream fails (${r.status})`);
    }
    await signIn(page, gw.url);
    await page.waitForSelector('main[data-page=providers] tr[data-provider=echo]');
    t.match(
      await page.textContent('tr[data-provider=dead]'),
      /dead.*openai.*yes.*100\.0 %.*gpt-4o-mini/s,
      "the dead provider's failures and error rate",
    );
    await screenshot(page, 'providers');
    await openTab(page, 'models');
    await page.waitForSelector('tr[data-model=echo]');
    t.match(await page.textContent('tr[data-model=echo]'), /echo → echo-1/, 'the model and its route');
    await screenshot(page, 'models');

    await openTab(page, 'keys');
    await page.fill('input[name=id]', 'console-key');
    await page.click('form.create button[type=submit]');
    await page.waitForSelector('main .error');
    t.match(await page.textContent('main .error'), /^400 .*workspace.*\(workspace\)$/, "the API's error, in the page");
    await page.fill('input[name=workspace]', 'team-a');
    await page.fill('input[name=models]', 'echo');
    await page.fill('input[name=usd_per_day]', '5');
    await page.click('form.create button[type=submit]');
    await page.waitForSelector('[data-secret]');
    const first = await secretShown(page);
    t.match(first, /^pg-/, 'the new secret is shown once');
    await page.waitForSelector('tr[data-key=console-key]');
    t.match(await page.textContent('tr[data-key=console-key]'), /team-a/);
    await screenshot(page, 'keys');
    await page.click('button:has-text("I have stored it")');
    t.equal(await page.locator('[data-secret]').count(), 0, 'dismissed, the secret is gone from the page');

    const used = await waitFor('the new key accepted', async () => (await callWith(gw, first)).id, 5_000);
    t.ok(used, `the OpenAI SDK call with the new key succeeded (request ${used})`);

    await openTab(page, 'requests');
    await refreshUntil(page, `tr[data-request="${used}"]`);
    t.match(
      await page.textContent(`tr[data-request="${used}"]`),
      /console-key.*team-a.*echo/s,
      'the request in the log',
    );
    await page.fill('input[name=key]', 'nobody');
    await page.click('form.filters button[type=submit]');
    await page.waitForSelector('td:has-text("No requests match.")');
    t.pass('a filter on another key hides it');
    await page.fill('input[name=key]', 'console-key');
    await page.click('form.filters button[type=submit]');
    await page.waitForSelector(`tr[data-request="${used}"]`);
    await screenshot(page, 'requests');

    await openTab(page, 'spend');
    await refreshUntil(page, 'tr[data-group=console-key]');
    t.equal(await page.textContent('tr[data-group=console-key] td:nth-child(2)'), '1', 'one request in the totals');
    t.match(await page.textContent('tr[data-group=console-key] td:nth-child(4)'), /^\$0\.0\d*[1-9]/, 'and its cost');
    await page.waitForSelector('.chart .uplot');
    t.match(await page.textContent('.chart .u-legend'), /console-key/, 'the key is a series of the chart');
    await page.selectOption('select[name=by]', 'workspace');
    await page.waitForSelector('tr[data-group=team-a]');
    t.pass('the workspace view sums its keys');
    await screenshot(page, 'spend');

    await openTab(page, 'budgets');
    await page.waitForSelector('tr[data-scope="key:console-key"]');
    t.match(
      await page.textContent('tr[data-scope="key:console-key"]'),
      /day.*\$5\.0000.*\$0\.0330.*runtime/s,
      "the key's daily budget with what the request used of it",
    );
    await screenshot(page, 'budgets');

    await openTab(page, 'keys');
    await page.waitForSelector('tr[data-key=console-key]');
    await page.click('tr[data-key=console-key] button[data-action=rotate]');
    await page.waitForSelector('[data-secret]');
    const second = await secretShown(page);
    t.not(second, first, 'rotate shows a new secret');
    t.equal((await callWith(gw, first)).status, 401, 'the old secret is refused at once (grace 0)');
    t.ok((await callWith(gw, second)).id, 'the new secret is accepted');
    await page.click('button:has-text("I have stored it")');

    await page.click('tr[data-key=console-key] button[data-action=disable]');
    await page.waitForSelector('tr[data-key=console-key] .badge-disabled');
    const refused = await callWith(gw, second);
    t.equal(refused.status, 401, 'a disabled key is refused');
    t.same(pageErrors, [], 'no script error in the page');
    await context.close();
  });
}

/** A page on another site (localhost, where the gateway is 127.0.0.1) that links and posts to the gateway. */
async function otherSite(t: Test, gw: Gateway): Promise<string> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><a id="go" href="${gw.url}/console/session">session</a>
      <form id="post" method="post" action="${gw.url}/admin/keys/console-key/enable"><button>go</button></form>`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise((ok) => server.close(ok)));
  return `http://localhost:${(server.address() as AddressInfo).port}/`;
}

function hostile(gw: Gateway, browser: Browser) {
  return t.test('hostile checks in the browser', async (t) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const first = await page.goto(`${gw.url}/console`);
    const csp = first?.headers()['content-security-policy'] ?? '';
    t.match(csp, /script-src 'self'/, 'the page has its CSP');
    // The page renders once its modules have loaded: wait for whichever view it chose, then say which.
    await page.waitForSelector('form.signin, main[data-page]');
    t.equal(await page.locator('form.signin').count(), 1, 'no session without sign-in: the sign-in form');
    const noSession = await page.evaluate(async () => (await fetch('/admin/keys')).status);
    t.equal(noSession, 401, 'an admin call without a session');

    await signIn(page, gw.url, `${ADMIN}x`);
    await page.waitForSelector('form.signin .error');
    t.match(
      await page.textContent('form.signin .error'),
      /401 that is not the admin token/,
      'a wrong token is refused',
    );
    t.equal((await context.cookies()).length, 0, 'and gets no cookie');

    await page.fill('input[name=token]', ADMIN);
    await page.click('form.signin button[type=submit]');
    await page.waitForSelector('header nav');
    const cookie = (await context.cookies()).find((c) => c.name === 'polygate_console');
    t.match(cookie, { httpOnly: true, sameSite: 'Strict' }, 'the session cookie as the browser holds it');
    t.equal(await page.evaluate(() => document.cookie), '', 'no script can read it');

    const withoutCsrf = await page.evaluate(async () => (await fetch('/admin/providers')).status);
    t.equal(withoutCsrf, 403, 'an admin call with the cookie but no CSRF header');
    const write = await page.evaluate(async () => {
      const body = JSON.stringify({ id: 'sneaky', workspace: 'x' });
      const r = await fetch('/admin/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return r.status;
    });
    t.equal(write, 403, 'a key write with the cookie but no CSRF header');
    const sneaky = await fetch(`${gw.url}/admin/keys/sneaky`, { headers: { authorization: `Bearer ${ADMIN}` } });
    t.equal(sneaky.status, 404, 'and no key was made');

    // An inline script added by an injection does not run under the CSP.
    const ran = await page.evaluate(async () => {
      const seen = new Promise<string>((ok) =>
        document.addEventListener('securitypolicyviolation', (e) => ok(e.violatedDirective), { once: true }),
      );
      const s = document.createElement('script');
      s.textContent = 'window.injected = true';
      document.head.appendChild(s);
      return { ran: (window as unknown as { injected?: boolean }).injected === true, violated: await seen };
    });
    t.same(ran, { ran: false, violated: 'script-src-elem' }, 'an injected inline script is blocked');

    // From another site: SameSite=Strict keeps the cookie off a cross-site navigation and form.
    const evil = await otherSite(t, gw);
    await page.goto(evil);
    await Promise.all([page.waitForNavigation(), page.click('#go')]);
    t.match(await page.textContent('body'), /not signed in/, 'a cross-site link arrives without the session');
    await page.goto(evil);
    const [post] = await Promise.all([page.waitForNavigation(), page.click('#post button')]);
    t.equal(post?.status(), 401, 'a cross-site form post arrives without the session (401, not 403)');

    const trick = await page.goto(`${gw.url}/console/%2e%2e/package.json`);
    t.equal(trick?.status(), 404, 'a path out of /console');
    t.notMatch(await page.textContent('body'), /dependencies/);

    await page.goto(`${gw.url}/console`);
    await page.waitForSelector('header nav');
    await page.click('button.signout');
    await page.waitForSelector('form.signin');
    const after = await page.evaluate(async () => (await fetch('/console/session')).status);
    t.equal(after, 401, 'signed out, the session is gone');
    await context.close();
  });
}
