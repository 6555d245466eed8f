/**
 * The hosting module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule, type ObjectGrant } from '../../http/manifest';
import { allow, allowCrud, collectionRoutes } from '../../http/routes';
import { aliasDeclaration, appDeclaration, deploymentDeclaration, versionDeclaration } from './apps/apps';
import { MAX_VERSION_UPLOAD_BODY_BYTES } from './apps/limits';

/** Access to the hosted apps' files and to their manifests: the two key prefixes of the apps bucket both families reach. */
const appFiles = (access: Pick<ObjectGrant, 'read' | 'put' | 'delete'>): ObjectGrant[] =>
  ['apps/', 'app-manifests/'].map((prefix) => ({ bucket: 'apps', prefix, ...access }));

export const hostingModule = defineModule({
  name: 'hosting',
  families: {
    apps: {
      entry: 'handlers/http/apps.ts',
      // A version upload holds a zip of up to 50 MB and inflates one file of up to 200 MB at a time.
      memoryMb: 1536,
      description: 'Hosted apps: /apps, their versions, deployments and aliases',
      // Version files and manifests are written at upload; the files of failed or deleted versions are removed.
      // Every change that moves an alias pointer copies it to the CDN's KeyValueStore right after its commit.
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [], objects: appFiles({ read: true, put: true, delete: true }), edgePointers: true },
    },
    hosting: {
      entry: 'handlers/http/app-serving.ts',
      memoryMb: 512,
      description: 'Hosted apps behind the CDN (platform-owned files, bucket misses) and public account settings',
      // Reads pointers, apps and settings; the public route's per-IP rate limit writes its bucket.
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [], objects: appFiles({ read: true }) },
      cdnOrigin: true,
    },
  },
  routes: [
    ...collectionRoutes({ family: 'apps', path: '/api/v1/apps', id: 'app_id', access: allowCrud('apps') }),
    // Versions, deployments and aliases are parts of their app: changing them needs `apps:update`.
    ...collectionRoutes({
      family: 'apps',
      path: '/api/v1/apps/{app_id}/versions',
      id: 'version_id',
      access: { list: allow('apps', 'read'), read: allow('apps', 'read'), delete: allow('apps', 'update') },
    }),
    {
      method: 'POST',
      path: '/api/v1/apps/{app_id}/versions',
      family: 'apps',
      access: allow('apps', 'update'),
      body: 'multipart',
      multipart: { maxBytes: MAX_VERSION_UPLOAD_BODY_BYTES, fields: { label: 'Free text such as 1.4.2, at most 50 characters', comments: 'At most 1,000 characters' } },
      created: true,
    },
    { method: 'POST', path: '/api/v1/apps/{app_id}/deploy', family: 'apps', access: allow('apps', 'update'), created: true },
    { method: 'POST', path: '/api/v1/apps/{app_id}/rollback', family: 'apps', access: allow('apps', 'update'), created: true },
    ...collectionRoutes({
      family: 'apps',
      path: '/api/v1/apps/{app_id}/deployments',
      id: 'deployment_id',
      access: { list: allow('apps', 'read'), read: allow('apps', 'read') },
    }),
    ...collectionRoutes({
      family: 'apps',
      path: '/api/v1/apps/{app_id}/aliases',
      id: 'alias',
      access: { list: allow('apps', 'read'), read: allow('apps', 'read'), update: allow('apps', 'update'), delete: allow('apps', 'update') },
    }),
    { method: 'POST', path: '/api/v1/apps/{app_id}/aliases', family: 'apps', access: allow('apps', 'update'), created: true },
    { method: 'GET', path: '/api/v1/app_installations/public_settings/{account_id}/{mode}/account.js', family: 'hosting', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/app_installations/public_settings/{account_id}/{mode}/account.json', family: 'hosting', access: { kind: 'public' } },
  ],
  declarations: [appDeclaration, versionDeclaration, deploymentDeclaration, aliasDeclaration],
});
