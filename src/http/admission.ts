// Admission: what a request must pass before the service looks at what it asks (docs/http-api.md,
// "Browsers, Host and Origin" and "Authentication"). Defined once here and used twice: by the
// Hono app as middleware (app.ts) and by the `POST /cypher` fast path as plain function calls
// (fast-cypher.ts), so that every rule lives in one place.
//
// In order: the Host must be one the service answers to (DNS rebinding), the Origin, when a
// browser sends one, this service or an allowed one (CORS); then the bearer token (when the
// service has tokens); then, for a route that reads a body, its Content-Type must be JSON and
// its announced length within the limit. Each step answers with null (passed) or the Reply
// that refuses the request.

import { ANONYMOUS_ADMIN, type Authenticator, type Client } from '../runtime/auth.js';
import { type AccessPolicy, corsHeaders, hostAllowed, isJsonContentType, judgeOrigin } from './access.js';
import { errorReply, type Reply } from './errors.js';

/** The Host and Origin of a request: refused (a Reply), or passed with the CORS headers to add. */
export type OriginAdmission = Reply | { cors: Record<string, string> | null };

/**
 * Whether a request naming `host` (its Host header) and sent from `origin` (its Origin header)
 * may be answered, and with which CORS headers (null: same origin, none).
 */
export function admitOrigin(
  host: string | undefined,
  origin: string | undefined,
  policy: AccessPolicy,
): OriginAdmission {
  if (!hostAllowed(host, policy)) {
    return errorReply(
      'HOST_NOT_ALLOWED',
      `the service does not answer to the host ${JSON.stringify(host)}: name it by an IP address or localhost, or list it in allowedHosts (--allowed-host)`,
    );
  }
  const verdict = judgeOrigin(origin, host, policy);
  if (verdict === 'refused') {
    return errorReply(
      'ORIGIN_NOT_ALLOWED',
      `requests from the origin ${JSON.stringify(origin)} are not allowed: list it in corsOrigins (--cors-origin) to allow them`,
    );
  }
  return { cors: verdict === 'same' ? null : corsHeaders(origin!, policy) };
}

/**
 * Who sent the request by its Authorization header, or its 401 UNAUTHORIZED. Without tokens
 * every client is an admin (the service then listens on loopback only, or was told `insecure`).
 */
export function admitClient(authorization: string | undefined, auth: Authenticator | null): Client | Reply {
  if (!auth) return ANONYMOUS_ADMIN;
  const verdict = auth.authenticate(authorization);
  if ('role' in verdict) return verdict;
  const missing = verdict.refused === 'missing';
  return errorReply(
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

/** UNSUPPORTED_MEDIA_TYPE unless the body is sent as JSON (`what` names the route); null when it is. */
export function admitJsonBody(contentType: string | undefined, what: string): Reply | null {
  if (isJsonContentType(contentType)) return null;
  // A page may send a "simple" text/plain POST to any origin without asking first; JSON needs a
  // preflight, which only allowed origins pass.
  return errorReply(
    'UNSUPPORTED_MEDIA_TYPE',
    `${what} takes a JSON body sent as Content-Type: application/json, got ${contentType === undefined ? 'no Content-Type' : JSON.stringify(contentType)}`,
  );
}

/** 413 for a body past `limit` bytes (the connection closes: the rest is not read). */
export function tooLargeReply(limit: number): Reply {
  return errorReply('PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
  });
}

/** PAYLOAD_TOO_LARGE when a Content-Length header announces more than `limit` bytes; else null. */
export function admitLength(lengthHeader: string | undefined, limit: number): Reply | null {
  return lengthHeader !== undefined && Number(lengthHeader) > limit ? tooLargeReply(limit) : null;
}
