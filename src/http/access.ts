// Who may talk to the service from a browser: the checks against cross-site request forgery and
// DNS rebinding (docs/http-api.md, "Browsers, Host and Origin").
//
// A web page the user opens can send requests to a service on localhost. Three checks keep it
// out: a request must name a Host the service answers to (a DNS-rebinding page names its own
// domain), its Origin, when a browser sends one, must be this service or an origin the
// configuration allows (CORS), and a body must be declared `application/json`, which a page
// cannot send to another origin without the preflight the service refuses.

import { isIP } from 'node:net';

/** @internal The resolved `allowedHosts` and `corsOrigins` of a ServiceConfig. */
export interface AccessPolicy {
  /** Host names (lower case, no port) requests may name, besides IP addresses and localhost. */
  readonly hosts: ReadonlySet<string>;
  readonly anyHost: boolean;
  /** Origins (as URL.origin serializes them) allowed to make cross-origin requests. */
  readonly origins: ReadonlySet<string>;
  readonly anyOrigin: boolean;
  /** How the service is reached: its own pages' origin is `<scheme>://<Host>`. */
  readonly scheme: 'http' | 'https';
}

const WILDCARD = '*';

function fail(field: string, detail: string): never {
  throw new TypeError(`ServiceConfig.${field} ${detail}`);
}

/**
 * The entries of a list field, each passed through `normalize` (which throws for a bad one);
 * `any` when the list holds the wildcard '*'.
 */
function entriesOf(
  value: unknown,
  field: string,
  normalize: (entry: string) => string,
): { entries: Set<string>; any: boolean } {
  const entries = new Set<string>();
  let any = false;
  if (value === undefined) return { entries, any };
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length === 0)) {
    fail(field, 'must be an array of non-empty strings');
  }
  for (const entry of value as string[]) {
    if (entry === WILDCARD) any = true;
    else entries.add(normalize(entry));
  }
  return { entries, any };
}

function allowedHostName(entry: string): string {
  if (/[\s/:@]/.test(entry)) {
    fail('allowedHosts', `entries are host names without scheme or port, got ${JSON.stringify(entry)}`);
  }
  return normalizeHostName(entry);
}

function corsOrigin(entry: string): string {
  let url: URL | null = null;
  try {
    url = new URL(entry);
  } catch {
    url = null;
  }
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash || url.username) {
    fail(
      'corsOrigins',
      `entries are origins such as "https://app.example.com" (scheme, host and port only), got ${JSON.stringify(entry)}`,
    );
  }
  return url.origin;
}

/** Builds the policy from the config's fields; TypeErrors name the field and the entry. */
export function resolveAccessPolicy(
  boundHost: string,
  allowedHosts: unknown,
  corsOrigins: unknown,
  scheme: 'http' | 'https' = 'http',
): AccessPolicy {
  const hosts = entriesOf(allowedHosts, 'allowedHosts', allowedHostName);
  // The name the server was bound by is one it answers to.
  if (!isIP(boundHost)) hosts.entries.add(normalizeHostName(boundHost));
  const origins = entriesOf(corsOrigins, 'corsOrigins', corsOrigin);
  return {
    hosts: hosts.entries,
    anyHost: hosts.any,
    origins: origins.entries,
    anyOrigin: origins.any,
    scheme,
  };
}

function normalizeHostName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * Whether a request naming `host` (the Host header) may be answered. IP addresses and
 * localhost always may (a DNS-rebinding page cannot name them: its requests carry its own
 * domain); other names only when the policy lists them. A request without Host (HTTP/1.0, no
 * browser sends one) may.
 */
export function hostAllowed(host: string | undefined, policy: AccessPolicy): boolean {
  if (host === undefined || host === '' || policy.anyHost) return true;
  if (host.startsWith('[')) return host.indexOf(']') > 0; // an IPv6 address, perhaps with a port
  const colon = host.lastIndexOf(':');
  const name = normalizeHostName(colon < 0 ? host : host.slice(0, colon));
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return policy.hosts.has(name);
}

/** How a request's Origin header stands. */
export type OriginVerdict =
  /** No Origin (not a browser, or a same-origin GET), or this service's own origin. */
  | 'same'
  /** A cross-origin request from an allowed origin: answer with CORS headers. */
  | 'cors'
  | 'refused';

export function judgeOrigin(
  origin: string | undefined,
  host: string | undefined,
  policy: AccessPolicy,
): OriginVerdict {
  if (origin === undefined) return 'same';
  const lower = origin.toLowerCase();
  if (host !== undefined && lower === `${policy.scheme}://${host.toLowerCase()}`) return 'same';
  if (policy.anyOrigin || policy.origins.has(lower)) return 'cors';
  return 'refused';
}

/** The CORS headers of an answer to an allowed cross-origin request from `origin`. */
export function corsHeaders(origin: string, policy: AccessPolicy): Record<string, string> {
  return policy.anyOrigin
    ? { 'access-control-allow-origin': '*', vary: 'Origin' }
    : { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** How long a browser may cache a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Whether a Content-Type header declares a JSON body in UTF-8 (the only encoding of JSON). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const parts = contentType.split(';');
  if (parts[0]!.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parts.slice(1)) {
    const eq = parameter.indexOf('=');
    const name = parameter
      .slice(0, eq < 0 ? undefined : eq)
      .trim()
      .toLowerCase();
    if (name !== 'charset') continue;
    const value = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '')
      .toLowerCase();
    if (value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}
