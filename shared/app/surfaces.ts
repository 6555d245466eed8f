/**
 * The platform's surfaces (shared/http/surfaces.ts), in the order requests are matched: image
 * files on every host, the API on every host (and for every path the platform host has no other
 * surface for: its 404s and 405s), hosted functions' invoke URLs and the sign-in page on the platform host, and hosted apps (by path on the platform host, and every
 * other path of an app host).
 */
import type { SurfaceDefinition } from '../http/surfaces';

export const surfaces = [
  { name: 'images', pathPrefix: '/images/', hosts: 'any' },
  { name: 'api', pathPrefix: '/api/v1/', bare: true, hosts: 'any', defaultOn: 'platform' },
  // Hosted functions' invoke URLs (functions.md §7): any method, raw bodies, `?token=`; the
  // function-router family answers them (an `ANY /func/v1/{proxy+}` route in the cloud).
  { name: 'functions', pathPrefix: '/func/v1/', hosts: 'platform' },
  // The sign-in page (auth.md 5.1): HTML forms, cookies, form bodies, redirects; the signin
  // family answers it (`ANY /signin/` and `ANY /signin/{proxy+}` routes in the cloud).
  { name: 'signin', pathPrefix: '/signin/', bare: true, hosts: 'platform' },
  { name: 'apps', pathPrefix: '/apps/', hosts: 'platform', defaultOn: 'app-hosts' },
] as const satisfies readonly SurfaceDefinition[];

/** A surface's name. */
export type SurfaceName = (typeof surfaces)[number]['name'];

/** The surface named `name`. */
export function surfaceNamed(name: SurfaceName): (typeof surfaces)[number] {
  return surfaces.find((surface) => surface.name === name)!;
}
