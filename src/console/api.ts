// The console's client of the HTTP API (docs/http-api.md). Every request goes to the origin
// and folder the page came from (so the console works where the app is mounted), sends JSON
// with `Content-Type: application/json`, and carries the bearer token when one was given. A
// 401 answer asks for a token through the prompt hook, keeps it in sessionStorage only (gone
// when the tab closes), and sends the request again.

import type { Schema } from './completion.js';
import { parseJson, type QueryAnswer, toJson, type Value } from './values.js';

export const TOKEN_KEY = 'graphdb.console.token';

export interface ApiError {
  /** HTTP status, 0 when the service could not be reached. */
  status: number;
  code: string;
  message: string;
  line?: number;
  column?: number;
}

export interface ServiceStatusAnswer {
  status: string;
  message: string;
  version: string;
  uptimeMs: number;
  slots: { total: number; inUse: number; waiting: number };
  executedQueries: number;
}

export interface CypherRequest {
  query: string;
  access_mode?: 'read' | 'insert' | 'update' | 'schema';
  parameters?: Record<string, Value>;
}

export type Outcome<T> =
  | { ok: true; value: T; roundTripMs: number }
  | { ok: false; error: ApiError; roundTripMs: number };

/**
 * Asked for a token after a 401; `reason` is the service's message. Resolves to the token, or
 * null when the user declines (the 401 is then reported as the request's error).
 */
export type TokenPrompt = (reason: string) => Promise<string | null>;

function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: Partial<ApiError> };
    const e = body.error;
    if (e && typeof e.code === 'string' && typeof e.message === 'string') {
      const error: ApiError = { status: response.status, code: e.code, message: e.message };
      if (typeof e.line === 'number') error.line = e.line;
      if (typeof e.column === 'number') error.column = e.column;
      return error;
    }
  } catch {
    // not JSON: a proxy's page, say
  }
  return {
    status: response.status,
    code: `HTTP_${response.status}`,
    message: text.trim().slice(0, 300) || response.statusText || 'no message',
  };
}

export class Api {
  readonly base: URL;
  readonly #prompt: TokenPrompt;
  #asking: Promise<string | null> | undefined;
  /** Called when a token is stored or forgotten. */
  onTokenChange: (hasToken: boolean) => void = () => {};

  constructor(base: URL, prompt: TokenPrompt) {
    this.base = base;
    this.#prompt = prompt;
  }

  get hasToken(): boolean {
    return storedToken() !== null;
  }

  forgetToken(): void {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // storage unavailable: nothing was kept
    }
    this.onTokenChange(false);
  }

  /** One prompt at a time: requests that meet a 401 together share its answer. */
  #askForToken(reason: string): Promise<string | null> {
    this.#asking ??= this.#prompt(reason).finally(() => {
      this.#asking = undefined;
    });
    return this.#asking;
  }

  async #send(path: string, init: RequestInit): Promise<Response> {
    for (;;) {
      const headers = new Headers(init.headers);
      headers.set('accept', 'application/json');
      const token = storedToken();
      if (token !== null) headers.set('authorization', `Bearer ${token}`);
      const response = await fetch(new URL(path, this.base), {
        ...init,
        headers,
        credentials: 'same-origin',
      });
      if (response.status !== 401) return response;
      const error = await errorOf(response.clone());
      if (token !== null) this.forgetToken();
      const given = await this.#askForToken(error.message);
      if (given === null || given === '') return response;
      try {
        sessionStorage.setItem(TOKEN_KEY, given);
      } catch {
        return response;
      }
      this.onTokenChange(true);
    }
  }

  async #json<T>(
    path: string,
    init: RequestInit,
    parse: (text: string) => unknown = JSON.parse,
  ): Promise<Outcome<T>> {
    const started = performance.now();
    try {
      const response = await this.#send(path, init);
      if (!response.ok) {
        return { ok: false, error: await errorOf(response), roundTripMs: performance.now() - started };
      }
      const value = parse(await response.text()) as T;
      return { ok: true, value, roundTripMs: performance.now() - started };
    } catch (error) {
      const aborted = error instanceof DOMException && error.name === 'AbortError';
      return {
        ok: false,
        error: aborted
          ? { status: 0, code: 'CANCELLED', message: 'the query was stopped from the console' }
          : { status: 0, code: 'NETWORK', message: `the service could not be reached: ${String(error)}` },
        roundTripMs: performance.now() - started,
      };
    }
  }

  cypher(request: CypherRequest, signal?: AbortSignal): Promise<Outcome<QueryAnswer>> {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // toJson, not JSON.stringify: parameters may hold BigInts (integers past 2^53).
      body: toJson(request as unknown as Value),
    };
    if (signal) init.signal = signal;
    return this.#json<QueryAnswer>('cypher', init, parseJson);
  }

  schema(): Promise<Outcome<Schema>> {
    return this.#json<Schema>('schema', { method: 'GET' });
  }

  status(): Promise<Outcome<ServiceStatusAnswer>> {
    return this.#json<ServiceStatusAnswer>('status', { method: 'GET' });
  }
}
