import { styleOf, flatParent } from './dom.js';

// ARIA tables and data grids drawn from elements other than <table> (role=table, grid or
// treegrid holding role=row holding role=cell, gridcell, columnheader or rowheader: Tabulator, AG
// Grid, MUI DataGrid, react-table grids): which rows and cells belong to a grid, in the order a
// user reads them, for the snapshot to write as the Markdown table <table> becomes.

const TABLE_ROLES = new Set(['table', 'grid', 'treegrid']);
const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
const HEADER_ROLES = new Set(['columnheader', 'rowheader']);
const ROW_OR_TABLE = new Set(['row', ...TABLE_ROLES]);
// What a cell holding it makes a layout of cards rather than a table (as for <table>).
const HEADING_SEL = 'h1,h2,h3,h4,h5,h6,[role=heading]';
const SEEN = { opacityProperty: true, visibilityProperty: true };

// An element's role as the browser reads it: the first token of its role attribute.
export function roleOf(el) {
  const r = el.getAttribute('role');
  return r ? r.trim().split(/\s+/)[0].toLowerCase() : '';
}

// Is this an ARIA table or grid (a <table> is not: it has its own path)?
export function isAriaTable(el) {
  return el.tagName !== 'TABLE' && TABLE_ROLES.has(roleOf(el));
}

// A column (or row) header a user sorts by clicking: it carries aria-sort, which grids set to
// "none" on every sortable column.
export function isSortHeader(el) {
  return el.hasAttribute('aria-sort') && HEADER_ROLES.has(roleOf(el));
}

// The sort a header shows, as the arrow a user sees next to it: ↑ ascending, ↓ descending.
export function sortMark(el) {
  const s = el.getAttribute('aria-sort');
  return s === 'ascending' ? ' ↑' : s === 'descending' ? ' ↓' : '';
}

// Does the browser show the element? A row or cell with display: contents (a table laid out by a CSS
// grid on the table element) has no box of its own, which checkVisibility reads as hidden: its
// children show when its parent does and it is not visibility: hidden.
function shown(el) {
  if (!el.checkVisibility || el.checkVisibility(SEEN)) return true;
  const st = styleOf(el);
  return !!st && st.display === 'contents' && st.visibility === 'visible' && !!el.parentElement && shown(el.parentElement);
}

// The nearest ancestor of `el` below `stop` whose role is one of `roles`, else `stop`: which row a
// cell belongs to, which grid a row belongs to (a grid nested in a cell keeps its own). Through
// the flat tree: a row slotted into a grid drawn in a shadow root (ui5-table) belongs to it.
function owner(el, roles, stop) {
  for (let p = flatParent(el); p && p !== stop; p = flatParent(p)) if (roles.has(roleOf(p))) return p;
  return stop;
}

// The elements with a role under `grid`, in the order they are rendered: through shadow roots and
// the elements assigned to their slots (ui5-table draws its grid in a shadow root and slots its
// rows, each row its cells), at most MAX_FLAT elements looked at.
const MAX_FLAT = 50_000;
function withRoles(grid) {
  const out = [];
  let n = 0;
  const walk = (el) => {
    const kids = el.shadowRoot ? el.shadowRoot.children : el.tagName === 'SLOT' ? el.assignedElements({ flatten: true }) : el.children;
    for (const c of kids) {
      if (++n > MAX_FLAT) return;
      if (c.hasAttribute('role')) out.push(c);
      walk(c);
    }
  };
  walk(grid);
  return out;
}

// A positive integer attribute (aria-rowindex, aria-colindex, aria-colspan), else 0.
function index(el, name) {
  const n = Number(el.getAttribute(name));
  return Number.isInteger(n) && n > 0 ? n : 0;
}

// The grid's rows as a user reads them, or null when it is no table (no cells, cells holding
// headings: a layout of cards; <tr> rows: the <table> path renders them).
// Rows are those the browser shows (rendered, not transparent), sorted by aria-rowindex when every
// one has it (AG Grid keeps rows in the DOM in any order and may split one row into pinned and
// scrolling containers: the parts sharing an index are one row). Cells keep their element, their
// aria-colindex (0 unless every cell has one) and their span; `rows` is every role=row element of
// the grid, shown or not (the walk skips them: the table stands for them).
export function gridModel(grid) {
  const rows = [];
  const cellsOf = new Map();
  for (const el of withRoles(grid)) {
    const role = roleOf(el);
    if (role === 'row') {
      if (el.tagName === 'TR') return null;
      if (owner(el, TABLE_ROLES, grid) === grid) { rows.push(el); cellsOf.set(el, []); }
    } else if (CELL_ROLES.has(role)) {
      const list = cellsOf.get(owner(el, ROW_OR_TABLE, grid));
      if (list) list.push(el);
    }
  }
  const seen = rows.filter(shown);
  const cells = seen.flatMap((r) => cellsOf.get(r));
  if (!cells.length || cells.some((c) => c.querySelector(HEADING_SEL))) return null;
  const byIndex = seen.every((r) => index(r, 'aria-rowindex'));
  const groups = new Map();
  for (const r of seen) {
    const k = byIndex ? index(r, 'aria-rowindex') : groups.size;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const keys = [...groups.keys()];
  if (byIndex) keys.sort((a, b) => a - b);
  const indexed = cells.every((c) => index(c, 'aria-colindex'));
  const model = keys.map((k) => {
    const els = groups.get(k);
    const list = els.flatMap((r) => cellsOf.get(r)).map((el) => ({
      el, col: indexed ? index(el, 'aria-colindex') : 0, span: Math.min(50, index(el, 'aria-colspan') || 1),
      shown: shown(el),
    }));
    if (indexed) list.sort((a, b) => a.col - b.col);
    return { el: els[0], els, cells: list };
  });
  return { rows, model, indexed };
}

// The rows of cell texts laid out in columns: a cell goes to its aria-colindex's column (when every
// cell has one) or after the previous cell of its row; a span leaves empty cells after it; a column
// where no row shows a cell (a hidden column) is dropped, a row that shows none is []. `text(cell,
// row)` is a shown cell's Markdown (cell null: the row's own content, for a row without cells).
export function layout({ model, indexed }, text) {
  const cols = indexed ? [...new Set(model.flatMap((r) => r.cells.filter((c) => c.shown).map((c) => c.col)))].sort((a, b) => a - b) : null;
  const pos = cols ? new Map(cols.map((c, i) => [c, i])) : null;
  const used = [];
  const grid = model.map((r) => {
    const out = [];
    if (!r.cells.length) {
      // a row without cells (a group or detail row spanning the grid): its content in the first column
      const s = text(null, r);
      if (s) { out[0] = s; used[0] = true; }
      return out;
    }
    let next = 0;
    for (const c of r.cells) {
      let at = next;
      if (pos) { if (!pos.has(c.col)) continue; at = pos.get(c.col); }
      if (out[at] === undefined || out[at] === null) out[at] = c.shown ? text(c, r) : null;
      if (c.shown) used[at] = true;
      for (let k = 1; k < c.span; k++) {
        const j = pos ? pos.get(c.col + k) : at + k;
        if (j !== undefined && out[j] === undefined) out[j] = c.shown ? '' : null;
      }
      next = at + c.span;
    }
    return out;
  });
  return grid.map((r) => {
    const out = [];
    if (!r.some((c) => c !== null && c !== undefined)) return out; // no cell of it shows
    for (let i = 0; i < Math.max(r.length, used.length); i++) if (used[i]) out.push(r[i] || '');
    return out;
  });
}
