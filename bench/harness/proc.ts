/**
 * Resource use of another process, read from outside (the gateway is a black box): resident set size,
 * peak RSS and CPU seconds (user + system). Linux reads /proc/<pid>/status (VmRSS, VmHWM) and
 * /proc/<pid>/stat (utime, stime in clock ticks); elsewhere `ps -o rss=,time=` is used and the peak is the
 * largest RSS a `PeakWatcher` saw while sampling. Returns undefined once the process is gone.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';

export interface ProcSample {
  rssBytes: number;
  /** Highest RSS since the process started (Linux VmHWM), or since sampling began (ps fallback). */
  peakRssBytes: number;
  cpuSeconds: number;
}

const HAS_PROC = existsSync('/proc/self/stat');

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2000 }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function kbField(status: string, name: string): number | undefined {
  const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

async function fromProc(pid: number): Promise<ProcSample | undefined> {
  try {
    const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
    // fields after the command name, which may itself contain spaces and parentheses
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    const rss = kbField(status, 'VmRSS');
    if (rss === undefined || !Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return { rssBytes: rss, peakRssBytes: kbField(status, 'VmHWM') ?? rss, cpuSeconds: (utime + stime) / ticksPerSecond() };
  } catch {
    return undefined;
  }
}

/** "[[dd-]hh:]mm:ss" → seconds. */
export function parsePsTime(s: string): number {
  const [days, clock] = s.includes('-') ? s.split('-') : ['0', s];
  return clock.split(':').map(Number).reduce((acc, part) => acc * 60 + part, 0) + Number(days) * 86_400;
}

function fromPs(pid: number): Promise<ProcSample | undefined> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'rss=,time=', '-p', String(pid)], { timeout: 2000 }, (err, out) => {
      const m = /^\s*(\d+)\s+(\S+)\s*$/.exec(out ?? '');
      if (err || !m) return resolve(undefined);
      const rss = Number(m[1]) * 1024;
      resolve({ rssBytes: rss, peakRssBytes: rss, cpuSeconds: parsePsTime(m[2]) });
    });
  });
}

export function sampleProcess(pid: number): Promise<ProcSample | undefined> {
  return HAS_PROC ? fromProc(pid) : fromPs(pid);
}

/** Samples a process every `everyMs` and remembers the highest RSS seen (complements VmHWM off Linux). */
export class PeakWatcher {
  private timer?: NodeJS.Timeout;
  private seen = 0;
  private busy = false;

  constructor(private readonly pid: number, private readonly everyMs = 100) {}

  start(): this {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      void sampleProcess(this.pid).then((s) => {
        this.busy = false;
        if (s) this.seen = Math.max(this.seen, s.rssBytes, s.peakRssBytes);
      });
    }, this.everyMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Highest RSS known: the sampled maximum or the kernel's high-water mark, whichever is larger. */
  async peak(): Promise<number> {
    const s = await sampleProcess(this.pid);
    return Math.max(this.seen, s?.peakRssBytes ?? 0);
  }
}
