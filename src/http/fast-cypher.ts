// The fast path of `POST /cypher` on the service's own HTTP server (service.start()).
//
// The Hono app (app.ts) answers every route, but for each request the Node adapter builds a web
// Request (with a parsed URL), Hono a Context, the route a Response, and the adapter then
// turns it back into Node's writeHead and end: a good part of a point lookup's cost. This
// listener sits in front of the app and answers the common `POST /cypher` itself, from Node's
// IncomingMessage to its ServerResponse: it reads the body straight from the request, runs a
// short read at once on a free slot (tryRequestInline: the engine writes the response JSON),
// and writes the answer with one writeHead and end. Whatever it would answer differently from
// the app it leaves to the app, before reading anything: a path other than exactly `/cypher`, a
// Host the adapter would refuse, a request the admission steps (admission.ts, which the app
// runs as middleware) refuse or answer with CORS headers, a request for NDJSON, a service that
// is not accepting requests. What
// it answers itself (a body that turns out too large or not UTF-8, the request's own errors,
// a full queue ...) is built by the same functions as the app's answers (cypher.ts, errors.ts)
// and written as the adapter writes them, so the bytes on the wire are the same either way.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessModeName } from '../native/addon.js';
import { ROLE_MOST_ACCESS } from '../runtime/access.js';
import { ExecutionSlotLease } from '../runtime/pool.js';
import { admitClient, admitJsonBody, admitLength, admitOrigin, tooLargeReply } from './admission.js';
import { collectIncoming, TOO_LARGE } from './body.js';
import type { HttpRuntime } from './context.js';
import { bodyErrorReply, leaseSlot, runInline, runOnLease } from './cypher.js';
import { type Reply, replyForError } from './errors.js';
import { wantsNdjson } from './ndjson.js';

type Listener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/**
 * Writes `reply` as the Node adapter of Hono writes a Response made from it: the headers in
 * their order and Content-Length last. While the service stops, the app marks its answers
 * `Connection: close` on the Response's Headers, which the adapter then writes by name, in
 * lower case, sorted; so does this.
 */
export function writeReply(outgoing: ServerResponse, reply: Reply, stopping: boolean): void {
  let headers = reply.headers;
  if (stopping) {
    const sorted = new Headers(headers);
    sorted.set('connection', 'close');
    headers = {};
    for (const [name, value] of sorted) headers[name] = value;
  }
  (headers as Record<string, string | number>)['Content-Length'] = Buffer.byteLength(reply.body);
  outgoing.writeHead(reply.status, headers);
  outgoing.end(reply.body);
}

/**
 * Whether the Node adapter builds a request from `host` (a Host header), as its newRequest
 * does: the URL must parse, and its host name must be the header's (an address written
 * otherwise, such as `0x7f.1`, is refused).
 */
function adapterAcceptsHost(host: string, secure: boolean): boolean {
  let url: URL;
  try {
    url = new URL(`${secure ? 'https' : 'http'}://${host}/cypher`);
  } catch {
    return false;
  }
  return url.hostname.length === host.length || url.hostname === host.replace(/:\d+$/, '');
}

/**
 * `fallback` (the app's listener) with the fast path of `POST /cypher` in front (see the top
 * of this file).
 */
export function withCypherFastPath(runtime: HttpRuntime, fallback: Listener): Listener {
  const policy = runtime.access;
  // The last Host (with its scheme) and Content-Type that passed: clients send the same ones.
  let passedHost: string | undefined;
  let passedSecure = false;
  let passedContentType: string | undefined;
  /** Whether the adapter builds the request and admission passes its Host and Origin as same-origin. */
  const originPasses = (host: string | undefined, origin: string | undefined, secure: boolean): boolean => {
    if (host === undefined || host === '') return false; // the adapter then names the server's
    if (origin === undefined && host === passedHost && secure === passedSecure) return true;
    if (!adapterAcceptsHost(host, secure)) return false;
    const admitted = admitOrigin(host, origin, policy);
    if ('status' in admitted || admitted.cors !== null) return false;
    if (origin === undefined) {
      passedHost = host;
      passedSecure = secure;
    }
    return true;
  };
  /** The role's highest access mode when the fast path takes the request; null: the app does. */
  const takes = (incoming: IncomingMessage): AccessModeName | null => {
    if (incoming.method !== 'POST' || incoming.url !== '/cypher' || !runtime.accepting) return null;
    const headers = incoming.headers;
    const host = headers.host;
    const secure = (incoming.socket as { encrypted?: boolean }).encrypted === true;
    const origin = headers.origin;
    const contentType = headers['content-type'];
    const limit = runtime.limits.maxBodyBytes;
    if (
      !originPasses(host, origin, secure) ||
      (contentType !== passedContentType && admitJsonBody(contentType, 'POST /cypher') !== null) ||
      admitLength(headers['content-length'], limit) !== null ||
      wantsNdjson(headers.accept)
    ) {
      return null;
    }
    passedContentType = contentType;
    const client = admitClient(headers.authorization, runtime.auth);
    return 'role' in client ? ROLE_MOST_ACCESS[client.role] : null;
  };
  return (incoming, outgoing) => {
    let mostAccess: AccessModeName | null;
    try {
      mostAccess = takes(incoming);
    } catch {
      mostAccess = null; // the app meets the same failure and answers it as it does
    }
    if (mostAccess === null) {
      fallback(incoming, outgoing);
      return;
    }
    const most = mostAccess;
    const limit = runtime.limits.maxBodyBytes;
    runtime.requests.started();
    const finish = (reply: Reply) => {
      runtime.requests.finished();
      writeReply(outgoing, reply, runtime.stopping);
    };
    collectIncoming(incoming, limit, (error, body) => {
      if (error) finish(bodyErrorReply(error));
      else if (body === TOO_LARGE) finish(tooLargeReply(limit));
      else {
        let inline: Reply | undefined;
        try {
          inline = runInline(runtime, body!, most);
        } catch (thrown) {
          inline = replyForError(thrown); // as the app's onError answers what its route throws
        }
        if (inline) finish(inline);
        else void runLeased(runtime, body!, most, outgoing).then(finish);
      }
    });
  };
}

/** A request that did not run inline: on a leased slot's native thread, as the app runs it. */
async function runLeased(
  runtime: HttpRuntime,
  body: string,
  mostAccess: AccessModeName,
  outgoing: ServerResponse,
): Promise<Reply> {
  try {
    const lease = await leaseSlot(runtime, outgoing, undefined);
    if (!(lease instanceof ExecutionSlotLease)) return lease;
    return await runOnLease(lease, body, mostAccess, outgoing, undefined);
  } catch (error) {
    return replyForError(error);
  }
}
