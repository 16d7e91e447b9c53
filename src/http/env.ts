// The Hono environment of the service's app: Node's request and response when served by
// @hono/node-server, and what the admission middleware (app.ts) found out about the request.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { Client } from '../runtime/auth.js';

export type Env = {
  // @hono/node-server's HttpBindings, spelt out so that the published types never name
  // @hono/node-server, whose own declarations need the DOM library.
  Bindings: Partial<{ incoming: IncomingMessage; outgoing: ServerResponse }>;
  Variables: {
    /** The CORS headers the answer gets (null: a same-origin request). */
    cors: Record<string, string> | null;
    /** Who sent the request (routes behind the token check). */
    client: Client;
  };
};

export type Ctx = Context<Env>;

/** A request header (the first value when repeated), straight from Node's request when there is one. */
export function header(c: Ctx, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
