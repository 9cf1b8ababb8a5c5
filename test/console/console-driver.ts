// Drives the console page in Chromium for console-browser.test.ts: the gateway it runs against,
// sign-in, tabs, and the screenshots `npm run console:screenshots` writes to docs/console/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, testConfig } from '../helpers/start-gateway.ts';

export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
export const ADMIN = 'admin-token-console-browser-01234';

/** A gateway with the console on (admin.token) and the ledger pricing the echo model. */
export const consoleConfig = (): Record<string, unknown> =>
  testConfig({
    admin: { token: ADMIN },
    // An upstream nobody listens on: the providers page shows its failures and its breaker.
    providers: {
      dead: { type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-up', api: 'chat_completions' },
    },
    models: { 'gpt-gone': { routes: [{ provider: 'dead', model: 'gpt-4o-mini' }] } },
    usage: {
      workspace_budgets: { 'team-a': { limits: [{ period: 'month', usd: 50, soft_ratio: 0.8 }] } },
      ledger: true,
      flush_interval_ms: 200,
      // Large prices, so a few echo tokens make a visible cost.
      prices: { models: { echo: { input: 1000, output: 2000 } } },
    },
  });

/** Where screenshots go: `CONSOLE_SCREENSHOTS=docs/console` (npm run console:screenshots); none by default. */
const shotsDir = process.env.CONSOLE_SCREENSHOTS ? join(repoRoot, process.env.CONSOLE_SCREENSHOTS) : undefined;

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!shotsDir) return;
  mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
}

export async function signIn(page: Page, url: string, token = ADMIN): Promise<void> {
  await page.goto(`${url}/console`);
  await page.fill('input[name=token]', token);
  await page.click('form.signin button[type=submit]');
}

export async function openTab(page: Page, tab: string): Promise<void> {
  await page.click(`a[data-tab=${tab}]`);
  await page.waitForSelector(`main[data-page=${tab}]`);
}

/**
 * Clicks the page's Refresh until `selector` shows (what the gateway records is written by the
 * ledger in the background; the bound only keeps a broken run from hanging).
 */
export async function refreshUntil(
  page: Page,
  selector: string,
  refresh = 'button:has-text("Refresh")',
): Promise<void> {
  const end = Date.now() + 20_000;
  for (;;) {
    if ((await page.locator(selector).count()) > 0) return;
    if (Date.now() > end)
      throw new Error(`${selector} did not appear; the page says: ${await page.textContent('main')}`);
    await page.click(refresh);
    await page.waitForTimeout(250);
  }
}
