// The HTTP interface of a GraphDBService as a Hono app (docs/http-api.md).
// `service.start()` serves it with @hono/node-server; `createApp(service)` also lets it be
// mounted inside an existing Hono server.

import { Hono, type MiddlewareHandler } from 'hono';
import { ROLE_MOST_ACCESS } from '../runtime/access.js';
import type { Client } from '../runtime/auth.js';
import { ExecutionSlotLease } from '../runtime/pool.js';
import { VERSION } from '../version.js';
import { PREFLIGHT_MAX_AGE_SECONDS } from './access.js';
import { admitClient, admitJsonBody, admitLength, admitOrigin, tooLargeReply } from './admission.js';
import { readBody as readBodyOf, TOO_LARGE } from './body.js';
import { mountConsole } from './console.js';
import { type HttpRuntime, httpRuntimeOf } from './context.js';
import { bodyErrorReply, leaseSlot, runInline, runOnLease, unavailableReply } from './cypher.js';
import { type Ctx, type Env, header } from './env.js';
import { errorResponse, jsonHeaders, responseForError, SECURITY_HEADERS, toResponse } from './errors.js';
import { streamResult, wantsNdjson } from './ndjson.js';
import { mountTransactions } from './tx.js';

const ROUTES: Readonly<Record<string, string>> = {
  '/cypher': 'POST, OPTIONS',
  '/schema': 'GET, HEAD, OPTIONS',
  '/status': 'GET, HEAD, OPTIONS',
  '/service_status': 'GET, HEAD, OPTIONS',
};

function jsonResponse(body: string, status = 200): Response {
  return new Response(body, { status, headers: jsonHeaders() });
}

/**
 * The admission middleware of every route (admission.ts): a request whose Host or Origin does
 * not pass gets 403; one from an allowed other origin gets the CORS headers on its answer. A
 * page must not read the status or the schema either.
 */
function originMiddleware(runtime: HttpRuntime): MiddlewareHandler<Env> {
  return async (c, next) => {
    const admitted = admitOrigin(header(c, 'host'), header(c, 'origin'), runtime.access);
    if ('status' in admitted) return toResponse(admitted);
    c.set('cors', admitted.cors);
    await next();
    if (admitted.cors)
      for (const [name, value] of Object.entries(admitted.cors)) c.res.headers.set(name, value);
  };
}

/** The token check of the routes that need one (all but /status): 401 without a valid token. */
function clientMiddleware(runtime: HttpRuntime): MiddlewareHandler<Env> {
  return async (c, next) => {
    const client = admitClient(header(c, 'authorization'), runtime.auth);
    if ('status' in client) return toResponse(client);
    c.set('client', client);
    await next();
  };
}

function unavailable(runtime: HttpRuntime): Response {
  return toResponse(unavailableReply(runtime));
}

/** Counts the request as in flight (stop() waits for it); marks it `Connection: close` when stopping. */
async function tracked(runtime: HttpRuntime, handle: () => Promise<Response>): Promise<Response> {
  runtime.requests.started();
  try {
    const response = await handle();
    if (runtime.stopping) {
      try {
        response.headers.set('connection', 'close');
      } catch {
        // immutable headers: the server closes the connection anyway
      }
    }
    return response;
  } finally {
    runtime.requests.finished();
  }
}

/** leaseSlot (cypher.ts) for a request of the app. */
async function leaseForRequest(c: Ctx, runtime: HttpRuntime): Promise<ExecutionSlotLease | Response> {
  const outgoing = c.env?.outgoing;
  const lease = await leaseSlot(runtime, outgoing, outgoing ? undefined : () => c.req.raw.signal);
  return lease instanceof ExecutionSlotLease ? lease : toResponse(lease);
}

async function readBody(c: Ctx, limit: number): Promise<string | Response> {
  const incoming = c.env?.incoming;
  const tooLong = admitLength(header(c, 'content-length'), limit);
  if (tooLong) return toResponse(tooLong);
  let body: string | typeof TOO_LARGE;
  try {
    body = await readBodyOf(incoming ?? c.req.raw, limit);
  } catch (error) {
    return toResponse(bodyErrorReply(error));
  }
  return body === TOO_LARGE ? toResponse(tooLargeReply(limit)) : body;
}

/** UNSUPPORTED_MEDIA_TYPE unless the request's body is sent as JSON; null when it is. */
function requireJson(c: Ctx, what: string): Response | null {
  const refused = admitJsonBody(header(c, 'content-type'), what);
  return refused && toResponse(refused);
}

async function cypher(c: Ctx, runtime: HttpRuntime, client: Client): Promise<Response> {
  if (!runtime.accepting) return unavailable(runtime);
  const notJson = requireJson(c, 'POST /cypher');
  if (notJson) return notJson;
  const body = await readBody(c, runtime.limits.maxBodyBytes);
  if (typeof body !== 'string') return body;
  const mostAccess = ROLE_MOST_ACCESS[client.role];
  const ndjson = wantsNdjson(header(c, 'accept'));
  if (!ndjson) {
    const inline = runInline(runtime, body, mostAccess);
    if (inline) return toResponse(inline);
  }
  const lease = await leaseForRequest(c, runtime);
  if (lease instanceof Response) return lease;
  const outgoing = c.env?.outgoing;
  if (ndjson) {
    // Streamed (src/http/ndjson.ts): the lease goes back once the stream is over.
    return streamResult(
      runtime,
      lease,
      body,
      false,
      {
        outgoing,
        signal: outgoing ? undefined : c.req.raw.signal,
        mostAccess,
      },
      () => lease.release(),
    );
  }
  return toResponse(
    await runOnLease(lease, body, mostAccess, outgoing, outgoing ? undefined : c.req.raw.signal),
  );
}

async function schema(c: Ctx, runtime: HttpRuntime): Promise<Response> {
  if (!runtime.accepting) return unavailable(runtime);
  const lease = await leaseForRequest(c, runtime);
  if (lease instanceof Response) return lease;
  try {
    return jsonResponse(await lease.slot.schema());
  } finally {
    lease.release();
  }
}

function status(runtime: HttpRuntime): Response {
  const pool = runtime.pool;
  return jsonResponse(
    JSON.stringify({
      status: runtime.state,
      message: runtime.statusMessage,
      version: VERSION,
      uptimeMs: Math.max(0, Date.now() - runtime.startedAt),
      slots: { total: pool?.size ?? 0, inUse: pool?.inUse ?? 0, waiting: pool?.waiting ?? 0 },
      executedQueries: runtime.executedQueries,
    }),
  );
}

/**
 * OPTIONS: the methods a path allows (`allow`); for a CORS preflight from an allowed origin (`cors`), also
 * what a cross-origin request may use.
 */
function options(c: Ctx, allow: string): Response {
  const headers: Record<string, string> = { allow, ...SECURITY_HEADERS };
  if (c.get('cors') && header(c, 'access-control-request-method') !== undefined) {
    headers['access-control-allow-methods'] = allow;
    headers['access-control-allow-headers'] = 'Content-Type, Authorization';
    headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
  }
  return new Response(null, { status: 204, headers });
}

function methodNotAllowed(method: string, path: string): Response {
  const allow = ROUTES[path]!;
  return errorResponse('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path} (allowed: ${allow})`, {
    headers: { allow },
  });
}

export interface AppOptions {
  /**
   * Serve the web console at `/` (its files under `/console/`). Default: the service's
   * `ServiceConfig.console`, itself `true` by default.
   */
  console?: boolean;
}

/**
 * The service's HTTP interface: `POST /cypher`, `GET /schema`, `GET /status` (alias
 * `GET /service_status`), and the web console at `/` unless turned off. Requests are served
 * while the service is initialized (started or mounted elsewhere); after `close()` they get 503.
 */
export function createApp(service: object, appOptions: AppOptions = {}): Hono<Env> {
  if (appOptions === null || typeof appOptions !== 'object') {
    throw new TypeError('createApp options must be an object');
  }
  const runtime = httpRuntimeOf(service);
  const withConsole = appOptions.console ?? runtime.console;
  if (typeof withConsole !== 'boolean') {
    throw new TypeError(`createApp options.console must be a boolean, got ${typeof withConsole}`);
  }
  const app = new Hono<Env>();
  if (withConsole) mountConsole(app);

  app.use('*', originMiddleware(runtime));
  const authenticated = clientMiddleware(runtime);
  app.post('/cypher', authenticated, (c) => tracked(runtime, () => cypher(c, runtime, c.get('client'))));
  app.get('/schema', authenticated, (c) => tracked(runtime, () => schema(c, runtime)));
  // The health check answers anyone who passes the Host and Origin checks.
  app.get('/status', () => status(runtime));
  app.get('/service_status', authenticated, () => status(runtime));
  for (const path of Object.keys(ROUTES)) {
    app.all(path, (c) =>
      c.req.method === 'OPTIONS' ? options(c, ROUTES[path]!) : methodNotAllowed(c.req.method, path),
    );
  }
  mountTransactions(app, {
    runtime,
    authenticated,
    tracked: (handle) => tracked(runtime, handle),
    lease: (c) => leaseForRequest(c, runtime),
    readBody: (c) => readBody(c, runtime.limits.maxBodyBytes),
    unavailable: () => unavailable(runtime),
    requireJson,
    options,
  });

  app.notFound((c) => errorResponse('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));
  app.onError((error) => responseForError(error));
  return app;
}
