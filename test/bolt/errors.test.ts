// GraphDB's error codes as Neo4j status codes (src/bolt/errors.ts), and how neo4j-driver
// classifies them: transient codes are retried by managed transactions, client codes are not.
import { Neo4jError } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { failureOf, NEO4J_CODE } from '../../src/bolt/errors.js';
import { PackStreamError } from '../../src/bolt/packstream.js';
import { BoltValueError } from '../../src/bolt/values.js';
import { type ErrorCode, GraphDBError } from '../../src/core/errors.js';

function codeOf(code: ErrorCode, message = 'x'): string {
  return failureOf(new GraphDBError(message, code)).code;
}

function retryable(code: string): boolean {
  return new Neo4jError('m', code, '50N42', 'error: general processing exception').retryable;
}

describe('Neo4j codes of GraphDB errors', () => {
  it('makes TX_CONFLICT a transient error that drivers retry, and client errors not', () => {
    expect(codeOf('TX_CONFLICT')).toBe('Neo.TransientError.Transaction.Outdated');
    expect(retryable(codeOf('TX_CONFLICT'))).toBe(true);
    expect(retryable(codeOf('SERVICE_UNAVAILABLE'))).toBe(true);
    for (const code of [
      'QUERY_SYNTAX',
      'QUERY_BINDING',
      'CONSTRAINT_VIOLATION',
      'QUERY_TIMEOUT',
      'FORBIDDEN',
    ] as const) {
      expect(retryable(codeOf(code)), code).toBe(false);
    }
  });

  it('refines binder, runtime and request errors by what they name', () => {
    expect(codeOf('QUERY_BINDING', 'Binder exception: Table Nope does not exist.')).toBe(
      'Neo.ClientError.Statement.SemanticError',
    );
    expect(codeOf('QUERY_BINDING', 'Expression x has data type STRING but expected INT64.')).toBe(
      'Neo.ClientError.Statement.TypeError',
    );
    expect(codeOf('QUERY_RUNTIME', 'Overflow exception: Value 1 is not within INT64 range')).toBe(
      'Neo.ClientError.Statement.ArithmeticError',
    );
    expect(codeOf('QUERY_RUNTIME', 'Conversion exception: Could not convert "x" to INT64.')).toBe(
      'Neo.ClientError.Statement.TypeError',
    );
    expect(codeOf('INVALID_REQUEST', 'Parameter id not found.')).toBe(
      'Neo.ClientError.Statement.ParameterMissing',
    );
    expect(codeOf('INVALID_REQUEST', 'several statements')).toBe('Neo.ClientError.Statement.ArgumentError');
  });

  it('maps every code, keeps GraphDB code and position, and names protocol and value errors', () => {
    for (const code of Object.keys(NEO4J_CODE) as ErrorCode[]) expect(codeOf(code)).toMatch(/^Neo\./);
    const syntax = new GraphDBError('Parser exception: bad input', 'QUERY_SYNTAX');
    syntax.line = 1;
    syntax.column = 8;
    expect(failureOf(syntax)).toEqual({
      code: 'Neo.ClientError.Statement.SyntaxError',
      message: 'Parser exception: bad input (line 1, column 8)',
      graphdbCode: 'QUERY_SYNTAX',
    });
    expect(failureOf(new PackStreamError('unknown marker')).code).toBe(
      'Neo.ClientError.Request.InvalidFormat',
    );
    expect(failureOf(new BoltValueError('a Point')).code).toBe('Neo.ClientError.Statement.TypeError');
  });
});
