/**
 * The dashboard of one of two gateway instances on one PostgreSQL database (issue 21), in headless Chromium:
 * the Overview names the instance, how many conversations it owns and its live peer with when it was last seen;
 * the Sessions page shows the owner of a Telegram conversation. Skips without PostgreSQL or Chromium.
 */
import { chromium, type Browser } from 'playwright-core';
import { turn } from '../fakes/openai-server';
import { openCluster, POSTGRES_SKIPPED, type ClusterWorld } from './cluster-world';
import { CHROMIUM, CHROMIUM_ARGS, chromiumPath } from './dashboard-world';
import { assertGatewayBuilt } from './gateway-process';
import { until } from './schedule-files';
import { ADMIN_TOKEN, DM_USER, isFinalReply, splitReply } from './telegram-world';

jest.setTimeout(90_000);

const skipped = POSTGRES_SKIPPED ?? (chromiumPath() ? undefined : '/usr/bin/chromium is not installed');
const describeBoth = skipped ? describe.skip : describe;

let w: ClusterWorld | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await w?.close();
});

describeBoth(`dashboard of a gateway cluster${skipped ? ` [skipped: ${skipped}]` : ''}`, () => {
  it('shows the instance, what it owns and its peer on the Overview, and the owner on the Sessions page', async () => {
    assertGatewayBuilt();
    w = await openCluster({ config: { cluster: { lease_ms: 3000 } } });
    await w.startAll();
    const wd = w;
    const answer = 'Answered by one of two instances.';
    wd.model.enqueue(turn({ text: answer }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'who answers me?' });
    await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => isFinalReply(m) && splitReply(m.text ?? '').answer === answer), 15_000, 'the reply');
    const owner = await until('an owner of the DM', async () => (await wd.admin('a', '/api/sessions')).body.sessions.find((s: { binding_key: string | null }) => s.binding_key === `telegram:${DM_USER}:-`)?.owner_instance as string | undefined);
    const peer = owner === 'a' ? 'b' : 'a';

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    // A fresh origin asks for the favicon the gateway does not have; nothing else may fail.
    page.on('console', (m) => void (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico') && errors.push(`${m.text()} @ ${m.location().url}`)));
    page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
    await page.goto(wd.gw(owner).url);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('nav').waitFor();

    await page.goto(`${wd.gw(owner).url}/#/overview`);
    await page.getByTestId('instance-id').waitFor();
    expect(await page.getByTestId('instance-id').textContent()).toBe(owner);
    expect(Number(await page.getByTestId('instance-owns').textContent())).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('instance-alone').count()).toBe(0);
    const row = page.getByTestId('instance-peers').locator('tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual([peer, expect.stringMatching(/^\d+ s ago$/)]);

    await page.goto(`${wd.gw(owner).url}/#/sessions`);
    const cell = page.locator('table.rows tbody tr [data-col="instance"]', { hasText: owner });
    await cell.first().waitFor();
    expect(await cell.first().textContent()).toBe(owner);
    expect(errors).toEqual([]);
  });
});
