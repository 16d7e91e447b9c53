// A LangChain graph store over QuiverDB, in the shape of @langchain/community's graph stores
// (query, getSchema, getStructuredSchema, refreshSchema, addGraphDocuments): GraphCypherQAChain
// and LLMGraphTransformer's GraphDocuments work with it. Node and relationship tables are
// created as documents need them; every node table has `id STRING` as its primary key.

import { createHash } from 'node:crypto';
import type { QueryParameters } from '../core/connection.js';
import { GraphDBError } from '../core/errors.js';
import type { CypherValue } from '../core/values.js';
import { ConnectionHolder, identifier, literal, type QuiverConnectionOptions } from './common.js';

/** A node of a GraphDocument (@langchain/community's `Node` has this shape). */
export interface GraphDocumentNode {
  id: string | number;
  type: string;
  properties?: Record<string, unknown>;
}

/** A relationship of a GraphDocument (@langchain/community's `Relationship`). */
export interface GraphDocumentRelationship {
  source: GraphDocumentNode;
  target: GraphDocumentNode;
  type: string;
  properties?: Record<string, unknown>;
}

/** What addGraphDocuments takes (@langchain/community's `GraphDocument` has this shape). */
export interface GraphDocumentInput {
  nodes: GraphDocumentNode[];
  relationships: GraphDocumentRelationship[];
  source?: { pageContent: string; metadata?: Record<string, unknown>; id?: string };
}

export interface AddGraphDocumentsConfig {
  /**
   * Also stores each document's source as a node of table `Document` (id, text, metadata as
   * JSON text) with a MENTIONS relationship to every node the document holds.
   */
  includeSource?: boolean;
  /** Neo4j's extra `__Entity__` label: refused, since a QuiverDB node has one table. */
  baseEntityLabel?: boolean;
}

export interface StructuredSchema {
  /** Node table -> its properties (name and type); the primary key first. */
  nodeProps: Record<string, { property: string; type: string }[]>;
  /** Relationship table -> its properties. */
  relProps: Record<string, { property: string; type: string }[]>;
  /** Every (from table, relationship, to table) the relationship tables connect. */
  relationships: { start: string; type: string; end: string }[];
}

/** The Document table and its relationship (includeSource). */
const SOURCE_TABLE = 'Document';
const MENTIONS = 'MENTIONS';

/** The column type a JavaScript value is stored as. */
function columnType(value: unknown): string {
  if (typeof value === 'boolean') return 'BOOLEAN';
  if (typeof value === 'number') return Number.isInteger(value) ? 'INT64' : 'DOUBLE';
  if (typeof value === 'bigint') return 'INT64';
  return 'STRING';
}

/** A property value as stored: scalars as they are, anything else as JSON text. */
function columnValue(value: unknown): CypherValue {
  if (value === null || value === undefined) return null;
  if (['boolean', 'number', 'bigint', 'string'].includes(typeof value)) return value as CypherValue;
  return JSON.stringify(value);
}

export interface QuiverGraphOptions extends QuiverConnectionOptions {}

export class QuiverGraph {
  readonly #db: ConnectionHolder;
  #schema = '';
  #structured: StructuredSchema = { nodeProps: {}, relProps: {}, relationships: [] };

  constructor(options: QuiverGraphOptions) {
    this.#db = new ConnectionHolder(options, 'QuiverGraph');
  }

  /** A graph store with its schema read (like Neo4jGraph.initialize). */
  static async initialize(options: QuiverGraphOptions): Promise<QuiverGraph> {
    const graph = new QuiverGraph(options);
    await graph.refreshSchema();
    return graph;
  }

  /** Runs a Cypher statement; its rows as objects keyed by column name. */
  async query<Row extends Record<string, unknown> = Record<string, CypherValue>>(
    cypher: string,
    params: QueryParameters = {},
  ): Promise<Row[]> {
    return (await this.#db.rows(cypher, params)) as Row[];
  }

  /** The schema as text for a prompt (as of the last refreshSchema). */
  getSchema(): string {
    return this.#schema;
  }

  getStructuredSchema(): StructuredSchema {
    return this.#structured;
  }

  /** Reads the node and relationship tables, their properties and connections again. */
  async refreshSchema(): Promise<void> {
    const structured: StructuredSchema = { nodeProps: {}, relProps: {}, relationships: [] };
    const tables = await this.#db.rows('CALL show_tables() RETURN name, type ORDER BY name');
    for (const { name, type } of tables) {
      const table = String(name);
      const props = (await this.#db.rows(`CALL table_info(${literal(table)}) RETURN *`)).map((row) => {
        const [, property, propertyType] = Object.values(row);
        return { property: String(property), type: String(propertyType) };
      });
      if (type === 'NODE') structured.nodeProps[table] = props;
      else if (type === 'REL') {
        structured.relProps[table] = props;
        for (const row of await this.#db.rows(`CALL show_connection(${literal(table)}) RETURN *`)) {
          const [start, end] = Object.values(row);
          structured.relationships.push({ start: String(start), type: table, end: String(end) });
        }
      }
    }
    this.#structured = structured;
    const list = (props: { property: string; type: string }[]) =>
      props.map((p) => `${p.property}: ${p.type}`).join(', ');
    this.#schema = [
      'Node properties:',
      ...Object.entries(structured.nodeProps).map(([t, p]) => `- ${t} {${list(p)}}`),
      'Relationship properties:',
      ...Object.entries(structured.relProps)
        .filter(([, p]) => p.length > 0)
        .map(([t, p]) => `- ${t} {${list(p)}}`),
      'The relationships:',
      ...structured.relationships.map((r) => `(:${r.start})-[:${r.type}]->(:${r.end})`),
    ].join('\n');
  }

  /**
   * Stores GraphDocuments: MERGEs each node by (table = type, id) and each relationship by its
   * ends and type, setting their properties; tables and columns are added as needed.
   */
  async addGraphDocuments(
    documents: GraphDocumentInput[],
    config: AddGraphDocumentsConfig = {},
  ): Promise<void> {
    if (config.baseEntityLabel) {
      throw new GraphDBError(
        'QuiverGraph: baseEntityLabel is not supported (a node belongs to one table)',
        'NOT_SUPPORTED',
      );
    }
    const columns = new Map<string, Set<string>>();
    const connections = new Set<string>();
    const ensureColumns = async (table: string, props: Record<string, unknown>) => {
      let known = columns.get(table);
      if (!known) {
        const info = await this.#db.rows(`CALL table_info(${literal(table)}) RETURN *`);
        known = new Set(info.map((row) => String(Object.values(row)[1])));
        columns.set(table, known);
      }
      for (const [key, value] of Object.entries(props)) {
        if (known.has(key) || value === null || value === undefined) continue;
        await this.#db.rows(
          `ALTER TABLE ${identifier(table, 'a table')} ADD IF NOT EXISTS ${identifier(key, 'a property')} ${columnType(value)}`,
        );
        known.add(key);
      }
    };
    const setClause = (
      variable: string,
      props: Record<string, unknown>,
      params: Record<string, CypherValue>,
    ) => {
      const sets = Object.entries(props)
        .filter(([key, value]) => key !== 'id' && value !== null && value !== undefined)
        .map(([key, value], i) => {
          params[`${variable}${i}`] = columnValue(value);
          return `${variable}.${identifier(key, 'a property')} = $${variable}${i}`;
        });
      return sets.length > 0 ? ` SET ${sets.join(', ')}` : '';
    };
    const mergeNode = async (node: GraphDocumentNode) => {
      const table = identifier(node.type, 'a node type');
      await this.#db.rows(`CREATE NODE TABLE IF NOT EXISTS ${table}(id STRING, PRIMARY KEY(id))`);
      const props = node.properties ?? {};
      await ensureColumns(node.type, props);
      const params: Record<string, CypherValue> = { id: String(node.id) };
      await this.#db.rows(`MERGE (n:${table} {id: $id})${setClause('n', props, params)}`, params);
    };
    const ensureConnection = async (type: string, from: string, to: string) => {
      const key = JSON.stringify([type, from, to]);
      if (connections.has(key)) return;
      const [r, a, b] = [
        identifier(type, 'a relationship type'),
        identifier(from, 'a node type'),
        identifier(to, 'a node type'),
      ];
      await this.#db.rows(`CREATE REL TABLE IF NOT EXISTS ${r}(FROM ${a} TO ${b})`);
      await this.#db.rows(`ALTER TABLE ${r} ADD IF NOT EXISTS FROM ${a} TO ${b}`);
      connections.add(key);
    };
    const mergeRelationship = async (
      type: string,
      source: { table: string; id: string },
      target: { table: string; id: string },
      props: Record<string, unknown>,
    ) => {
      await ensureConnection(type, source.table, target.table);
      await ensureColumns(type, props);
      const params: Record<string, CypherValue> = { s: source.id, t: target.id };
      await this.#db.rows(
        `MATCH (a:${identifier(source.table, 'a node type')} {id: $s}), (b:${identifier(target.table, 'a node type')} {id: $t}) ` +
          `MERGE (a)-[r:${identifier(type, 'a relationship type')}]->(b)${setClause('r', props, params)}`,
        params,
      );
    };

    for (const document of documents) {
      for (const node of document.nodes) await mergeNode(node);
      for (const rel of document.relationships) {
        await mergeNode({ id: rel.source.id, type: rel.source.type });
        await mergeNode({ id: rel.target.id, type: rel.target.type });
        await mergeRelationship(
          rel.type,
          { table: rel.source.type, id: String(rel.source.id) },
          { table: rel.target.type, id: String(rel.target.id) },
          rel.properties ?? {},
        );
      }
      if (config.includeSource && document.source) {
        const { pageContent, metadata = {} } = document.source;
        const id = String(
          document.source.id ?? metadata.id ?? createHash('md5').update(pageContent).digest('hex'),
        );
        await mergeNode({
          id,
          type: SOURCE_TABLE,
          properties: { text: pageContent, metadata: JSON.stringify(metadata) },
        });
        for (const node of document.nodes) {
          await mergeRelationship(
            MENTIONS,
            { table: SOURCE_TABLE, id },
            { table: node.type, id: String(node.id) },
            {},
          );
        }
      }
    }
    await this.refreshSchema();
  }

  /** Closes the connection the graph opened (not one it was given). */
  close(): void {
    this.#db.close();
  }
}
