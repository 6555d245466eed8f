/**
 * Resource declarations: what the REST conventions engine needs to know about a resource to
 * serialize it (links, sub-collections, formattable properties, nested objects), list it
 * and expand into it. A resource module declares itself once; expand, show/hide, formatted,
 * dates and lists then work for it without code of its own.
 */
import type { PermissionResource } from '../auth/permission-names';
import type { RenderContext } from './render-context';

/** Formattable properties of one JSON object shape (conventions.md §14). */
export interface FormattedShape {
  /** Money property → the property holding its currency (e.g. `price` → `currency`). */
  money?: Record<string, string>;
  /** Timestamp properties (ISO strings in the output). */
  dates?: readonly string[];
  /** Rate properties stored as fractions (`tax_rate`). */
  percents?: readonly string[];
  /** ISO 3166 country codes (addresses). */
  countries?: readonly string[];
  /** Nested object properties and their own shapes (addresses, items). Arrays apply per element. */
  nested?: Record<string, FormattedShape>;
}

/** A sub-collection of a resource: an offset list under `<resource url>/<property>`. */
export interface SubCollection {
  /** The listed resource's declaration name. */
  resource: string;
  /** Reads the first page (default order, default limit) for `expand`; undefined while the resource does not exist yet. */
  firstPage?: (parentId: string, context: RenderContext) => Promise<unknown>;
}

/** Everything the engine knows about one resource kind. */
export interface ResourceDeclaration<Stored = any> {
  /** `object` value, e.g. `product`. */
  name: string;
  /** Path segment of the collection under /api/v1, e.g. `products`. */
  collection: string;
  /** The id property, e.g. `product_id`. */
  idField: string;
  /** Permission resource read access is checked against when expanding into it. */
  permission: PermissionResource;
  /** Partitioning: `mode` (test and live apart) or `account` (shared by both modes). */
  scope: 'mode' | 'account';
  /** Single links: property → target declaration name (a URL in output, expandable). */
  links?: Record<string, string>;
  /** Sub-collections: property → declaration (a URL in output, expandable on single resources). */
  subCollections?: Record<string, SubCollection>;
  /** Formattable properties of the resource object itself. */
  formatted?: FormattedShape;
  /** The id of a stored record. */
  idOf(stored: Stored): string;
  /** The JSON representation with links as absolute URL strings (before expand/formatted/show). */
  toJson(stored: Stored, context: RenderContext): Record<string, unknown>;
}

/**
 * Declares a resource: the identity, typed by the stored record. Declaring registers nothing;
 * the registry is the explicit list in `./resources`, so a declaration that is not listed
 * there fails the declarations test instead of silently disabling expansion into it.
 */
export function declareResource<Stored>(declaration: ResourceDeclaration<Stored>): ResourceDeclaration<Stored> {
  return declaration;
}

/** Finds a declaration by its `name`; what expansion follows links and sub-collections with. */
export type DeclarationLookup = (name: string) => ResourceDeclaration | undefined;

/** The lookup over a fixed list of declarations; fails on a duplicate name. */
export function lookupOf(declarations: readonly ResourceDeclaration[]): DeclarationLookup {
  const byName = new Map<string, ResourceDeclaration>();
  for (const declaration of declarations) {
    if (byName.has(declaration.name)) throw new Error(`Duplicate resource declaration "${declaration.name}"`);
    byName.set(declaration.name, declaration);
  }
  return (name) => byName.get(name);
}
