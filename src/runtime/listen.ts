// Binding a server to its address, for the service's HTTP server and the Bolt server alike.

import type { Server as NetServer } from 'node:net';

/** Listens on host:port; resolves once listening, rejects with the bind error (EADDRINUSE...). */
export function listenOn(server: NetServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host });
  });
}
