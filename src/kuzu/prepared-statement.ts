// Kùzu's PreparedStatement: a statement checked once by `conn.prepare(text)`. GraphDB's
// connection keeps the plans of the statements it runs (native/main/plan_cache.h), so a
// statement runs as fast by its text as by a prepared handle; `execute` runs the text with its
// parameters, which also lets a short read run at once on the calling thread.

/** A statement prepared by `conn.prepare` or `conn.prepareSync`. */
export class PreparedStatement {
  /** @internal */
  readonly _text: string;
  /** @internal The connection that prepared it. */
  readonly _owner: object;
  readonly #error: string;

  /** @internal Made by Connection.prepare. */
  constructor(owner: object, text: string, error: string) {
    this._owner = owner;
    this._text = text;
    this.#error = error;
  }

  /** Whether the statement parsed and bound (else `getErrorMessage()` says why not). */
  isSuccess(): boolean {
    return this.#error === '';
  }

  /** Why it could not be prepared ('' when it could). */
  getErrorMessage(): string {
    return this.#error;
  }
}
