/**
 * Surfaces: the parts of the platform's address space, each with its own rules (how requests
 * are read, authenticated and answered). The API (`/api/v1/`, JSON, tokens) is one; hosted app
 * files and product image files are others; hosted functions (`/func/v1/<id>`, raw bodies, any
 * method) and the sign-in pages (forms, cookies) will be more. A surface is data: where it
 * answers (a path prefix, on which hosts) and whether it is a host's default. The local gateway
 * and the CDN's behaviours iterate the app's list (shared/app/surfaces.ts) instead of carrying
 * one branch each.
 */

/** The hosts a surface answers on: the platform's own host, the accounts' app hosts, or both. */
export type SurfaceHosts = 'platform' | 'app-hosts' | 'any';

export interface SurfaceDefinition<Name extends string = string> {
  name: Name;
  /** The path prefix it answers below, with its trailing slash (`/api/v1/`). */
  pathPrefix: string;
  /** Whether the prefix without its slash (`/api/v1`) is the surface's too. */
  bare?: boolean;
  hosts: SurfaceHosts;
  /** Requests no surface's prefix claims go to this surface on these hosts (the API on the platform host, apps on app hosts). */
  defaultOn?: Exclude<SurfaceHosts, 'any'>;
}

/** Whether `surface` answers `path` on a host of kind `host` by its prefix. */
function claims(surface: SurfaceDefinition, path: string, host: Exclude<SurfaceHosts, 'any'>): boolean {
  if (surface.hosts !== 'any' && surface.hosts !== host) return false;
  return path.startsWith(surface.pathPrefix) || (surface.bare === true && path === surface.pathPrefix.slice(0, -1));
}

/**
 * The surface of a request: the first whose prefix claims the path on this kind of host, else
 * the host's default. Surfaces are tried in the order given.
 *
 * @example surfaceFor(surfaces, '/images/ABC/s.jpg', 'app-hosts') → the images surface
 */
export function surfaceFor<S extends SurfaceDefinition>(surfaces: readonly S[], path: string, host: Exclude<SurfaceHosts, 'any'>): S | undefined {
  return surfaces.find((surface) => claims(surface, path, host)) ?? surfaces.find((surface) => surface.defaultOn === host);
}

/** The CloudFront path pattern of a surface (`/api/v1/*`). */
export function pathPatternOf(surface: Pick<SurfaceDefinition, 'pathPrefix'>): string {
  return `${surface.pathPrefix}*`;
}
