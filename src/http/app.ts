// The HTTP interface of a GraphDBService as a Hono app (CONTRACT section 4, docs/http-api.md).
// `service.start()` serves it with @hono/node-server; `createApp(service)` also lets it be
// mounted inside an existing Hono server.

import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { ROLE_MOST_ACCESS } from '../runtime/access.js';
import { ANONYMOUS_ADMIN, type Authenticator, type Client } from '../runtime/auth.js';
import { ExecutionSlotLease, schemaOnSlot } from '../runtime/pool.js';
import { VERSION } from '../version.js';
import {
  type AccessPolicy,
  corsHeaders,
  hostAllowed,
  isJsonContentType,
  judgeOrigin,
  PREFLIGHT_MAX_AGE_SECONDS,
} from './access.js';
import { readIncoming, readRequest, TOO_LARGE } from './body.js';
import { mountConsole } from './console.js';
import { type HttpRuntime, httpRuntimeOf } from './context.js';
import {
  announcesTooLarge,
  bodyErrorReply,
  leaseSlot,
  runInline,
  runOnLease,
  tooLargeReply,
  unavailableReply,
} from './cypher.js';
import { errorResponse, jsonHeaders, responseForError, SECURITY_HEADERS, toResponse } from './errors.js';
import { streamResult, wantsNdjson } from './ndjson.js';
import { mountTransactions } from './tx.js';

type Env = { Bindings: Partial<HttpBindings> };
type Ctx = Context<Env>;

const ROUTES: Readonly<Record<string, string>> = {
  '/cypher': 'POST, OPTIONS',
  '/schema': 'GET, HEAD, OPTIONS',
  '/status': 'GET, HEAD, OPTIONS',
  '/service_status': 'GET, HEAD, OPTIONS',
};

function jsonResponse(body: string, status = 200): Response {
  return new Response(body, { status, headers: jsonHeaders() });
}

/** A request header (the first value when repeated), straight from Node's request when there is one. */
function header(c: Ctx, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Runs `handle` for a request whose Host and Origin pass (access.ts), adding the CORS headers
 * when it comes from an allowed other origin; answers 403 otherwise. Every route goes through
 * it: a page must not read the status or the schema either.
 */
function guarded(
  c: Ctx,
  policy: AccessPolicy,
  handle: (cors: Record<string, string> | null) => Response | Promise<Response>,
): Response | Promise<Response> {
  const host = header(c, 'host');
  if (!hostAllowed(host, policy)) {
    return errorResponse(
      'HOST_NOT_ALLOWED',
      `the service does not answer to the host ${JSON.stringify(host)}: name it by an IP address or localhost, or list it in allowedHosts (--allowed-host)`,
    );
  }
  const origin = header(c, 'origin');
  const verdict = judgeOrigin(origin, host, policy);
  if (verdict === 'refused') {
    return errorResponse(
      'ORIGIN_NOT_ALLOWED',
      `requests from the origin ${JSON.stringify(origin)} are not allowed: list it in corsOrigins (--cors-origin) to allow them`,
    );
  }
  if (verdict === 'same') return handle(null);
  const cors = corsHeaders(origin!, policy);
  return Promise.resolve(handle(cors)).then((response) => {
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    return response;
  });
}

/**
 * The role of the request's bearer token, or its 401 UNAUTHORIZED. Without authentication
 * configured every client is an admin (the service then listens on loopback only, or was
 * told `insecure`).
 */
function authorize(c: Ctx, auth: Authenticator | null): Client | Response {
  if (!auth) return ANONYMOUS_ADMIN;
  const verdict = auth.authenticate(header(c, 'authorization'));
  if ('role' in verdict) return verdict;
  const missing = verdict.refused === 'missing';
  return errorResponse(
    'UNAUTHORIZED',
    missing
      ? 'this service needs a token: send it as Authorization: Bearer <token>'
      : 'the token is not valid for this service',
    {
      headers: {
        'www-authenticate': missing
          ? 'Bearer realm="quiverdb"'
          : 'Bearer realm="quiverdb", error="invalid_token"',
      },
    },
  );
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
  const lengthHeader = incoming ? incoming.headers['content-length'] : c.req.header('content-length');
  if (announcesTooLarge(lengthHeader, limit)) return toResponse(tooLargeReply(limit));
  let body: string | typeof TOO_LARGE;
  try {
    body = incoming ? await readIncoming(incoming, limit) : await readRequest(c.req.raw, limit);
  } catch (error) {
    return toResponse(bodyErrorReply(error));
  }
  return body === TOO_LARGE ? toResponse(tooLargeReply(limit)) : body;
}

/** UNSUPPORTED_MEDIA_TYPE unless the request's body is sent as JSON; null when it is. */
function requireJson(c: Ctx, what: string): Response | null {
  const contentType = header(c, 'content-type');
  if (isJsonContentType(contentType)) return null;
  // A page may send a "simple" text/plain POST to any origin without asking first; JSON
  // needs a preflight, which only allowed origins pass.
  return errorResponse(
    'UNSUPPORTED_MEDIA_TYPE',
    `${what} takes a JSON body sent as Content-Type: application/json, got ${contentType === undefined ? 'no Content-Type' : JSON.stringify(contentType)}`,
  );
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
    return jsonResponse(await schemaOnSlot(lease.slot));
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
function options(c: Ctx, allow: string, cors: Record<string, string> | null): Response {
  const headers: Record<string, string> = { allow, ...SECURITY_HEADERS };
  if (cors && header(c, 'access-control-request-method') !== undefined) {
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

  const policy = runtime.access;
  /** Host/Origin checks, then the token (when the service has any): `handle` gets the client. */
  const guardedAndAuthorized = (
    c: Ctx,
    handle: (cors: Record<string, string> | null, client: Client) => Response | Promise<Response>,
  ): Response | Promise<Response> =>
    guarded(c, policy, (cors) => {
      const client = authorize(c, runtime.auth);
      return client instanceof Response ? client : handle(cors, client);
    });
  const authorized =
    (handle: (c: Ctx, client: Client) => Response | Promise<Response>) =>
    (c: Ctx): Response | Promise<Response> =>
      guardedAndAuthorized(c, (_cors, client) => handle(c, client));
  app.post(
    '/cypher',
    authorized((c, client) => tracked(runtime, () => cypher(c, runtime, client))),
  );
  app.get(
    '/schema',
    authorized((c) => tracked(runtime, () => schema(c, runtime))),
  );
  // The health check answers anyone who passes the Host and Origin checks.
  app.get('/status', (c) => guarded(c, policy, () => status(runtime)));
  app.get(
    '/service_status',
    authorized(() => status(runtime)),
  );
  for (const path of Object.keys(ROUTES)) {
    app.all(path, (c) =>
      guarded(c, policy, (cors) =>
        c.req.method === 'OPTIONS' ? options(c, ROUTES[path]!, cors) : methodNotAllowed(c.req.method, path),
      ),
    );
  }
  mountTransactions(app, {
    runtime,
    guarded: (c, handle) => guarded(c, policy, handle),
    authorized: guardedAndAuthorized,
    tracked: (handle) => tracked(runtime, handle),
    lease: (c) => leaseForRequest(c, runtime),
    readBody: (c) => readBody(c, runtime.limits.maxBodyBytes),
    unavailable: () => unavailable(runtime),
    header,
    requireJson,
    options,
  });

  app.notFound((c) =>
    guarded(c, policy, () => errorResponse('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`)),
  );
  app.onError((error) => responseForError(error));
  return app;
}
