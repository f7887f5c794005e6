/**
 * `listenAdmin(app, {host, port})`: binds the admin app (port 0 = any free port) and resolves once it
 * listens, with the bound address; a bind failure (address in use, permission) rejects with a message
 * that names the address. `close()` stops accepting, ends idle keep-alive sockets and waits for in-flight
 * requests to finish.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AdminListener {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (IPv6 hosts bracketed). */
  readonly url: string;
  close(): Promise<void>;
}

export function listenAdmin(app: RequestListener, opts: { host: string; port: number }): Promise<AdminListener> {
  const server = createServer(app);
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the address is in use (is another gateway running?)' : err.code === 'EACCES' ? 'permission denied' : err.message;
      reject(new Error(`cannot listen on ${opts.host}:${opts.port}: ${why}`, { cause: err }));
    };
    server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError);
      const addr = server.address() as AddressInfo;
      const host = addr.address;
      let closing: Promise<void> | undefined;
      resolve({
        server,
        host,
        port: addr.port,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`,
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}
