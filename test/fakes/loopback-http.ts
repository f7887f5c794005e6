/**
 * Starting and stopping a fake server's HTTP listener: `listenOnLoopback` binds 127.0.0.1 on an
 * ephemeral port (so parallel test files never collide) with keep-alive long enough for SDK
 * connection pools, and `closeNow` stops it without waiting for idle or held connections.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Resolves with the port once the server listens. */
export async function listenOnLoopback(server: http.Server): Promise<number> {
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the listener and destroys every open connection (held long polls and streams included). */
export function closeNow(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
