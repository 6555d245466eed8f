/**
 * Dot-path lists (`expand`, `show`, `hide`) parsed into trees (conventions.md sections 10, 11
 * and 20). Parsing never throws: the contract says no path value ever causes an error, so
 * anything odd is dropped here and the rest of the request goes on.
 */

/** A tree of path segments: { items: { product: {} } } for `items.product`. */
export interface PathTree {
  [segment: string]: PathTree;
}

/** Where an `expand` value is used; each context has its own entry limit. */
export type ExpandContext = 'single' | 'list' | 'event_subscription';

/** Expand limits by context (conventions §10/§20): single 12, list 2, event_subscription 10; depth 4. */
export const EXPAND_LIMITS: Readonly<{ single: number; list: number; event_subscription: number; depth: number }> =
  Object.freeze({ single: 12, list: 2, event_subscription: 10, depth: 4 });

// API field names are lower-case words with digits and underscores; anything else in a
// segment (`in_grace_period;`, spaces, brackets) marks the whole entry as malformed.
const SEGMENT = /^[a-z0-9_]+$/i;

// `data` names the element array of a list envelope. Paths cross envelopes implicitly, so
// `payments.data.payment_method` and `payments.payment_method` are the same path.
const LIST_DATA = 'data';

/**
 * Splits one trimmed entry into its segments with `data` removed, or `undefined` when the
 * entry is malformed or names nothing. `allowWildcard` accepts one trailing `*` (show/hide).
 */
function segmentsOf(entry: string, allowWildcard: boolean): string[] | undefined {
  const parts = entry.split('.');
  // `a.*` means "a with all of its properties", which is exactly what `a` already means.
  if (allowWildcard && parts.length > 1 && parts[parts.length - 1] === '*') parts.pop();
  const segments: string[] = [];
  for (const part of parts) {
    // `__proto__` would write a prototype instead of a key when the tree is built.
    if (!SEGMENT.test(part) || part === '__proto__') return undefined;
    if (part !== LIST_DATA) segments.push(part);
  }
  return segments.length > 0 ? segments : undefined;
}

/** The non-empty, trimmed entries of a comma-separated value (`expand=`, `,a,,b,` included). */
function rawEntries(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const entries: string[] = [];
  for (const piece of raw.split(',')) {
    const entry = piece.trim();
    if (entry !== '') entries.push(entry);
  }
  return entries;
}

/** The kept, normalised `expand` entries in request order: `'data.payments.data.payment_method,,customer'` → `['payments.payment_method', 'customer']`. */
export function expandEntries(raw: string | undefined, context: ExpandContext): string[] {
  // Order of the rules (conventions.md 10): malformed entries go first (they are not paths
  // and take no slot), then `data` segments, depth, duplicates, and last the context's limit,
  // which drops the excess from the end.
  const limit = EXPAND_LIMITS[context];
  const kept = new Set<string>();
  for (const entry of rawEntries(raw)) {
    const segments = segmentsOf(entry, false);
    if (segments === undefined) continue;
    // Too-deep paths are not dropped: "segments past the fourth are ignored".
    kept.add(segments.slice(0, EXPAND_LIMITS.depth).join('.'));
    // Counting happens after dedupe, so a repeated entry never pushes a later one out.
    if (kept.size === limit) break;
  }
  return [...kept];
}

/** Parses an `expand` value into a tree, never throwing: `'items.product,customer'` → `{ items: { product: {} }, customer: {} }`. */
export function parseExpand(raw: string | undefined, context: ExpandContext): PathTree {
  const tree: PathTree = {};
  for (const entry of expandEntries(raw, context)) {
    // Union merge: `items` and `items.product` both mean "expand items", and the longer
    // one adds its product on top.
    let node = tree;
    for (const segment of entry.split('.')) node = childOf(node, segment);
  }
  return tree;
}

/** Appends `options` to an `expand` value when the legacy flag `options=true` (or `1`) is sent. */
export function withLegacyOptions(expand: string | undefined, query: Record<string, string>): string | undefined {
  // Older cart and invoice clients ask for the virtual `options` expansion this way. It goes
  // last, so it is the first entry dropped when the value is already at the limit.
  const flag = query.options?.trim().toLowerCase();
  if (flag !== 'true' && flag !== '1') return expand;
  return expand === undefined || expand.trim() === '' ? 'options' : `${expand},options`;
}

/** Parses a `show` or `hide` value into a tree (`a.*` is `a`); `undefined` when it has no entries. */
export function parsePathList(raw: string | undefined): PathTree | undefined {
  // Never throws. Malformed entries are dropped one by one; a value of only malformed
  // entries still gives a tree (an empty one), so `show=in_grace_period;` acts like a show
  // of unknown names rather than like no show at all. Depth is not limited: the contract's
  // own example `cart.items.product.images.link_square` has five segments.
  const entries = rawEntries(raw);
  if (entries.length === 0) return undefined;
  const tree: PathTree = {};
  for (const entry of entries) {
    const segments = segmentsOf(entry, true);
    if (segments !== undefined) insertTerminal(tree, segments);
  }
  return tree;
}

/** The child node for `segment`, created when missing; own keys only (`constructor` is a name too). */
function childOf(node: PathTree, segment: string): PathTree {
  const existing = Object.hasOwn(node, segment) ? node[segment] : undefined;
  if (existing !== undefined) return existing;
  const created: PathTree = {};
  node[segment] = created;
  return created;
}

/**
 * Inserts a path whose end means "the whole value". An empty node on the way is such an
 * end already (intermediate nodes always get a child), so the longer path adds nothing;
 * and the end replaces whatever longer paths were recorded below it.
 */
function insertTerminal(tree: PathTree, segments: string[]): void {
  let node = tree;
  const last = segments.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = segments[i]!;
    const existing = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (existing !== undefined && Object.keys(existing).length === 0) return;
    node = childOf(node, segment);
  }
  node[segments[last]!] = {};
}
