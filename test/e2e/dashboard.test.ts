/**
 * The dashboard in headless Chromium against the real gateway process and the fake model (issue 17, Done
 * when): a wrong token does not log in; the token does; every page opens without a console error (and is
 * screenshotted to dist/screenshots, or DASHBOARD_SCREENSHOTS); a playground reply streams; a tool approved
 * on the Approvals page changes the playground's card; the transcript shows the call and who decided; the
 * usage chart is drawn with the API's totals; the Schedules page handles every answer of the scheduler's
 * contract; state changes without the cookie or the CSRF token are refused; logout ends the login.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { turn } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { chromiumPath, DASHBOARD_TOKEN, openDashboardWorld, type DashboardWorld } from './dashboard-world';

export const SCREENSHOT_DIR = process.env.DASHBOARD_SCREENSHOTS ?? resolve(__dirname, '../../dist/screenshots');
const PAGES = ['overview', 'sessions', 'approvals', 'schedules', 'usage', 'access', 'deliveries', 'playground'];

// CI installs chromium (.ci/run); a developer machine without it skips, and says so.
const browserHere = chromiumPath() !== undefined;
if (!browserHere && process.env.CI) throw new Error('/usr/bin/chromium is missing: .ci/run installs the Debian package chromium');
const describeBrowser = browserHere ? describe : describe.skip;
if (!browserHere) console.warn('dashboard browser tests skipped: /usr/bin/chromium is not installed (apt-get install chromium)');

jest.setTimeout(90_000);

let w: DashboardWorld;
let ctx: BrowserContext;
let page: Page;
/** Console errors and uncaught exceptions of every page of the logged-in context. */
const consoleErrors: string[] = [];

function watch(p: Page): Page {
  p.on('console', (m) => {
    if (m.type() !== 'error') return;
    // This branch has no scheduler: its 404 is the answer the Schedules page is built to show.
    if (/404/.test(m.text()) && /\/api\/schedules$/.test(m.location().url)) return;
    consoleErrors.push(`${m.text()} @ ${m.location().url}`);
  });
  p.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
  return p;
}

async function open(p: Page, path: string): Promise<void> {
  await p.goto(`${w.gw.url}/#/${path}`);
  await p.locator(`main.page[data-page="${path.split('/')[0]}"]`).waitFor();
}

const shot = (p: Page, name: string) => p.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

describeBrowser('dashboard in headless Chromium', () => {
  beforeAll(async () => {
    assertGatewayBuilt();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    w = await openDashboardWorld();
    ctx = await w.browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = watch(await ctx.newPage());
  });
  afterAll(async () => {
    await ctx?.close();
    await w?.close();
  });

  it('shows only the login page before login, and a wrong token does not log in', async () => {
    const anon = await w.browser.newContext();
    const p = await anon.newPage();
    await p.goto(w.gw.url);
    await p.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await p.locator('nav').count()).toBe(0);
    const bundle = await p.request.get(`${w.gw.url}/assets/app.js`);
    expect(bundle.status()).toBe(401);
    await p.getByLabel('Admin token').fill(`${DASHBOARD_TOKEN}-wrong`);
    await p.getByRole('button', { name: 'Log in' }).click();
    await expect(p.getByRole('alert').textContent()).resolves.toContain('not right');
    expect(await anon.cookies()).toEqual([]);
    await shot(p, 'login');
    await anon.close();
  });

  it('logs in with the admin token and opens every page without a console error', async () => {
    await page.goto(w.gw.url);
    await page.getByLabel('Admin token').fill(DASHBOARD_TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('nav').waitFor();
    const [cookie] = await ctx.cookies();
    expect(cookie).toMatchObject({ name: 'pg_session', httpOnly: true, sameSite: 'Strict' });
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
    for (const path of PAGES) {
      await page.getByRole('link', { name: path === 'usage' ? 'Usage' : path[0].toUpperCase() + path.slice(1) }).click();
      await page.locator(`main.page[data-page="${path}"] h1`).waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      await shot(page, path);
    }
    await open(page, 'overview');
    await page.getByText('web').first().waitFor();
    expect(await page.locator('.adapter-connected').count()).toBeGreaterThanOrEqual(1);
    expect(consoleErrors).toEqual([]);
  });

  it('streams a playground reply as the model writes it', async () => {
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    w.model.enqueue(turn({ text: answer }, { chunkDelayMs: 60 }));
    await open(page, 'playground');
    await page.getByPlaceholder('Message the agent').fill('Tell me forty words');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.user', { hasText: 'Tell me forty words' }).waitFor();
    // A bot message that is not final yet and shows part of the answer: the reply is streaming.
    const partial = await page.waitForFunction((full) => {
      // Runs in the page (this project's tsconfig has no DOM types).
      const doc = (globalThis as any).document;
      const b = ([...doc.querySelectorAll('.bubble.assistant.streaming')] as { textContent: string | null }[]).map((e) => e.textContent ?? '').find((t) => t.includes('word0'));
      return b !== undefined && !b.includes(full) ? b : false;
    }, answer, { polling: 20 });
    expect(await partial.jsonValue()).toContain('word0');
    await page.locator('.bubble.assistant.final', { hasText: answer }).waitFor();
    await shot(page, 'playground-streamed');
    expect(consoleErrors).toEqual([]);
  });

  it('approves a tool call from the Approvals page and the playground card changes', async () => {
    w.model.enqueue(
      turn({ text: 'Let me check.', toolCalls: [{ id: 'call_dash', name: 'exec_command', arguments: JSON.stringify({ description: 'List the workspace', cmd: 'echo dashboard-approved' }) }] }),
      turn({ text: 'It printed dashboard-approved.' }),
    );
    await open(page, 'playground');
    await page.getByPlaceholder('Message the agent').fill('please run echo');
    await page.getByRole('button', { name: 'Send' }).click();
    const card = page.locator('.bubble.assistant', { hasText: 'echo dashboard-approved' }).filter({ has: page.getByRole('button', { name: 'Allow', exact: true }) });
    await card.waitFor();
    const cardId = await card.getAttribute('data-message');

    const approvals = watch(await ctx.newPage());
    await approvals.goto(`${w.gw.url}/#/approvals`);
    const pending = approvals.locator('li.approval', { hasText: 'exec_command' });
    await pending.waitFor();
    await shot(approvals, 'approvals-pending');
    await pending.getByRole('button', { name: 'Allow' }).click();
    await approvals.getByText('Nothing is waiting for a decision.').waitFor();
    await approvals.close();

    const decided = page.locator(`.bubble[data-message="${cardId}"]`);
    await decided.filter({ hasText: /Allowed/ }).waitFor();
    expect(await decided.getByRole('button').count()).toBe(0);
    await page.locator('.bubble.assistant.final', { hasText: 'It printed dashboard-approved.' }).waitFor();
    expect(consoleErrors).toEqual([]);
  });

  it('shows the tool call, its output and who allowed it in the transcript', async () => {
    await open(page, 'sessions');
    const rows = page.locator('table.rows tbody tr');
    await rows.first().waitFor();
    const sessions = (await w.admin('/api/sessions')).body.sessions as { session_id: string }[];
    const withCall = [];
    for (const s of sessions) {
      const t = await w.admin(`/api/sessions/${s.session_id}/messages`);
      if (JSON.stringify(t.body).includes('call_dash')) withCall.push(s.session_id);
    }
    expect(withCall).toHaveLength(1);
    await page.locator(`a[href="#/sessions/${withCall[0]}"]`).first().click();
    const tool = page.locator('.tool', { hasText: 'exec_command' });
    await tool.waitFor();
    expect(await tool.locator('.args').textContent()).toContain('echo dashboard-approved');
    expect(await tool.locator('.decision').textContent()).toBe('✅ Allowed by web:admin');
    await tool.getByText('Output').click();
    expect(await tool.locator('.output').textContent()).toContain('dashboard-approved');
    await page.locator('.bubble.assistant', { hasText: 'It printed dashboard-approved.' }).waitFor();
    await shot(page, 'transcript');
    expect(consoleErrors).toEqual([]);
  });

  it('draws the usage chart, with totals equal to GET /api/usage', async () => {
    await open(page, 'usage');
    await page.locator('canvas').waitFor();
    const api = (await w.admin('/api/usage?group=day')).body;
    expect(api.total.requests).toBeGreaterThanOrEqual(3);
    const shown = async (k: string) => (await page.locator(`[data-total="${k}"]`).textContent())?.replace(/,/g, '');
    expect(await shown('requests')).toBe(String(api.total.requests));
    expect(await shown('total')).toBe(String(api.total.total));
    expect(await shown('output')).toBe(String(api.total.output));
    // Bars were painted: the canvas holds non-transparent pixels.
    const painted = await page.locator('canvas').evaluate((c: any) => {
      const d: Uint8ClampedArray = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(100);
    const csv = await page.request.get(`${w.gw.url}/api/usage?group=day&format=csv`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).split('\r\n').find((l) => l.startsWith('total,'))).toContain(`,${api.total.total},`);
    await shot(page, 'usage');
  });

  it('shows each answer of the scheduler contract: absent, empty, and a list whose buttons post with the CSRF token', async () => {
    await open(page, 'schedules');
    await page.getByTestId('scheduler-unavailable').waitFor();

    const sp = watch(await ctx.newPage());
    await sp.route('**/api/schedules', (r) => r.fulfill({ json: { schedules: [] } }));
    await sp.goto(`${w.gw.url}/#/schedules`);
    await sp.getByTestId('no-schedules').waitFor();

    const posted: { url: string; csrf?: string }[] = [];
    await sp.unroute('**/api/schedules');
    await sp.route('**/api/schedules', (r) => r.fulfill({ json: { schedules: [{ id: 'daily-report', name: 'daily-report', project_id: 'default_project', agent_id: 'default_agent', enabled: true, cron: '0 9 * * *', next_run_at: Date.now() + 3_600_000 }] } }));
    await sp.route('**/api/schedules/daily-report/*', (r) => {
      posted.push({ url: r.request().url(), csrf: r.request().headers()['x-csrf-token'] });
      return r.fulfill({ json: { ok: true } });
    });
    await sp.route('**/api/schedules/daily-report/runs', (r) => r.fulfill({ json: { runs: [{ id: 1, slot: Date.now() - 86_400_000, status: 'completed', session_id: null, started_at: Date.now() - 86_400_000, duration_ms: 4200, error: null }] } }));
    await sp.reload();
    const row = sp.locator('tr[data-schedule="daily-report"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Run now' }).click();
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'daily-report' }).click();
    await sp.getByText('4.2 s').waitFor();
    expect(posted.map((p) => p.url.replace(w.gw.url, ''))).toEqual(['/api/schedules/daily-report/run', '/api/schedules/daily-report/disable']);
    const session = await (await ctx.newPage()).request.get(`${w.gw.url}/api/auth/session`);
    const csrf = (await session.json()).csrf as string;
    expect(posted.every((p) => p.csrf === csrf)).toBe(true);
    await sp.close();
    expect(consoleErrors).toEqual([]);
  });

  it('works at a phone width', async () => {
    const phone = watch(await ctx.newPage());
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${w.gw.url}/#/overview`);
    await phone.locator('main.page[data-page="overview"] h1').waitFor();
    const overflow = await phone.evaluate(() => {
      const el = (globalThis as any).document.documentElement;
      return el.scrollWidth - el.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(phone, 'overview-phone');
    await phone.close();
  });

  it('refuses a state change without the session cookie or without the CSRF token', async () => {
    const cookie = (await ctx.cookies()).find((c) => c.name === 'pg_session')!;
    const post = (headers: Record<string, string>) => fetch(`${w.gw.url}/api/allowlist`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ user: 'telegram:777' }) });
    const noCookie = await post({});
    expect(noCookie.status).toBe(401);
    const noCsrf = await post({ cookie: `pg_session=${cookie.value}` });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as any).error.code).toBe('csrf_failed');
    const csrf = ((await (await fetch(`${w.gw.url}/api/auth/session`, { headers: { cookie: `pg_session=${cookie.value}` } })).json()) as any).csrf as string;
    const wrongCsrf = await post({ cookie: `pg_session=${cookie.value}`, 'x-csrf-token': `${csrf}x` });
    expect(wrongCsrf.status).toBe(403);
    expect((await w.admin('/api/allowlist')).body.users).toEqual([]);
    const ok = await post({ cookie: `pg_session=${cookie.value}`, 'x-csrf-token': csrf });
    expect(ok.status).toBe(201);
  });

  it('logs out: the cookie no longer opens the app', async () => {
    const cookie = (await ctx.cookies()).find((c) => c.name === 'pg_session')!;
    await open(page, 'overview');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const after = await fetch(`${w.gw.url}/api/overview`, { headers: { cookie: `pg_session=${cookie.value}` } });
    expect(after.status).toBe(401);
    expect(consoleErrors).toEqual([]);
  });
});
