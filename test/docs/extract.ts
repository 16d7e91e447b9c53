// Finds the fenced code blocks of a Markdown file and the doc-test annotation of each: an HTML
// comment on the last non-blank line before the fence, invisible once rendered:
//
//   <!-- doc-test: server=demo -->
//   ```js
//
// The annotation's words are `key=value` options, `skip: <reason>` (the rest of the comment is
// the reason) or `check: <reason>` (parsed or type-checked, not run), and bare words (a mode
// and its arguments, e.g. `request POST /cypher`). test/docs/code-blocks.test.ts runs them.

export interface Annotation {
  /** Bare words in order, e.g. ['request', 'POST', '/cypher']. */
  words: string[];
  /** key=value options, e.g. { server: 'demo' }. */
  options: Record<string, string>;
  /** Why the block is not run (skip: ...). */
  skip?: string;
  /** Why the block is only parsed or type-checked (check: ...). */
  check?: string;
}

export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string, lower case ('' when none). */
  lang: string;
  /** The block's text, its fence's indentation removed, ending with a newline. */
  text: string;
  annotation: Annotation;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const ANNOTATION = /^\s*<!--\s*doc-test:(.*?)-->\s*$/;

/** Parses the text of a `doc-test:` comment; throws on an empty skip or check reason. */
export function parseAnnotation(text: string): Annotation {
  const annotation: Annotation = { words: [], options: {} };
  let rest = text.trim();
  for (const kind of ['skip', 'check'] as const) {
    const at = rest.search(new RegExp(`(^|\\s)${kind}:`));
    if (at >= 0) {
      const reason = rest.slice(rest.indexOf(`${kind}:`, at) + kind.length + 1).trim();
      if (reason === '') throw new Error(`doc-test annotation "${text.trim()}": ${kind}: needs a reason`);
      annotation[kind] = reason;
      rest = rest.slice(0, at).trim();
    }
  }
  for (const word of rest.split(/\s+/).filter(Boolean)) {
    const eq = word.indexOf('=');
    if (eq > 0) annotation.options[word.slice(0, eq)] = word.slice(eq + 1);
    else annotation.words.push(word);
  }
  return annotation;
}

/** The fenced code blocks of `markdown` (file names the Markdown file in messages). */
export function extractBlocks(markdown: string, file: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const fence = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const close = /^( *)(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[2]![0] === fence[0] && close[2]!.length >= fence.length) break;
      body.push(line.slice(Math.min(indent, line.length - line.trimStart().length)));
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: code block never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const comment = k >= 0 ? ANNOTATION.exec(lines[k]!) : null;
    let annotation: Annotation;
    try {
      annotation = comment ? parseAnnotation(comment[1]!) : { words: [], options: {} };
    } catch (error) {
      throw new Error(`${file}:${i + 1}: ${(error as Error).message}`);
    }
    blocks.push({
      file,
      line: i + 1,
      lang: open[3]!.toLowerCase(),
      text: body.length === 0 ? '' : `${body.join('\n')}\n`,
      annotation,
    });
    i = j;
  }
  return blocks;
}
