/**
 * One benchmark setup: the bench model server, a platform driver (fake Telegram, fake Slack, fake Discord or the web playground) and
 * a fresh gateway process wired to both, plus a ReplyObserver. `close()` stops all three in reverse order
 * and is safe to call after a failed start. `plans` maps the `bench:<id>` tags a scenario sends to the
 * stream each request gets.
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

export async function openRig(platform: PlatformName): Promise<Rig> {
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
    if (platform === 'telegram') {
      const tg = new TelegramDriver();
      driver = tg;
      await tg.start();
    } else if (platform === 'slack') {
      const sl = new SlackDriver();
      driver = sl;
      await sl.start();
    } else if (platform === 'discord') {
      const dc = new DiscordDriver();
      driver = dc;
      await dc.start();
    } else {
      driver = new WebDriver();
    }
    gw = await startGateway({ modelBaseUrl: baseUrl, ...driver.gatewayOptions() });
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
