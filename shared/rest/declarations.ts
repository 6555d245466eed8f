/**
 * Resource declarations: what the REST conventions engine needs to know about a resource to
 * serialize it (links, sub-collections, embedded objects, virtual expansions, formattable
 * properties), list it and expand into it. A resource module declares itself once; expand,
 * show/hide, formatted, dates and lists then work for it without code of its own.
 */
import type { PermissionResource } from '../core/access/permission-names';
import type { Principal } from '../core/access/principal';
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
  /**
   * Reads the stored records of the first page (default order, default limit) and the
   * collection's size, for `expand`; the engine renders them and builds the offset envelope.
   * Undefined while the listed resource does not exist yet: the sub-collection stays a URL.
   * `parent` is the parent's stored record when the engine read it (undefined for an inline object).
   */
  firstPage?: (parentId: string, context: RenderContext, parent?: unknown) => Promise<{ records: unknown[]; totalItems: number }>;
}

/**
 * A virtual expansion (conventions.md §10): a property that is not part of the resource and is
 * computed only when an `expand` path names it, at any depth (`options` on a cart or order,
 * so `cart.options` on a payment too). It is computed from the stored record, so it applies to
 * resources the engine has a record for: the rendered root, expanded links and sub-collection
 * elements, not the inline objects of an embedded array.
 */
export interface VirtualExpansion<Stored = any> {
  /**
   * The value. The render context carries what it may need about the account, loaded once
   * for the whole answer: payment settings (`context.payment`), locale, currency, mode.
   * `undefined` leaves the property out.
   */
  compute(stored: Stored, context: RenderContext): unknown;
  /**
   * Set when the value is a stored record of another declaration (the login answer's `auth`):
   * it is rendered through that declaration, and longer paths walk on into it.
   */
  resource?: string;
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
  /**
   * How this resource lists under a parent, for expanding the parent's sub-collection: parent
   * declaration name → the first page (default order and limit) and the list's size. Declared by
   * the listed resource's module, which knows its own store, so a parent (`customer`) never
   * imports the modules listed under it (`orders`, `payments`); a sub-collection without one
   * here or a `firstPage` of its own stays a URL.
   *
   * @example listedUnder: { customer: async (customerId, context) => ({ records, totalItems }) }
   */
  listedUnder?: Record<string, (parentId: string, context: RenderContext) => Promise<{ records: unknown[]; totalItems: number }>>;
  /**
   * Embedded objects: property → declaration name of the inline object, or of every element
   * of the inline array (`items` → `cart_item`). Expand paths cross them at no read cost, so
   * `items.product` expands the product of every line, at any depth (`order.items.product`).
   */
  embedded?: Record<string, string>;
  /** Virtual expansions: property → how it is computed. Absent from the output unless asked. */
  virtuals?: Record<string, VirtualExpansion<Stored>>;
  /**
   * A record-level read rule for expansion, after permissions and reach allowed the kind:
   * whether `principal` may see this record (limited tokens: active products only). A link
   * to a record it may not see stays a URL.
   */
  visibleTo?(stored: Stored, principal: Principal): boolean;
  /**
   * Customer scope (commerce.md §0.1): the customer a record belongs to (null: none). Declaring
   * it puts the resource in a customer-scope token's reach: the token reads the records whose
   * customer is its own, by id, in lists under its customer and through expansion (./reach.ts).
   * Resources outside that reach (carts, products) leave it out.
   *
   * @example customerOf: (order) => order.customer_id
   */
  customerOf?(stored: Stored): string | null;
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

let installed: DeclarationLookup | undefined;

/**
 * Installs the platform's resource registry: shared/app/resources.ts does, once per process,
 * when the app is composed (every handler, worker and job imports it through shared/app). The
 * engine names no resource itself, so expansion finds a link's target through what the app
 * installed.
 */
export function installResources(lookup: DeclarationLookup): void {
  installed = lookup;
}

/** A registered declaration by name, or undefined; throws when no app installed its resources. */
export function declarationOf(name: string): ResourceDeclaration | undefined {
  if (!installed) throw new Error('No resource registry is installed: import shared/app/resources.ts (the app composition) before rendering');
  return installed(name);
}
