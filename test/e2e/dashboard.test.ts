/**
 * The dashboard in headless Chromium against the real gateway process and the fake model (issue 17): login
 * (a wrong token fails), every page without a console error (screenshotted to dist/screenshots), a streamed
 * playground reply, an approval from the Approvals page, the transcript with who decided, a vault value shown
 * on no page, the usage chart's totals, the Schedules page on real files (invalid ones, Enable/Disable, a grant,
 * Run now, history, "No schedules", scheduler down), this instance on the Overview (alone on SQLite) and the
 * sessions' Instance column, CSRF and cookie refusals, logout.
 */
import { mkdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { hang, turn } from '../fakes/openai-server';
import { startHarness as startAdminHarness } from '../gateway/admin/helpers';
import { assertGatewayBuilt } from './gateway-process';
import { scheduleDir, until } from './schedule-files';
import { chromiumPath, DASHBOARD_TOKEN, openDashboardWorld, type DashboardWorld } from './dashboard-world';

export const SCREENSHOT_DIR = process.env.DASHBOARD_SCREENSHOTS ?? resolve(__dirname, '../../dist/screenshots');
const PAGES = ['overview', 'sessions', 'approvals', 'schedules', 'usage', 'access', 'deliveries', 'playground'];

// Schedule files of the default agent, written before the gateway starts: one valid and disabled, whose first
// slot (09:00 in Tokyo on 1 January 2099) is far enough away that only Run now fires it, and one invalid.
const DIGEST = 'default_project:default_agent:digest';
const BROKEN = 'default_project:default_agent:broken';
const INSTANCE_ID = 'dash-e2e-1';
const CONVERSATION = 'sched-e2e';
const DIGEST_TOML = `# the morning digest\nprompt = "Summarise the open pull requests"\nenabled = false\nstart_at = 2099-01-01T00:00:00Z\ncron = "0 9 * * *"\ntimezone = "Asia/Tokyo"\ndeliver_to = "web:${CONVERSATION}"\n`;
const SCHEDULED_ANSWER = 'Good morning: two pull requests wait for review.';
// A vault value of the default agent: the model repeats it, and no page may show it.
const VAULT_CANARY = 'ghp_dashboardVaultCanary0123456789abc';
async function writeScheduleFiles(home: string): Promise<void> {
  await mkdir(scheduleDir(home), { recursive: true });
  await writeFile(join(scheduleDir(home), '..', '.vault.toml'), `GITHUB_TOKEN = "${VAULT_CANARY}"\n`, { mode: 0o600 });
  await writeFile(join(scheduleDir(home), 'digest.toml'), DIGEST_TOML);
  await writeFile(join(scheduleDir(home), 'broken.toml'), 'prompt = "p"\nstart_at = 2026-01-01T08:00:00Z\nperiod = "2m"\n');
}

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

function watch(p: Page, sink = consoleErrors): Page {
  p.on('console', (m) => {
    if (m.type() === 'error') sink.push(`${m.text()} @ ${m.location().url}`);
  });
  p.on('pageerror', (e) => sink.push(`uncaught: ${e.message}`));
  return p;
}

/** A Schedules table cell's text. */
const cell = (row: Locator, col: string) => row.locator(`[data-col="${col}"]`).textContent();


async function open(p: Page, path: string): Promise<void> {
  await p.goto(`${w.gw.url}/#/${path}`);
  await p.locator(`main.page[data-page="${path.split('/')[0]}"]`).waitFor();
}

const shot = (p: Page, name: string) => p.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

describeBrowser('dashboard in headless Chromium', () => {
  beforeAll(async () => {
    assertGatewayBuilt();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    w = await openDashboardWorld({ prepare: writeScheduleFiles, env: { PENGUIN_INSTANCE_ID: INSTANCE_ID } });
    // UTC, so a next fire shown in the schedule's own zone (Asia/Tokyo) differs from one shown in local time.
    ctx = await w.browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: 'UTC' });
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

  it('draws the streamed reply\'s timeline: the message, the Task, the post and its edits', async () => {
    const [last] = (await w.admin('/api/deliveries?limit=1')).body.deliveries;
    const t = (await w.admin(`/api/tasks/${last.task_id}/timeline`)).body;
    const edits = t.events.filter((e: { kind: string }) => e.kind === 'edit').length;
    expect(edits).toBeGreaterThan(0);
    await open(page, `deliveries/${last.task_id}`);
    const steps = page.locator('ol.steps li');
    await steps.first().waitFor();
    expect(await steps.evaluateAll((els) => els.map((e) => (e as any).dataset.kind))).toEqual(t.events.map((e: { kind: string }) => e.kind));
    expect(await steps.first().textContent()).toMatch(/^\+0\.00 s message received · message \S+ from /);
    expect(await page.getByTestId('timeline-summary').textContent()).toBe(`1 post · ${edits} edit${edits === 1 ? '' : 's'} · 0 retries · 0 × 429 · 0 failed`);
    await shot(page, 'delivery-timeline');
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

  it('masks a vault value the model repeats in the playground and the transcript', async () => {
    w.model.enqueue(turn({ text: `The token is ${VAULT_CANARY} and that is all.` }));
    await page.evaluate(() => (globalThis as any).localStorage.setItem('penguin.playground.conversation', 'vault-canary'));
    await open(page, 'playground');
    await page.getByPlaceholder('Message the agent').fill('what is the github token?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.assistant.final', { hasText: 'The token is' }).waitFor();
    expect(await page.content()).not.toContain(VAULT_CANARY);
    expect(await page.locator('.bubble.assistant.final', { hasText: 'The token is' }).textContent()).toContain('[redacted]');

    const sessions = (await w.admin('/api/sessions')).body.sessions as { session_id: string }[];
    let id: string | undefined;
    for (const s of sessions) if (JSON.stringify((await w.admin(`/api/sessions/${s.session_id}/messages`)).body).includes('what is the github token?')) id = s.session_id;
    await open(page, `sessions/${id}`);
    await page.locator('.bubble.assistant', { hasText: 'The token is' }).waitFor();
    expect(await page.content()).not.toContain(VAULT_CANARY);
    await page.evaluate(() => (globalThis as any).localStorage.removeItem('penguin.playground.conversation'));
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

  it('lists the schedule files: the valid one with when, where and approval, the invalid one with its errors and no buttons', async () => {
    await open(page, 'schedules');
    const row = page.locator(`tr[data-schedule="${DIGEST}"]`);
    await row.waitFor();
    expect(await cell(row, 'when')).toBe('0 9 * * * Asia/Tokyo');
    expect(await cell(row, 'next')).toBe('— (disabled)');
    expect(await cell(row, 'delivers')).toBe(`web:${CONVERSATION}`);
    expect(await cell(row, 'approval')).toBe('read-onlyfile asks allow-all; ceiling read-only from the route\'s approval_mode');
    expect(await cell(row, 'state')).toBe('disabled');
    expect(await cell(row, 'last')).toBe('never');
    expect(await row.getByRole('button').allTextContents()).toEqual(['digest', 'Enable', 'Run now']);

    const bad = page.locator(`tr[data-schedule="${BROKEN}"]`);
    expect(await bad.locator('li[data-path="period"]').textContent()).toMatch(/^period: expected .*at least 5 minutes.*, found string "2m"$/);
    expect(await bad.textContent()).toContain(join(scheduleDir(w.home), 'broken.toml'));
    expect(await bad.getByRole('button').count()).toBe(0);
    await shot(page, 'schedules-files');
    expect(consoleErrors).toEqual([]);
  });

  it('Enable writes enabled = true into the file and shows the next fire in the schedule\'s time zone', async () => {
    await open(page, 'schedules');
    const row = page.locator(`tr[data-schedule="${DIGEST}"]`);
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('button', { name: 'Disable' }).waitFor();
    expect(await cell(row, 'state')).toBe('enabled');
    expect(await readFile(join(scheduleDir(w.home), 'digest.toml'), 'utf8')).toBe(DIGEST_TOML.replace('enabled = false', 'enabled = true'));
    expect((await w.admin(`/api/schedules/${DIGEST}`)).body.schedule.next_fire_at).toBe('2099-01-01T00:00:00.000Z');
    // The browser runs in UTC: 09:00 can only come from the schedule's own zone.
    expect(await cell(row, 'next')).toMatch(/2099.*\b09:00 \(Asia\/Tokyo\)$/);
    expect(consoleErrors).toEqual([]);
  });

  it('Run now starts a run, a second waits and a third is refused as already queued; the history shows them end', async () => {
    w.model.enqueue(hang(), turn({ text: SCHEDULED_ANSWER }));
    // Only the third Run now may log an error (its 409): this page keeps its own list.
    const errors: string[] = [];
    const sp = watch(await ctx.newPage(), errors);
    await sp.goto(`${w.gw.url}/#/schedules`);
    const row = sp.locator(`tr[data-schedule="${DIGEST}"]`);
    const runNow = row.getByRole('button', { name: 'Run now' });
    await runNow.click();
    await row.locator('[data-col="state"] .badge-running').waitFor();
    await runNow.click();
    await row.locator('[data-col="state"] .badge-queued').waitFor();
    await runNow.click();
    const refused = row.locator('.action .error');
    await refused.waitFor();
    expect(await refused.textContent()).toBe(`Already queued: ${DIGEST} is running and one run is already waiting`);
    expect(errors).toEqual([expect.stringMatching(new RegExp(`status of 409 .* @ ${w.gw.url}/api/schedules/${encodeURIComponent(DIGEST)}/run$`))]);

    await row.getByRole('button', { name: 'digest' }).click();
    const [second, first] = (await w.admin(`/api/schedules/${DIGEST}/runs`)).body.runs as { id: number; status: string; kind: string }[];
    expect([first.kind, second.kind]).toEqual(['manual', 'manual']);
    await sp.locator(`tr[data-run="${first.id}"] .badge-running`).waitFor();
    await sp.locator(`tr[data-run="${second.id}"] .badge-queued`).waitFor();
    await shot(sp, 'schedules-running');

    // The first run waits on a model that never answers: stop its session, and the waiting run gets the answer.
    const sessionId = await until('the first run\'s session', async () => (await w.admin(`/api/schedules/${DIGEST}/runs`)).body.runs.find((r: { id: number }) => r.id === first.id)?.session_id);
    await until('the first run stopped', async () => (await w.admin(`/api/sessions/${sessionId}/abort`, { method: 'POST' })).status === 200);
    await sp.locator(`tr[data-run="${first.id}"] .badge-failed`).waitFor();
    await sp.locator(`tr[data-run="${second.id}"] .badge-completed`).waitFor();
    await row.locator('[data-col="last"] .badge-completed').waitFor();
    expect(await sp.locator(`tr[data-run="${second.id}"] td`).nth(1).textContent()).toBe('manual');
    await shot(sp, 'schedules-history');
    await sp.close();
    expect(errors).toHaveLength(1);
    expect(consoleErrors).toEqual([]);
  });

  it('shows the scheduled answer in the playground conversation the schedule delivers to', async () => {
    await page.evaluate((c) => (globalThis as any).localStorage.setItem('penguin.playground.conversation', c), CONVERSATION);
    await open(page, 'playground');
    expect(await page.locator('.playground .card-head').textContent()).toContain(`conversation ${CONVERSATION}`);
    await page.locator('.bubble.assistant.final', { hasText: SCHEDULED_ANSWER }).waitFor();
    await shot(page, 'playground-scheduled');
    expect(consoleErrors).toEqual([]);
  });

  it('grants an approval mode to the definition: the file gets it, the ceiling comes from the grant', async () => {
    await open(page, 'schedules');
    const row = page.locator(`tr[data-schedule="${DIGEST}"]`);
    await row.getByLabel('Approval mode to grant').selectOption('allow-all');
    await row.getByRole('button', { name: 'Grant' }).click();
    await row.locator('[data-col="approval"] .grant', { hasText: 'grant active' }).waitFor();
    expect(await cell(row, 'approval')).toBe('allow-allfile asks allow-all; ceiling allow-all from the operator\'s grantgrant active');
    expect(await readFile(join(scheduleDir(w.home), 'digest.toml'), 'utf8')).toContain('approval_mode = "allow-all"');
    expect((await w.admin(`/api/schedules/${DIGEST}`)).body.schedule.approval).toMatchObject({ effective: 'allow-all', ceiling_from: 'operator_grant', grant: 'active' });
    expect(await row.getByRole('button', { name: 'Grant' }).count()).toBe(0);
    expect(consoleErrors).toEqual([]);
  });

  it('Disable writes enabled = false; with the files removed the page says "No schedules" and where they go', async () => {
    await open(page, 'schedules');
    const row = page.locator(`tr[data-schedule="${DIGEST}"]`);
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await readFile(join(scheduleDir(w.home), 'digest.toml'), 'utf8')).toBe(`${DIGEST_TOML}approval_mode = "allow-all"\n`);
    expect(await cell(row, 'next')).toBe('— (disabled)');

    await rm(join(scheduleDir(w.home), 'digest.toml'));
    await rm(join(scheduleDir(w.home), 'broken.toml'));
    await until('the scheduler saw the files go', async () => (await w.admin('/api/schedules')).body.schedules.length === 0, 45_000);
    const empty = page.getByTestId('no-schedules');
    await empty.waitFor();
    expect(await empty.textContent()).toMatch(/^No schedules\.A schedule is a file <PENGUIN_HOME>\/<project>\/agents\/<agent>\/agent_state\/schedule\/<name>\.toml /);
    expect(consoleErrors).toEqual([]);
  });

  it('says the scheduler is not running when the gateway answers 503 scheduler_unavailable', async () => {
    // The real admin app over a runtime without a scheduler (a gateway whose scheduler failed to start).
    const admin = await startAdminHarness({ env: { PENGUIN_ADMIN_TOKEN: DASHBOARD_TOKEN } });
    const other = await w.browser.newContext();
    try {
      const errors: string[] = [];
      const p = watch(await other.newPage(), errors);
      await p.goto(admin.listener.url);
      await p.getByLabel('Admin token').fill(DASHBOARD_TOKEN);
      await p.getByRole('button', { name: 'Log in' }).click();
      await p.locator('nav').waitFor();
      await p.goto(`${admin.listener.url}/#/schedules`);
      const banner = p.getByTestId('scheduler-unavailable');
      await banner.waitFor();
      expect(await banner.textContent()).toBe('The scheduler is not running (see the gateway log).');
      expect(await p.getByRole('alert').count()).toBe(0);
      // The browser logs the 503 itself (and, on this fresh origin, the favicon the gateway does not have); nothing else may fail.
      const unavailable = (e: string) => /status of 503 .* @ http:\/\/127\.0\.0\.1:\d+\/api\/schedules$/.test(e);
      expect(errors.filter(unavailable).length).toBeGreaterThan(0);
      expect(errors.filter((e) => !unavailable(e) && !/ @ http:\/\/127\.0\.0\.1:\d+\/favicon\.ico$/.test(e))).toEqual([]);
    } finally {
      await other.close();
      await admin.close();
    }
  });

  it('shows this instance on the Overview, alone on SQLite, and no owner in the sessions\' Instance column', async () => {
    await open(page, 'overview');
    await page.getByTestId('instance-id').waitFor();
    expect(await page.getByTestId('instance-id').textContent()).toBe(INSTANCE_ID);
    expect(await page.getByTestId('instance-alone').textContent()).toBe('Runs alone: no other gateway instance is live on its database.');
    expect(await page.getByTestId('instance-peers').count()).toBe(0);
    // What it owns on SQLite is what it holds in memory: the page follows /readyz within a refresh.
    await until('the Overview showing what /readyz owns', async () => {
      const owns = (await w.admin('/readyz')).body.instance.owns as number;
      return (await page.getByTestId('instance-owns').textContent()) === String(owns);
    });
    await shot(page, 'overview-instance');

    await open(page, 'sessions');
    const rows = page.locator('table.rows tbody tr');
    await rows.first().waitFor();
    expect(await page.locator('table.rows thead th').allTextContents()).toContain('Instance');
    // Alone, no instance claims a conversation in the index: every row shows the dash.
    expect((await w.admin('/api/sessions')).body.sessions.every((s: { owner_instance: string | null }) => s.owner_instance === null)).toBe(true);
    expect(new Set(await rows.locator('[data-col="instance"]').allTextContents())).toEqual(new Set(['—']));
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
