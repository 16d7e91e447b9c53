// What the HTTP layer knows of the service it serves: the runtime (src/runtime/runtime.ts) with
// the HTTP-only parts beside it (the Host and Origin policy, the console flag, the requests in
// flight). The service binds one to itself when it is built; `createApp(service)` finds it here,
// so the HTTP layer never imports the service.

import type { ServiceRuntime } from '../runtime/runtime.js';
import type { AccessPolicy } from './access.js';

/** @internal A service as the HTTP layer serves it. */
export interface HttpRuntime extends ServiceRuntime {
  /** Which Host names and Origins requests may carry. */
  readonly access: AccessPolicy;
  /** Whether the web console is served by default (ServiceConfig.console). */
  readonly console: boolean;
  /** The HTTP requests in flight and waiting for a slot. */
  readonly requests: InFlight;
}

/**
 * The HTTP requests in flight (stop() lets them finish within its grace) and those waiting for
 * a slot (cancelled when the grace runs out).
 */
export class InFlight {
  #count = 0;
  #drained: (() => void) | null = null;
  readonly #waiters = new Set<(reason: unknown) => void>();

  get count(): number {
    return this.#count;
  }

  started(): void {
    this.#count++;
  }

  finished(): void {
    if (--this.#count === 0 && this.#drained) this.#drained();
  }

  /** Registers a waiting request's cancel function until the returned function is called. */
  trackWaiter(cancel: (reason: unknown) => void): () => void {
    this.#waiters.add(cancel);
    return () => this.#waiters.delete(cancel);
  }

  /** Cancels every request waiting for a slot. */
  cancelWaiters(reason: unknown): void {
    for (const cancel of [...this.#waiters]) cancel(reason);
  }

  /** Waits until no request is in flight; true when `graceMs` ran out first. */
  drain(graceMs: number): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#drained = null;
        resolve(true);
      }, graceMs);
      this.#drained = () => {
        this.#drained = null;
        clearTimeout(timer);
        resolve(false);
      };
    });
  }
}

const served = new WeakMap<object, HttpRuntime>();

/** @internal Binds `service`'s HTTP runtime to it (the service does, once). */
export function bindHttpRuntime(service: object, runtime: HttpRuntime): void {
  served.set(service, runtime);
}

/** @internal The HTTP runtime of a service; TypeError for anything else. */
export function httpRuntimeOf(service: unknown): HttpRuntime {
  const runtime = typeof service === 'object' && service !== null ? served.get(service) : undefined;
  if (!runtime) throw new TypeError('createApp needs a GraphDBService');
  return runtime;
}
