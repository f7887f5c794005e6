/**
 * One benchmark setup: the bench model server, a platform driver (fake Telegram, fake Slack, fake Discord or the web playground) and
 * a fresh gateway process wired to both, plus a ReplyObserver. `close()` stops all three in reverse order
 * and is safe to call after a failed start. `plans` maps the `bench:<id>` tags a scenario sends to the
 * stream each request gets. `openIdleRig` is the footprint setup: any set of the fakes (none = the web
 * playground alone) configured at once, for start-up and idle measurements.
 */
import { BenchModelServer, type StreamPlan } from './model-server';
import { startGateway, type GatewayProcess } from './gateway-process';
import type { PlatformDriver } from './platform';
import { ReplyObserver } from './replies';
import { DiscordDriver } from './discord-driver';
import { SlackDriver } from './slack-driver';
import { TelegramDriver } from './telegram-driver';
import { WebDriver } from './web-driver';

export type PlatformName = 'telegram' | 'web' | 'slack' | 'discord';

export interface Rig {
  readonly platform: PlatformName;
  readonly model: BenchModelServer;
  readonly driver: PlatformDriver;
  readonly gw: GatewayProcess;
  readonly observer: ReplyObserver;
  readonly plans: Map<string, StreamPlan>;
  close(): Promise<void>;
}

export type FakePlatform = Exclude<PlatformName, 'web'>;

async function startedDriver(name: FakePlatform): Promise<TelegramDriver | SlackDriver | DiscordDriver> {
  const d = name === 'telegram' ? new TelegramDriver() : name === 'slack' ? new SlackDriver() : new DiscordDriver();
  try {
    await d.start();
  } catch (err) {
    await d.close();
    throw err;
  }
  return d;
}

export interface IdleRig {
  readonly gw: GatewayProcess;
  readonly telegram?: TelegramDriver;
  close(): Promise<void>;
}

/** The gateway with every fake in `platforms` configured (the web playground is always there). */
export async function openIdleRig(platforms: readonly FakePlatform[], o: { config?: string } = {}): Promise<IdleRig> {
  const model = new BenchModelServer(() => undefined);
  const drivers: PlatformDriver[] = [];
  let gw: GatewayProcess | undefined;
  const close = async () => {
    for (const d of drivers) await d.detach();
    await gw?.stop();
    for (const d of drivers) await d.close();
    await model.stop();
  };
  try {
    const baseUrl = await model.start();
    for (const p of platforms) drivers.push(await startedDriver(p));
    gw = await startGateway({ modelBaseUrl: baseUrl, ...Object.assign({}, ...drivers.map((d) => d.gatewayOptions())), ...(o.config !== undefined ? { config: o.config } : {}) });
    for (const d of drivers) await d.attach(gw);
    const telegram = drivers.find((d): d is TelegramDriver => d instanceof TelegramDriver);
    return { gw, ...(telegram ? { telegram } : {}), close };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function openRig(platform: PlatformName, o: { config?: string } = {}): Promise<Rig> {
  const plans = new Map<string, StreamPlan>();
  const model = new BenchModelServer((id) => plans.get(id));
  let driver: PlatformDriver | undefined;
  let gw: GatewayProcess | undefined;
  const close = async () => {
    await driver?.detach();
    await gw?.stop();
    await driver?.close();
    await model.stop();
  };
  try {
    const baseUrl = await model.start();
    driver = platform === 'web' ? new WebDriver() : await startedDriver(platform);
    gw = await startGateway({ modelBaseUrl: baseUrl, ...driver.gatewayOptions(), ...(o.config !== undefined ? { config: o.config } : {}) });
    await driver.attach(gw);
    const observer = new ReplyObserver(driver);
    return {
      platform, model, driver, gw, observer, plans,
      close: async () => {
        observer.dispose();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
