/**
 * `expand` (conventions.md §10): replaces link URLs by the objects they name, level by
 * level, through embedded arrays and at every depth. All links of one level, across every
 * resource being rendered (a whole list page, every line of every embedded `items` array),
 * are read with one BatchGetItem (split into 100-key calls only when a level holds more keys
 * than DynamoDB takes at once); records the request already read (`preread`) are not read
 * again. Embedded objects and objects already inline cost no read: they are walked within
 * the level that reached them, so their links join that level's batch. Sub-collections
 * become the first page of their list; virtual expansions (`options`) are computed from the
 * stored record. Links the caller may not read, links to missing
 * records and paths that do not apply are left as they are: expand never fails a request.
 */
import { isAllowed } from '../core/access/permissions';
import { reaches, type Principal } from '../core/access/principal';
import { mayReachId, reachesStored } from './reach';
import { batchGetItems, recordKey } from '../store/records';
import { declarationOf, type DeclarationLookup, type ResourceDeclaration, type VirtualExpansion } from './declarations';
import { addFormatted } from './formatted-output';
import { MAX_LIMIT, offsetList, pageUrlBuilder } from './offset-list';
import type { PathTree } from './paths';
import type { RenderContext } from './render-context';

/** A rendered resource to expand: its JSON, its declaration and the stored record it was rendered from. */
export interface ExpandRoot {
  json: Record<string, unknown>;
  declaration: ResourceDeclaration;
  /** The stored record; virtual expansions are computed from it (without one they are skipped). */
  stored?: unknown;
}

/** An object being expanded, and the expand subtree still to apply to it. */
interface Node {
  json: Record<string, unknown>;
  declaration: ResourceDeclaration;
  /** The stored record of the JSON; undefined for inline objects (embedded lines, sale customers). */
  stored: unknown;
  /**
   * Whether a limited caller reaches the record this object is or belongs to (by path, or by
   * customer scope over a stored record): its sub-collections are then readable (commerce.md §0.1).
   */
  reached: boolean;
  tree: PathTree;
  /** Inside a list element: sub-collections are never expanded there. */
  inList: boolean;
}

/** A link to read in the level's batch. */
interface LinkRead {
  holder: Record<string, unknown>;
  property: string;
  target: ResourceDeclaration;
  id: string;
  tree: PathTree;
  inList: boolean;
}

/** A virtual expansion being computed; results are assigned in visiting order. */
interface VirtualRun {
  node: Node;
  property: string;
  tree: PathTree;
  virtual: VirtualExpansion;
  value: Promise<unknown>;
}

/** Whether the caller's permissions let it read every record of a declaration. */
function readsAll(principal: Principal, declaration: ResourceDeclaration): boolean {
  return principal.isOwner || isAllowed(principal.permissions, declaration.permission, 'read');
}

/**
 * Whether the caller may read the record `id` of a declaration: permissions decide, and for a
 * limited token its bindings and reach (auth.md 3.3), or its customer scope, which the record
 * read confirms (`mayShow`).
 */
function mayRead(context: RenderContext, declaration: ResourceDeclaration, id: string): boolean {
  const principal = context.principal;
  if (!principal) return false;
  return readsAll(principal, declaration) || (principal.kind === 'limited' && mayReachId(principal, declaration, id));
}

/**
 * Whether the caller may read a sub-collection listing `declaration` under a record: its
 * permissions, or for a limited token reach over that record (commerce.md §0.1: it reads the
 * sub-collections of resources it reaches).
 */
function mayReadList(context: RenderContext, declaration: ResourceDeclaration, ownerReached: boolean): boolean {
  const principal = context.principal;
  if (!principal) return false;
  return readsAll(principal, declaration) || (principal.kind === 'limited' && ownerReached);
}

/**
 * Whether a record a link named may be shown to the caller: in its reach (a limited token
 * without the permission: by path or customer scope) and allowed by the declaration's
 * record-level rule. Another customer's record stays a URL.
 */
function mayShow(declaration: ResourceDeclaration, stored: unknown, principal: Principal | undefined): boolean {
  if (!principal) return false;
  if (!readsAll(principal, declaration) && !reachesStored(principal, declaration, stored)) return false;
  return !declaration.visibleTo || declaration.visibleTo(stored, principal);
}

/** Whether a limited caller reaches a record it has (stored) or knows by id only (inline objects). */
function reachedBy(context: RenderContext, declaration: ResourceDeclaration, stored: unknown, id: string | undefined): boolean {
  const principal = context.principal;
  if (!principal) return false;
  if (stored !== undefined) return reachesStored(principal, declaration, stored);
  return id !== undefined && reaches(principal, `${declaration.collection}/${id}`);
}

/** The id in a link URL of a declaration, or undefined when the URL is not one of its links. */
function idFromUrl(url: string, declaration: ResourceDeclaration, context: RenderContext): string | undefined {
  const prefix = context.url(`${declaration.collection}/`);
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  if (!rest || rest.includes('/') || rest.includes('?')) return undefined;
  return decodeURIComponent(rest);
}

/** The id of a rendered object: from its stored record, else its id property. */
function idOf(declaration: ResourceDeclaration, stored: unknown, json: Record<string, unknown>): string | undefined {
  if (stored !== undefined) return declaration.idOf(stored);
  const id = json[declaration.idField];
  return typeof id === 'string' ? id : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A declared entry by name; own keys only, so `expand=constructor` names nothing. */
function own<T>(entries: Record<string, T> | undefined, name: string): T | undefined {
  return entries !== undefined && Object.hasOwn(entries, name) ? entries[name] : undefined;
}

function hasPaths(tree: PathTree): boolean {
  return Object.keys(tree).length > 0;
}

/** Renders a stored record of a declaration (JSON, plus `formatted` when asked). */
export function renderStored(declaration: ResourceDeclaration, stored: unknown, context: RenderContext): Record<string, unknown> {
  const json = declaration.toJson(stored, context);
  if (context.formatted) addFormatted(json, declaration.formatted, context);
  return json;
}

/**
 * Applies an expand tree to rendered resources, one batched read per level. Links are
 * resolved through `lookup`: the registry the app installed, or a test's own declarations.
 * `inList` says the roots are the elements of a list page (no sub-collections in them).
 */
export async function expandResources(
  roots: readonly ExpandRoot[],
  tree: PathTree,
  context: RenderContext,
  inList: boolean,
  lookup: DeclarationLookup = declarationOf,
): Promise<void> {
  if (!hasPaths(tree)) return;
  let level: Node[] = roots.map(({ json, declaration, stored }) => ({
    json,
    declaration,
    stored,
    reached: reachedBy(context, declaration, stored, idOf(declaration, stored, json)),
    tree,
    inList,
  }));
  while (level.length) {
    const next: Node[] = [];
    const reads: LinkRead[] = [];
    const virtuals: VirtualRun[] = [];
    const lists: Array<Promise<void>> = [];
    // `level` grows while it is walked: objects reached without a read (embedded lines,
    // inline objects) are visited in this same level, so their links join its batch.
    for (let index = 0; index < level.length; index++) {
      const node = level[index]!;
      const { declaration } = node;
      for (const [property, subtree] of Object.entries(node.tree)) {
        const value = node.json[property];
        const virtual = own(declaration.virtuals, property);
        const embedded = own(declaration.embedded, property);
        const linkTarget = own(declaration.links, property);
        const sub = own(declaration.subCollections, property);
        if (virtual) {
          // Computed from the stored record; an inline object has none, so it has no virtuals.
          if (node.stored === undefined) continue;
          const stored = node.stored;
          virtuals.push({ node, property, tree: subtree, virtual, value: Promise.resolve().then(() => virtual.compute(stored, context)) });
        } else if (embedded) {
          const target = lookup(embedded);
          if (!target || !hasPaths(subtree)) continue;
          for (const element of Array.isArray(value) ? value : [value]) {
            if (isObject(element)) level.push({ json: element, declaration: target, stored: undefined, reached: node.reached, tree: subtree, inList: node.inList });
          }
        } else if (linkTarget) {
          const target = lookup(linkTarget);
          if (!target) continue;
          if (isObject(value)) {
            // Already inline (the cart's sale customer, or expanded by an earlier path): walk into it.
            if (hasPaths(subtree)) level.push({ json: value, declaration: target, stored: undefined, reached: reachedBy(context, target, undefined, idOf(target, undefined, value)), tree: subtree, inList: node.inList });
            continue;
          }
          if (typeof value !== 'string') continue;
          const id = idFromUrl(value, target, context);
          if (id !== undefined && mayRead(context, target, id)) reads.push({ holder: node.json, property, target, id, tree: subtree, inList: node.inList });
        } else if (sub && !node.inList && typeof value === 'string') {
          const target = lookup(sub.resource);
          const firstPage = sub.firstPage ?? target?.listedUnder?.[declaration.name];
          const parentId = idOf(declaration, node.stored, node.json);
          if (!target || !firstPage || parentId === undefined || !mayReadList(context, target, node.reached)) continue;
          lists.push(
            firstPage(parentId, context, node.stored).then(({ records, totalItems }) => {
              const data = records.map((record) => renderStored(target, record, context));
              node.json[property] = offsetList(data, { limit: MAX_LIMIT, offset: 0 }, totalItems, pageUrlBuilder(value, {}, 'offset'));
              records.forEach((record, position) => {
                next.push({ json: data[position]!, declaration: target, stored: record, reached: reachedBy(context, target, record, undefined), tree: subtree, inList: true });
              });
            }),
          );
        }
      }
    }
    const [values] = await Promise.all([Promise.all(virtuals.map((run) => run.value)), Promise.all(lists)]);
    virtuals.forEach((run, position) => attachVirtual(run, values[position], next, context, lookup));
    if (reads.length) {
      const keys = reads.map((read) => recordKey(read.target, context, read.id));
      const missing = keys.filter((key) => !context.preread.has(key.pk));
      const found = missing.length ? await batchGetItems(missing) : new Map<string, Record<string, unknown>>();
      for (const [index, read] of reads.entries()) {
        const pk = keys[index]!.pk;
        const item = found.get(pk) ?? context.preread.get(pk);
        if (!item || !mayShow(read.target, item, context.principal)) continue;
        const json = renderStored(read.target, item, context);
        read.holder[read.property] = json;
        next.push({ json, declaration: read.target, stored: item, reached: reachedBy(context, read.target, item, read.id), tree: read.tree, inList: read.inList });
      }
    }
    level = next.filter((node) => hasPaths(node.tree));
  }
}

/** Puts a computed virtual value in place; a value of a declared resource is rendered and walked on. */
function attachVirtual(run: VirtualRun, value: unknown, next: Node[], context: RenderContext, lookup: DeclarationLookup): void {
  if (value === undefined) return;
  const { node, property, virtual } = run;
  if (virtual.resource === undefined) {
    node.json[property] = value;
    return;
  }
  const target = lookup(virtual.resource);
  if (!target) return;
  const json = renderStored(target, value, context);
  node.json[property] = json;
  next.push({ json, declaration: target, stored: value, reached: reachedBy(context, target, value, undefined), tree: run.tree, inList: node.inList });
}
