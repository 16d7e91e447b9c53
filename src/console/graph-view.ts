// The graph view: sigma.js (WebGL) draws a graphology graph of the result's nodes and
// relationships, laid out by ForceAtlas2 a few milliseconds per frame. Colour and caption per
// label (the legend edits them), click for properties, double-click to expand a node's
// neighbours, drag nodes, zoom, pan, fit.

import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import Sigma from 'sigma';
import { h, setChildren } from './dom.js';
import type { ExtractedGraph, GraphNode, GraphRel } from './graph-model.js';
import { type LabelStyle, loadLabelStyles, saveLabelStyles } from './storage.js';
import { shortText, type Value } from './values.js';

// biome-ignore format: a colour list
export const PALETTE = [
  '#4C8EDA', '#F16667', '#57C7E3', '#F79767', '#8DCC93', '#C990C0', '#FFC454', '#DA7194',
  '#569480', '#D9C8AE', '#848484', '#ECB5C9',
];

const CAPTION_CANDIDATES = ['name', 'title', 'caption', 'label', 'id'];
const EDGE_COLOR = '#a5abb6';
const SELECTED_EDGE_COLOR = '#3f4657';
const EDGE_LABEL_COLOR = '#5b6270';
/** The side of the cells of sigma's label grid, in pixels: at most one caption per cell. */
const LABEL_CELL_PX = 140;

export type SelectedItem =
  | { kind: 'node'; id: string; label: string; properties: Record<string, Value> }
  | {
      kind: 'rel';
      id: string;
      label: string;
      source: string;
      target: string;
      properties: Record<string, Value>;
    };

export interface GraphViewOptions {
  /** Shows the properties of a clicked node or relationship, or nothing (null). */
  onSelect: (item: SelectedItem | null) => void;
  /** Double-click on a node: fetch its neighbours; resolves to a line saying what came. */
  onExpand: (node: GraphNode) => Promise<string>;
  /** Primary key of a label, when the schema knows it (a caption of last resort). */
  primaryKey: (label: string) => string | undefined;
}

interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  dbLabel: string;
  properties: Record<string, Value>;
  fixed?: boolean;
  highlighted?: boolean;
}

interface EdgeAttributes {
  size: number;
  color: string;
  label: string;
  type: string;
  properties: Record<string, Value>;
}

/** A number in [0, 1) from a string: places nodes the same way each time. */
function hashUnit(text: string, salt: number): number {
  let h1 = 2166136261 ^ salt;
  for (let i = 0; i < text.length; i++) {
    h1 ^= text.charCodeAt(i);
    h1 = Math.imul(h1, 16777619);
  }
  return ((h1 >>> 0) % 1_000_003) / 1_000_003;
}

export class GraphView {
  readonly element: HTMLElement;
  readonly #canvas: HTMLElement;
  readonly #legend: HTMLElement;
  readonly #note: HTMLElement;
  readonly #options: GraphViewOptions;
  readonly #graph = new Graph<NodeAttributes, EdgeAttributes>({
    multi: true,
    type: 'directed',
    allowSelfLoops: true,
  });
  #sigma: Sigma<NodeAttributes, EdgeAttributes> | undefined;
  #styles: Record<string, LabelStyle> = loadLabelStyles();
  #selected: { kind: 'node' | 'rel'; id: string } | undefined;
  #dragged: string | undefined;
  #layoutFrame = 0;
  #layoutUntil = 0;
  #notes: string[] = [];
  #editing: string | undefined;

  constructor(options: GraphViewOptions) {
    this.#options = options;
    this.#canvas = h('div', { class: 'graph-canvas' });
    this.#legend = h('div', { class: 'graph-legend', testid: 'graph-legend' });
    this.#note = h('div', { class: 'graph-note', testid: 'graph-note', 'aria-live': 'polite' });
    const button = (text: string, title: string, testid: string, run: () => void) =>
      h('button', { type: 'button', title, 'aria-label': title, testid, on: { click: run } }, text);
    const tools = h(
      'div',
      { class: 'graph-tools' },
      button('+', 'Zoom in', 'graph-zoom-in', () => this.#sigma?.getCamera().animatedZoom({ duration: 200 })),
      button('−', 'Zoom out', 'graph-zoom-out', () =>
        this.#sigma?.getCamera().animatedUnzoom({ duration: 200 }),
      ),
      button('Fit', 'Fit the graph to the view', 'graph-fit', () => this.fit()),
      button('Layout', 'Lay the graph out again', 'graph-layout', () => this.#startLayout(2500)),
    );
    this.element = h(
      'div',
      { class: 'graph-view', testid: 'graph-view' },
      this.#canvas,
      this.#legend,
      tools,
      this.#note,
    );
  }

  /** Creates the renderer once the view has a size (sigma needs one). */
  #ensureSigma(): Sigma<NodeAttributes, EdgeAttributes> | undefined {
    if (this.#sigma) return this.#sigma;
    if (this.#canvas.offsetWidth === 0 || this.#canvas.offsetHeight === 0) return undefined;
    const sigma = new Sigma<NodeAttributes, EdgeAttributes>(this.#graph, this.#canvas, {
      allowInvalidContainer: true,
      enableEdgeEvents: true,
      // Sigma writes a relationship's type only where both its nodes' captions are written, and
      // writes at most one caption per cell of a grid of LABEL_CELL_PX squares (the largest
      // node's first), so that captions and types do not run into each other; zooming in
      // makes room for more.
      renderEdgeLabels: true,
      hideEdgesOnMove: this.#graph.size > 20_000,
      edgeLabelSize: 10,
      edgeLabelColor: { color: EDGE_LABEL_COLOR },
      defaultEdgeType: 'arrow',
      labelFont: 'system-ui, sans-serif',
      labelSize: 12,
      labelRenderedSizeThreshold: 6,
      labelGridCellSize: LABEL_CELL_PX,
      labelDensity: 1,
      zIndex: true,
      nodeReducer: (node, data) => {
        if (this.#selected?.kind === 'node' && this.#selected.id === node) {
          return { ...data, highlighted: true, size: data.size * 1.4, zIndex: 1 };
        }
        return data;
      },
      edgeReducer: (edge, data) => {
        if (this.#selected?.kind === 'rel' && this.#selected.id === edge) {
          return { ...data, color: SELECTED_EDGE_COLOR, size: data.size + 2, zIndex: 1, forceLabel: true };
        }
        return data;
      },
    });
    sigma.on('clickNode', ({ node }) => this.#select({ kind: 'node', id: node }));
    sigma.on('clickEdge', ({ edge }) => this.#select({ kind: 'rel', id: edge }));
    sigma.on('clickStage', () => this.#select(undefined));
    sigma.on('doubleClickNode', ({ node, event }) => {
      event.preventSigmaDefault();
      void this.#expand(node);
    });
    sigma.on('downNode', ({ node }) => {
      this.#dragged = node;
    });
    const captor = sigma.getMouseCaptor();
    captor.on('mousemovebody', (event) => {
      if (!this.#dragged) return;
      // Dragging: the node stays where it is put (the layout leaves it), and the view keeps
      // its scale instead of refitting to the moved node.
      if (!sigma.getCustomBBox()) sigma.setCustomBBox(sigma.getBBox());
      this.#graph.setNodeAttribute(this.#dragged, 'fixed', true);
      const position = sigma.viewportToGraph(event);
      this.#graph.mergeNodeAttributes(this.#dragged, { x: position.x, y: position.y });
      event.preventSigmaDefault();
      event.original.preventDefault();
      event.original.stopPropagation();
    });
    captor.on('mouseup', () => {
      this.#dragged = undefined;
    });
    sigma.on('enterNode', () => this.#canvas.classList.add('pointer'));
    sigma.on('leaveNode', () => this.#canvas.classList.remove('pointer'));
    this.#sigma = sigma;
    return sigma;
  }

  /** Call when the view was shown or resized. */
  visible(): void {
    const sigma = this.#ensureSigma();
    if (!sigma) return;
    sigma.resize();
    sigma.refresh();
  }

  /** Drops the graph and draws `data` instead. */
  show(data: ExtractedGraph): void {
    this.#stopLayout();
    this.#graph.clear();
    this.#selected = undefined;
    this.#options.onSelect(null);
    this.#sigma?.setCustomBBox(null);
    this.#add(data, undefined);
    this.#notes = [];
    if (data.nodesLeftOut > 0) {
      this.#notes.push(`${data.nodesLeftOut.toLocaleString('en-US')} more nodes not drawn (graph limit)`);
    }
    if (data.relsLeftOut > 0) {
      this.#notes.push(
        `${data.relsLeftOut.toLocaleString('en-US')} relationships not drawn: their end nodes are not in the result`,
      );
    }
    this.#renderNote();
    this.#renderLegend();
    this.visible();
    this.#sigma?.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
    this.#startLayout(this.#graph.order > 2000 ? 4000 : 2000);
  }

  /** Adds `data` around the node `anchor` (an expansion); returns what was new. */
  merge(data: ExtractedGraph, anchor: string): { nodes: number; rels: number } {
    const before = { nodes: this.#graph.order, rels: this.#graph.size };
    // Refit to the grown graph, so that the new neighbours are in view.
    this.#sigma?.setCustomBBox(null);
    this.#add(data, anchor);
    this.#renderLegend();
    this.#startLayout(1500);
    return { nodes: this.#graph.order - before.nodes, rels: this.#graph.size - before.rels };
  }

  clear(): void {
    this.#stopLayout();
    this.#graph.clear();
    this.#notes = [];
    this.#renderNote();
    this.#renderLegend();
  }

  fit(): void {
    this.#sigma?.setCustomBBox(null);
    this.#sigma?.getCamera().animatedReset({ duration: 300 });
  }

  #styleOf(label: string): LabelStyle {
    return this.#styles[label] ?? {};
  }

  #colorOf(label: string): string {
    const style = this.#styleOf(label);
    if (style.color) return style.color;
    // A new label takes the next colour not yet given to another, and keeps it.
    const used = new Set(Object.values(this.#styles).map((s) => s.color));
    const color =
      PALETTE.find((c) => !used.has(c)) ?? PALETTE[Object.keys(this.#styles).length % PALETTE.length]!;
    this.#styles[label] = { ...style, color };
    saveLabelStyles(this.#styles);
    return color;
  }

  #captionOf(node: Pick<GraphNode, 'label' | 'properties'>): string {
    const chosen = this.#styleOf(node.label).caption;
    const props = node.properties;
    const key =
      chosen === '<label>'
        ? undefined
        : chosen !== undefined && chosen in props
          ? chosen
          : (CAPTION_CANDIDATES.find((k) => props[k] !== undefined && props[k] !== null) ??
            this.#options.primaryKey(node.label));
    const value = key === undefined ? undefined : props[key];
    return value === undefined || value === null ? node.label : shortText(value, 40);
  }

  #add(data: ExtractedGraph, anchor: string | undefined): void {
    const graph = this.#graph;
    const origin = anchor && graph.hasNode(anchor) ? graph.getNodeAttributes(anchor) : undefined;
    const spread = origin ? 1 : Math.max(10, Math.sqrt(data.nodes.length) * 6);
    for (const node of data.nodes) {
      if (graph.hasNode(node.id)) {
        graph.mergeNodeAttributes(node.id, { properties: node.properties });
        continue;
      }
      const angle = hashUnit(node.id, 1) * Math.PI * 2;
      const radius = spread * (0.2 + 0.8 * Math.sqrt(hashUnit(node.id, 2)));
      graph.addNode(node.id, {
        x: (origin?.x ?? 0) + Math.cos(angle) * radius,
        y: (origin?.y ?? 0) + Math.sin(angle) * radius,
        size: 8,
        color: this.#colorOf(node.label),
        label: this.#captionOf(node),
        dbLabel: node.label,
        properties: node.properties,
      });
    }
    for (const rel of data.rels) this.#addRel(rel);
    graph.forEachNode((id) => {
      graph.setNodeAttribute(id, 'size', 7 + Math.min(9, Math.sqrt(graph.degree(id)) * 1.5));
    });
    // Past many thousands of edges, edges hide while the view moves, so that it moves smoothly.
    this.#sigma?.setSetting('hideEdgesOnMove', graph.size > 20_000);
  }

  #addRel(rel: GraphRel): void {
    const graph = this.#graph;
    if (graph.hasEdge(rel.id) || !graph.hasNode(rel.source) || !graph.hasNode(rel.target)) return;
    graph.addDirectedEdgeWithKey(rel.id, rel.source, rel.target, {
      size: 1.5,
      color: EDGE_COLOR,
      label: rel.type,
      type: rel.source === rel.target ? 'line' : 'arrow',
      properties: rel.properties,
    });
  }

  #select(item: { kind: 'node' | 'rel'; id: string } | undefined): void {
    this.#selected = item;
    this.#sigma?.refresh({ skipIndexation: true });
    if (!item) {
      this.#options.onSelect(null);
      return;
    }
    if (item.kind === 'node') {
      const a = this.#graph.getNodeAttributes(item.id);
      this.#options.onSelect({ kind: 'node', id: item.id, label: a.dbLabel, properties: a.properties });
    } else {
      const a = this.#graph.getEdgeAttributes(item.id);
      this.#options.onSelect({
        kind: 'rel',
        id: item.id,
        label: a.label,
        source: this.#graph.source(item.id),
        target: this.#graph.target(item.id),
        properties: a.properties,
      });
    }
  }

  async #expand(id: string): Promise<void> {
    const a = this.#graph.getNodeAttributes(id);
    this.#setNote(`Expanding ${a.label}…`);
    try {
      const said = await this.#options.onExpand({ id, label: a.dbLabel, properties: a.properties });
      this.#setNote(said);
    } catch (error) {
      this.#setNote(`Could not expand ${a.label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #setNote(text: string): void {
    this.#notes = [text];
    this.#renderNote();
  }

  #renderNote(): void {
    const counts = `${this.#graph.order.toLocaleString('en-US')} nodes, ${this.#graph.size.toLocaleString('en-US')} relationships`;
    setChildren(this.#note, [counts, ...this.#notes].join(' · '));
  }

  #startLayout(budgetMs: number): void {
    this.#stopLayout();
    if (this.#graph.order < 2) {
      this.#renderNote();
      return;
    }
    const settings = {
      ...forceAtlas2.inferSettings(this.#graph),
      barnesHutOptimize: this.#graph.order > 300,
      adjustSizes: false,
    };
    this.#layoutUntil = performance.now() + budgetMs;
    let still = 0;
    const step = () => {
      const before = this.#positions();
      const frameEnd = performance.now() + 10;
      do forceAtlas2.assign(this.#graph, { iterations: 1, settings });
      while (performance.now() < frameEnd);
      // Settled: three frames in a row moved the nodes by less than 0.2% of the drawing's size.
      still = this.#movement(before) < 0.002 ? still + 1 : 0;
      if (still < 3 && performance.now() < this.#layoutUntil) this.#layoutFrame = requestAnimationFrame(step);
      else this.#stopLayout();
    };
    this.#layoutFrame = requestAnimationFrame(step);
    // For automation: "running" while nodes still move.
    this.element.dataset.layout = 'running';
    this.#renderNote();
  }

  #positions(): Float64Array {
    const out = new Float64Array(this.#graph.order * 2);
    let i = 0;
    this.#graph.forEachNode((_id, a) => {
      out[i++] = a.x;
      out[i++] = a.y;
    });
    return out;
  }

  /** Mean distance the nodes moved since `before`, relative to the drawing's extent. */
  #movement(before: Float64Array): number {
    const after = this.#positions();
    if (after.length !== before.length || after.length === 0) return Number.POSITIVE_INFINITY;
    let moved = 0;
    let minX = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < after.length; i += 2) {
      const x = after[i]!;
      const y = after[i + 1]!;
      moved += Math.hypot(x - before[i]!, y - before[i + 1]!);
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    const extent = Math.hypot(maxX - minX, maxY - minY) || 1;
    return moved / (after.length / 2) / extent;
  }

  #stopLayout(): void {
    if (this.#layoutFrame) cancelAnimationFrame(this.#layoutFrame);
    this.#layoutFrame = 0;
    this.element.dataset.layout = 'idle';
  }

  #labelCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    this.#graph.forEachNode((_id, a) => counts.set(a.dbLabel, (counts.get(a.dbLabel) ?? 0) + 1));
    return counts;
  }

  #typeCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    this.#graph.forEachEdge((_id, a) => counts.set(a.label, (counts.get(a.label) ?? 0) + 1));
    return counts;
  }

  #restyle(label: string): void {
    saveLabelStyles(this.#styles);
    const color = this.#colorOf(label);
    this.#graph.forEachNode((id, a) => {
      if (a.dbLabel !== label) return;
      this.#graph.mergeNodeAttributes(id, {
        color,
        label: this.#captionOf({ label, properties: a.properties }),
      });
    });
    this.#renderLegend();
  }

  #renderLegend(): void {
    const counts = this.#labelCounts();
    const chips = [...counts].map(([label, count]) => {
      const chip = h(
        'button',
        {
          type: 'button',
          class: 'legend-chip',
          title: `Colour and caption of ${label}`,
          'data-label': label,
          on: {
            click: () => {
              this.#editing = this.#editing === label ? undefined : label;
              this.#renderLegend();
            },
          },
        },
        h('span', { class: 'swatch' }),
        `${label} (${count.toLocaleString('en-US')})`,
      );
      chip.style.setProperty('--swatch', this.#colorOf(label));
      return chip;
    });
    // The relationship types drawn, named whether or not the view has room to write them.
    const types = [...this.#typeCounts()].map(([type, count]) =>
      h('span', { class: 'legend-type', 'data-type': type }, `→ ${type} (${count.toLocaleString('en-US')})`),
    );
    const editor = this.#editing && counts.has(this.#editing) ? this.#styleEditor(this.#editing) : null;
    setChildren(this.#legend, chips, types, editor);
    this.#legend.hidden = counts.size === 0;
  }

  #styleEditor(label: string): HTMLElement {
    const swatches = PALETTE.map((color) => {
      const b = h('button', {
        type: 'button',
        class: 'swatch-button',
        title: color,
        'aria-label': `colour ${color}`,
        on: {
          click: () => {
            this.#styles[label] = { ...this.#styleOf(label), color };
            this.#restyle(label);
          },
        },
      });
      b.style.setProperty('--swatch', color);
      return b;
    });
    const keys = new Set<string>();
    this.#graph.forEachNode((_id, a) => {
      if (a.dbLabel === label) for (const k of Object.keys(a.properties)) keys.add(k);
    });
    const current = this.#styleOf(label).caption ?? '';
    const select = h(
      'select',
      {
        title: 'Caption',
        testid: 'caption-select',
        on: {
          change: () => {
            const style = { ...this.#styleOf(label) };
            if (select.value === '') delete style.caption;
            else style.caption = select.value;
            this.#styles[label] = style;
            this.#restyle(label);
          },
        },
      },
      h('option', { attrs: { value: '' } }, 'automatic'),
      h('option', { attrs: { value: '<label>' } }, 'the label'),
      [...keys].map((k) => h('option', { attrs: { value: k } }, k)),
    );
    select.value = current;
    return h(
      'div',
      { class: 'legend-editor' },
      h('div', { class: 'legend-editor-title' }, `:${label}`),
      h('div', { class: 'swatches' }, swatches),
      h('label', {}, 'Caption ', select),
    );
  }
}
