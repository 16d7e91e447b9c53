// The Cypher editor: CodeMirror 6 with the Cypher mode of @codemirror/legacy-modes,
// completion from the schema (completion.ts), Ctrl/Cmd+Enter to run, and errors marked at
// their line and column.

import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { StreamLanguage } from '@codemirror/language';
import { cypher } from '@codemirror/legacy-modes/mode/cypher';
import { setDiagnostics } from '@codemirror/lint';
import { EditorSelection, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { completeCypher, type Schema } from './completion.js';
import { errorRange } from './positions.js';

export interface EditorOptions {
  parent: HTMLElement;
  initialText: string;
  onRun: () => void;
  onChange?: (text: string) => void;
  schema: () => Schema | undefined;
  parameterNames: () => string[];
}

export interface QueryEditor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Inserts at the cursor (replacing the selection) and selects nothing. */
  insert(text: string): void;
  /** Marks a 1-based line and column as the place of `message` and moves the cursor there. */
  markError(line: number, column: number, message: string): void;
  clearErrors(): void;
  focus(): void;
}

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '14px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '&.cm-focused': { outline: 'none' },
});

/**
 * The editor lives in a shadow root of `host`: there CodeMirror puts its styles in constructed
 * style sheets (adoptedStyleSheets) instead of a <style> element, which a Content-Security-
 * Policy of style-src 'self' would block.
 */
function shadowParent(host: HTMLElement): HTMLElement {
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(':host { display: block; } .editor-root { height: 100%; }');
  shadow.adoptedStyleSheets = [sheet];
  const root = document.createElement('div');
  root.className = 'editor-root';
  shadow.appendChild(root);
  return root;
}

export function createEditor(options: EditorOptions): QueryEditor {
  const complete = (context: CompletionContext): CompletionResult | null => {
    const text = context.state.doc.toString();
    const answer = completeCypher(
      text,
      context.pos,
      options.schema(),
      options.parameterNames(),
      context.explicit,
    );
    if (!answer || answer.options.length === 0) return null;
    return { from: answer.from, options: answer.options, validFor: /^[A-Za-z0-9_]*$/ };
  };
  const view = new EditorView({
    parent: shadowParent(options.parent),
    doc: options.initialText,
    extensions: [
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              options.onRun();
              return true;
            },
          },
          {
            key: 'Shift-Enter',
            run: () => {
              options.onRun();
              return true;
            },
          },
        ]),
      ),
      basicSetup,
      StreamLanguage.define(cypher),
      autocompletion({ override: [complete], icons: true }),
      placeholder('MATCH (n) RETURN n LIMIT 25   — Ctrl+Enter (⌘+Enter) runs it'),
      EditorView.lineWrapping,
      theme,
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onChange?.(update.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'Cypher query' }),
    ],
  });

  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        selection: EditorSelection.cursor(text.length),
      });
    },
    insert(text) {
      view.dispatch(view.state.replaceSelection(text));
      view.focus();
    },
    markError(line, column, message) {
      const { from, to } = errorRange(view.state.doc.toString(), line, column);
      view.dispatch(setDiagnostics(view.state, [{ from, to, severity: 'error', message }]), {
        selection: EditorSelection.cursor(from),
        scrollIntoView: true,
      });
    },
    clearErrors() {
      view.dispatch(setDiagnostics(view.state, []));
    },
    focus: () => view.focus(),
  };
}
