/**
 * What `start` tells the operator once the gateway runs: the dashboard URL and how to log in, each
 * adapter (on, failed, or off with what turns it on) and each routed agent's model, saying plainly when
 * no model endpoint is configured. On a terminal it is a short text block; off one (stdout carries the
 * JSON log) the dashboard and every adapter that is off become log records, and the model problems are
 * the warnings the warm-up already logged.
 */
import type { AdapterStatus } from './admin/types';
import { CHAT_PLATFORMS, platformOff, type ChatPlatform, type GatewayConfig } from './config';
import type { Logger } from './logger';
import type { AgentReport } from './runtime/agent-warmup';

export interface SummaryInput {
  config: Pick<GatewayConfig, 'web' | ChatPlatform>;
  /** The listener's URL as bound (`http://0.0.0.0:7370` when it listens on every interface). */
  url: string;
  adapters: readonly AdapterStatus[];
  agents: readonly AgentReport[];
  adminToken: { source: 'env' | 'store' | 'generated'; file?: string };
}

export interface SummaryLine {
  /** `dashboard`, `web`, a chat platform's name, `model` (`model <project>/<agent>` with several agents). */
  topic: string;
  text: string;
  /** What to do about it, on a line of its own. */
  fix?: string;
  /** The line as a log record off a terminal; lines without one are not logged here. */
  log?: { fields: Record<string, unknown>; msg: string };
}

/** The address to open in a browser: a wildcard bind is reached through loopback on this machine. */
export function dashboardUrl(url: string): { open: string; everyInterface: boolean } {
  const m = /^http:\/\/(\[[^\]]+\]|[^:/]+):(\d+)/.exec(url);
  if (m && (m[1] === '0.0.0.0' || m[1] === '[::]')) return { open: `http://127.0.0.1:${m[2]}/`, everyInterface: true };
  return { open: `${url.replace(/\/+$/, '')}/`, everyInterface: false };
}

function loginHint(admin: SummaryInput['adminToken']): string {
  if (admin.source === 'env') return 'log in with PENGUIN_ADMIN_TOKEN';
  if (admin.source === 'generated') return admin.file ? `log in with the admin token in ${admin.file}` : 'log in with the admin token shown above';
  return 'log in with the admin token from the first start, or the password set with `admin set-password`';
}

function adapterLine(platform: string, status: AdapterStatus | undefined, off: string | undefined): SummaryLine {
  if (off) return { topic: platform, text: `off: ${off}`, log: { fields: { platform, state: 'off' }, msg: `${platform} is off: ${off}` } };
  if (!status || status.state === 'connected') return { topic: platform, text: platform === 'web' ? 'on: the Playground page of the dashboard' : 'on' };
  return { topic: platform, text: `${status.state}${status.detail ? `: ${status.detail}` : ''}`, ...(status.state === 'failed' ? { fix: '`penguin-gateway doctor` says why' } : {}) };
}

function modelLine(a: AgentReport, named: boolean): SummaryLine {
  const topic = named ? `model ${a.project}/${a.agent}` : 'model';
  if ('loadError' in a) return { topic, text: `the agent ${a.project}/${a.agent} could not be loaded: ${a.loadError}`, fix: 'fix the file named there; `penguin-gateway doctor` checks it' };
  if (a.setup) return { topic, text: `${a.setup.problem}: the agent cannot answer`, fix: a.setup.fix };
  return { topic, text: `${a.model.label} at ${a.model.baseUrl}` };
}

export function startupSummary(s: SummaryInput): SummaryLine[] {
  const { open, everyInterface } = dashboardUrl(s.url);
  const login = `${loginHint(s.adminToken)}${everyInterface ? '; listening on every interface' : ''}`;
  const status = (p: string) => s.adapters.find((a) => a.name === p);
  return [
    { topic: 'dashboard', text: `${open} (${login})`, log: { fields: { dashboard: open }, msg: `dashboard at ${open} (${login})` } },
    adapterLine('web', status('web'), s.config.web.enabled ? undefined : 'disabled in the config (web.enabled: false)'),
    ...CHAT_PLATFORMS.map((p) => adapterLine(p, status(p), platformOff(p, s.config[p])?.hint)),
    ...s.agents.map((a) => modelLine(a, s.agents.length > 1)),
  ];
}

/** A terminal gets the block; otherwise the lines that carry a log record are logged at info. */
export function printStartupSummary(lines: readonly SummaryLine[], out: { write(s: string): unknown; isTTY?: boolean }, logger: Pick<Logger, 'info'>, home: string): void {
  if (!out.isTTY) {
    for (const l of lines) if (l.log) logger.info(l.log.fields, l.log.msg);
    return;
  }
  const width = Math.max(...lines.map((l) => l.topic.length));
  const body = lines.flatMap((l) => [`  ${l.topic.padEnd(width)}  ${l.text}`, ...(l.fix ? [`  ${' '.repeat(width)}  → ${l.fix}`] : [])]);
  out.write(['', `penguin-gateway is running; its data is in ${home}`, ...body, '`penguin-gateway doctor` checks every part with a real call.', ''].join('\n'));
}
