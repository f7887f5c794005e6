/**
 * A scheduler rig on a fake clock: a temp PENGUIN_HOME with the default agent's schedule directory, the
 * real config loader, an in-memory store on the fake clock, a captured log, and a fake executor whose fires
 * stay running until the test ends them (so overlap and queueing are the test's to arrange).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadGatewayConfig, type GatewayConfig } from '../../../src/gateway/config';
import { Scheduler, type FireOutcome, type FireRequest, type SchedulerOptions } from '../../../src/gateway/scheduler';
import { openSqliteStore, type SqliteStore } from '../../../src/gateway/store';
import { FakeClock } from '../../helpers/fake-clock';

export interface Fire {
  req: FireRequest;
  prompt: string;
  slot: number;
  end(outcome?: FireOutcome): Promise<void>;
}

export class FakeExecutor {
  readonly fires: Fire[] = [];
  problem?: string;
  deliveryProblem(): string | undefined {
    return this.problem;
  }
  fire(req: FireRequest): Promise<FireOutcome> {
    return new Promise((resolve) => {
      this.fires.push({
        req,
        prompt: req.entry.def.prompt,
        slot: req.run.slot,
        end: async (outcome = { status: 'completed' }) => {
          resolve(outcome);
          for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
        },
      });
      void req.started(`session-2026-01-01-00-00-00-${String(this.fires.length).padStart(8, '0')}`);
    });
  }
  /** Ends every running fire (completed), oldest first, until none is left running. */
  async endAll(): Promise<void> {
    for (let i = 0; i < this.fires.length; i++) await this.fires[i].end();
  }
}

export interface Rig {
  home: string;
  dir: string;
  config: GatewayConfig;
  clock: FakeClock;
  store: SqliteStore;
  executor: FakeExecutor;
  log: string[];
  scheduler: Scheduler;
  write(name: string, toml: string): Promise<void>;
  /** A second scheduler on the same store (a restart). */
  restart(at: number): Promise<Scheduler>;
  close(): Promise<void>;
}

export async function schedulerRig(o: { start: number; configYaml?: string; options?: Partial<SchedulerOptions> }): Promise<Rig> {
  const home = await mkdtemp(join(tmpdir(), 'pg-sched-'));
  const dir = join(home, 'data', 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');
  await mkdir(dir, { recursive: true });
  const env = { HOME: home, PENGUIN_HOME: join(home, 'data') };
  let argv: string[] = [];
  if (o.configYaml) {
    await writeFile(join(home, 'gateway.yaml'), o.configYaml);
    argv = ['--config', join(home, 'gateway.yaml')];
  }
  const loaded = loadGatewayConfig({ argv, env, cwd: home });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const clock = new FakeClock(o.start);
  const store = openSqliteStore(':memory:', { now: () => clock.now() });
  const log: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void log.push(l) });
  const executor = new FakeExecutor();
  const make = () => new Scheduler({ config: loaded.config, store, clock, logger, executor, rescanMs: 0, pollMs: 0, ...o.options });
  const rig: Rig = {
    home,
    dir,
    config: loaded.config,
    clock,
    store,
    executor,
    log,
    scheduler: make(),
    write: (name, toml) => writeFile(join(dir, `${name}.toml`), toml),
    async restart() {
      await rig.scheduler.stop();
      rig.scheduler = make();
      return rig.scheduler;
    },
    async close() {
      await rig.scheduler.stop();
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Slots of a schedule's runs with their status, oldest first. */
export async function runsOf(store: SqliteStore, name: string): Promise<[string, string][]> {
  const rows = await store.listScheduleRuns({ schedule_name: name, limit: 1000 });
  return rows.reverse().map((r) => [new Date(r.slot).toISOString(), r.status]);
}

export const iso = (ms: number) => new Date(ms).toISOString();
