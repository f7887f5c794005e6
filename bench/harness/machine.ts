/**
 * What the report says about where it ran: date (ISO, UTC), CPU model and logical cores, total RAM, OS
 * and Node version, plus the 1-minute load average at the start (other work on the box skews timings).
 */
import os from 'node:os';

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  node: string;
  loadAvg1m: number;
}

export function machineInfo(now: Date = new Date()): MachineInfo {
  const cpus = os.cpus();
  return {
    date: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    cpu: (cpus[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100,
  };
}
