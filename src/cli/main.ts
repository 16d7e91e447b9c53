import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Database, IN_MEMORY } from '../core/database.js';
import { GraphDBError } from '../core/errors.js';
import type { QueryResult } from '../core/query-result.js';
import { VERSION } from '../version.js';
import { DEFAULT_DB_DIR, resolveDataDir } from './data-dir.js';
import { formatResult, type OutputFormat } from './format.js';
import { parseParam } from './params.js';
import { progressBar } from './progress-bar.js';
import { splitStatements } from './script.js';
import { runServe, type ServeOptions } from './serve.js';

function positiveInt(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) {
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    }
    return value;
  };
}

function atLeastOne(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    }
    return value;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function describeError(error: unknown): string {
  if (error instanceof GraphDBError) {
    const where = error.line !== undefined ? ` (line ${error.line}, column ${error.column})` : '';
    return `${error.code}: ${error.message}${where}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Opens the folder `given` names (the default one when undefined), saying when it is created. */
function openDatabase(given: string | undefined): Database {
  const { dir, announce } = resolveDataDir(given);
  announce();
  return new Database(dir);
}

/** Whether a lone argument of `graphdb query` names a database rather than a query. */
function namesDatabase(arg: string): boolean {
  if (arg === IN_MEMORY) return true;
  try {
    return statSync(arg).isDirectory();
  } catch {
    return false;
  }
}

async function runQuery(
  args: string[],
  options: { param: Record<string, unknown>; format: OutputFormat },
  command: Command,
) {
  if (args.length === 0 || args.length > 2) {
    command.error(`error: expected [DB_DIR] "<cypher>", got ${args.length} arguments`);
  }
  if (args.length === 1 && namesDatabase(args[0]!)) {
    // Run as a query, it would fail, and only after opening (creating) ./quiverdb-data.
    command.error(`error: ${JSON.stringify(args[0])} names a database, but the query text is missing`);
  }
  const [dir, text] = args.length === 2 ? [args[0], args[1]] : [undefined, args[0]];
  using db = openDatabase(dir);
  using conn = db.connect();
  const bar = progressBar();
  let result: QueryResult;
  try {
    result = await conn.query(text ?? '', options.param, { onProgress: bar.onProgress });
  } finally {
    bar.done();
  }
  process.stdout.write(`${formatResult(result, options.format)}\n`);
}

/** Whether `result` is a statement's message (DDL, COPY, a setting) rather than rows it returned. */
function isMessage(result: QueryResult): boolean {
  return result.columns.length === 1 && result.columns[0] === 'result' && result.types[0] === 'STRING';
}

async function runImport(dir: string | undefined, file: string) {
  const script = readFileSync(file, 'utf8');
  const statements = splitStatements(script);
  using db = openDatabase(dir);
  using conn = db.connect();
  const started = Date.now();
  for (const [i, statement] of statements.entries()) {
    process.stderr.write(`[${i + 1}/${statements.length}] ${statement.slice(0, 70)}\n`);
    const bar = progressBar();
    let result: QueryResult;
    try {
      result = await conn.query(statement, undefined, { onProgress: bar.onProgress });
    } finally {
      bar.done();
    }
    if (isMessage(result)) {
      // DDL and COPY: their message ("Table P has been created.") goes with the progress lines.
      for (const [message] of result.rows) if (message !== '') process.stderr.write(`  ${String(message)}\n`);
    } else if (result.columns.length > 0) {
      process.stdout.write(`${formatResult(result, 'table')}\n`);
    }
  }
  process.stderr.write(
    `imported ${statements.length} statements in ${((Date.now() - started) / 1000).toFixed(2)} s\n`,
  );
}

async function runShell(given: string | undefined) {
  using db = openDatabase(given);
  const dir = db.path;
  using conn = db.connect();
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: 'quiverdb> ',
    historySize: 1000,
    terminal: process.stdin.isTTY,
  });
  process.stdout.write(`QuiverDB shell on ${dir}. End statements with ';'. :quit to leave.\n`);
  let buffer = '';
  rl.prompt();
  for await (const line of rl) {
    const trimmed = line.trim();
    if (buffer === '' && (trimmed === ':quit' || trimmed === ':exit')) break;
    buffer += `${line}\n`;
    if (!trimmed.endsWith(';')) {
      rl.setPrompt('     ...> ');
      rl.prompt();
      continue;
    }
    for (const statement of splitStatements(buffer)) {
      try {
        const result = await conn.query(statement);
        process.stdout.write(`${formatResult(result, 'table')}\n`);
      } catch (error) {
        process.stdout.write(`Error: ${describeError(error)}\n`);
      }
    }
    buffer = '';
    rl.setPrompt('quiverdb> ');
    rl.prompt();
  }
  rl.close();
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('quiverdb')
    .description('QuiverDB: an embedded graph database with a Cypher HTTP service')
    .version(VERSION, '-V, --version', 'print the version of QuiverDB')
    .showHelpAfterError()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('serve')
    .description('open (or create) a database and serve it over HTTP')
    .argument('[DB_DIR]', `database folder (default ${DEFAULT_DB_DIR}; with --demo, a temporary one)`)
    .option('--port <n>', 'port to listen on', positiveInt('--port'), 10000)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--bolt-port <n>',
      'also serve the Bolt protocol (Neo4j drivers) on this port (0 = any free port)',
      positiveInt('--bolt-port'),
    )
    .option('--threads <n>', 'execution slots (0 = --max-threads)', positiveInt('--threads'), 0)
    .option(
      '--max-threads <n>',
      "database maxThreadNum (0 = the machine's parallelism)",
      positiveInt('--max-threads'),
      0,
    )
    .option(
      '--query-timeout <ms>',
      'time limit of each statement in ms (0 = none)',
      positiveInt('--query-timeout'),
      60_000,
    )
    .option(
      '--max-result-bytes <n>',
      'largest result of one statement in bytes (0 = no limit)',
      positiveInt('--max-result-bytes'),
      256 * 2 ** 20,
    )
    .option(
      '--max-statement-memory <n>',
      'most memory one statement may hold for sorts, aggregations and the like, in bytes (0 = no limit)',
      positiveInt('--max-statement-memory'),
      2 ** 30,
    )
    .option(
      '--stop-timeout <ms>',
      'on SIGINT/SIGTERM, how long requests in flight may finish before their statements are cancelled',
      positiveInt('--stop-timeout'),
      10_000,
    )
    .option('--no-auto-compaction', 'disable background compaction')
    .option(
      '--no-sync-on-commit',
      'acknowledge commits once they reach the page cache (no fdatasync per commit)',
    )
    .option('--demo', 'load a small generated social network into an empty database first')
    .option('--no-console', 'do not serve the web console at /')
    .option(
      '--allowed-host <name>',
      "a host name clients may use besides IP addresses and localhost ('*': any), repeatable",
      collect,
      [],
    )
    .option(
      '--cors-origin <origin>',
      "an origin whose web pages may call the service ('*': any), repeatable",
      collect,
      [],
    )
    .option(
      '--headers-timeout <ms>',
      'time a client has to send request headers',
      atLeastOne('--headers-timeout'),
    )
    .option(
      '--receive-timeout <ms>',
      'time a client has to send a whole request',
      atLeastOne('--receive-timeout'),
    )
    .option(
      '--keep-alive-timeout <ms>',
      'idle time before a keep-alive connection closes',
      atLeastOne('--keep-alive-timeout'),
    )
    .option('--max-connections <n>', 'most connections open at once', atLeastOne('--max-connections'))
    .option(
      '--admin-reserved-connections <n>',
      'Bolt connections past --max-connections kept for admin tokens (default 8)',
      positiveInt('--admin-reserved-connections'),
    )
    .option(
      '--bolt-max-connections-per-token <n>',
      'most Bolt connections one token may have logged in (default 64, 0 = no limit)',
      positiveInt('--bolt-max-connections-per-token'),
    )
    .option(
      '--bolt-idle-timeout <ms>',
      'idle time before a logged-in Bolt connection with nothing open closes (default 300000, 0 = never)',
      positiveInt('--bolt-idle-timeout'),
    )
    .option(
      '--auth-file <file>',
      'JSON list of {"token" | "sha256", "role"} (roles reader, writer, admin); GRAPHDB_TOKEN adds an admin token',
    )
    .option('--insecure', 'serve a non-loopback address without authentication')
    .option(
      '--import-dir <dir>',
      'the folder admin statements may read and write files in (COPY, LOAD FROM); none without it',
    )
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain); needs --tls-key')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option(
      '--tx-timeout <ms>',
      'how long an explicit HTTP transaction (POST /tx) may stay idle before it is rolled back (default 30000)',
      atLeastOne('--tx-timeout'),
    )
    .option(
      '--max-transactions <n>',
      'most explicit HTTP transactions open at once (default: half the execution slots)',
      positiveInt('--max-transactions'),
    )
    .action(async (dir: string | undefined, options: ServeOptions) => {
      await runServe(dir, options);
    });

  program
    .command('query')
    .description('run one Cypher statement and print its result')
    .argument('<args...>', '[DB_DIR] "<cypher>"')
    .option(
      '--param <name=value>',
      'query parameter (value read as JSON when valid), repeatable',
      parseParam,
      {},
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']).default('table'),
    )
    .action(
      async (
        args: string[],
        options: { param: Record<string, unknown>; format: OutputFormat },
        command: Command,
      ) => {
        await runQuery(args, options, command);
      },
    );

  program
    .command('shell')
    .description('interactive Cypher prompt with history and aligned tables')
    .argument('[DB_DIR]', `database folder (default ${DEFAULT_DB_DIR})`)
    .action(async (dir: string | undefined) => {
      await runShell(dir);
    });

  program
    .command('import')
    .description('run a schema-and-COPY script, one statement after another')
    .argument('<args...>', '[DB_DIR] FILE.cypher')
    .action(async (args: string[]) => {
      if (args.length === 0 || args.length > 2)
        throw new InvalidArgumentError('expected [DB_DIR] FILE.cypher');
      const [dir, file] = args.length === 2 ? [args[0], args[1]] : [undefined, args[0]];
      await runImport(dir, path.resolve(file ?? ''));
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.stderr.write(`quiverdb: ${describeError(error)}${os.EOL}`);
    process.exitCode = 1;
  }
}
