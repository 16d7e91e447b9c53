// The EXPLAIN answer as a tree. The engine writes the plan as one line per operator, each
// indented two spaces deeper than its parent: `NAME detail=... detail=...`. No DOM here.

export interface PlanNode {
  operator: string;
  /** The rest of the operator's line (slots, tables, keys, filter expressions). */
  details: string;
  children: PlanNode[];
}

/** True when the answer is an EXPLAIN plan: a single `explain` column of text. */
export function isExplainAnswer(columns: readonly string[], rows: readonly unknown[][]): boolean {
  return (
    columns.length === 1 && columns[0] === 'explain' && rows.length > 0 && typeof rows[0]?.[0] === 'string'
  );
}

/**
 * Parses the indented plan text into its roots (usually one). A line indented more than one
 * level below the previous one is taken as the child of the deepest operator above it.
 */
export function parsePlan(text: string): PlanNode[] {
  const roots: PlanNode[] = [];
  const stack: { depth: number; node: PlanNode }[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    const depth = Math.floor(indent / 2);
    const body = line.trim();
    const space = body.indexOf(' ');
    const node: PlanNode = {
      operator: space < 0 ? body : body.slice(0, space),
      details: space < 0 ? '' : body.slice(space + 1).trim(),
      children: [],
    };
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.node.children.push(node);
    else roots.push(node);
    stack.push({ depth, node });
  }
  return roots;
}
