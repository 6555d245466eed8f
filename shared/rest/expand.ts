/**
 * `expand` (conventions.md §10): replaces link URLs by the objects they name, level by
 * level. All links of one depth level, across every resource being rendered (a whole list
 * page included), are read with one BatchGetItem; sub-collections become the first page of
 * their list. Links the caller may not read, links to missing records and paths that do not
 * apply are left as they are: expand never fails a request.
 */
import { isAllowed } from '../auth/permissions';
import { reaches } from '../auth/reach';
import { batchGetItems, recordKey } from '../store/records';
import type { DeclarationLookup, ResourceDeclaration } from './declarations';
import { addFormatted } from './formatted-output';
import type { PathTree } from './paths';
import type { RenderContext } from './render-context';
import { declarationOf } from './resources';

/** A rendered object, its declaration, and the expand subtree still to apply to it. */
interface Pending {
  json: Record<string, unknown>;
  declaration: ResourceDeclaration;
  tree: PathTree;
  /** Inside a list element: sub-collections are never expanded there. */
  inList: boolean;
}

/**
 * Whether the caller may read a resource of a declaration (the record `id`, when known):
 * permissions decide, and for a limited token its bindings and reach (auth.md 3.3).
 */
function mayRead(context: RenderContext, declaration: ResourceDeclaration, id?: string): boolean {
  const principal = context.principal;
  if (!principal) return false;
  if (principal.isOwner || isAllowed(principal.permissions, declaration.permission, 'read')) return true;
  return principal.kind === 'limited' && id !== undefined && reaches(principal, `${declaration.collection}/${id}`);
}

/** The id in a link URL of a declaration, or undefined when the URL is not one of its links. */
function idFromUrl(url: string, declaration: ResourceDeclaration, context: RenderContext): string | undefined {
  const prefix = context.url(`${declaration.collection}/`);
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  if (!rest || rest.includes('/') || rest.includes('?')) return undefined;
  return decodeURIComponent(rest);
}

/** Renders a stored record of a declaration (JSON, plus `formatted` when asked). */
export function renderStored(declaration: ResourceDeclaration, stored: unknown, context: RenderContext): Record<string, unknown> {
  const json = declaration.toJson(stored, context);
  if (context.formatted) addFormatted(json, declaration.formatted, context);
  return json;
}

/**
 * Applies an expand tree to rendered resources, one batched read per depth level. Links are
 * resolved through `lookup`: the platform's registry, or a test's own declarations.
 */
export async function expandResources(
  roots: Array<{ json: Record<string, unknown>; declaration: ResourceDeclaration }>,
  tree: PathTree,
  context: RenderContext,
  inList: boolean,
  lookup: DeclarationLookup = declarationOf,
): Promise<void> {
  let level: Pending[] = roots.map((root) => ({ ...root, tree, inList }));
  while (level.length) {
    const next: Pending[] = [];
    const links: Array<{ holder: Record<string, unknown>; property: string; target: ResourceDeclaration; id: string; tree: PathTree; inList: boolean }> = [];
    const subLists: Array<Promise<void>> = [];
    for (const node of level) {
      for (const [property, subtree] of Object.entries(node.tree)) {
        const value = node.json[property];
        const linkTarget = node.declaration.links?.[property];
        const sub = node.declaration.subCollections?.[property];
        if (linkTarget) {
          const target = lookup(linkTarget);
          if (!target) continue;
          if (value && typeof value === 'object' && !Array.isArray(value)) {
            // Already inline (or expanded by an earlier path): keep walking into it.
            next.push({ json: value as Record<string, unknown>, declaration: target, tree: subtree, inList: node.inList });
            continue;
          }
          if (typeof value !== 'string') continue;
          const id = idFromUrl(value, target, context);
          if (id !== undefined && mayRead(context, target, id)) links.push({ holder: node.json, property, target, id, tree: subtree, inList: node.inList });
        } else if (sub && !node.inList && typeof value === 'string' && sub.firstPage) {
          const target = lookup(sub.resource);
          if (!target || !mayRead(context, target)) continue;
          const parentId = node.declaration.idOf(node.json);
          subLists.push(
            sub.firstPage(parentId, context).then((list) => {
              node.json[property] = list;
              const data = (list as { data?: Record<string, unknown>[] }).data ?? [];
              for (const element of data) next.push({ json: element, declaration: target, tree: subtree, inList: true });
            }),
          );
        }
      }
    }
    await Promise.all(subLists);
    if (links.length) {
      const stored = await batchGetItems(links.map((link) => recordKey(link.target, context, link.id)));
      for (const link of links) {
        const item = stored.get(recordKey(link.target, context, link.id).pk);
        if (!item) continue;
        const json = renderStored(link.target, item, context);
        link.holder[link.property] = json;
        next.push({ json, declaration: link.target, tree: link.tree, inList: link.inList });
      }
    }
    level = next.filter((node) => Object.keys(node.tree).length > 0);
  }
}
