/**
 * `show` and `hide` (conventions.md section 11): a whitelist or blacklist of dot paths applied
 * to the serialized (already expanded) resource, just before it is written out.
 */
import { InvalidInputError } from '../http/errors';
import { parsePathList, type PathTree } from './paths';

/** The parsed `show`/`hide` of one request; at most one of them is set. */
export interface ShowHide {
  show?: PathTree;
  hide?: PathTree;
}

/** Parsed show/hide of a request; both non-empty is a 400 `invalid_input` conflict. */
export function parseShowHide(query: Record<string, string>): ShowHide {
  const show = parsePathList(query.show);
  const hide = parsePathList(query.hide);
  // Only two non-empty values conflict: some clients always send `hide=` alongside `show`.
  if (show !== undefined && hide !== undefined) {
    throw new InvalidInputError('show and hide cannot be used together.', {
      parameter: 'hide',
      reason: 'conflict',
      conflicts_with: 'show',
    });
  }
  const result: ShowHide = {};
  if (show !== undefined) result.show = show;
  if (hide !== undefined) result.hide = hide;
  return result;
}

/** Applies show/hide to one serialized resource (plain JSON), returning a new value; the input is never mutated. */
export function applyShowHide(resource: Record<string, unknown>, spec: ShowHide): Record<string, unknown> {
  // Untouched sub-values are shared with the input rather than deep-copied: the result is
  // serialized straight away, and copying every response would be work for nothing.
  return applyTop(resource, compiled(spec.show), compiled(spec.hide));
}

/** Applies show/hide to each element of a top-level list envelope; the envelope fields are always returned. */
export function applyShowHideToList(list: Record<string, unknown>, spec: ShowHide): Record<string, unknown> {
  // Compiled once here, then reused for every element.
  const show = compiled(spec.show);
  const hide = compiled(spec.hide);
  const data = list.data;
  if (!Array.isArray(data)) return { ...list };
  // Each element is a resource the client can address, so its own `url` stays too.
  return { ...list, data: data.map((element: unknown) => (isObject(element) ? applyTop(element, show, hide) : element)) };
}

/** A path tree prepared for walking: children in a Map, twin keys worked out once. */
interface Node {
  /** No children: the path ends here and means the whole value. */
  leaf: boolean;
  children: Map<string, Node>;
  /** The node for `formatted` when the path names it (`show=formatted.total`). */
  formatted: Node | undefined;
  /** Children other than `formatted` whose `formatted` twin follows them. */
  twins: Set<string>;
  /** Leaf children other than `formatted`: hiding them also hides their twin. */
  leafTwins: Set<string>;
}

// The sibling object of display strings (conventions.md 14) whose keys twin their property's.
const FORMATTED = 'formatted';

// Requests with many list elements walk the same tree for each element; compiling it once
// per parsed tree keeps that per-element work to Map lookups.
const cache = new WeakMap<PathTree, Node>();

function compiled(tree: PathTree | undefined): Node | undefined {
  if (tree === undefined) return undefined;
  let node = cache.get(tree);
  if (node === undefined) {
    node = compile(tree);
    cache.set(tree, node);
  }
  return node;
}

function compile(tree: PathTree): Node {
  const children = new Map<string, Node>();
  const twins = new Set<string>();
  const leafTwins = new Set<string>();
  for (const [segment, subtree] of Object.entries(tree)) {
    const child = compile(subtree);
    children.set(segment, child);
    if (segment === FORMATTED) continue;
    twins.add(segment);
    if (child.leaf) leafTwins.add(segment);
  }
  return { leaf: children.size === 0, children, formatted: children.get(FORMATTED), twins, leafTwins };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isListEnvelope(value: Record<string, unknown>): value is Record<string, unknown> & { data: unknown[] } {
  return value.object === 'list' && Array.isArray(value.data);
}

/** Sets a key as an own data property, even one spelled like `__proto__`. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function applyTop(resource: Record<string, unknown>, show: Node | undefined, hide: Node | undefined): Record<string, unknown> {
  let result = resource;
  if (show !== undefined) result = showObject(result, show, true);
  if (hide !== undefined) result = hideObject(result, hide, true);
  return result === resource ? { ...resource } : result;
}

/**
 * Walks into a value below a named path: arrays and list envelopes are crossed (each element
 * gets the same treatment, envelope fields are kept), objects are trimmed or pruned.
 * A primitive (an unexpanded link's URL, `null`) cannot be trimmed and is returned as it is.
 */
function walk(value: unknown, node: Node, object: (value: Record<string, unknown>, node: Node) => Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((element: unknown) => walk(element, node, object));
  if (!isObject(value)) return value;
  if (isListEnvelope(value)) return { ...value, data: value.data.map((element) => walk(element, node, object)) };
  return object(value, node);
}

const showNested = (value: Record<string, unknown>, node: Node): Record<string, unknown> => showObject(value, node, false);
const hideNested = (value: Record<string, unknown>, node: Node): Record<string, unknown> => hideObject(value, node, false);

/** Keeps only the named properties (and their formatted twins); key order is the resource's. */
function showObject(source: Record<string, unknown>, node: Node, top: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (key === FORMATTED && isObject(value)) {
      const formatted = showFormatted(value, node);
      if (formatted !== undefined) result[key] = formatted;
      continue;
    }
    const child = node.children.get(key);
    if (child !== undefined) put(result, key, child.leaf ? value : walk(value, child, showNested));
    // Clients send `url` straight back as the request URL, so the resource's own one stays.
    else if (top && key === 'url') result[key] = value;
  }
  return result;
}

/**
 * The `formatted` object under `show`: the twins of shown properties, plus what the path
 * names inside `formatted` itself. `undefined` when neither applies, so an unrelated
 * `formatted` does not appear.
 */
function showFormatted(formatted: Record<string, unknown>, node: Node): Record<string, unknown> | undefined {
  const named = node.formatted;
  if (named?.leaf) return formatted;
  let result: Record<string, unknown> | undefined = named === undefined ? undefined : {};
  for (const key of Object.keys(formatted)) {
    const value = formatted[key];
    if (node.twins.has(key)) {
      result ??= {};
      put(result, key, value);
      continue;
    }
    const child = named?.children.get(key);
    if (child === undefined) continue;
    result ??= {};
    put(result, key, child.leaf ? value : walk(value, child, showNested));
  }
  return result;
}

/** Drops the named properties (and their formatted twins); hiding a missing path is a no-op. */
function hideObject(source: Record<string, unknown>, node: Node, top: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (key === FORMATTED && isObject(value)) {
      const formatted = hideFormatted(value, node);
      if (formatted !== undefined) result[key] = formatted;
      continue;
    }
    const child = node.children.get(key);
    if (child === undefined) put(result, key, value);
    else if (!child.leaf) put(result, key, walk(value, child, hideNested));
    // The top-level `url` is always returned (see showObject), `hide=url` included.
    else if (top && key === 'url') result[key] = value;
  }
  return result;
}

/** The `formatted` object under `hide`: twins of hidden properties go, the rest stays. */
function hideFormatted(formatted: Record<string, unknown>, node: Node): Record<string, unknown> | undefined {
  const named = node.formatted;
  if (named?.leaf) return undefined;
  if (named === undefined && node.leafTwins.size === 0) return formatted;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(formatted)) {
    if (node.leafTwins.has(key)) continue;
    const value = formatted[key];
    const child = named?.children.get(key);
    if (child === undefined) put(result, key, value);
    else if (!child.leaf) put(result, key, walk(value, child, hideNested));
  }
  // Nothing left to show: drop the object, as `show` does when no twin is kept.
  return Object.keys(result).length ? result : undefined;
}
